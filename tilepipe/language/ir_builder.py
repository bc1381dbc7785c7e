"""Builds a tile-level kernel as xDSL IR, op by op, with the user's locations.

The AST walker (:mod:`tilepipe.language.frontend`) calls this class for every
op; it never prints and re-parses text.  Three placement rules make the IR look
like the hand-written examples (``examples/gemm.mlir``), which is what lets the
tests compare the two:

* constants are made once per (value, type), at the top of the function;
* pure index arithmetic is value-numbered and hoisted to the outermost block
  where its operands are defined (``by * 128`` used inside a pipelined loop is
  computed once, before the allocations, as gemm.mlir's ``%m0``);
* allocations (``T.alloc_*`` anywhere, and the temporaries of ``T.Parallel``)
  are placed in the kernel's top block before the statement that needs them:
  tilepipe's passes plan buffers per kernel, not per loop iteration.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnknownLoc,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.traits import is_side_effect_free

from tilepipe.dialects import pipeline
from tilepipe.dialects.tile import BlockIdOp
from tilepipe.dialects.tile_launch import GridDimsOp
from tilepipe.language.errors import FrontendError
from tilepipe.language.values import Buffer, Condition, Index, Offset, element_type

CMP_PREDICATES = {"<": "slt", "<=": "sle", ">": "sgt", ">=": "sge", "==": "eq", "!=": "ne"}


class IRBuilder:
    """One kernel under construction: a ``func.func`` in a module."""

    def __init__(self, name: str, arg_types: Sequence[Attribute], arg_names: Sequence[str]):
        self.func = func.FuncOp(name, (list(arg_types), []))
        self.module = ModuleOp([self.func])
        self.entry = self.func.body.block
        for arg, arg_name in zip(self.entry.args, arg_names):
            arg.name_hint = arg_name
        self.block = self.entry
        self.loc: Attribute = UnknownLoc()
        self._last_constant: Operation | None = None
        self._constants: dict[tuple[object, Attribute], SSAValue] = {}
        self._pure: dict[tuple, SSAValue] = {}
        self._preamble_anchor: Operation | None = None
        self._first_statement: Operation | None = None  # the first tile statement or loop
        self.kernel_entered = False
        self.temp_scope = "fragment"
        """Where staging temporaries live: registers on CUDA, UB on Ascend."""

    # -- insertion

    def insert(self, op: Operation) -> Operation:
        """Insert ``op`` at the current point (effects) or hoisted (pure index math)."""
        op.location = self.loc
        self.block.add_op(op)
        if self.block is self.entry and self._preamble_anchor is None:
            if (not is_side_effect_free(op) or op.regions) and op.name != "tile.grid_dims":
                self._preamble_anchor = op
        if self.block is self.entry and self._first_statement is None and (
                op.regions or (not is_side_effect_free(op)
                               and not isinstance(op, BlockIdOp | memref.AllocOp | GridDimsOp))):
            self._first_statement = op
        return op

    @contextmanager
    def inside(self, block: Block) -> Iterator[None]:
        saved, self.block = self.block, block
        try:
            yield
        finally:
            self.block = saved

    def _hoist_point(self, operands: Sequence[SSAValue]) -> tuple[Block, Operation | None]:
        """The outermost block enclosing the current point where all ``operands``
        are defined, and the op to insert before there (None: at the end)."""
        block, before = self.block, None
        while block is not self.entry:
            owner = block.parent_op()
            if owner is None or any(_defined_in(v, owner) for v in operands):
                break
            block, before = owner.parent_block(), owner
            assert block is not None
        anchor = self._preamble_anchor
        if block is self.entry and anchor is not None:
            # Before the first effectful op, unless an operand comes after it; then
            # before the top-level statement being built (``before``), which follows
            # every operand.
            if not any(_defined_after(v, anchor) for v in operands):
                before = anchor
        return block, before

    def pure(self, op: Operation, key: tuple) -> SSAValue:
        """Insert a pure op once per key, hoisted; return its result."""
        cached = self._pure.get(key)
        if cached is not None and _visible(cached, self.block):
            return cached
        block, before = self._hoist_point(op.operands)
        op.location = self.loc
        if before is None:
            block.add_op(op)
        else:
            block.insert_op_before(op, before)
        self._pure[key] = op.results[0]
        return op.results[0]

    def hoisted_alloc(self, op: Operation) -> None:
        """Insert an allocation in the kernel's top block, with the others: before its
        first tile statement or loop (so that nothing comes between, say, an L0C fill
        and the loop whose first mmad it initializes), else before the top-level
        statement that contains the current point."""
        op.location = self.loc
        block, before = self.block, None
        while block is not self.entry:
            before = block.parent_op()
            assert before is not None and before.parent_block() is not None
            block = before.parent_block()
        first = self._first_statement
        if first is not None and (before is None or first is before or first.is_before_in_block(before)):
            before = first
        if before is None:
            self.insert(op)
        else:
            self.entry.insert_op_before(op, before)

    # -- values

    def constant(self, value: object, type_: Attribute) -> SSAValue:
        key = (repr(value), type_)
        if key in self._constants:
            return self._constants[key]
        if isinstance(type_, IndexType | IntegerType):
            attr: Attribute = IntegerAttr(int(value), type_)  # type: ignore[arg-type]
        elif isinstance(type_, AnyFloat):
            attr = FloatAttr(float(value), type_)  # type: ignore[arg-type]
        else:
            raise FrontendError(f"no constant of type {type_}")
        op = arith.ConstantOp(attr)
        op.location = self.loc
        if self._last_constant is None:
            self.entry.insert_op_before(op, self.entry.first_op) if self.entry.first_op else self.entry.add_op(op)
        else:
            self.entry.insert_op_after(op, self._last_constant)
        self._last_constant = op
        self._constants[key] = op.result
        return op.result

    def index(self, value: Offset) -> SSAValue:
        return value.value if isinstance(value, Index) else self.constant(value, IndexType())

    def block_ids(self, dims: int) -> list[Index]:
        return [Index(self.insert(BlockIdOp("xyz"[d])).results[0]) for d in range(dims)]

    def alloc(self, name: str, shape: Sequence[int], dtype: str, scope: str) -> Buffer:
        type_ = MemRefType(element_type(dtype), list(shape), memory_space=StringAttr(scope))
        op = memref.AllocOp([], [], type_)
        op.results[0].name_hint = name
        self.hoisted_alloc(op)
        return Buffer(name, op.results[0], tuple(shape), dtype, scope)

    # -- index arithmetic (folded over Python ints, value-numbered otherwise)

    def binary(self, op_name: str, a: Offset, b: Offset) -> Offset:
        if isinstance(a, int) and isinstance(b, int):
            return _fold(op_name, a, b)
        if op_name == "add" and (a == 0 or b == 0):
            return b if isinstance(a, int) else a
        if op_name == "mul" and (a == 1 or b == 1):
            return b if isinstance(a, int) and a == 1 else a
        if op_name == "mul" and (a == 0 or b == 0):
            return 0
        if op_name == "sub" and isinstance(b, int) and b == 0:
            return a
        lhs, rhs = self.index(a), self.index(b)
        op = BINARY_OPS[op_name](lhs, rhs)
        return Index(self.pure(op, (op_name, lhs, rhs)))

    def compare(self, predicate: str, a: Offset, b: Offset) -> Condition:
        lhs, rhs = self.index(a), self.index(b)
        op = arith.CmpiOp(lhs, rhs, CMP_PREDICATES[predicate])
        return Condition(self.pure(op, ("cmp", predicate, lhs, rhs)))

    def logical(self, kind: str, a: Condition, b: Condition) -> Condition:
        op = (arith.AndIOp if kind == "and" else arith.OrIOp)(a.value, b.value)
        return Condition(self.pure(op, (kind, a.value, b.value)))

    def select(self, cond: Condition, a: Offset, b: Offset) -> Index:
        lhs, rhs = self.index(a), self.index(b)
        return Index(self.pure(arith.SelectOp(cond.value, lhs, rhs), ("select", cond.value, lhs, rhs)))

    # -- structured control flow

    @contextmanager
    def pipelined_loop(
        self, lb: Offset, ub: Offset, step: Offset, **annotations: object
    ) -> Iterator[tuple[pipeline.ForOp, Index]]:
        body = Block(arg_types=[IndexType()])
        loop = pipeline.ForOp(self.index(lb), self.index(ub), self.index(step), body, **annotations)  # type: ignore[arg-type]
        self.insert(loop)
        with self.inside(body):
            yield loop, Index(body.args[0])
            self.insert(pipeline.YieldOp())

    @contextmanager
    def serial_loop(self, lb: Offset, ub: Offset, step: Offset) -> Iterator[Index]:
        body = Block(arg_types=[IndexType()])
        loop = scf.ForOp(self.index(lb), self.index(ub), self.index(step), [], body)
        self.insert(loop)
        with self.inside(body):
            yield Index(body.args[0])
            self.insert(scf.YieldOp())

    def if_op(self, cond: Condition, with_else: bool) -> tuple[Block, Block | None]:
        then_block = Block()
        else_block = Block() if with_else else None
        op = scf.IfOp(cond.value, [], Region(then_block), Region(else_block) if else_block else None)
        self.insert(op)
        return then_block, else_block

    def finish(self, grid: Sequence[int] | None, threads: int | None, target: str) -> ModuleOp:
        with self.inside(self.entry):
            self.insert(func.ReturnOp())
        attrs = self.func.attributes
        if grid is not None:
            attrs["tile.grid"] = DenseArrayBase.from_list(i64, list(grid))
        if threads is not None:
            attrs["tile.threads"] = IntegerAttr(threads, i64)
        attrs["tile.target"] = StringAttr(target)
        return self.module


BINARY_OPS = {
    "add": arith.AddiOp,
    "sub": arith.SubiOp,
    "mul": arith.MuliOp,
    "floordiv": arith.FloorDivSIOp,
    "mod": arith.RemSIOp,
    "ceildiv": arith.CeilDivUIOp,
    "max": arith.MaxSIOp,
    "min": arith.MinSIOp,
}


def _fold(op_name: str, a: int, b: int) -> int:
    if op_name in ("floordiv", "mod", "ceildiv") and b == 0:
        raise FrontendError(f"{op_name} by zero")
    return {
        "add": a + b, "sub": a - b, "mul": a * b, "floordiv": a // b if b else 0,
        "mod": a % b if b else 0, "ceildiv": -(-a // b) if b else 0,
        "max": max(a, b), "min": min(a, b),
    }[op_name]


def _defined_in(value: SSAValue, op: Operation) -> bool:
    """Whether ``value`` is defined inside ``op``'s regions."""
    owner = value.owner
    block = owner if isinstance(owner, Block) else owner.parent_block()
    while block is not None:
        parent = block.parent_op()
        if parent is op:
            return True
        if parent is None:
            return False
        block = parent.parent_block()
    return False


def _defined_after(value: SSAValue, anchor: Operation) -> bool:
    owner = value.owner
    if isinstance(owner, Block) or owner.parent_block() is not anchor.parent_block():
        return False
    return anchor.is_before_in_block(owner)


def _visible(value: SSAValue, block: Block) -> bool:
    """Whether ``value`` is defined in ``block`` or a block enclosing it."""
    owner = value.owner
    home = owner if isinstance(owner, Block) else owner.parent_block()
    current: Block | None = block
    while current is not None:
        if current is home:
            return True
        parent = current.parent_op()
        current = parent.parent_block() if parent is not None else None
    return False
