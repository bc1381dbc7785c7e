"""Ascend sync against the real hardware limits.

* A cube -> vector hand-over every iteration with no flag back: the cross-core flag is
  a counter of 16, so ascend-insert-sync adds a credit ring back; the simulator checks
  the bound over every schedule (sets outstanding <= 16 at every point).
* MTE2 writes to disjoint rows of one UB buffer need no barrier.
* Rings of a loop with no more iterations than their versions can never fire and are
  not emitted (TileLang's OptimizeFlagVersions), in both index modes.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from test_ascend_pipeline import assert_equivalent, compiled, kernel_text, mutants, random_inputs

from tilepipe.core.flows import run_flow
from tilepipe.lowering.ascend.ascendc import emit_ascendc, syntax_check
from tilepipe.semantics import load_module
from tilepipe.semantics.ascend.sim import run_ascend_kernel

KERNELS = Path(__file__).resolve().parents[2] / "ascend" / "Inputs"


def handoff(trips: int, counter: bool = False) -> str:
    text = (KERNELS / "cube_to_vector_handoff.mlir").read_text()
    text = re.sub(r"%n = arith.constant \d+", f"%n = arith.constant {trips}", text)
    if counter:
        text = text.replace("\n  }\n  func.return", '\n  } {ascend.index_mode = "counter"}\n  func.return')
    return text


@pytest.mark.parametrize("counter", [False, True])
@pytest.mark.parametrize("trips", [0, 1, 2, 3, 5, 16, 17, 32])
def test_cube_to_vector_handoff_respects_the_counter(trips, counter):
    text = handoff(trips, counter)
    module = compiled(text)
    assert_equivalent(text, module)  # includes: no flag error, i.e. <= 16 outstanding
    credits = [op for op in module.walk()
               if op.attributes.get("ascend.sync_point") is not None
               and op.attributes["ascend.sync_point"].data == "W:credit"]
    # 16 trips or fewer can never overflow the counter: no credit ring.
    assert bool(credits) == (trips > 16)
    assert syntax_check(emit_ascendc(module)).returncode == 0


def test_handoff_without_credit_overflows_the_counter():
    text = handoff(32)
    inputs = random_inputs(load_module(text))
    for description, module in mutants(text):
        if description == "sync point W:credit":
            report = run_ascend_kernel(module, inputs)
            assert any("may have 17 sets outstanding (the counter holds 16)" in e
                       for e in report.flag_errors), report.problems()
            return
    raise AssertionError("no credit ring was inserted")


def test_every_sync_of_the_handoff_is_needed():
    text = handoff(32)
    inputs = random_inputs(load_module(text))
    checked = 0
    for description, module in mutants(text):
        assert not run_ascend_kernel(module, inputs).ok, f"deleting {description} went unnoticed"
        checked += 1
    assert checked > 40


DISJOINT_ROWS = """
func.func @rows(%x: memref<32x64xf32>, %y: memref<16x64xf32>)
    attributes {tile.grid = array<i64: 1>, tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %u = memref.alloc() : memref<16x64xf32, "ub">
  tile.copy<8x64> %x[%c0, %c0] -> %u[%c0, %c0] : memref<32x64xf32> -> memref<16x64xf32, "ub">
  tile.copy<8x64> %x[%c16, %c0] -> %u[ROW, %c0] : memref<32x64xf32> -> memref<16x64xf32, "ub">
  tile.copy<16x64> %u -> %y : memref<16x64xf32, "ub"> -> memref<16x64xf32>
  func.return
}
"""


@pytest.mark.parametrize("row, barriers", [("%c8", 0), ("%c0", 1)])
def test_mte2_barrier_only_between_overlapping_writes(row, barriers):
    text = DISJOINT_ROWS.replace("ROW", row)
    module = compiled(text)
    assert sum(op.name == "ascend.pipe_barrier" for op in module.walk()) == barriers
    if barriers == 0:
        assert_equivalent(text, module)
    else:  # rows 8-16 of u stay unwritten: the tile program has no reference output
        report = run_ascend_kernel(module, random_inputs(load_module(text)))
        assert report.ok, report.problems()


def sync_ops(module) -> int:
    return sum(op.name in ("ascend.set_flag", "ascend.wait_flag") for op in module.walk())


@pytest.mark.parametrize("index_mode", ["iteration", "counter"])
def test_rings_wider_than_the_trip_count_are_elided(index_mode):
    # The mixed example's cube loop runs 4 iterations: at num_stages 4 its WAR rings
    # (distance 4) can never fire; at num_stages 3 (distance 3) they can, and are kept.
    counts = {}
    for stages in (3, 4):
        text = kernel_text("ascend_matmul_vector.mlir", stages)
        module = run_flow(load_module(text), "ascend", options={"ascend-prepare-multi-buffer": f"index_mode={index_mode}"})
        assert_equivalent(text, module)
        counts[stages] = sync_ops(module)
        names = {op.attributes["ascend.sync_point"].data for op in module.walk()
                 if op.name == "ascend.set_flag"}
        cube_rings = {"a_l1:war", "b_l1:war", "a_l0a:war"}  # the vector loop runs 8
        assert cube_rings <= names if stages == 3 else not cube_rings & names
    assert counts[4] < counts[3]
