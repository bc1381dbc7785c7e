"""Register fragments with slot dimensions (docs/nvvm.md, "Versioned register
fragments"): a fragment that crosses pipeline stages gets a version dimension from
``inject-software-pipeline``; ``lower-to-nvvm`` gives each thread every version's
registers (one alloca per version) and picks the version of a steady-state access at
run time through a staging fragment and ``select``s, never through a register index
computed at run time.

Each kernel goes through the CUDA flow, is lowered, and runs per thread in the NVVM
interpreter, race free and bit-exact against the tile-level run of its source, at
trip counts 0, 1, 2, 5, 17 and num_stages 2-4; ptxas accepts the PTX on sm_80 and
sm_90, with no local memory (the fragments stay in registers).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pipeline_helpers import apply_passes, lowered_to_nvvm

from tilepipe.core.flows import FLOWS
from tilepipe.drivers.compile import compile_kernel
from tilepipe.semantics import run_tile_kernel, select_kernel
from tilepipe.semantics.tile.grid_runner import random_array
from tilepipe.semantics.nvvm.interp import run_nvvm_kernel
from xdsl.dialects.builtin import IndexType, MemRefType


REGRESSIONS = Path(__file__).parents[2] / "regressions"
CUDA = FLOWS["cuda"].spec("scheduled")
TRIPS = (0, 1, 2, 5, 17)


def _inputs(module, seed: int = 3) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    func = select_kernel(module, None)
    return {
        arg.name_hint: random_array(arg.type, rng)
        for arg in func.body.block.args
        if isinstance(arg.type, MemRefType)
    }


def assert_lowered_matches(text: str, *runs: dict[str, int]) -> None:
    """The CUDA flow and lower-to-nvvm, compiled once: per thread race free and
    bit-exact against the tile-level run of ``text``, for each of ``runs`` (the index
    arguments of one run; one run without any when none are given)."""
    module = apply_passes(text, CUDA)
    lowered = lowered_to_nvvm(module)
    func = select_kernel(module, None)
    memrefs = [a.name_hint for a in func.body.block.args if isinstance(a.type, MemRefType)]
    for index_args in runs or ({},):
        inputs = _inputs(module)
        expected = run_tile_kernel(
            text, inputs={k: v.copy() for k, v in inputs.items()}, index_args=index_args
        )
        args = [
            np.int64(index_args[arg.name_hint]) if isinstance(arg.type, IndexType)
            else inputs[arg.name_hint]
            for arg in func.body.block.args
        ]
        run = run_nvvm_kernel(lowered, args, check_races=True)
        assert run.races == [], (index_args, run.races)
        outputs = [o for o, a in zip(run.outputs, args) if isinstance(a, np.ndarray) and a.ndim]
        for name, actual in zip(memrefs, outputs):
            np.testing.assert_array_equal(actual, expected[name], err_msg=f"%{name} {index_args}")


def assert_compiles_in_registers(text: str, target: str) -> None:
    """ptxas accepts the kernel and it needs no local memory (stack frame)."""
    result = compile_kernel(text, "kernel.mlir", target)
    assert result.ptx is not None and result.ptxas
    assert ".local" not in result.ptx, "a fragment left the registers"
    assert all(report.stack_bytes == 0 for report in result.ptxas)


FILL = (REGRESSIONS / "Inputs" / "fill_3d_fragment.mlir").read_text()
BROADCAST = (REGRESSIONS / "Inputs" / "broadcast_3d_fragment.mlir").read_text()


def _fill_with_trips(trips: int) -> str:
    """The fill reproducer with its second loop running ``trips`` iterations."""
    return FILL.replace("%k1 = %c1 to %c3 step %c1", "%k1 = %c1 to %ub step %c1").replace(
        "%c3 = arith.constant 3 : index",
        f"%c3 = arith.constant 3 : index\n  %ub = arith.constant {1 + trips} : index",
    )


@pytest.mark.parametrize("trips", TRIPS)
def test_fill_into_a_versioned_fragment_matches_per_thread(trips):
    assert_lowered_matches(_fill_with_trips(trips))


def test_broadcast_into_a_three_version_fragment_matches_per_thread():
    assert_lowered_matches(BROADCAST, *({"n": 1 + trips} for trips in TRIPS))


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
@pytest.mark.parametrize("text", [FILL, BROADCAST], ids=["fill", "broadcast"])
def test_reproducers_compile_with_fragments_in_registers(text, target, ptxas_available):
    assert_compiles_in_registers(text, target)


ELEMENTWISE = """
func.func @k(%X: memref<272x32xf32>, %O: memref<272x32xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 64 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %S = memref.alloc() : memref<16x32xf32, "shared">
  %F = memref.alloc() : memref<16x32xf32, "fragment">
  %G = memref.alloc() : memref<16x32xf32, "fragment">
  pipeline.for %k = %c0 to %n step %c1 stage = [0, 0, LAST, LAST, LAST] order = [0, 1, 2, 3, 4] {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x32> %X[%r, %c0] -> %S : memref<272x32xf32> -> memref<16x32xf32, "shared">
    tile.copy<16x32> %S -> %F : memref<16x32xf32, "shared"> -> memref<16x32xf32, "fragment">
    tile.exp<16x32> %F -> %G : memref<16x32xf32, "fragment"> -> memref<16x32xf32, "fragment">
    tile.add<16x32> %F, %G -> %F : memref<16x32xf32, "fragment">, memref<16x32xf32, "fragment"> -> memref<16x32xf32, "fragment">
    tile.copy<16x32> %F -> %O[%r, %c0] : memref<16x32xf32, "fragment"> -> memref<272x32xf32>
  }
  func.return
}
"""

# A tensor-core accumulator filled at stage 0, accumulated at stage 1 and stored at
# the last: its mma-layout registers are versioned.
GEMM = """
func.func @k(%A: memref<272x16xf16>, %B: memref<16x32xf16>, %O: memref<272x32xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 64 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.5 : f32
  %As = memref.alloc() : memref<16x16xf16, "shared">
  %Bs = memref.alloc() : memref<16x32xf16, "shared">
  %Acc = memref.alloc() : memref<16x32xf32, "fragment">
  pipeline.for %k = %c0 to %n step %c1 stage = [0, 0, 0, 1, LAST] order = [0, 1, 2, 3, 4] {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x16> %A[%r, %c0] -> %As : memref<272x16xf16> -> memref<16x16xf16, "shared">
    tile.copy<16x32> %B -> %Bs : memref<16x32xf16> -> memref<16x32xf16, "shared">
    tile.fill<16x32> %zero -> %Acc : f32 -> memref<16x32xf32, "fragment">
    tile.gemm<16x32x16> %As, %Bs -> %Acc : memref<16x16xf16, "shared">, memref<16x32xf16, "shared"> -> memref<16x32xf32, "fragment">
    tile.copy<16x32> %Acc -> %O[%r, %c0] : memref<16x32xf32, "fragment"> -> memref<272x32xf32>
  }
  func.return
}
"""


def _staged(text: str, num_stages: int) -> str:
    return text.replace("LAST", str(num_stages - 1))


@pytest.mark.parametrize("num_stages", [2, 3, 4])
@pytest.mark.parametrize("kernel", [ELEMENTWISE, GEMM], ids=["elementwise", "gemm"])
def test_versioned_fragments_match_per_thread(kernel, num_stages):
    text = _staged(kernel, num_stages)
    module = apply_passes(text, CUDA)
    versioned = [
        op.memref.type
        for op in module.walk()
        if op.name == "memref.alloc" and "fragment" in str(op.memref.type)
    ]
    assert any(len(t.get_shape()) == 3 for t in versioned), versioned
    assert_lowered_matches(text, *({"n": trips} for trips in TRIPS))


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
@pytest.mark.parametrize("kernel", [ELEMENTWISE, GEMM], ids=["elementwise", "gemm"])
def test_versioned_fragments_compile_in_registers(kernel, target, ptxas_available):
    assert_compiles_in_registers(_staged(kernel, 3).replace("sm_80", target), target)


# A part of a versioned fragment written at a run-time version, in a later stage than
# the whole version was: the version's other elements must survive (the staging
# registers start as the version's own, not as the last version staged).
PART_OF_A_VERSION = """
func.func @k(%X: memref<272x32xf32>, %O: memref<272x32xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 64 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %S = memref.alloc() : memref<16x32xf32, "shared">
  %F = memref.alloc() : memref<16x32xf32, "fragment">
  %G = memref.alloc() : memref<8x32xf32, "fragment">
  pipeline.for %k = %c0 to %n step %c1 stage = [0, 0, MID, MID, LAST] order = [0, 1, 2, 3, 4] {
    %r = arith.muli %k, %c16 : index
    tile.copy<16x32> %X[%r, %c0] -> %S : memref<272x32xf32> -> memref<16x32xf32, "shared">
    tile.copy<16x32> %S -> %F : memref<16x32xf32, "shared"> -> memref<16x32xf32, "fragment">
    tile.copy<8x32> %F[%c8, %c0] -> %G : memref<16x32xf32, "fragment"> -> memref<8x32xf32, "fragment">
    tile.exp<8x32> %G -> %F[%c0, %c0] : memref<8x32xf32, "fragment"> -> memref<16x32xf32, "fragment">
    tile.copy<16x32> %F -> %O[%r, %c0] : memref<16x32xf32, "fragment"> -> memref<272x32xf32>
  }
  func.return
}
"""


@pytest.mark.parametrize("num_stages", [2, 3])
def test_a_part_of_a_version_keeps_the_rest(num_stages):
    text = _staged(PART_OF_A_VERSION, num_stages).replace("MID", "1")
    assert_lowered_matches(text, *({"n": trips} for trips in (1, 2, 5)))
