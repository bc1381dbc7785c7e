"""The interpreters' work limit (semantics/work_limit.py): every loop charges its trip
count to one budget per run when it starts, so a loop past the limit is an error at
the loop before its first iteration, in the tile-level interpreter, the NVVM
per-thread model and the Ascend pipe simulator alike."""

import numpy as np
import pytest

from tilepipe.drivers.compile import make_context, parse_kernel
from tilepipe.core.registry import get_all_passes
from tilepipe.semantics import run_tile_kernel
from tilepipe.semantics.errors import KernelError
from tilepipe.semantics.nvvm.interp import NvvmExecutionError, run_nvvm_kernel
from tilepipe.semantics.work_limit import DEFAULT_MAX_STEPS, WorkLimit, trip_count

# Two nested loops: 4 outer iterations, each running 3 inner ones (16 in all).
NESTED = """
func.func @k(%x: memref<16x16xf32>, %z: memref<16x16xf32>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      tile.copy<16x16> %x -> %z : memref<16x16xf32> -> memref<16x16xf32>
    }
  }
  scf.for %h = %c0 to %c16 step %c16 {
    tile.copy<16x16> %x -> %z : memref<16x16xf32> -> memref<16x16xf32>
  }
  func.return
}
"""
INPUTS = {"x": np.ones((16, 16), np.float32), "z": np.zeros((16, 16), np.float32)}


def test_trip_count_matches_range_and_does_not_overflow():
    for lb, ub, step in [(0, 10, 1), (0, 10, 3), (3, 3, 1), (5, 3, 2), (3, 16, 2), (-7, 5, 4)]:
        assert trip_count(lb, ub, step) == len(range(lb, ub, step))
    assert trip_count(-(2**63), 2**63 - 1, 1) == 2**64 - 1  # len(range()) overflows here


def test_budget_is_taken_per_loop_start_and_refused_whole():
    work = WorkLimit(10)
    assert work.charge(4) is None and work.charge(6) is None
    assert "runs 1 iterations, which exceeds the interpreter's limit of 10" in work.charge(1)
    assert WorkLimit().limit == DEFAULT_MAX_STEPS
    with pytest.raises(ValueError):
        WorkLimit(-1)


def test_tile_level_counts_every_loop_of_the_run():
    # 4 + 4 * 3 + 1 = 17 iterations: the limit is exact.
    run_tile_kernel(NESTED, inputs=INPUTS, max_steps=17)
    with pytest.raises(KernelError) as info:
        run_tile_kernel(NESTED, inputs=INPUTS, max_steps=16)
    # The last loop (line 14) is the one that goes past: 16 already run.
    assert str(info.value).startswith("<input>:14:3: error: 'scf.for' op runs 1 iterations")
    assert "limit of 16 loop iterations per run (16 already run)" in str(info.value)


def test_huge_trip_count_is_refused_before_it_runs():
    text = NESTED.replace("%c4 = arith.constant 4", "%c4 = arith.constant 9223372036854775807")
    with pytest.raises(KernelError, match="'scf.for' op runs 9223372036854775807 iterations"):
        run_tile_kernel(text, inputs=INPUTS)


def test_nvvm_model_counts_loops_once_per_block():
    module = parse_kernel(NESTED, "kernel.mlir")
    get_all_passes()["lower-to-nvvm"]()().apply(make_context(), module)
    args = [INPUTS["x"], INPUTS["z"]]
    run = run_nvvm_kernel(module, args, max_steps=1000)  # the lowered copy loops too
    np.testing.assert_array_equal(run.outputs[1], INPUTS["x"])
    with pytest.raises(NvvmExecutionError, match="exceeds the interpreter's limit of 16 loop"):
        run_nvvm_kernel(module, args, max_steps=16)


ASCEND = """
func.func @k(%x: memref<1024xf32>, %z: memref<1024xf32>) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %ub = memref.alloc() : memref<256xf32, "ub">
  pipeline.for %i = %c0 to %c4 step %c1 num_stages = 2 {
    %off = arith.muli %i, %c256 : index
    tile.copy<256> %x[%off] -> %ub : memref<1024xf32> -> memref<256xf32, "ub">
    tile.copy<256> %ub -> %z[%off] : memref<256xf32, "ub"> -> memref<1024xf32>
  }
  func.return
}
"""


def test_ascend_pipe_simulator_has_the_limit_too():
    from tilepipe.core.flows import run_flow
    from tilepipe.semantics.ascend.sim import run_ascend_kernel

    module = run_flow(parse_kernel(ASCEND, "kernel.mlir"), "ascend")
    inputs = {"x": np.arange(1024, dtype=np.float32), "z": np.zeros(1024, np.float32)}
    report = run_ascend_kernel(module, inputs, max_steps=4)
    np.testing.assert_array_equal(report.outputs["z"], inputs["x"])
    with pytest.raises(KernelError) as info:
        run_ascend_kernel(module, inputs, max_steps=3)
    assert str(info.value).startswith("kernel.mlir:8:3: error: 'scf.for' op runs 4 iterations")
