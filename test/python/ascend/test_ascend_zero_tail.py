"""``ascend.zero_tail`` (Ascend boundary tiles with the flags of the static
kernel): what it zeroes on the tile level and in the pipe simulator, that a ragged
kernel needs it, and that the kernels zeroing their tails keep their static flags."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tilepipe.dialects import ascend
from tilepipe.lowering.ascend.summary import ascend_summary
from tilepipe.core.flows import run_flow
from tilepipe.semantics import run_tile_kernel
from tilepipe.semantics.ascend.sim import run_ascend_kernel
from tilepipe.semantics.compare import first_difference
from tilepipe.semantics.tile.grid_runner import load_module

ROOT = Path(__file__).resolve().parents[3]
INPUTS = ROOT / "test" / "ascend" / "Inputs"

# The tile is filled with 7, then zero_tail zeroes what a DataCopyPad of x's region
# would not have written; the tile is stored whole.
ZERO_TAIL_2D = """
func.func @tail(%x: memref<?x?xT>, %out: memref<16x48xT>, %row: index, %col: index)
    attributes {tile.grid = array<i64: 1>, tile.target = "ascend910b"} {
  %seven = arith.constant 7.0 : T
  %t_ub = memref.alloc() : memref<16x48xT, "ub">
  tile.fill<16x48> %seven -> %t_ub : T -> memref<16x48xT, "ub">
  ascend.zero_tail<16x48> %x[%row, %col] -> %t_ub : memref<?x?xT> -> memref<16x48xT, "ub">
  tile.copy<16x48> %t_ub -> %out : memref<16x48xT, "ub"> -> memref<16x48xT>
  func.return
}
"""

ZERO_TAIL_1D = """
func.func @tail(%x: memref<?xT>, %out: memref<64xT>, %at: index)
    attributes {tile.grid = array<i64: 1>, tile.target = "ascend910b"} {
  %seven = arith.constant 7.0 : T
  %t_ub = memref.alloc() : memref<64xT, "ub">
  tile.fill<64> %seven -> %t_ub : T -> memref<64xT, "ub">
  ascend.zero_tail<64> %x[%at] -> %t_ub : memref<?xT> -> memref<64xT, "ub">
  tile.copy<64> %t_ub -> %out : memref<64xT, "ub"> -> memref<64xT>
  func.return
}
"""


def _expected(shape, rows, padded):
    tile = np.full(shape, 7.0)
    tile.reshape(-1, shape[-1])[rows:, :] = 0
    tile.reshape(-1, shape[-1])[:rows, padded:] = 0
    return tile


def _both_levels(text: str, inputs: dict, index_args: dict) -> list[np.ndarray]:
    tile_level = run_tile_kernel(text, inputs={k: v.copy() for k, v in inputs.items()},
                            index_args=index_args)["out"]
    module = run_flow(load_module(text), "ascend")
    report = run_ascend_kernel(module, inputs, index_args)
    assert report.ok, report.problems()
    return [tile_level, report.outputs["out"]]


@pytest.mark.parametrize("dtype,type_name,block", [(np.float16, "f16", 16), (np.float32, "f32", 8)])
@pytest.mark.parametrize(
    "x_shape,row,col,rows,cols",
    [
        ((40, 20), 32, 0, 8, 20),  # ragged rows and columns
        ((40, 48), 0, 0, 16, 48),  # an interior tile: nothing zeroed
        ((16, 47), 0, 0, 16, 47),  # one column short of the tile
        ((40, 100), 16, 60, 16, 40),  # ragged columns at a column offset
        ((10, 48), 16, 0, 0, 48),  # wholly past the rows
        ((16, 48), 0, 48, 16, 0),  # wholly past the columns
    ],
)
def test_a_2d_zero_tail_keeps_valid_rows_to_their_32_byte_block(
    dtype, type_name, block, x_shape, row, col, rows, cols
):
    text = ZERO_TAIL_2D.replace("xT", f"x{type_name}").replace(": T", f": {type_name}")
    inputs = {"x": np.ones(x_shape, dtype), "out": np.zeros((16, 48), dtype)}
    padded = min(48, -(-cols // block) * block)
    for result in _both_levels(text, inputs, {"row": row, "col": col}):
        np.testing.assert_array_equal(result, _expected((16, 48), rows, padded))


@pytest.mark.parametrize("n,at,padded", [(100, 64, 48), (100, 0, 64), (100, 96, 16), (5, 64, 0), (1, 0, 16)])
def test_a_1d_zero_tail(n, at, padded):
    text = ZERO_TAIL_1D.replace("xT", "xf16").replace(": T", ": f16")
    inputs = {"x": np.ones(n, np.float16), "out": np.zeros(64, np.float16)}
    valid_rows = 1 if at < n else 0
    for result in _both_levels(text, inputs, {"at": at}):
        np.testing.assert_array_equal(result, _expected((64,), valid_rows, padded))


def test_without_its_zero_tail_a_ragged_tile_reads_an_earlier_tile():
    """Mutation: the zero_tail ops erased from the compiled vector add, the sum past
    the inputs' end (stored in bounds of the longer output) is what the UB slot held
    two tiles earlier, not 0 + 0."""
    text = (INPUTS / "vadd_dynamic.mlir").read_text()
    rng = np.random.default_rng(0)
    x, y = (rng.uniform(1, 2, 520).astype(np.float16) for _ in range(2))
    inputs = {"x": x, "y": y, "z": np.full(768, 7, np.float16)}
    expected = run_tile_kernel(text, inputs={k: v.copy() for k, v in inputs.items()})
    module = run_flow(load_module(text), "ascend")
    tails = [op for op in module.walk() if isinstance(op, ascend.ZeroTailOp)]
    assert len(tails) == 2
    report = run_ascend_kernel(module, inputs)
    assert report.ok and first_difference(expected, report.outputs, "tile", "sim") is None
    for op in tails:
        op.detach()
        op.erase()
    report = run_ascend_kernel(module, inputs)
    assert first_difference(expected, report.outputs, "tile", "sim") is not None


def _flags(text: str) -> list[str]:
    summary = ascend_summary(run_flow(load_module(text), "ascend"))
    return sorted(line.strip() for line in summary.splitlines() if "sync points" in line)


@pytest.mark.parametrize(
    "dynamic,static",
    [
        ((INPUTS / "vadd_dynamic.mlir").read_text(), (ROOT / "examples" / "ascend_vadd.mlir").read_text()),
        (
            (INPUTS / "vmax_2d_dynamic.mlir").read_text(),
            (INPUTS / "vmax_2d_dynamic.mlir").read_text().replace("?x?", "64x48"),
        ),
    ],
    ids=["vadd", "vmax_2d"],
)
def test_ragged_vector_kernels_keep_the_flags_of_their_static_form(dynamic, static):
    assert "zero_tail" not in str(run_flow(load_module(static), "ascend"))
    assert _flags(dynamic) == _flags(static)


@pytest.mark.parametrize("b", [0, 1, 2])
def test_a_leading_unit_dimension_past_the_array_copies_nothing(b):
    """The tile's one slice along a leading unit dimension lies past the array at
    b >= 1: its copy has no valid row (the AscendC guards it; test/ascend/
    compile-boundary.mlir), the zero_tail zeroes the tile, exp gives 1 as on the tile
    level."""
    text = (INPUTS / "leading_unit_dim_dynamic.mlir").read_text()
    inputs = {
        "x": np.random.default_rng(b).uniform(-1, 1, (1, 12, 64)).astype(np.float32),
        "z": np.full((2, 16, 64), 7, np.float32),
    }
    expected = run_tile_kernel(text, inputs={k: v.copy() for k, v in inputs.items()}, index_args={"b": b})
    report = run_ascend_kernel(run_flow(load_module(text), "ascend"), inputs, {"b": b})
    assert report.ok, report.problems()
    assert first_difference(expected, report.outputs, "tile", "sim") is None
