"""The Ascend path end to end: tile-level example -> ascend dialect -> pipe simulator.

For the three examples (vector add, cube matmul, and the mixed cube + vector matmul with
bias and relu) at num_stages 1-4 (and with every ring spilled to the lock pool): the
simulated kernel is race-free, deadlock-free, leaves no flag set, computes exactly what
the tile-level program computes, and its AscendC passes the syntax check; the same for
kernels with guarded epochs (an scf.if in the pipelined loop) in both index modes,
also at 0, 1 and 3 trips.
Deleting any inserted sync point (its set/wait pair with prime and drain, or its
barrier) or any single sync op makes the simulator report a problem.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp

from tilepipe.lowering.ascend.summary import ascend_summary
from tilepipe.core.flows import run_flow
from tilepipe.lowering.ascend.ascendc import emit_ascendc, syntax_check
from tilepipe.passes.ascend.flag_blocks import SYNC_POINT_ATTR
from tilepipe.semantics import load_module, run_tile_kernel
from tilepipe.semantics.ascend.issue import ScalarUnit
from tilepipe.semantics.ascend.sim import numpy_dtype, run_ascend_kernel

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
KERNELS = [
    "ascend_vadd.mlir",
    "ascend_matmul.mlir",
    "ascend_matmul_vector.mlir",
    "guarded",
    "guarded_counter",
    "two_guards",
    "two_guards_counter",
    "branch_only",
    "branch_only_counter",
]
# Kernels whose first loop accumulates into L0C (its fill folds into the first mmad).
ACCUMULATING = ("ascend_matmul.mlir", "ascend_matmul_vector.mlir")

# Guarded epochs: y is loaded and added only in iterations i mod 3 != 1; the other
# iterations take exp of x.  The slot follows the iteration (index mode iteration).
GUARDED_KERNEL = """
func.func @guarded_vadd(%x: memref<4096xf16>, %y: memref<4096xf16>, %z: memref<4096xf16>)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %x_ub = memref.alloc() : memref<256xf16, "ub">
  %y_ub = memref.alloc() : memref<256xf16, "ub">
  %z_ub = memref.alloc() : memref<256xf16, "ub">
  pipeline.for %i = %c0 to %c16 step %c1 num_stages = 2 {
    %off = arith.muli %i, %c256 : index
    %r = arith.remsi %i, %c3 : index
    %taken = arith.cmpi ne, %r, %c1 : index
    tile.copy<256> %x[%off] -> %x_ub : memref<4096xf16> -> memref<256xf16, "ub">
    scf.if %taken {
      tile.copy<256> %y[%off] -> %y_ub : memref<4096xf16> -> memref<256xf16, "ub">
      tile.add<256> %x_ub, %y_ub -> %z_ub : memref<256xf16, "ub">, memref<256xf16, "ub"> -> memref<256xf16, "ub">
    } else {
      tile.exp<256> %x_ub -> %z_ub : memref<256xf16, "ub"> -> memref<256xf16, "ub">
    }
    tile.copy<256> %z_ub -> %z[%off] : memref<256xf16, "ub"> -> memref<4096xf16>
  }
  func.return
}
"""


# Two guarded epochs: y_ub is loaded in iterations i mod 3 != 1, w_ub in the others
# (where z = x * x + w).
# With 3 versions, iteration mode gives w_ub's epochs (i = 1, 4, 7, ...) the slot
# i mod 3 = 1 every time; counter mode rotates them through 0, 1, 2.
TWO_GUARDS_KERNEL = """
func.func @two_guards(%x: memref<4096xf16>, %y: memref<4096xf16>, %z: memref<4096xf16>)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %x_ub = memref.alloc() : memref<256xf16, "ub">
  %y_ub = memref.alloc() : memref<256xf16, "ub">
  %w_ub = memref.alloc() : memref<256xf16, "ub">
  %z_ub = memref.alloc() : memref<256xf16, "ub">
  pipeline.for %i = %c0 to %c16 step %c1 num_stages = 2 {
    %off = arith.muli %i, %c256 : index
    %r = arith.remsi %i, %c3 : index
    %taken = arith.cmpi ne, %r, %c1 : index
    tile.copy<256> %x[%off] -> %x_ub : memref<4096xf16> -> memref<256xf16, "ub">
    scf.if %taken {
      tile.copy<256> %y[%off] -> %y_ub : memref<4096xf16> -> memref<256xf16, "ub">
      tile.add<256> %x_ub, %y_ub -> %z_ub : memref<256xf16, "ub">, memref<256xf16, "ub"> -> memref<256xf16, "ub">
    } else {
      tile.mul<256> %x_ub, %x_ub -> %z_ub : memref<256xf16, "ub">, memref<256xf16, "ub"> -> memref<256xf16, "ub">
      tile.copy<256> %y[%off] -> %w_ub : memref<4096xf16> -> memref<256xf16, "ub">
      tile.add<256> %z_ub, %w_ub -> %z_ub : memref<256xf16, "ub">, memref<256xf16, "ub"> -> memref<256xf16, "ub">
    }
    tile.copy<256> %z_ub -> %z[%off] : memref<256xf16, "ub"> -> memref<4096xf16>
  }
  func.return
}
"""
# Every access in the branch: the loop-carried rings themselves are guarded.
BRANCH_ONLY_KERNEL = """
func.func @branch_only(%y: memref<4096xf16>, %z: memref<4096xf16>)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %y_ub = memref.alloc() : memref<256xf16, "ub">
  %z_ub = memref.alloc() : memref<256xf16, "ub">
  pipeline.for %i = %c0 to %c16 step %c1 num_stages = 2 {
    %off = arith.muli %i, %c256 : index
    %r = arith.remsi %i, %c3 : index
    %taken = arith.cmpi ne, %r, %c1 : index
    scf.if %taken {
      tile.copy<256> %y[%off] -> %y_ub : memref<4096xf16> -> memref<256xf16, "ub">
      tile.exp<256> %y_ub -> %z_ub : memref<256xf16, "ub"> -> memref<256xf16, "ub">
      tile.copy<256> %z_ub -> %z[%off] : memref<256xf16, "ub"> -> memref<4096xf16>
    }
  }
  func.return
}
"""
GUARDED_KERNELS = {
    "guarded": GUARDED_KERNEL,
    "two_guards": TWO_GUARDS_KERNEL,
    "branch_only": BRANCH_ONLY_KERNEL,
}


def kernel_text(name: str, num_stages: int, trips: int | None = None) -> str:
    """An example or a guarded kernel (``_counter``: its loop asks for the counter
    index mode), with ``num_stages`` and optionally the trip count of its first loop."""
    base = name.removesuffix("_counter")
    text = GUARDED_KERNELS.get(base) or (EXAMPLES / name).read_text()
    if name.endswith("_counter"):
        loop_end = "\n  }\n  func.return"
        text = text.replace(loop_end, '\n  } {ascend.index_mode = "counter"}\n  func.return')
    text = re.sub(r"num_stages = \d+", f"num_stages = {num_stages}", text)
    if trips is not None:  # the loop bound is the constant the loop names as `to`
        bound = re.search(r"pipeline\.for %\w+ = %\w+ to %(\w+)", text).group(1)
        text = re.sub(
            rf"%{bound} = arith.constant \d+ : index",
            f"%{bound} = arith.constant {trips} : index",
            text,
        )
    return text


def random_inputs(module: ModuleOp, seed: int = 0) -> dict[str, np.ndarray]:
    kernel = next(op for op in module.walk() if isinstance(op, FuncOp))
    rng = np.random.default_rng(seed)
    return {
        arg.name_hint: rng.uniform(-1, 1, arg.type.get_shape()).astype(numpy_dtype(arg.type))
        for arg in kernel.body.block.args
    }


def compiled(text: str, budget: str = "") -> ModuleOp:
    return run_flow(load_module(text), "ascend", options={"ascend-flag-budget": budget})


def assert_equivalent(text: str, module: ModuleOp) -> int:
    inputs = random_inputs(load_module(text))
    expected = run_tile_kernel(text, inputs=inputs)
    report = run_ascend_kernel(module, inputs)
    assert report.ok, report.problems()
    for name, values in expected.items():
        np.testing.assert_array_equal(report.outputs[name], values, err_msg=name)
    return report.cycles


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("num_stages", [1, 2, 3, 4])
def test_race_free_and_equivalent(name, num_stages):
    text = kernel_text(name, num_stages)
    module = compiled(text)
    assert_equivalent(text, module)
    result = syntax_check(emit_ascendc(module))
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("index_mode", ["iteration", "counter"])
@pytest.mark.parametrize("budget", ["", "ids_per_event=1"])
def test_ascendc_passes_the_syntax_check(name, index_mode, budget):
    # Against the declarations of the real AscendC API, in both index modes, with and
    # without lock-pool spills.
    module = run_flow(load_module(kernel_text(name, 2)), "ascend", options={"ascend-prepare-multi-buffer": f"index_mode={index_mode}", "ascend-flag-budget": budget})
    result = syntax_check(emit_ascendc(module))
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("num_stages", [2, 3])
def test_lock_pool_spill_keeps_the_protocol(name, num_stages):
    text = kernel_text(name, num_stages)
    module = compiled(text, "ids_per_event=1")
    assert any(op.name == "ascend.get_buf" for op in module.walk())
    assert_equivalent(text, module)
    assert syntax_check(emit_ascendc(module)).returncode == 0


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("trips", [0, 1, 3])
def test_short_and_zero_trip_loops(name, trips):
    text = kernel_text(name, 3, trips)
    if name in ACCUMULATING and trips == 0:
        # L0C's zero fill folds into the first mmad; with no iteration the fixpipe
        # writes what L0C holds: only the protocol is checked.
        report = run_ascend_kernel(compiled(text), random_inputs(load_module(text)))
        assert report.ok, report.problems()
        return
    assert_equivalent(text, compiled(text))


def point_groups(module: ModuleOp) -> dict[str, list]:
    """All ops of one sync point (its sets, waits, primes, drains or barrier)."""
    groups: dict[str, list] = {}
    for op in module.walk():
        attr = op.attributes.get(SYNC_POINT_ATTR)
        if isinstance(attr, StringAttr):
            groups.setdefault(attr.data, []).append(op)
    return groups


def _in_loop_pair(ops: list) -> list:
    """The ops of a ring that run in its loop (its set/wait pair, not the prime and
    drain around the loop)."""
    return [op for op in ops if isinstance(op.parent_op(), scf.ForOp)
            or isinstance(op.parent_op(), scf.IfOp)]


def mutants(text: str):
    """(description, module) for every sync point deleted, every ring's in-loop
    set/wait pair deleted (prime and drain kept), and every single sync op deleted."""
    reference = compiled(text)
    groups = point_groups(reference)
    for name in groups:
        module = reference.clone()
        for op in point_groups(module)[name]:
            op.detach()
            op.erase()
        yield f"sync point {name}", module
    for name, ops in groups.items():
        if len(_in_loop_pair(ops)) in (0, len(ops)):
            continue  # no ring: the pair is the whole point
        module = reference.clone()
        for op in _in_loop_pair(point_groups(module)[name]):
            op.detach()
            op.erase()
        yield f"in-loop pair of {name}", module
    count = sum(len(ops) for ops in groups.values())
    for index in range(count):
        module = reference.clone()
        op = [o for ops in point_groups(module).values() for o in ops][index]
        description = f"{op.name} of {op.attributes[SYNC_POINT_ATTR].data} (#{index})"
        op.detach()
        op.erase()
        yield description, module


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("num_stages", [1, 2, 3, 4])
def test_every_inserted_sync_is_needed(name, num_stages):
    text = kernel_text(name, num_stages)
    inputs = random_inputs(load_module(text))
    checked = 0
    for description, module in mutants(text):
        report = run_ascend_kernel(module, inputs)
        assert not report.ok, f"deleting {description} went unnoticed"
        if description.startswith("sync point"):
            # A whole point gone leaves no flag misuse behind: the data must race.
            assert report.races or report.deadlock, description
        checked += 1
    assert checked >= 8


def test_summary_of_a_compiled_kernel():
    text = kernel_text("ascend_matmul.mlir", 3)
    summary = ascend_summary(compiled(text, "ids_per_event=4"))
    lines = summary.splitlines()
    assert lines[0] == "@matmul on ascend910b"
    assert "a_l1 x3" in lines[1] and "c_l0c x1" in lines[1]
    assert "l0a 49152 of 65536 B" in lines[2]
    assert "  M_FIX: 1 sync points, 1 of 8 ids" in lines
    # MTE1_MTE2 and MTE2_MTE1 each had two rings of 3 ids: one of each spilled.
    assert lines[-1].startswith("  spilled to the lock pool: 2 sync points, 6 of 32 slots")


SAME_PIPE_KERNEL = """
func.func @overwrite(%x: memref<64xf16>, %y: memref<64xf16>, %z: memref<64xf16>)
    attributes {tile.target = "ascend910b"} {
  %u = memref.alloc() : memref<64xf16, "ub">
  tile.copy<64> %x -> %u : memref<64xf16> -> memref<64xf16, "ub">
  tile.copy<64> %y -> %u : memref<64xf16> -> memref<64xf16, "ub">
  tile.exp<64> %u -> %u : memref<64xf16, "ub"> -> memref<64xf16, "ub">
  tile.copy<64> %u -> %z : memref<64xf16, "ub"> -> memref<64xf16>
  func.return
}
"""


def test_every_inserted_barrier_is_needed():
    module = compiled(SAME_PIPE_KERNEL)
    barriers = [op for op in module.walk() if op.name == "ascend.pipe_barrier"]
    assert len(barriers) == 1  # the two MTE2 writes of u
    assert_equivalent(SAME_PIPE_KERNEL, module)
    inputs = random_inputs(load_module(SAME_PIPE_KERNEL))
    checked = 0
    for description, mutant in mutants(SAME_PIPE_KERNEL):
        report = run_ascend_kernel(mutant, inputs)
        assert not report.ok, f"deleting {description} went unnoticed"
        if description.startswith("sync point"):
            assert report.races or report.deadlock, description
        checked += 1
    assert checked >= 3


def copy_in_slots(module: ModuleOp, buffer: str) -> list[int]:
    """The slot of ``buffer`` each issued copy into it writes, in issue order."""
    kernel = next(op for op in module.walk() if isinstance(op, FuncOp))
    return [
        box.starts[0]
        for instr in ScalarUnit(kernel, {}).run()
        if instr.op.name == "ascend.data_copy"
        for box in instr.boxes
        if box.role == "dst" and box.buffer.name_hint == buffer
    ]


def test_index_modes_pick_different_slots():
    """The chapter's point: on guarded epochs the iteration picks the slot in one mode,
    the count of executed epochs in the other; both protocols are correct."""
    slots = {}
    for name in ("two_guards", "two_guards_counter"):
        text = kernel_text(name, 3)
        module = compiled(text)
        modes = {
            op.memref.name_hint: op.attributes["ascend.index_mode"].data
            for op in module.walk()
            if op.name == "memref.alloc"
        }
        counter = name.endswith("_counter")
        assert modes["w_ub"] == modes["y_ub"] == ("counter" if counter else "iteration")
        assert modes["x_ub"] == modes["z_ub"] == "iteration"  # not guarded
        assert_equivalent(text, module)
        slots[name] = (copy_in_slots(module, "y_ub"), copy_in_slots(module, "w_ub"))
    # w_ub's epochs run at i = 1, 4, 7, 10, 13 and y_ub's at the other iterations.
    assert slots["two_guards"] == ([0, 2, 0, 2, 0, 2, 0, 2, 0, 2, 0], [1, 1, 1, 1, 1])
    assert slots["two_guards_counter"] == ([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1], [0, 1, 2, 0, 1])


def test_mixed_kernel_splits_into_core_sections():
    text = kernel_text("ascend_matmul_vector.mlir", 2)
    module = compiled(text)
    kernel = next(op for op in module.walk() if isinstance(op, FuncOp))
    instructions = ScalarUnit(kernel, {}).run()
    by_kind = {(i.op.name, i.core.value, i.pipe.value) for i in instructions}
    assert ("ascend.cross_core_set_flag", "cube", "FIX") in by_kind
    assert ("ascend.cross_core_wait_flag", "vector", "MTE2") in by_kind
    assert ("ascend.data_copy_nd2nz", "cube", "MTE2") in by_kind  # A, B into L1 (NZ)
    assert ("ascend.data_copy", "vector", "MTE2") in by_kind  # W, Bias into UB
    source = emit_ascendc(module)
    aic = source.index("if ASCEND_IS_AIC {")
    aiv = source.index("if ASCEND_IS_AIV {")
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);" in source[:aic]
    cube, vector = source[aic:aiv], source[aiv:]
    assert "CrossCoreSetFlag<2, PIPE_FIX>(0);" in cube and "Mmad(" in cube
    assert "CrossCoreWaitFlag<2, PIPE_MTE2>(0);" in vector and "Add(" in vector
    assert "Mmad(" not in vector and "Add(" not in cube and "CrossCoreWait" not in cube


def test_counter_mode_overlaps_consecutive_guarded_epochs():
    """With 2 versions, iteration mode gives the epochs of iterations 0 and 2 the same
    slot, so the second waits for the first; counter mode alternates the slots."""
    inputs = random_inputs(load_module(BRANCH_ONLY_KERNEL))
    iteration, counter = (
        run_ascend_kernel(compiled(kernel_text(name, 2)), inputs).cycles
        for name in ("branch_only", "branch_only_counter")
    )
    assert counter < iteration
