"""Launch facts of a kernel with dynamic shapes: ``tile.grid_dims`` and
``tile.divisibility`` (docs/semantics.md, "Dynamic shapes and boundary tiles").

``tile.grid_dims %gx, %gy`` states the launch grid as SSA arithmetic on the kernel's
arguments, so a grid can follow a dynamic size (``ceildiv(M, 128)``).  It must be a
function of the arguments alone -- a launcher evaluates it before any block runs --
so its operands may only be computed from the function's arguments by the pure ops
of :data:`GRID_EXPRESSION_OPS` (``passes/analysis/grid.py`` evaluates exactly these).

``tile.divisibility`` is an argument attribute (as Triton's ``tt.divisibility``):
``array<i64: k0, k1, ...>`` on a memref argument says the size of dimension ``d`` is a
multiple of ``k_d``; ``k : i64`` on an index/integer argument says the value is.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    DenseArrayBase,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
)
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, var_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

DIVISIBILITY = "tile.divisibility"

# The ops a grid expression may use (all pure, no regions, evaluated on integers).
GRID_EXPRESSION_OPS = frozenset(
    {
        "arith.constant", "arith.addi", "arith.subi", "arith.muli", "arith.divui",
        "arith.divsi", "arith.ceildivui", "arith.ceildivsi", "arith.floordivsi",
        "arith.remui", "arith.remsi", "arith.maxui", "arith.maxsi", "arith.minui",
        "arith.minsi", "arith.index_cast", "memref.dim",
    }
)


@irdl_op_definition
class GridDimsOp(IRDLOperation):
    """The launch grid (x first, 1 to 3 extents) as a function of the arguments.

    At most one per kernel, in its entry block, instead of a ``tile.grid``
    attribute.  It has no effect when run; launchers evaluate it beforehand."""

    name = "tile.grid_dims"
    extents = var_operand_def(IndexType)

    def __init__(self, extents: list[SSAValue]):
        super().__init__(operands=[extents])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.extents, printer.print_operand)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> GridDimsOp:
        names = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        operands = [parser.resolve_operand(name, IndexType()) for name in names]
        op = cls(operands)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def verify_(self) -> None:
        from xdsl.dialects.func import FuncOp

        if not 1 <= len(self.extents) <= 3:
            raise VerifyException(
                f"expects 1 to 3 grid extents (x, y, z), got {len(self.extents)}"
            )
        func = self.parent_op()
        if not isinstance(func, FuncOp) or self.parent_block() is not func.body.block:
            raise VerifyException("must be in the entry block of a kernel function")
        if "tile.grid" in func.attributes:
            raise VerifyException(
                "states the grid of a kernel that also has a constant 'tile.grid'"
            )
        others = [op for op in func.body.block.ops if isinstance(op, GridDimsOp)]
        if others[0] is not self:
            raise VerifyException("a kernel has at most one 'tile.grid_dims'")
        for extent in self.extents:
            if (culprit := _non_argument_dependence(extent, func.body.block)) is not None:
                raise VerifyException(
                    "grid expression is not a function of the arguments: it depends on "
                    f"{culprit}"
                )


def _non_argument_dependence(value: SSAValue, entry: Block) -> str | None:
    """What ``value`` depends on besides the arguments and grid-expression ops (a
    description), or None."""
    stack, seen = [value], set()
    while stack:
        current = stack.pop()
        if isinstance(current, BlockArgument):
            if current.block is not entry:
                return "a value defined inside a loop or region"
            continue
        owner = current.owner
        assert isinstance(owner, Operation)
        if owner.name not in GRID_EXPRESSION_OPS:
            return f"the '{owner.name}' op"
        for operand in owner.operands:
            if id(operand) not in seen:
                seen.add(id(operand))
                stack.append(operand)
    return None


def grid_dims_op(func: Operation) -> GridDimsOp | None:
    """The kernel's ``tile.grid_dims`` op, if it states its grid that way."""
    for region in func.regions:
        for block in region.blocks:
            for op in block.ops:
                if isinstance(op, GridDimsOp):
                    return op
    return None


# --------------------------------------------------------------------------- divisibility


def argument_divisibility(func: Operation, index: int) -> tuple[int, ...] | int | None:
    """The ``tile.divisibility`` fact of argument ``index``: per-dimension divisors of
    a memref argument, the divisor of a scalar one, or None."""
    arg_attrs = getattr(func, "arg_attrs", None)
    if arg_attrs is None or index >= len(arg_attrs.data):
        return None
    attr = arg_attrs.data[index]
    if not isinstance(attr, DictionaryAttr) or DIVISIBILITY not in attr.data:
        return None
    fact = attr.data[DIVISIBILITY]
    if isinstance(fact, DenseArrayBase):
        return tuple(int(v) for v in fact.get_values())
    if isinstance(fact, IntegerAttr):
        return int(fact.value.data)
    return None


def verify_argument_attributes(func: Operation) -> None:
    """``tile.*`` argument attributes of a function are known and well formed, and
    no divisibility fact contradicts a static size."""
    arg_attrs = getattr(func, "arg_attrs", None)
    if arg_attrs is None:
        return
    body = func.regions[0].blocks.first if func.regions else None
    args = body.args if body is not None else ()
    for index, attrs in enumerate(arg_attrs.data):
        if not isinstance(attrs, DictionaryAttr):
            continue
        for name, fact in attrs.data.items():
            if not name.startswith("tile."):
                continue
            if name != DIVISIBILITY:
                raise VerifyException(
                    f"unknown tile dialect argument attribute '{name}' on argument "
                    f"#{index} (known: {DIVISIBILITY})"
                )
            if index < len(args):
                _verify_divisibility(args[index], index, fact)


def _verify_divisibility(arg: SSAValue, index: int, fact) -> None:
    name = f"%{arg.name_hint}" if arg.name_hint else f"argument #{index}"
    type_ = arg.type
    if isinstance(type_, MemRefType):
        shape = type_.get_shape()
        values = fact.get_values() if isinstance(fact, DenseArrayBase) else None
        if values is None or len(values) != len(shape) or not all(
            isinstance(v, int) for v in values
        ):
            raise VerifyException(
                f"'{DIVISIBILITY}' of {name} : {type_} must be an array<i64> with one "
                f"positive divisor per dimension ({len(shape)})"
            )
        for d, (k, size) in enumerate(zip(values, shape)):
            if k <= 0:
                raise VerifyException(
                    f"'{DIVISIBILITY}' of {name}: divisor {k} of dimension {d} must be "
                    "positive"
                )
            if size >= 0 and size % k:
                raise VerifyException(
                    f"'{DIVISIBILITY}' states that dimension {d} of {name} is a "
                    f"multiple of {k}, but its static size is {size}"
                )
    elif isinstance(type_, IndexType | IntegerType):
        if not isinstance(fact, IntegerAttr) or fact.value.data <= 0:
            raise VerifyException(
                f"'{DIVISIBILITY}' of {name} : {type_} must be a positive integer"
            )
    else:
        raise VerifyException(
            f"'{DIVISIBILITY}' applies to memref and index arguments, not {type_}"
        )
