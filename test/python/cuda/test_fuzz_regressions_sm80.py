"""The sm_80 kernels of the December 2026 fuzzing campaign (test/regressions/) and the
block-level global-memory hazards: after the CUDA pipeline each kernel is race free in
the happens-before detector and computes what the original computes at every trip
count; the syncs the fixes introduced are needed (deleting one makes the detector
fire); the per-thread NVVM detector sees the global-memory race too; ptxas accepts the
fixed kernels."""

from pathlib import Path

import numpy as np
import pytest
from pipeline_helpers import apply_passes
from xdsl.dialects import scf

from conftest import ROOT
from tilepipe.drivers.compile import compile_kernel, make_context, parse_kernel
from tilepipe.dialects.pipeline_sync import (
    AsyncCopyOp,
    BarrierOp,
    CommitGroupOp,
    WaitGroupOp,
)
from tilepipe.dialects.tile import CopyOp, GemmOp
from tilepipe.core.registry import get_all_passes
from tilepipe.semantics import find_races, run_tile_kernel
from tilepipe.semantics.nvvm.interp import run_nvvm_kernel
from tilepipe.core.flows import FLOWS
from tilepipe.semantics.testing import (
    SYNC_OPS,
    assert_equivalent,
    assert_every_sync_needed,
    assert_race_free,
    sync_mutants,
)

CUDA = FLOWS["cuda"].spec("scheduled")
REGRESSIONS = ROOT / "test" / "regressions"
# Kernel -> the values of %n it is defined for (beyond them it reads out of bounds or
# memory it never wrote); each covers 0, 1, 2, 3, 5 where the kernel allows.
TRIP_COUNTS = {
    "sm80_missing_wait_raw.mlir": [0, 1, 2, 3, 5, 6, 9],
    "sm80_missing_wait_raw_2.mlir": [0, 1, 2, 3, 5, 6, 9],
    "arena_dead_async_waw.mlir": None,
    "negative_wait_group.mlir": [0, 1, 2, 3, 5, 8],
    "nondeterministic_sync.mlir": [0, 1],
    "async_waw_in_guard.mlir": [0, 1, 2, 3, 5, 7],
    "async_waw_in_guard_three.mlir": [0, 1, 2, 3, 5, 7],
}


def compiled(name: str):
    text = (REGRESSIONS / name).read_text()
    return text, apply_passes(text, CUDA)


@pytest.mark.parametrize("name", sorted(TRIP_COUNTS))
def test_regression_is_race_free_and_equivalent(name):
    original, module = compiled(name)
    trips = TRIP_COUNTS[name]
    assert_race_free(module, trip_counts=trips)
    assert_equivalent(original, module, trip_counts=trips)
    assert not any(
        isinstance(op, WaitGroupOp) and op.pending_groups < 0 for op in module.walk()
    )


@pytest.mark.parametrize("name", ["arena_dead_async_waw.mlir", "negative_wait_group.mlir"])
def test_regression_syncs_are_all_needed(name):
    _, module = compiled(name)
    assert_every_sync_needed(module, trip_counts=TRIP_COUNTS[name])


@pytest.mark.parametrize(
    "name, reader",
    [("sm80_missing_wait_raw.mlir", GemmOp), ("sm80_missing_wait_raw_2.mlir", CopyOp)],
)
def test_split_guard_commit_and_wait_are_needed(name, reader):
    """The commit between the two halves of the split prologue guard, and the wait that
    lands the copy before its same-stage reader, are each needed at some trip count
    (the other syncs of these random kernels are not this fix's)."""
    _, module = compiled(name)
    ops = list(module.walk())
    first_reader = next(
        i for i, op in enumerate(ops) if isinstance(op, reader) and isinstance(op.parent_op(), scf.IfOp)
        and "shared" in str(op.operands[0].type)
    )
    commit = max(i for i, op in enumerate(ops[:first_reader]) if isinstance(op, CommitGroupOp))
    wait = max(i for i, op in enumerate(ops[:first_reader]) if isinstance(op, WaitGroupOp))
    positions = [i for i, op in enumerate(ops) if isinstance(op, (BarrierOp, WaitGroupOp, CommitGroupOp))]
    mutants = dict(zip(positions, sync_mutants(module)))
    for position in (commit, wait):
        description, mutant = mutants[position]
        assert any(
            find_races(mutant, index_args={"n": n}) for n in TRIP_COUNTS[name]
        ), f"{description} goes unnoticed"


# Two cp.async copies into the same bytes in one stage guard (fuzz-findings2) and the
# neighbours: kernel -> (passes, trip counts).
ASYNC_WAW_IN_GUARD = {
    "async_waw_in_guard.mlir": (CUDA, [0, 1, 2, 3, 5, 7]),
    "async_waw_in_guard_three.mlir": (CUDA, [0, 1, 2, 3, 5, 7]),
    "async_waw_in_guard_arena.mlir": ("async-copy,thread-sync", [0, 1]),
    "async_waw_in_guard_sm90.mlir": (CUDA, [0, 1, 2, 3, 5, 7]),
}


def _guard_split_between_copies(module):
    """The (commit, wait) pairs the guard split between two copies into the same bytes
    yields: a commit right after a guard ending in an async copy, followed by a guard
    whose wait_group comes right before the next async copy."""
    pairs = []
    for op in module.walk():
        if not (isinstance(op, scf.IfOp) and isinstance(op.next_op, CommitGroupOp)):
            continue
        following = op.next_op.next_op
        if not isinstance(following, scf.IfOp):
            continue
        last = list(op.true_region.block.ops)[-2]  # before the yield
        waits = [
            w for w in following.true_region.block.ops
            if isinstance(w, WaitGroupOp) and isinstance(w.next_op, AsyncCopyOp)
        ]
        if isinstance(last, AsyncCopyOp) and waits:
            pairs.append((op.next_op, waits[0]))
    return pairs


@pytest.mark.parametrize("name", sorted(ASYNC_WAW_IN_GUARD))
def test_async_waw_in_guard_is_race_free_equivalent_and_split_syncs_needed(name):
    """Each later copy into the bytes of an earlier one in the same guard starts a new
    guard half: the earlier copy's commit between the halves and the wait before the
    later copy are each needed (the kernels' other syncs are not this fix's: e.g. the
    steady-state loop's first wait, which the prologue's guarded wait already serves
    but thread-sync does not match guarded waits to cp.async groups)."""
    passes, trips = ASYNC_WAW_IN_GUARD[name]
    original = (REGRESSIONS / name).read_text()
    module = apply_passes(original, passes)
    assert_race_free(module, trip_counts=trips)
    assert_equivalent(original, module, trip_counts=trips)
    pairs = _guard_split_between_copies(module)
    assert len(pairs) == (2 if "three" in name else 1)
    syncs = [op for op in module.walk() if isinstance(op, SYNC_OPS)]
    mutants = dict(zip(syncs, sync_mutants(module)))
    for sync in (s for pair in pairs for s in pair):
        description, mutant = mutants[sync]
        assert any(
            find_races(mutant, index_args={"n": n}) for n in trips
        ), f"{description} goes unnoticed"


@pytest.mark.parametrize(
    "name",
    [
        "sm80_missing_wait_raw.mlir",
        "sm80_missing_wait_raw_2.mlir",
        "arena_dead_async_waw.mlir",
        "negative_wait_group.mlir",
        "async_waw_in_guard.mlir",
        "async_waw_in_guard_three.mlir",
    ],
)
def test_fixed_regression_compiles_to_ptx(name, ptxas_available):
    result = compile_kernel((REGRESSIONS / name).read_text(), name, "sm_80")
    (report,) = result.ptxas
    assert report.kernel in ("kern", "k")


# --------------------------------------------------------------------------- global memory

GLOBAL_KERNELS = (ROOT / "test" / "cuda" / "sync" / "global.mlir").read_text().split("// -----")
FRAGMENT_RELOAD = GLOBAL_KERNELS[0]


@pytest.mark.parametrize("index", range(len(GLOBAL_KERNELS)))
def test_global_hazards_are_ordered_and_every_sync_is_needed(index):
    text = GLOBAL_KERNELS[index]
    module = apply_passes(text, "async-copy,thread-sync")
    assert_race_free(module)
    assert_equivalent(text, module)
    assert_every_sync_needed(module)


def test_tile_level_detector_sees_the_global_race():
    """Without thread-sync the fragment store and the reload race in global memory."""
    assert any(race.buffer == "%G" for race in find_races(FRAGMENT_RELOAD))


def _nvvm(text: str, drop_barrier_before_reload: bool):
    module = parse_kernel(text, "global.mlir")
    ctx = make_context()
    get_all_passes()["thread-sync"]()().apply(ctx, module)
    if drop_barrier_before_reload:
        (barrier,) = [
            op for op in module.walk()
            if isinstance(op, BarrierOp) and isinstance(op.next_op, CopyOp)
            and "fragment" not in str(op.next_op.src.type)
            and "shared" not in str(op.next_op.src.type)
        ]
        barrier.detach()
        barrier.erase()
    get_all_passes()["lower-to-nvvm"]()().apply(ctx, module)
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (32, 32)).astype(np.float16)
    return run_nvvm_kernel(
        module, [a, np.zeros((32, 32), np.float32), np.zeros((32, 32), np.float32)],
        check_races=True,
    )


def test_nvvm_detector_sees_the_global_race_and_its_barrier():
    ordered = _nvvm(FRAGMENT_RELOAD, drop_barrier_before_reload=False)
    assert ordered.races == []
    expected = ordered.outputs[0].astype(np.float32) @ ordered.outputs[0].astype(np.float32)
    np.testing.assert_allclose(ordered.outputs[2], expected, rtol=1e-3, atol=1e-3)
    racy = _nvvm(FRAGMENT_RELOAD, drop_barrier_before_reload=True)
    assert racy.races and all("of %G" in race for race in racy.races)


# --------------------------------------------------------------------------- non-uniform guards

NON_UNIFORM = (ROOT / "test" / "cuda" / "sync" / "nonuniform.mlir").read_text().split("// -----")[0]


@pytest.mark.parametrize("passes", ["thread-sync", "async-copy,thread-sync"])
def test_split_non_uniform_guard_is_race_free_and_its_barrier_needed(passes):
    """The barrier placed between the halves of a split non-uniform guard orders the
    copy and its reader, and is needed (taken and not-taken flags alike)."""
    module = apply_passes(NON_UNIFORM, passes)
    for flag in (1, 0):
        inputs = {"F": np.array([flag], np.int32)}
        assert find_races(module, inputs=inputs) == []
        assert run_tile_kernel(module, inputs=inputs)["B"].tolist() == (
            run_tile_kernel(NON_UNIFORM, inputs=inputs)["B"].tolist()
        )
    assert_every_sync_needed(module)  # seeded flag: the branch is taken
