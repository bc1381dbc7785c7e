"""``tile.reduce sum`` adds in one defined order (``tilepipe.dialects.tile_reduce_order``:
numpy's pairwise order), at the tile level and in every lowering, so the lowered
kernel equals its source to the bit -- not only on inputs whose sums happen to be
exact (fuzz seed 420490: a row sum of a 32x32 f32 register tile, summed with a
butterfly over the lanes, differed from the tile level in the last bits).

Each kernel goes through the CUDA pass pipeline and ``lower-to-nvvm`` and runs per
thread in the NVVM interpreter against the tile-level run (the fuzzer's own check);
the row lengths cross the order's boundaries: fewer than 8 elements (one by one),
whole and partial rounds of 8, and more than 128 (split in two)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tilepipe.dialects.tile_reduce_order import BLOCK, LANES, Run, Split, sum_tree
from tilepipe.fuzz.check import Options, check_text
from tilepipe.semantics.numerics import reduce_sum

NVVM = Options(nvvm=True, determinism=False)
INPUTS = Path(__file__).parents[1] / "fuzz" / "Inputs"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_order_is_numpys_pairwise_order_along_a_row(dtype):
    rng = np.random.default_rng(7)
    for n in [*range(1, 2 * BLOCK + 20), 511, 1000, 4095]:
        rows = rng.standard_normal((3, n)).astype(dtype) * np.array([[1], [1e4], [1e-4]], dtype)
        rows[2, ::3] = -0.0
        got, want = reduce_sum(rows, 1), np.add.reduce(rows, axis=1)
        assert got.tobytes() == want.tobytes(), n


def test_a_leading_axis_is_summed_in_the_same_order():
    """numpy sums a leading axis one row at a time; the op's order does not depend on
    the axis (a lowering loops over either axis the same way)."""
    columns = np.random.default_rng(3).standard_normal((40, 5)).astype(np.float32)
    assert reduce_sum(columns, 0).tobytes() == reduce_sum(columns.T.copy(), 1).tobytes()
    sequential = np.zeros(5, np.float32)
    for row in columns:
        sequential = sequential + row
    assert reduce_sum(columns, 0).tobytes() != sequential.tobytes()


def test_rows_longer_than_a_block_split_at_a_multiple_of_the_lanes():
    assert sum_tree(BLOCK) == Run(0, BLOCK)
    assert sum_tree(300) == Split(
        Split(Run(0, 72), Run(72, 72)), Split(Run(144, 72), Run(216, 84))
    )
    assert Run(0, 29).rounds == 3 and list(Run(0, 29).tail) == [24, 25, 26, 27, 28]
    assert Run(0, LANES - 1).rounds == 0 and list(Run(0, LANES - 1).tail) == list(range(7))


def _findings(text: str) -> list[str]:
    outcome = check_text(text, "sm_80", [None], NVVM)
    assert outcome.compiled, outcome.rejected
    return [str(f) for f in outcome.findings]


def _memory_reduction(rows: int, cols: int, axis: int, dtype: str, space: str) -> str:
    out = cols if axis == 0 else rows
    return f"""
func.func @sum(%X: memref<{rows}x{cols}x{dtype}>, %V: memref<{out}x{dtype}>)
    attributes {{tile.threads = 64 : i64, tile.target = "sm_80"}} {{
  %S = memref.alloc() : memref<{rows}x{cols}x{dtype}, "{space}">
  %v = memref.alloc() : memref<{out}x{dtype}, "shared">
  tile.copy<{rows}x{cols}> %X -> %S : memref<{rows}x{cols}x{dtype}> -> memref<{rows}x{cols}x{dtype}, "{space}">
  tile.reduce<{rows}x{cols}> sum %S -> %v axis {axis} : memref<{rows}x{cols}x{dtype}, "{space}"> -> memref<{out}x{dtype}, "shared">
  tile.copy<{out}> %v -> %V : memref<{out}x{dtype}, "shared"> -> memref<{out}x{dtype}>
  func.return
}}
"""


@pytest.mark.parametrize("extent", [3, 8, 29, 128, 136, 300])
@pytest.mark.parametrize("axis", [0, 1])
def test_a_thread_sums_a_row_of_shared_memory_in_the_ops_order(extent, axis):
    rows, cols = (extent, 4) if axis == 0 else (4, extent)
    assert _findings(_memory_reduction(rows, cols, axis, "f32", "shared")) == []


@pytest.mark.parametrize("cols", [1, 2, 4, 8, 16, 32])
def test_lanes_sum_a_row_of_a_register_tile_in_the_ops_order(cols):
    """The cooperative fragment layout: one element of a row per lane; fewer than 8
    lanes shuffle their elements down one by one, more shuffle down to 8 partials."""
    assert _findings(_memory_reduction(64, cols, 1, "f32", "local")) == []


def test_fuzz_seed_420490_row_sum_of_a_register_tile_in_a_pipeline():
    text = (INPUTS / "sm80_row_sum_of_a_register_tile.mlir").read_text()
    assert _findings(text) == []


ACCUMULATOR_ROW_SUM = """
func.func @row_sums(%A: memref<16x16xf16>, %B: memref<16x{n}xf16>, %V: memref<16xf32>)
    attributes {{tile.threads = 32 : i64, tile.target = "sm_80"}} {{
  %zero = arith.constant 0.0 : f32
  %A_s = memref.alloc() : memref<16x16xf16, "shared">
  %B_s = memref.alloc() : memref<16x{n}xf16, "shared">
  %C = memref.alloc() : memref<16x{n}xf32, "fragment">
  %v = memref.alloc() : memref<16xf32, "shared">
  tile.copy<16x16> %A -> %A_s : memref<16x16xf16> -> memref<16x16xf16, "shared">
  tile.copy<16x{n}> %B -> %B_s : memref<16x{n}xf16> -> memref<16x{n}xf16, "shared">
  tile.fill<16x{n}> %zero -> %C : f32 -> memref<16x{n}xf32, "fragment">
  tile.gemm<16x{n}x16> %A_s, %B_s -> %C : memref<16x16xf16, "shared">, memref<16x{n}xf16, "shared"> -> memref<16x{n}xf32, "fragment">
  tile.reduce<16x{n}> sum %C -> %v axis 1 : memref<16x{n}xf32, "fragment"> -> memref<16xf32, "shared">
  tile.copy<16> %v -> %V : memref<16xf32, "shared"> -> memref<16xf32>
  func.return
}}
"""


@pytest.mark.parametrize("n", [8, 16, 64, 256])
def test_quads_sum_a_row_of_an_accumulator_in_the_ops_order(n):
    """The mma accumulator layout: lane q of a quad holds partials 2q and 2q+1 of every
    run of 8 columns; 256 columns are two runs of 128 added."""
    assert _findings(ACCUMULATOR_ROW_SUM.format(n=n)) == []
