"""The divisibility analysis (passes/analysis/divisibility.py) and the grid evaluation
(passes/analysis/grid.py) of dynamic shapes."""

from __future__ import annotations

import pytest

from pipeline_helpers import parse
from tilepipe.dialects import tile
from tilepipe.passes.analysis.divisibility import (
    alignment_bytes,
    dim_divisibility,
    offset_divisibility,
    stride_divisibility,
    value_divisibility,
)
from tilepipe.passes.analysis.grid import GridEvaluationError, evaluate_grid

KERNEL = """
func.func @k(%A: memref<?x?xf16> {tile.divisibility = array<i64: 1, 8>},
             %S: memref<?x24xf16>, %n: index {tile.divisibility = 4 : i64}, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c64 = arith.constant 64 : index
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %nm = arith.muli %n, %c6 : index
  %sum = arith.addi %nm, %c64 : index
  %plus_m = arith.addi %sum, %m : index
  %gx = arith.ceildivui %K, %c64 : index
  tile.grid_dims %gx, %n
  %t = memref.alloc() : memref<16x64xf16, "shared">
  scf.for %i = %c0 to %n step %c64 {
    %row = arith.muli %i, %c1 : index
    tile.copy<16x64> %A[%row, %sum] -> %t : memref<?x?xf16> -> memref<16x64xf16, "shared">
    tile.copy<16x16> %S[%row, %nm] -> %t : memref<?x24xf16> -> memref<16x64xf16, "shared">
  }
  func.return
}
"""


@pytest.fixture(scope="module")
def kernel():
    module = parse(KERNEL)
    func = next(op for op in module.walk() if op.name == "func.func")
    values = {
        op.results[0].name_hint: op.results[0]
        for op in func.walk() if op.results and op.results[0].name_hint
    }
    copies = [op for op in func.walk() if isinstance(op, tile.CopyOp)]
    return func, values, copies


def test_values_are_divisible_by_what_their_arithmetic_proves(kernel):
    func, values, _ = kernel
    A, S, n, m = func.body.block.args
    assert value_divisibility(values["c64"]) == 64
    assert value_divisibility(values["c0"]) == 0  # zero: every k divides it
    assert value_divisibility(n) == 4  # tile.divisibility = 4
    assert value_divisibility(m) == 1  # nothing known
    assert value_divisibility(values["nm"]) == 24  # 4 * 6
    assert value_divisibility(values["sum"]) == 8  # gcd(24, 64)
    assert value_divisibility(values["plus_m"]) == 1
    assert value_divisibility(values["K"]) == 8  # memref.dim of a stated dimension
    assert value_divisibility(values["gx"]) == 1  # ceildiv proves nothing
    assert value_divisibility(values["row"]) == 64  # i = 0 + j * 64


def test_sizes_strides_offsets_and_alignment(kernel):
    func, values, (copy_a, copy_s) = kernel
    A, S = func.body.block.args[:2]
    assert [dim_divisibility(A, d) for d in (0, 1)] == [1, 8]
    assert [dim_divisibility(S, d) for d in (0, 1)] == [1, 24]
    assert stride_divisibility(A, 0) == 8 and stride_divisibility(A, 1) == 1
    assert stride_divisibility(S, 0) == 24
    # A[%row, %sum]: 64 * 8 * k + 8 * j elements -> 8 elements, 16 bytes
    assert offset_divisibility(A, copy_a.src_offsets) == 8
    assert alignment_bytes(A, copy_a.src_offsets) == 16
    # S[%row, %nm]: 64 * 24 * k + 24 * j elements -> 24 elements = 48 bytes -> 16
    assert offset_divisibility(S, copy_s.src_offsets) == 24
    assert alignment_bytes(S, copy_s.src_offsets) == 16
    assert alignment_bytes(A, ()) == 16  # the base


def test_the_grid_is_evaluated_from_the_arguments(kernel):
    func, _, _ = kernel
    shapes = {"A": (10, 129), "S": (5, 24)}
    assert evaluate_grid(func, {"n": 3, "m": 0}, shapes) == (3, 3)
    with pytest.raises(GridEvaluationError, match="the grid needs the value of argument %n"):
        evaluate_grid(func, {}, shapes)
    with pytest.raises(GridEvaluationError, match="the grid needs the shape of argument %A"):
        evaluate_grid(func, {"n": 3}, {})
    with pytest.raises(GridEvaluationError, match="grid extent along y is 0"):
        evaluate_grid(func, {"n": 0}, shapes)


def test_a_constant_grid_is_returned_as_is():
    module = parse(
        'func.func @k() attributes {tile.grid = array<i64: 4, 2>} {\n  func.return\n}'
    )
    func = next(op for op in module.walk() if op.name == "func.func")
    assert evaluate_grid(func) == (4, 2)


GRID_DIMS_KERNEL = """
func.func @k(%A: memref<100x64xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %M = memref.dim %A, %c0 : memref<100x64xf16>
  %gx = arith.ceildivui %M, %c64 : index
  tile.grid_dims %gx, %n
  func.return
}"""


def test_the_launchers_evaluate_a_tile_grid_dims_grid():
    """The tuner counts a tile.grid_dims kernel's blocks for its arguments (not the
    (1,) of an absent tile.grid) and names the argument it lacks, at the op; the
    schedule simulator's block 0 has one coordinate per axis."""
    from tilepipe.passes.analysis.grid import grid_rank
    from tilepipe.semantics.errors import KernelError
    from tilepipe.drivers.tune_evaluate import grid_blocks as _blocks

    module = parse(GRID_DIMS_KERNEL)
    func = next(op for op in module.walk() if op.name == "func.func")
    assert grid_rank(func) == 2
    assert _blocks(module, {"n": 3}) == 2 * 3
    with pytest.raises(KernelError, match=r"tile.grid_dims.*needs the value of argument %n"):
        _blocks(module, {})
