"""Ring elision from proven trip counts: a loop whose trip count is
not a constant but provably at most a ring's distance -- under ``scf.if %n <= 2``, or
with the bound ``min(%n, 2)`` (an ``arith.select``) -- gets no ring, in both index modes.  The pipe
simulator checks the result at every trip count the kernel allows: race-free,
equivalent to the tile program, lock-pool slots all released when the rings spill,
and deleting any remaining sync is still caught."""

from __future__ import annotations

import numpy as np
import pytest

from tilepipe.lowering.ascend.ascendc import emit_ascendc, syntax_check
from tilepipe.core.flows import run_flow
from tilepipe.semantics import execute, load_module
from tilepipe.semantics.ascend.sim import run_ascend_kernel
from tilepipe.semantics.compare import first_difference

from test_ascend_pipeline import mutants

BODY = """
    %o = arith.muli %i, %c64 : index
    tile.copy<64> %x[%o] -> %u : memref<256xf16> -> memref<64xf16, "ub">
    tile.exp<64> %u -> %v : memref<64xf16, "ub"> -> memref<64xf16, "ub">
    tile.copy<64> %v -> %y[%o] : memref<64xf16, "ub"> -> memref<256xf16>
"""
HEAD = """
func.func @short_loop(%x: memref<256xf16>, %y: memref<256xf16>, %n: index) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %u = memref.alloc() : memref<64xf16, "ub">
  %v = memref.alloc() : memref<64xf16, "ub">
"""
KERNELS = {
    # At most 2 iterations under the guard; none when %n > 2.
    "guarded": HEAD + """  %short = arith.cmpi sle, %n, %c2 : index
  scf.if %short {
    pipeline.for %i = %c0 to %n step %c1 num_stages = 2 {""" + BODY + """    } MODE
  }
  func.return
}
""",
    # min(%n, 2) iterations (a select: what the AscendC printer and the simulator take).
    "min_bound": HEAD + """  %less = arith.cmpi slt, %n, %c2 : index
  %t = arith.select %less, %n, %c2 : index
  pipeline.for %i = %c0 to %t step %c1 num_stages = 2 {""" + BODY + """  } MODE
  func.return
}
""",
    # Nothing bounds %n (up to 4 here, the buffer's length): the rings stay.
    "unbounded": HEAD + """  pipeline.for %i = %c0 to %n step %c1 num_stages = 2 {""" + BODY + """  } MODE
  func.return
}
""",
}
TRIPS = [0, 1, 2, 3, 4]


def kernel(name: str, index_mode: str) -> str:
    mode = '{ascend.index_mode = "counter"}' if index_mode == "counter" else ""
    return KERNELS[name].replace("MODE", mode)


def inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {"x": rng.uniform(-1, 1, 256).astype(np.float16), "y": np.zeros(256, np.float16)}


def rings(module) -> set[str]:
    return {op.attributes["ascend.sync_point"].data for op in module.walk()
            if op.name == "ascend.set_flag" and ":war" in op.attributes["ascend.sync_point"].data}


def check(text: str, module, trips: int) -> None:
    report = run_ascend_kernel(module, inputs(), {"n": trips})
    assert report.ok, (trips, report.problems())
    expected = execute(text, inputs=inputs(), index_args={"n": trips})
    assert first_difference(expected.outputs, report.outputs, "tile", "pipe simulator") is None


@pytest.mark.parametrize("index_mode", ["iteration", "counter"])
@pytest.mark.parametrize("name", ["guarded", "min_bound", "unbounded"])
def test_rings_follow_the_proven_trip_count(name, index_mode):
    text = kernel(name, index_mode)
    module = run_flow(load_module(text), "ascend", options={"ascend-prepare-multi-buffer": f"index_mode={index_mode}"})
    assert bool(rings(module)) == (name == "unbounded")
    for trips in TRIPS:
        check(text, module, trips)
    assert syntax_check(emit_ascendc(module)).returncode == 0


@pytest.mark.parametrize("name", ["guarded", "min_bound"])
def test_spilled_to_the_lock_pool(name):
    # One event id per hard event: the RAW rings spill to lock slots; every slot is
    # released by the end of the kernel (the simulator reports one still held).
    text = kernel(name, "iteration")
    module = run_flow(load_module(text), "ascend", options={"ascend-flag-budget": "ids_per_event=1"})
    assert any(op.name == "ascend.get_buf" for op in module.walk())
    for trips in TRIPS:
        check(text, module, trips)


@pytest.mark.parametrize("name", ["guarded", "min_bound"])
def test_every_remaining_sync_is_needed(name):
    text = kernel(name, "iteration")
    checked = 0
    for description, module in mutants(text):
        assert not run_ascend_kernel(module, inputs(), {"n": 2}).ok, f"deleting {description} went unnoticed"
        checked += 1
    assert checked >= 4


GUARDED_RUNNING = """
func.func @guarded_running(%out: memref<8x8xf32>, %z: memref<8x8xf32>, %n: index) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<8x8xf32, "ub">
  %b = memref.alloc() : memref<8x8xf32, "ub">
  %some = arith.cmpi sge, %n, %c1 : index
  tile.fill<8x8> %zero -> %a : f32 -> memref<8x8xf32, "ub">
  scf.if %some {
    pipeline.for %k = %c0 to %n step %c1 num_stages = 1 {
      tile.mul<8x8> %a, %a -> %b : memref<8x8xf32, "ub">, memref<8x8xf32, "ub"> -> memref<8x8xf32, "ub">
      tile.copy<8x8> %b -> %z : memref<8x8xf32, "ub"> -> memref<8x8xf32>
    }
  }
  tile.copy<8x8> %a -> %out : memref<8x8xf32, "ub"> -> memref<8x8xf32>
  func.return
}
"""


def test_a_guarded_loop_that_runs_once_reached_does_not_order_around_it():
    # The loop runs whenever it is reached, but with %n = 0 it is not: the fill and
    # the copy after the branch need their own flag (test/ascend/insert-sync-proven-trips.mlir).
    module = run_flow(load_module(GUARDED_RUNNING), "ascend")
    zeros = {"out": np.zeros((8, 8), np.float32), "z": np.zeros((8, 8), np.float32)}
    for trips in (0, 1, 2):
        report = run_ascend_kernel(module, dict(zeros), {"n": trips})
        assert report.ok, (trips, report.problems())
