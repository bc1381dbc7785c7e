"""How deep each cp.async wait is (docs/sync.md, "How deep a wait is").

thread-sync gives every ``wait_group`` the largest count that still lands each copy
it serves before that copy's readers: the number of groups committed after the
copy's group on every path to the wait, counted through the prologue, the steady
state and the epilogue.  Here the counts of the examples and of a kernel with two
independent copy/gemm pairs are pinned (so the steady state keeps num_stages - 1
groups in flight where the schedule allows it), the kernels whose waits got weaker
are checked race free and bit-identical to their source at several trip counts, and
every count is shown tight: letting any one wait leave one more group in flight
makes the race detector report -- at the tile level and, for the GEMM and flash
attention at num_stages 3, thread by thread at the NVVM level."""

import numpy as np
import pytest
from pipeline_helpers import apply_passes, example_kernel, with_num_stages
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import IntegerAttr, i32

from conftest import ROOT
from tilepipe.drivers.compile import make_context, parse_kernel
from tilepipe.dialects.nvvm import CpAsyncWaitGroupOp
from tilepipe.dialects.pipeline_sync import WaitGroupOp
from tilepipe.core.registry import get_all_passes
from tilepipe.semantics import find_races, run_tile_kernel
from tilepipe.semantics.nvvm.interp import (
    NvvmExecutionError,
    argument_types,
    gpu_kernel,
    run_nvvm_kernel,
)
from tilepipe.semantics.testing import assert_equivalent, loosened_waits
from tilepipe.core.flows import FLOWS

CUDA = FLOWS["cuda"].spec("scheduled")
ONE_BLOCK = [(0, 0)]
TRIP_COUNTS = (0, 1, 2, 3, 5, 9)
# The lit test of the same kernel (the wait counts as FileCheck lines); %n trips.
TWO_PAIRS = ROOT / "test" / "cuda" / "sync" / "wait-depth.mlir"


def two_pairs(num_stages: int) -> str:
    return with_num_stages(TWO_PAIRS.read_text(), num_stages)


def waits_around_the_loop(module) -> tuple[list[int], list[int], list[int]]:
    """The wait counts before the steady-state loop, in it and after it."""
    (loop,) = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    inside = [op.pending_groups for op in loop.walk() if isinstance(op, WaitGroupOp)]
    ops = list(loop.parent_block().ops)
    split = ops.index(loop)

    def counts(statements) -> list[int]:
        waits = (w for op in statements for w in op.walk() if isinstance(w, WaitGroupOp))
        return [w.pending_groups for w in waits]

    return counts(ops[:split]), inside, counts(ops[split + 1 :])


# (before the loop, in the loop, after the loop), at the examples' 16 iterations and
# the two-pair kernel's dynamic trip count.  The GEMMs wait at the top of the
# iteration, before its own group is committed: num_stages - 2 groups stay in flight
# there (and num_stages - 1 while the gemm runs).  Flash attention and the two pairs
# wait after the iteration's first group is committed: num_stages - 1, bounded by
# the path from the prologue (which commits one group per iteration where the
# steady state commits two); flash attention's epilogue has a barrier before each
# P*V gemm, so its waits count down there.  At num_stages 1 nothing is prefetched.
EXPECTED = {
    ("gemm.mlir", 1): ([], [0], [0]),
    ("gemm.mlir", 2): ([], [0], [0]),
    ("gemm.mlir", 3): ([], [1], [0]),
    ("gemm.mlir", 4): ([], [2], [0]),
    ("gemm_epilogue.mlir", 1): ([], [0], [0]),
    ("gemm_epilogue.mlir", 2): ([], [0], [0]),
    ("gemm_epilogue.mlir", 3): ([], [1], [0]),
    ("gemm_epilogue.mlir", 4): ([], [2], [0]),
    ("flash_attention.mlir", 1): ([0], [1, 0], [0]),
    ("flash_attention.mlir", 2): ([1], [1], [1, 0]),
    ("flash_attention.mlir", 3): ([2], [2], [1, 0]),
    ("flash_attention.mlir", 4): ([3], [3], [3, 1, 0]),
    ("two pairs", 1): ([0], [0, 0], [0]),
    ("two pairs", 2): ([1], [1], [0]),
    ("two pairs", 3): ([2], [2], [0]),
    ("two pairs", 4): ([3], [3], [0]),
}


def source(name: str, num_stages: int, trip_count: int | None = None) -> str:
    """The kernel on sm_80: the cp.async path (gemm_epilogue.mlir is written for
    sm_90, where the CUDA flow turns its copies into bulk copies)."""
    if name == "two pairs":
        return two_pairs(num_stages)
    return example_kernel(name, num_stages, trip_count, "sm_80")


@pytest.mark.parametrize("name, num_stages", list(EXPECTED))
def test_wait_counts(name, num_stages):
    module = apply_passes(source(name, num_stages), CUDA)
    assert waits_around_the_loop(module) == EXPECTED[name, num_stages]


@pytest.mark.parametrize("num_stages", [1, 2, 3, 4])
def test_flash_attention_is_race_free_exact_and_every_wait_tight(num_stages):
    """At every trip count (the loop's bounds are constants: one compile each);
    raising a wait is checked where every wait of the schedule runs."""
    for trip_count in TRIP_COUNTS:
        text = source("flash_attention.mlir", num_stages, trip_count)
        module = apply_passes(text, CUDA)
        assert find_races(module, blocks=ONE_BLOCK) == [], f"trip count {trip_count}"
        assert_equivalent(text, module, blocks=ONE_BLOCK)
    unnoticed = [
        description
        for description, mutant in loosened_waits(module)
        if not find_races(mutant, blocks=ONE_BLOCK)
    ]
    assert unnoticed == []


@pytest.mark.parametrize("num_stages", [1, 2, 3, 4])
def test_two_pairs_are_race_free_exact_and_every_wait_tight(num_stages):
    text = two_pairs(num_stages)
    module = apply_passes(text, CUDA)
    trips = [{"n": n} for n in TRIP_COUNTS]
    for args in trips:
        assert find_races(module, index_args=args) == [], args
    assert_equivalent(text, module, trip_counts=TRIP_COUNTS)
    unnoticed = [
        description
        for description, mutant in loosened_waits(module)
        if not any(find_races(mutant, index_args=args) for args in trips)
    ]
    assert unnoticed == []


# -- the NVVM level: every thread, cp.async groups as the hardware completes them


def lowered(text: str):
    module = parse_kernel(text, "kernel.mlir")
    ctx = make_context()
    for name in FLOWS["cuda"].passes:
        get_all_passes()[name]()().apply(ctx, module)
    return module


def arguments(module) -> list[np.ndarray]:
    rng = np.random.default_rng(18)
    kernel = gpu_kernel(module)
    return [
        rng.uniform(-1, 1, [d.data for d in t.shape.data]).astype(
            np.float16 if str(t.element_type) == "f16" else np.float32
        )
        for t in argument_types(kernel)
    ]


def nvvm_fails(module, args) -> bool:
    """The per-thread detector reports, or a copy is read while in flight."""
    try:
        run = run_nvvm_kernel(module, args, blocks=ONE_BLOCK, check_races=True,
                              stop_at_first_race=True)
    except NvvmExecutionError:
        return True
    return bool(run.races)


def by_name(text: str, args: list[np.ndarray]) -> dict[str, np.ndarray]:
    """The NVVM kernel's arguments keyed by the tile-level kernel's argument names."""
    (function,) = [op for op in parse_kernel(text, "k.mlir").walk() if isinstance(op, func.FuncOp)]
    return {a.name_hint: array for a, array in zip(function.body.block.args, args)}


# The output, block (0, 0)'s tile of it, and how far the two levels may differ: the
# GEMM accumulates in mma.sync's order at both levels; flash attention's NVVM kernel
# sums its softmax rows in another order (a weight may differ in its last f16 bit).
NVVM_CASES = [
    ("gemm.mlir", "C", (128, 128), 0.0),
    ("flash_attention.mlir", "O", (64, 64), 2e-4),
]


@pytest.mark.parametrize("name, output, tile, atol", NVVM_CASES)
def test_lowered_waits_are_race_free_and_tight_per_thread(name, output, tile, atol):
    """num_stages 3, 5 iterations (prologue, steady state, epilogue): the lowered
    kernel is race free and computes what the tile level computes, and each
    ``cp.async.wait_group`` raised by one is reported."""
    text = source(name, 3, trip_count=5)
    module = lowered(text)
    args = arguments(module)
    run = run_nvvm_kernel(module, args, blocks=ONE_BLOCK, check_races=True)
    assert run.races == []
    expected = run_tile_kernel(text, inputs=by_name(text, args), blocks=ONE_BLOCK)[output]
    block = tuple(slice(0, extent) for extent in tile)
    position = list(by_name(text, args)).index(output)
    np.testing.assert_allclose(run.outputs[position][block], expected[block], atol=atol, rtol=0)
    waits = [i for i, op in enumerate(module.walk()) if isinstance(op, CpAsyncWaitGroupOp)]
    unnoticed = []
    for index in waits:
        mutant = module.clone()
        wait = list(mutant.walk())[index]
        wait.properties["n"] = IntegerAttr(wait.n.value.data + 1, i32)
        if not nvvm_fails(mutant, args):
            unnoticed.append(index)
    assert waits and unnoticed == []
