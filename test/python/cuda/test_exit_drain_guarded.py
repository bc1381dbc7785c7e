"""The exit drain (passes/cuda/exit_drain.py) tracks copies, not groups: where every
path that issues a copy waits for it under the same guard, the return needs no
``wait_group 0``, and where some path can leave a copy in flight it keeps one.  The
two guarded kernels (test/regressions/exit_drain_guarded_*.mlir) lose their drain and
stay race free, equal to their source and tightly synchronized, at the tile level and
per thread in the NVVM interpreter."""

from pathlib import Path

import numpy as np
import pytest
from pipeline_helpers import apply_passes
from xdsl.dialects import func

from conftest import ROOT
from tilepipe.core.flows import FLOWS
from tilepipe.drivers.compile import make_context, parse_kernel
from tilepipe.dialects.pipeline_sync import WaitGroupOp
from tilepipe.passes.cuda.exit_drain import needs_exit_drain
from tilepipe.core.registry import get_all_passes
from tilepipe.semantics import run_tile_kernel
from tilepipe.semantics.nvvm.interp import run_nvvm_kernel
from tilepipe.core.source import parse_source
from tilepipe.semantics.testing import (
    assert_equivalent,
    assert_every_sync_needed,
    assert_race_free,
    loosened_waits,
)

CUDA = FLOWS["cuda"].spec("scheduled")
KERNELS = ["exit_drain_guarded_dynamic_trip.mlir", "exit_drain_guarded_step2_lb3.mlir"]
TRIP_COUNTS = [0, 1, 2, 5, 17]


def source(name: str) -> str:
    return (Path(ROOT) / "test" / "regressions" / name).read_text()


@pytest.mark.parametrize("name", KERNELS)
def test_no_drain_and_every_sync_needed(name):
    text = source(name)
    scheduled = apply_passes(text, CUDA)
    [kernel] = [op for op in scheduled.walk() if isinstance(op, func.FuncOp)]
    assert not isinstance(kernel.body.block.last_op.prev_op, WaitGroupOp)
    assert_equivalent(text, scheduled, trip_counts=TRIP_COUNTS)
    assert_race_free(scheduled, trip_counts=TRIP_COUNTS)
    assert_every_sync_needed(scheduled, trip_counts=TRIP_COUNTS)


def test_wait_counts_are_tight():
    """Every wait count is as large as it can be: one more group in flight races.
    (Not for the step-2 kernel: each of its two epilogue waits could count 1, as the
    other epilogue wait, or the empty last group, covers it -- async-copy's epilogue
    counting, the same with or without the exit drain.)"""
    scheduled = apply_passes(source(KERNELS[0]), CUDA)
    for description, mutant in loosened_waits(scheduled):
        with pytest.raises(AssertionError):
            assert_race_free(mutant, trip_counts=TRIP_COUNTS)


@pytest.mark.parametrize("name", KERNELS)
def test_per_thread_run_is_race_free_and_equal(name):
    text = source(name)
    module = parse_kernel(text, name)
    ctx = make_context()
    for pass_name in FLOWS["cuda"].passes:
        get_all_passes()[pass_name]()().apply(ctx, module)
    rows = 288 if "dynamic" in name else 640
    a = np.random.default_rng(3).uniform(-1, 1, (rows, 16)).astype(np.float32)
    for n in TRIP_COUNTS:
        c = np.zeros((rows, 16), np.float32)
        tile = run_tile_kernel(text, inputs={"A": a, "C": c}, index_args={"n": n})
        run = run_nvvm_kernel(module, [a, c, np.int64(n)], check_races=True)
        assert run.races == [], (n, run.races)
        np.testing.assert_array_equal(run.outputs[1], tile["C"])


# Scheduled-level kernels for the analysis itself: a copy issued under %issue, its
# group committed on every path, and a wait_group 0 under %wait.
GUARDED = """
func.func @k(%A: memref<64x16xf32>, %C: memref<64x16xf32>, %n: index, %m: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %S = memref.alloc() : memref<16x16xf32, "shared">
  %issue = arith.cmpi slt, %c0, %n : index
  %wait = arith.cmpi slt, %c0, WAIT_BOUND : index
  scf.if %issue {
    %t = pipeline.async_copy<16x16> %A -> %S : memref<64x16xf32> -> memref<16x16xf32, "shared">
  }
  pipeline.commit_group
  scf.if %wait {
    pipeline.wait_group 0
    tile.copy<16x16> %S -> %C : memref<16x16xf32, "shared"> -> memref<64x16xf32>
  }
  func.return
}
"""


def drains(text: str) -> int:
    [kernel] = [op for op in parse_source(text, "k.mlir").walk() if isinstance(op, func.FuncOp)]
    return len(needs_exit_drain(kernel))


def test_wait_under_the_issuing_guard_drains_the_copy():
    assert drains(GUARDED.replace("WAIT_BOUND", "%n")) == 0


def test_wait_under_another_guard_leaves_the_drain():
    # n > 0 and m <= 0: the copy is issued and nothing waits for it.
    assert drains(GUARDED.replace("WAIT_BOUND", "%m")) == 1


def test_an_empty_group_needs_no_drain_a_copy_does():
    no_copy = GUARDED.replace("WAIT_BOUND", "%m").replace(
        "    %t = pipeline.async_copy<16x16> %A -> %S : memref<64x16xf32> -> memref<16x16xf32, \"shared\">\n", ""
    )
    assert "async_copy" not in no_copy
    assert drains(no_copy) == 0
    uncommitted_then_committed = GUARDED.replace("WAIT_BOUND", "%n").replace(
        "  func.return", "  pipeline.commit_group\n  func.return"
    )
    assert drains(uncommitted_then_committed) == 0  # nothing left to commit


def test_copy_in_a_loop_without_a_wait_needs_the_drain():
    looped = GUARDED.replace("WAIT_BOUND", "%n").replace(
        "  func.return",
        "  %c1 = arith.constant 1 : index\n"
        "  scf.for %i = %c0 to %m step %c1 {\n"
        "    %u = pipeline.async_copy<16x16> %A -> %S : memref<64x16xf32> -> memref<16x16xf32, \"shared\">\n"
        "    pipeline.commit_group\n"
        "  }\n"
        "  func.return",
    )
    assert drains(looped) == 1


DEEP = """
func.func @deep(%A: memref<4096x32xf16>, %O: memref<4096x32xf16>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %S = memref.alloc() : memref<16x32xf16, "shared">
  pipeline.for %k = %c0 to %n step %c1 num_stages = 16 {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x32> %A[%r, %c0] -> %S : memref<4096x32xf16> -> memref<16x32xf16, "shared">
    tile.copy<16x32> %S -> %O[%r, %c0] : memref<16x32xf16, "shared"> -> memref<4096x32xf16>
  }
  func.return
}
"""


def test_a_deep_pipeline_is_analysed_with_its_guards_in_linear_time():
    """num_stages 16 with a run-time trip count: 15 guarded prologue copies and 15
    guarded epilogue steps at the top level.  The analysis kept one entry per copy and
    path, doubled at each top-level scf.if (a fuzz kernel of this shape ran thread-sync
    out of memory); copies in one state now share an entry.  Before thread-sync the
    copies of the last groups may be in flight at the return."""
    copied = apply_passes(DEEP, FLOWS["cuda"].spec("arena") + ",async-copy")
    [kernel] = [op for op in copied.walk() if isinstance(op, func.FuncOp)]
    guards = [op for op in kernel.body.block.ops if op.name == "scf.if"]
    assert len(guards) >= 30
    assert needs_exit_drain(kernel) == [kernel.body.block.last_op]
