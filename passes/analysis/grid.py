"""The launch grid of a kernel for given arguments.

A kernel states its grid either as the constant ``tile.grid`` attribute or, for
dynamic shapes, as a ``tile.grid_dims`` op over its arguments (docs/semantics.md).
:func:`evaluate_grid` gives the grid for concrete argument values; ``tile-run``, the
lowering's launch and ``scripts/gpu_check.py`` all use it, so they launch the same
blocks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, MemRefType
from xdsl.dialects.func import FuncOp
from xdsl.ir import BlockArgument, Operation, SSAValue

from tilepipe.dialects.kernel_attrs import kernel_launch_shape
from tilepipe.dialects.tile_launch import GRID_EXPRESSION_OPS, grid_dims_op


class GridEvaluationError(Exception):
    """The grid cannot be evaluated (a missing argument, a non-positive extent);
    ``op`` is the op to point at."""

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op = op


def _argument_name(arg: BlockArgument) -> str:
    return arg.name_hint or f"arg{arg.index}"


def _ceildiv(a: int, b: int) -> int:
    return -(-a // b)


def _trunc_div(a: int, b: int) -> int:
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient


# The integer semantics of MLIR's binary index ops (also the Ascend scalar unit's).
INDEX_BINARY_OPS: dict[str, Callable[[int, int], int]] = {
    "arith.addi": lambda a, b: a + b,
    "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b,
    "arith.divui": lambda a, b: a // b,
    "arith.divsi": _trunc_div,
    "arith.ceildivui": _ceildiv,
    "arith.ceildivsi": _ceildiv,
    "arith.floordivsi": lambda a, b: a // b,
    "arith.remui": lambda a, b: a % b,
    "arith.remsi": lambda a, b: a - b * _trunc_div(a, b),
    "arith.maxui": max,
    "arith.maxsi": max,
    "arith.minui": min,
    "arith.minsi": min,
}
_DIVISIONS = frozenset(
    {"arith.divui", "arith.divsi", "arith.ceildivui", "arith.ceildivsi",
     "arith.floordivsi", "arith.remui", "arith.remsi"}
)


def grid_rank(func: FuncOp) -> int:
    """The number of grid axes of ``func``, known without its arguments."""
    op = grid_dims_op(func)
    return len(kernel_launch_shape(func)[0]) if op is None else len(op.extents)


def evaluate_grid(
    func: FuncOp,
    index_args: Mapping[str, int] | None = None,
    shapes: Mapping[str, Sequence[int]] | None = None,
) -> tuple[int, ...]:
    """The grid of ``func`` (x first): its ``tile.grid``, or its ``tile.grid_dims``
    evaluated with the scalar arguments ``index_args`` and the memref arguments'
    ``shapes`` (by argument name; static dimensions come from the types)."""
    op = grid_dims_op(func)
    if op is None:
        return kernel_launch_shape(func)[0]
    index_args = index_args or {}
    shapes = shapes or {}
    values: dict[SSAValue, object] = {}

    def value_of(value: SSAValue) -> object:
        if value in values:
            return values[value]
        if isinstance(value, BlockArgument):
            result = _argument_value(op, value, index_args, shapes)
        else:
            result = _evaluate(value.owner, value_of)
        values[value] = result
        return result

    grid = tuple(int(value_of(extent)) for extent in op.extents)  # type: ignore[arg-type]
    for axis, extent in zip("xyz", grid):
        if extent <= 0:
            raise GridEvaluationError(
                op, f"grid extent along {axis} is {extent} for these arguments; it must "
                "be positive"
            )
    return grid


def _argument_value(op, arg: BlockArgument, index_args, shapes) -> object:
    name = _argument_name(arg)
    if isinstance(arg.type, MemRefType):
        static = arg.type.get_shape()
        shape = shapes.get(name)
        if shape is None and any(d < 0 for d in static):
            raise GridEvaluationError(op, f"the grid needs the shape of argument %{name}")
        return tuple(shape) if shape is not None else tuple(static)
    if name not in index_args:
        raise GridEvaluationError(op, f"the grid needs the value of argument %{name}")
    return int(index_args[name])


def _evaluate(owner: Operation, value_of: Callable[[SSAValue], object]) -> int:
    name = owner.name
    if isinstance(owner, arith.ConstantOp):
        if not isinstance(owner.value, IntegerAttr):
            raise GridEvaluationError(owner, "a grid extent must be an integer")
        return owner.value.value.data
    operands = [value_of(operand) for operand in owner.operands]
    if name == "memref.dim":
        shape, dim = operands
        if not 0 <= dim < len(shape):  # type: ignore[arg-type, operator]
            raise GridEvaluationError(owner, f"dimension {dim} is out of range")
        return shape[dim]  # type: ignore[index]
    if name == "arith.index_cast":
        return operands[0]  # type: ignore[return-value]
    lhs, rhs = operands
    if name in _DIVISIONS and rhs == 0:
        raise GridEvaluationError(owner, "divides by zero in the grid expression")
    return INDEX_BINARY_OPS[name](lhs, rhs)  # type: ignore[arg-type]
