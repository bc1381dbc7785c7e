"""Fragment operands a tile op cannot run on in place (docs/nvvm.md, "Fragment
operands through shared memory"): a part of a fragment (``%F[%c16, %c0]``), a row of
it, a broadcast whose source is a fragment, and such accesses in a loop.  Each kernel
lowers (they were diagnostics before: "register fragments are accessed as a whole",
"a 32x32 register fragment is touched by a 16x32 tile", "broadcasts from shared or
global memory only"), runs per thread race free and bit-exact against the tile level,
and every barrier the lowering adds is needed: deleting it makes the per-thread race
detector fire.
"""

from __future__ import annotations

import numpy as np
import pytest
from pipeline_helpers import apply_passes, lowered_to_nvvm

from tilepipe.core.flows import FLOWS
from tilepipe.drivers.compile import compile_kernel
from tilepipe.dialects.nvvm import Barrier0Op
from tilepipe.semantics import find_races, run_tile_kernel, select_kernel
from tilepipe.semantics.nvvm.interp import run_nvvm_kernel
from xdsl.dialects.builtin import IndexType, MemRefType

CUDA = FLOWS["cuda"].spec("scheduled")

PARTS = """
func.func @parts(%X: memref<32x32xf32>, %V: memref<32xf32>, %O: memref<32x32xf32>, %P: memref<16x16xf32>, %Q: memref<32x32xf32>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 64 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %F = memref.alloc() : memref<32x32xf32, "fragment">
  %G = memref.alloc() : memref<16x16xf32, "fragment">
  %v = memref.alloc() : memref<32xf32, "fragment">
  %B = memref.alloc() : memref<32x32xf32, "fragment">
  tile.copy<32x32> %X -> %F : memref<32x32xf32> -> memref<32x32xf32, "fragment">
  tile.copy<16x16> %F[%c16, %c8] -> %G : memref<32x32xf32, "fragment"> -> memref<16x16xf32, "fragment">
  tile.exp<16x16> %G -> %F[%c0, %c16] : memref<16x16xf32, "fragment"> -> memref<32x32xf32, "fragment">
  tile.copy<32> %V -> %v : memref<32xf32> -> memref<32xf32, "fragment">
  tile.broadcast<32x32> %v -> %B axis 0 : memref<32xf32, "fragment"> -> memref<32x32xf32, "fragment">
  tile.add<32x32> %B, %F -> %B : memref<32x32xf32, "fragment">, memref<32x32xf32, "fragment"> -> memref<32x32xf32, "fragment">
  tile.copy<32x32> %F -> %O : memref<32x32xf32, "fragment"> -> memref<32x32xf32>
  tile.copy<16x16> %G -> %P : memref<16x16xf32, "fragment"> -> memref<16x16xf32>
  tile.copy<32x32> %B -> %Q : memref<32x32xf32, "fragment"> -> memref<32x32xf32>
  func.return
}
"""

# A row of a fragment at a run-time index, in a loop: each iteration doubles row k.
# With 64 threads an odd row's elements and the row vector's are held by different
# threads (barriers); with 32 by the same ones (none).
ROWS = """
func.func @rows(%X: memref<8x32xf32>, %O: memref<8x32xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 64 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  %F = memref.alloc() : memref<8x32xf32, "fragment">
  %r = memref.alloc() : memref<32xf32, "fragment">
  tile.copy<8x32> %X -> %F : memref<8x32xf32> -> memref<8x32xf32, "fragment">
  tile.fill<32> %two -> %r : f32 -> memref<32xf32, "fragment">
  scf.for %k = %c0 to %n step %c1 {
    tile.mul<32> %F[%k, %c0], %r -> %F[%k, %c0] : memref<8x32xf32, "fragment">, memref<32xf32, "fragment"> -> memref<8x32xf32, "fragment">
  }
  tile.copy<8x32> %F -> %O : memref<8x32xf32, "fragment"> -> memref<8x32xf32>
  func.return
}
"""


# Only a read through shared memory in the loop: the barrier after the op keeps the
# next iteration's stores from overwriting what other threads still read.
ROW_SUM = """
func.func @row_sum(%X: memref<8x32xf32>, %O: memref<32xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 64 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %F = memref.alloc() : memref<8x32xf32, "fragment">
  %r = memref.alloc() : memref<32xf32, "fragment">
  tile.copy<8x32> %X -> %F : memref<8x32xf32> -> memref<8x32xf32, "fragment">
  tile.fill<32> %zero -> %r : f32 -> memref<32xf32, "fragment">
  scf.for %k = %c0 to %n step %c1 {
    tile.add<32> %F[%k, %c0], %r -> %r : memref<8x32xf32, "fragment">, memref<32xf32, "fragment"> -> memref<32xf32, "fragment">
  }
  tile.copy<32> %r -> %O : memref<32xf32, "fragment"> -> memref<32xf32>
  func.return
}
"""

def _inputs(module, seed: int = 7) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    func = select_kernel(module, None)
    return {
        a.name_hint: rng.uniform(-1, 1, a.type.get_shape()).astype(np.float32)
        for a in func.body.block.args
        if isinstance(a.type, MemRefType)
    }


def _args(module, inputs, index_args):
    func = select_kernel(module, None)
    return [
        np.int64(index_args[a.name_hint]) if isinstance(a.type, IndexType) else inputs[a.name_hint].copy()
        for a in func.body.block.args
    ]


def _run(lowered, module, inputs, index_args, stop_at_first_race=False):
    return run_nvvm_kernel(
        lowered, _args(module, inputs, index_args), check_races=True,
        stop_at_first_race=stop_at_first_race,
    )


TRIPS = (0, 1, 2, 5, 8)
CASES = [
    (PARTS, {}),
    *((ROWS, {"n": n}) for n in TRIPS),
    *((ROW_SUM, {"n": n}) for n in TRIPS),
]
IDS = ["parts", *(f"rows-{n}" for n in TRIPS), *(f"row_sum-{n}" for n in TRIPS)]


@pytest.mark.parametrize("text, index_args", CASES, ids=IDS)
def test_fragment_operands_through_shared_memory_match_per_thread(text, index_args):
    module = apply_passes(text, CUDA)
    inputs = _inputs(module)
    assert find_races(text, inputs={k: v.copy() for k, v in inputs.items()}, index_args=index_args) == []
    expected = run_tile_kernel(text, inputs={k: v.copy() for k, v in inputs.items()}, index_args=index_args)
    run = _run(lowered_to_nvvm(module), module, inputs, index_args)
    assert run.races == []
    names = list(inputs)
    for name, actual in zip(names, [o for o in run.outputs if getattr(o, "ndim", 0)]):
        np.testing.assert_array_equal(actual, expected[name], err_msg=f"%{name}")


@pytest.mark.parametrize(
    "text, index_args", [(PARTS, {}), (ROWS, {"n": 3}), (ROW_SUM, {"n": 3})],
    ids=["parts", "rows", "row_sum"],
)
def test_every_relayout_barrier_is_needed(text, index_args):
    module = apply_passes(text, CUDA)
    lowered = lowered_to_nvvm(module)
    inputs = _inputs(module)
    barriers = [op for op in lowered.walk() if isinstance(op, Barrier0Op)]
    assert barriers
    for position in range(len(barriers)):
        mutant = lowered.clone()
        victim = [op for op in mutant.walk() if isinstance(op, Barrier0Op)][position]
        victim.detach()
        victim.erase()
        run = _run(mutant, module, inputs, index_args, stop_at_first_race=True)
        assert run.races, f"barrier {position} of {len(barriers)} is not needed"


def test_no_barrier_where_every_element_stays_with_its_thread():
    text = ROWS.replace("tile.threads = 64", "tile.threads = 32")
    module = apply_passes(text, CUDA)
    lowered = lowered_to_nvvm(module)
    assert not any(isinstance(op, Barrier0Op) for op in lowered.walk())
    inputs = _inputs(module)
    for n in (0, 3, 8):
        expected = run_tile_kernel(text, inputs={k: v.copy() for k, v in inputs.items()}, index_args={"n": n})
        run = _run(lowered, module, inputs, {"n": n})
        assert run.races == []
        np.testing.assert_array_equal(run.outputs[1], expected["O"])


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
@pytest.mark.parametrize("text", [PARTS, ROWS, ROW_SUM], ids=["parts", "rows", "row_sum"])
def test_fragment_operands_through_shared_memory_compile(text, target, ptxas_available):
    result = compile_kernel(text.replace("sm_80", target), "kernel.mlir", target)
    assert result.ptxas and ".local" not in (result.ptx or "")
