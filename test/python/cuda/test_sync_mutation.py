"""thread-sync is checked by the independent race detector (§5.1): after the full
CUDA pipeline every example at num_stages 1-4 is race free and computes what the
original computes; deleting any single sync op, or letting any wait leave one more
group in flight, makes the detector report a race.  A sync whose deletion went
unnoticed would be superfluous, which the pass must not insert."""

from pathlib import Path

import numpy as np
import pytest
from sweeps import targets_by_depth
from pipeline_helpers import apply_passes, deletions_not_noticed, example_kernel

from conftest import ROOT
from tilepipe.drivers.compile import make_context, parse_kernel
from tilepipe.dialects.pipeline_sync import BarrierOp, WaitGroupOp
from tilepipe.core.registry import get_all_passes
from tilepipe.semantics import find_races
from tilepipe.semantics.nvvm.interp import (
    NvvmExecutionError,
    argument_types,
    gpu_kernel,
    run_nvvm_kernel,
)
from tilepipe.semantics.testing import assert_equivalent, loosened_waits, sync_mutants
from tilepipe.core.flows import FLOWS

CUDA = FLOWS["cuda"].spec("scheduled")
EXAMPLES_CUDA = ["gemm.mlir", "gemm_epilogue.mlir"]
ONE_BLOCK = [(0, 0)]


def compiled(name: str, num_stages: int, trip_count: int = 6, target: str | None = None):
    """The example at ``num_stages``, its K loop cut to ``trip_count`` iterations
    (enough for prologue, a steady state and the epilogue at depth 4) for speed, on
    sm_80 (cp.async) unless ``target`` is given (sm_90: bulk copies)."""
    text = example_kernel(name, num_stages, trip_count, target or "sm_80")
    return text, apply_passes(text, CUDA)


def lowered(text: str):
    """``text`` through the whole CUDA flow to NVVM (its target's)."""
    module = parse_kernel(text, "example.mlir")
    ctx = make_context()
    for name in FLOWS["cuda"].passes:
        get_all_passes()[name]()().apply(ctx, module)
    return module


# By default each depth on one target, the other one than the per-thread test below
# takes (sm_80 at 1 and 3, sm_90 at 2 and 4): between the two tests every example meets
# the race detector at every (target, depth).  TILEPIPE_MUTATION_SWEEP=long runs both
# tests on every pair.
TILE_LEVEL_CASES = [
    (name, target, num_stages)
    for name in ("gemm.mlir", "gemm_epilogue.mlir", "flash_attention.mlir")
    for target, num_stages in targets_by_depth(first=0, variable="TILEPIPE_MUTATION_SWEEP")
]


@pytest.mark.parametrize("name, target, num_stages", TILE_LEVEL_CASES)
def test_examples_are_race_free_equivalent_and_every_sync_is_needed(name, target, num_stages):
    """Every sync op, commit groups included (flash attention's pre-loop Q copy
    joins the prologue's first group rather than committing a group of its own)."""
    original, module = compiled(name, num_stages, target=target)
    assert find_races(module, blocks=ONE_BLOCK) == []
    assert_equivalent(original, module, blocks=ONE_BLOCK)
    unnoticed = [
        description
        for description, mutant in [*sync_mutants(module), *loosened_waits(module)]
        if not find_races(mutant, blocks=ONE_BLOCK)
    ]
    assert unnoticed == []


@pytest.mark.parametrize("num_stages", [2, 3, 4])
def test_gemm_steady_state_has_one_barrier(num_stages):
    _, module = compiled("gemm.mlir", num_stages)
    from xdsl.dialects import scf

    (loop,) = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    barriers = [op for op in loop.body.walk() if isinstance(op, BarrierOp)]
    waits = [op.pending_groups for op in loop.body.walk() if isinstance(op, WaitGroupOp)]
    assert len(barriers) == 1
    assert waits == [num_stages - 2]


SYNC_LIT_TESTS = sorted((ROOT / "test" / "cuda" / "sync").glob("*.mlir"))


def _chunks(path: Path) -> list[str]:
    return [c for c in path.read_text().split("// -----") if "func.func" in c]


@pytest.mark.parametrize(
    "chunk",
    [c for p in ("hazards.mlir", "loops.mlir", "async.mlir", "partial.mlir")
     for c in _chunks(ROOT / "test" / "cuda" / "sync" / p)],
    ids=lambda c: c.split("func.func @")[1].split("(")[0],
)
def test_hand_written_kernels_agree_with_the_race_detector(chunk):
    """Each lit case of test/cuda/sync: after async-copy + thread-sync no race, and every
    barrier and wait (and wait count) is needed.  Commit groups are structural (one per
    time slot of copies), not hazard-driven, so they are not mutated here."""
    module = apply_passes(chunk, "async-copy,thread-sync")
    if 'tile.target = "ascend910b"' in chunk:
        return
    assert find_races(module) == []
    unnoticed = [
        description
        for description, mutant in [*sync_mutants(module), *loosened_waits(module)]
        if "commit_group" not in description and not find_races(mutant)
    ]
    assert unnoticed == []


NVVM_SYNCS = ("nvvm.barrier0", "nvvm.barrier", "nvvm.cp.async.wait.group", "nvvm.fence.proxy")


def _nvvm_arguments(module) -> list[np.ndarray]:
    kernel = gpu_kernel(module, None)
    rng = np.random.default_rng(14)
    return [
        rng.uniform(-1, 1, [d.data for d in t.shape.data]).astype(
            np.float16 if str(t.element_type) == "f16" else np.float32
        )
        for t in argument_types(kernel)
    ]


def _nvvm_fails(module, arguments) -> bool:
    """The per-thread detector reports a race, or the kernel cannot run (a hang, a
    copy never waited for)."""
    try:
        run = run_nvvm_kernel(module, [a.copy() for a in arguments], blocks=ONE_BLOCK,
                              check_races=True, stop_at_first_race=True)
    except NvvmExecutionError:
        return True
    return bool(run.races)


# Per thread, each lowered kernel runs once per sync: by default each depth on one of
# the three targets (sm_90a -- tensor-map copies -- at 1 and 4, sm_80 at 2, sm_90 at 3),
# every depth on each with TILEPIPE_MUTATION_SWEEP=long.  The tile-level test above
# covers every depth of sm_80 and sm_90 (sm_90a's tile level is sm_90's).
PER_THREAD_CASES = [
    (name, target, num_stages)
    for name in ("gemm.mlir", "gemm_epilogue.mlir", "flash_attention.mlir")
    for target, num_stages in targets_by_depth(
        targets=("sm_80", "sm_90", "sm_90a"), first=2, variable="TILEPIPE_MUTATION_SWEEP"
    )
]


@pytest.mark.parametrize("name, target, num_stages", PER_THREAD_CASES)
def test_every_lowered_sync_is_needed_per_thread(name, target, num_stages):
    """The same at the NVVM level, where the detector sees the hardware's rules
    (warp-counted barriers, mbarrier init as a shared write, cp.async bytes in flight
    until their group lands): the lowered kernel is race free and deleting any one
    barrier, cp.async wait or proxy fence is reported."""
    text, _ = compiled(name, num_stages, trip_count=4, target=target)
    module = lowered(text)
    arguments = _nvvm_arguments(module)
    assert not _nvvm_fails(module, arguments)
    assert any(op.name in NVVM_SYNCS for op in module.walk())
    assert deletions_not_noticed(module, NVVM_SYNCS, lambda m: _nvvm_fails(m, arguments)) == []


def test_a_run_stopped_at_its_first_race_reports_the_full_runs_first_race():
    """``stop_at_first_race`` (what the mutation tests use) ends the run at the race the
    full run reports first, and a clean kernel runs to its end either way."""
    text, _ = compiled("gemm.mlir", 2, trip_count=4)
    module = lowered(text)
    arguments = _nvvm_arguments(module)
    clean = run_nvvm_kernel(module, [a.copy() for a in arguments], blocks=ONE_BLOCK,
                            check_races=True, stop_at_first_race=True)
    assert clean.races == []
    mutant = module.clone()
    barrier = next(op for op in mutant.walk() if op.name == "nvvm.barrier0")
    barrier.detach()
    barrier.erase()
    full = run_nvvm_kernel(mutant, [a.copy() for a in arguments], blocks=ONE_BLOCK,
                           check_races=True)
    stopped = run_nvvm_kernel(mutant, [a.copy() for a in arguments], blocks=ONE_BLOCK,
                              check_races=True, stop_at_first_race=True)
    assert len(full.races) > 1
    assert stopped.races == full.races[:1]
