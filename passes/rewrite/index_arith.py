"""Folding construction of ``index`` arithmetic for the pipeline transformations.

Operands are Python ints (statically known) or SSA values; a result is an int whenever
every operand is, so prologue/epilogue arithmetic over static bounds folds away and the
emitted IR shows only what is dynamic.  Constants are materialized once per block.
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from tilepipe.dialects.tile import constant_index

Index = int | SSAValue


def static_value(value: Index) -> int | None:
    """The int behind ``value`` when it is known."""
    if isinstance(value, int):
        return value
    return constant_index(value)


class IndexBuilder:
    """Emits folded index arithmetic at an insertion point.

    Builders of nested blocks (a loop body, a guarded region) name their ``parent``:
    constants then come from the outermost builder (reusing one already defined
    before its insertion point), and equal arithmetic is emitted once per block.
    """

    def __init__(self, insertion_point: InsertPoint, parent: IndexBuilder | None = None):
        self.builder = Builder(insertion_point)
        self.parent = parent
        self._constants: dict[int, SSAValue] = {}
        self._expressions: dict[tuple[str, object, object], SSAValue] = {}

    @property
    def block(self) -> Block:
        return self.builder.insertion_point.block

    def nested(self, insertion_point: InsertPoint) -> IndexBuilder:
        return IndexBuilder(insertion_point, parent=self)

    def insert(self, op: Operation) -> Operation:
        return self.builder.insert(op)

    def value(self, value: Index) -> SSAValue:
        """``value`` as an SSA value (constants are defined once, outermost)."""
        if not isinstance(value, int):
            return value
        if self.parent is not None:
            return self.parent.value(value)
        if value not in self._constants:
            existing = self._existing_constant(value)
            if existing is None:
                op = self.insert(arith.ConstantOp(IntegerAttr(value, IndexType())))
                existing = op.results[0]
                existing.name_hint = f"c{value}" if value >= 0 else f"c_neg{-value}"
            self._constants[value] = existing
        return self._constants[value]

    def _existing_constant(self, value: int) -> SSAValue | None:
        """An index constant ``value`` defined earlier in this block."""
        stop = self.builder.insertion_point.insert_before
        for op in self.block.ops:
            if op is stop:
                break
            if isinstance(op, arith.ConstantOp) and isinstance(op.result.type, IndexType):
                if constant_index(op.result) == value:
                    return op.result
        return None

    def _emit(self, kind: str, lhs: Index, rhs: Index, make) -> SSAValue:
        """Emit ``make(lhs, rhs)`` once per block for equal operands."""
        key = (kind, _operand_key(lhs), _operand_key(rhs))
        if key not in self._expressions:
            self._expressions[key] = self.insert(make(self.value(lhs), self.value(rhs))).results[0]
        return self._expressions[key]

    def _fold(self, lhs: Index, rhs: Index) -> tuple[int | None, int | None]:
        return static_value(lhs), static_value(rhs)

    def add(self, lhs: Index, rhs: Index) -> Index:
        a, b = self._fold(lhs, rhs)
        if a is not None and b is not None:
            return a + b
        if b == 0:
            return lhs
        if a == 0:
            return rhs
        if b is not None and b < 0:
            return self.sub(lhs, -b)
        return self._emit("add", lhs, rhs, arith.AddiOp)

    def sub(self, lhs: Index, rhs: Index) -> Index:
        a, b = self._fold(lhs, rhs)
        if a is not None and b is not None:
            return a - b
        if b == 0:
            return lhs
        if lhs is rhs:
            return 0
        return self._emit("sub", lhs, rhs, arith.SubiOp)

    def mul(self, lhs: Index, rhs: Index) -> Index:
        a, b = self._fold(lhs, rhs)
        if a is not None and b is not None:
            return a * b
        if b == 1:
            return lhs
        if a == 1:
            return rhs
        if a == 0 or b == 0:
            return 0
        return self._emit("mul", lhs, rhs, arith.MuliOp)

    def div(self, lhs: Index, rhs: Index) -> Index:
        """Floor division of a non-negative dividend by a positive divisor."""
        a, b = self._fold(lhs, rhs)
        if a is not None and b is not None:
            return a // b
        if b == 1:
            return lhs
        return self._emit("div", lhs, rhs, arith.DivSIOp)

    def rem(self, lhs: Index, rhs: Index) -> Index:
        """Remainder of a non-negative dividend by a positive divisor."""
        a, b = self._fold(lhs, rhs)
        if a is not None and b is not None:
            return a % b
        if b == 1:
            return 0
        return self._emit("rem", lhs, rhs, arith.RemSIOp)

    def ceil_div(self, lhs: Index, rhs: Index) -> Index:
        a, b = self._fold(lhs, rhs)
        if a is not None and b is not None:
            return -(-a // b)
        if b == 1:
            return lhs
        return self._emit("ceil_div", lhs, rhs, arith.CeilDivSIOp)

    def max(self, lhs: Index, rhs: Index) -> Index:
        a, b = self._fold(lhs, rhs)
        if a is not None and b is not None:
            return max(a, b)
        return self._emit("max", lhs, rhs, arith.MaxSIOp)

    def less_than(self, lhs: Index, rhs: Index) -> bool | SSAValue:
        """``lhs < rhs`` (signed): a bool when static, else an ``i1`` value."""
        a, b = self._fold(lhs, rhs)
        if a is not None and b is not None:
            return a < b
        return self._emit("slt", lhs, rhs, lambda a, b: arith.CmpiOp(a, b, "slt"))


def _operand_key(value: Index) -> object:
    return value if isinstance(value, int) else id(value)
