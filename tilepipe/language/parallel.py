"""``for i, j in T.Parallel(M, N)``: element-wise bodies as whole-tile ops.

TileLang lowers a parallel loop to per-thread element code; tilepipe's tile
level has no per-element ops, only whole-tile ones (``tile.add``, ``tile.exp``,
``tile.broadcast``, ...), which its analyses, schedules and race detector
understand.  So the body is read as an expression over the loop's tile:

* ``X[i, j]`` (the loop variables in order, each plus a loop-invariant offset)
  is the region of ``X`` at those offsets; ``m[i]`` in a 2-D loop is a
  ``tile.broadcast`` of the vector along the missing axis;
* numbers are ``tile.fill``\\ ed temporaries; ``+ - * /``, ``T.max``, ``T.exp``
  become the tile ops, ``T.min(a, b)`` is ``-max(-a, -b)`` and ``T.exp2(x)`` is
  ``exp(x * ln 2)`` (the dialect has neither);
* operands in global memory are staged through a temporary with ``tile.copy``;
  mixed dtypes compute in the wider one (``tile.cast``).

Temporaries are fragments (CUDA) or UB buffers (Ascend) of the loop's shape.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tilepipe.dialects import tile
from tilepipe.language.errors import FrontendError
from tilepipe.language.ir_builder import IRBuilder
from tilepipe.language.tile_ops import scalar
from tilepipe.language.values import Buffer, Condition, Index, Offset, dtype_name, is_float, promote


@dataclass(eq=False)
class LoopVar:
    """A variable of the enclosing ``T.Parallel`` (``var`` is its position) plus a
    loop-invariant ``offset``; ``var`` None: just the offset."""

    var: int | None
    offset: Offset = 0
    value_dtype: str = "int32"
    """Its element type used as a value: int32 (exact), but float32 on Ascend, whose
    vector unit compares only half and float (exact below 2**24)."""


@dataclass(eq=False)
class Load:
    buffer: Buffer
    dims: tuple[LoopVar, ...]

    @property
    def dtype(self) -> str:
        return self.buffer.dtype


@dataclass(eq=False)
class Const:
    value: float | int
    dtype: str | None = None


@dataclass(eq=False)
class Compute:
    kind: str  # add sub mul div max cmp select exp log sqrt rsqrt cast neg coordinate
    args: tuple[object, ...]
    dtype: str
    attr: object = None  # cmp: the predicate; coordinate: its LoopVar


Elem = Load | Const | Compute
PREDICATES = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne"}


def is_elem(value: object) -> bool:
    return isinstance(value, Load | Const | Compute | LoopVar)


def dtype_of(value: object) -> str | None:
    return None if isinstance(value, Const) else value.dtype  # type: ignore[union-attr]


def as_elem(value: object) -> Elem:
    if isinstance(value, Load | Const | Compute):
        return value
    if isinstance(value, bool | int | float):
        return Const(value)
    if isinstance(value, LoopVar | Index | Condition):
        # An index as a value: i + offset is tile.iota; a run-time index or condition
        # alone is a tile.fill of it (int32, signed, as TileLang's int32 indices).
        if not isinstance(value, LoopVar):
            # a run-time scalar takes the type of what it meets (a tile.fill of it)
            return Compute("coordinate", (), None, LoopVar(None, value))  # type: ignore[arg-type]
        return Compute("coordinate", (), value.value_dtype, value)
    raise FrontendError(f"{type(value).__name__} cannot be a value in a T.Parallel body")


def compare(predicate: str, a: object, c: object) -> Elem:
    """``a < c`` etc. of elements: 1 or 0 in the operands' (promoted) type."""
    lhs, rhs = as_elem(a), as_elem(c)
    if isinstance(lhs, Const) and isinstance(rhs, Const):
        return Const(int(_COMPARE[predicate](lhs.value, rhs.value)))
    types = [t for t in (dtype_of(lhs), dtype_of(rhs)) if t is not None]
    dtype = promote(*types) if len(types) == 2 else types[0] if types else "int32"
    return Compute("cmp", (lhs, rhs), dtype, PREDICATES[predicate])


def select(condition: object, on_true: object, on_false: object) -> Elem:
    """``T.if_then_else(cond, a, b)`` on elements."""
    mask, a, c = as_elem(condition), as_elem(on_true), as_elem(on_false)
    if isinstance(mask, Const):
        return a if mask.value else c
    types = [t for t in (dtype_of(a), dtype_of(c)) if t is not None]
    dtype = (promote(*types) if len(types) == 2 else types[0]) if types else None
    return Compute("select", (mask, a, c), dtype)  # type: ignore[arg-type]


_COMPARE = {"<": lambda x, y: x < y, "<=": lambda x, y: x <= y, ">": lambda x, y: x > y,
            ">=": lambda x, y: x >= y, "==": lambda x, y: x == y, "!=": lambda x, y: x != y}


def is_affine(op: str, a: object, c: object) -> bool:
    """Whether ``a op c`` of a loop variable is still ``var + invariant``."""
    lhs_var = isinstance(a, LoopVar) and a.var is not None
    rhs_var = isinstance(c, LoopVar) and c.var is not None
    invariant = all(isinstance(v, LoopVar | int | Index) for v in (a, c))
    return invariant and ((op == "add" and not (lhs_var and rhs_var)) or (op == "sub" and not rhs_var))


def affine(b: IRBuilder, op: str, a: object, c: object) -> LoopVar:
    """Index arithmetic with a loop variable: only ``var + invariant``."""
    lhs = a if isinstance(a, LoopVar) else LoopVar(None, a)  # type: ignore[arg-type]
    rhs = c if isinstance(c, LoopVar) else LoopVar(None, c)  # type: ignore[arg-type]
    value_dtype = lhs.value_dtype if lhs.var is not None else rhs.value_dtype
    if op == "add" and (lhs.var is None or rhs.var is None):
        return LoopVar(lhs.var if lhs.var is not None else rhs.var,
                       b.binary("add", lhs.offset, rhs.offset), value_dtype)
    if op == "sub" and rhs.var is None:
        return LoopVar(lhs.var, b.binary("sub", lhs.offset, rhs.offset), value_dtype)
    raise FrontendError(
        "T.Parallel indices must be a loop variable plus a loop-invariant offset "
        "(A[by * 64 + i, j]); scaled or combined loop variables are not tile regions"
    )


def binary(kind: str, a: object, c: object) -> Elem:
    lhs, rhs = as_elem(a), as_elem(c)
    if isinstance(lhs, Const) and isinstance(rhs, Const):
        return Const(_fold(kind, lhs.value, rhs.value))
    types = [t for t in (dtype_of(lhs), dtype_of(rhs)) if t is not None]
    dtype = promote(*types) if len(types) == 2 else types[0] if types else "int32"
    if kind == "div" and not is_float(dtype):
        raise FrontendError("integer division in T.Parallel is not supported (tile.div is float only)")
    if kind == "min":  # min(a, b) = -max(-a, -b): negation is exact
        return Compute("neg", (Compute("max", (neg(lhs), neg(rhs)), dtype),), dtype)
    return Compute(kind, (lhs, rhs), dtype)


def neg(a: object) -> Elem:
    value = as_elem(a)
    if isinstance(value, Const):
        return Const(-value.value)
    return Compute("neg", (value,), value.dtype)


def unary(kind: str, a: object) -> Elem:
    value = as_elem(a)
    if isinstance(value, Compute) and value.dtype is None:  # a run-time scalar: as a float
        value = Compute(value.kind, value.args, "float32", value.attr)
    if isinstance(value, Const):
        return Const(_fold(kind, value.value, 0))
    if kind == "abs":
        return binary("max", value, neg(value))
    if not is_float(value.dtype):
        raise FrontendError(f"T.{kind} needs a float operand, got {value.dtype}")
    if kind == "exp2":  # the dialect's exponential and logarithm are natural
        return Compute("exp", (binary("mul", value, math.log(2.0)),), value.dtype)
    if kind == "exp10":
        return Compute("exp", (binary("mul", value, math.log(10.0)),), value.dtype)
    if kind in ("log2", "log10"):
        scale = 1 / math.log(2.0 if kind == "log2" else 10.0)
        return binary("mul", Compute("log", (value,), value.dtype), scale)
    return Compute(kind, (value,), value.dtype)


def cast(a: object, dtype: object) -> Elem:
    value, target = as_elem(a), dtype_name(dtype)
    if isinstance(value, Const):
        return Const(value.value, target)
    if value.dtype == target:  # already that type (a coordinate is float32 on Ascend)
        return value
    if value.dtype is None:  # a run-time scalar: filled in the type asked for
        return Compute(value.kind, value.args, target, value.attr)
    return Compute("cast", (value,), target)


def _fold(kind: str, x: float, y: float) -> float:
    """A constant operation, as Python's floats compute it (errors are the user's:
    ``T.log(0.0)`` at compile time is a ValueError at their line)."""
    return {
        "add": lambda: x + y, "sub": lambda: x - y, "mul": lambda: x * y,
        "div": lambda: x / y, "max": lambda: max(x, y), "min": lambda: min(x, y),
        "exp": lambda: math.exp(x), "exp2": lambda: 2.0 ** x, "exp10": lambda: 10.0 ** x,
        "abs": lambda: abs(x), "log": lambda: math.log(x), "log2": lambda: math.log2(x),
        "log10": lambda: math.log10(x), "sqrt": lambda: math.sqrt(x),
        "rsqrt": lambda: 1 / math.sqrt(x),
    }[kind]()


def reads(node: object, buffer: Buffer) -> bool:
    """Whether the expression ``node`` loads from ``buffer``."""
    if isinstance(node, Load):
        return node.buffer is buffer
    return isinstance(node, Compute) and any(reads(a, buffer) for a in node.args)


BINARY_TILE_OPS = {"add": tile.AddOp, "sub": tile.SubOp, "mul": tile.MulOp,
                   "div": tile.DivOp, "max": tile.MaxOp}
UNARY_TILE_OPS = {"exp": tile.ExpOp, "log": tile.LogOp, "sqrt": tile.SqrtOp, "rsqrt": tile.RsqrtOp}


TempPool = dict[tuple[tuple[int, ...], str], list[Buffer]]


class ParallelBody:
    """Lowers the assignments of one ``T.Parallel`` loop of ``extents``.

    Temporaries come from ``pool`` (the kernel's, shared by all its parallel
    loops) and go back to it as soon as the op that reads them is emitted: every
    temporary is a hoisted allocation -- registers for a fragment -- and a body
    like flash attention's ``exp2(S * scale - m[i] * scale)`` would otherwise
    hold a dozen 64x64 f32 fragments (32 registers each per thread) and spill.
    Reuse is safe because a temporary is written and read within one statement;
    the pipelining and sync passes see the reuse as ordinary buffer hazards.
    A constant is filled once per statement however often it appears."""

    def __init__(self, b: IRBuilder, extents: tuple[int, ...], temp_scope: str,
                 pool: TempPool | None = None):
        self.b, self.extents, self.temp_scope = b, extents, temp_scope
        self.pool: TempPool = {} if pool is None else pool
        self.temps: set[int] = set()
        self.constants: dict[tuple[object, str, tuple[int, ...]], Buffer] = {}

    def assign(self, target: Load, value: object) -> None:
        rhs = as_elem(value)
        buffer, offsets = self._region(target, full=True)
        try:
            if buffer.on_chip:
                self._compute(rhs, buffer.dtype, buffer, offsets)
                return
            staged = self._temp(buffer.dtype)
            self._compute(rhs, buffer.dtype, staged, [])
            self.b.insert(tile.CopyOp(staged.value, [], buffer.value, offsets, self.extents))
            self._release(staged)
        finally:
            self._end_statement()

    def atomic_add(self, target: Load, value: object) -> None:
        """``T.atomic_add(C[.., i, j], v)`` in the loop: the loop's tile of ``v`` added
        into ``C``'s region by one ``tile.atomic_add``."""
        buffer, offsets = self._region(target, full=True)
        if buffer.on_chip:
            raise FrontendError(f"T.atomic_add adds into global memory, not into {buffer}")
        try:
            src, src_offsets = self._operand(as_elem(value), buffer.dtype)
            self.b.insert(tile.AtomicAddOp(src.value, src_offsets, buffer.value, offsets, self.extents))
            self._release(src)
        finally:
            self._end_statement()

    # -- helpers

    def _end_statement(self) -> None:
        """The statement's constants go back to the pool."""
        for constant in self.constants.values():
            self.temps.add(id(constant))
            self._release(constant)
        self.constants.clear()

    def _temp(self, dtype: str, shape: tuple[int, ...] | None = None) -> Buffer:
        shape = shape or self.extents
        free = self.pool.get((shape, dtype))
        temp = free.pop() if free else self.b.alloc("tmp", shape, dtype, self.temp_scope)
        self.temps.add(id(temp))
        return temp

    def _release(self, buffer: Buffer) -> None:
        """Return ``buffer`` to the pool if it is a temporary (user buffers are not)."""
        if id(buffer) in self.temps:
            self.temps.discard(id(buffer))
            self.pool.setdefault((buffer.shape, buffer.dtype), []).append(buffer)

    def _constant(self, value: float | int, dtype: str) -> Buffer:
        key = (value, dtype, self.extents)
        if key not in self.constants:
            temp = self._temp(dtype)
            self.temps.discard(id(temp))  # held until the statement ends
            self.b.insert(tile.FillOp(scalar(self.b, value, dtype), temp.value, [], self.extents))
            self.constants[key] = temp
        return self.constants[key]

    def _region(self, load: Load, full: bool) -> tuple[Buffer, list]:
        """The buffer and offsets of an access using the loop variables in order in
        its trailing dimensions (``full``: all of them)."""
        buffer, dims = load.buffer, load.dims
        if len(dims) != len(buffer.shape):
            raise FrontendError(
                f"{buffer.name} has rank {len(buffer.shape)} but is indexed with {len(dims)} indices"
            )
        used = [d.var for d in dims if d.var is not None]
        wanted = list(range(len(self.extents))) if full else sorted(used)
        lead = len(dims) - len(wanted)
        if used != wanted or any(d.var is not None for d in dims[:lead]):
            raise FrontendError(
                f"{buffer.name}[...] must use the T.Parallel variables in loop order in "
                "its last dimensions (transposed or strided accesses are not tile regions; "
                "use T.copy or T.gemm's transpose_A/transpose_B)"
            )
        offsets = [d.offset for d in dims]
        if lead == 0 and all(isinstance(o, int) and o == 0 for o in offsets) and buffer.on_chip:
            return buffer, []
        return buffer, [self.b.index(o) for o in offsets]

    def _operand(self, node: Elem, dtype: str) -> tuple[Buffer, list]:
        """``node`` as a whole-loop tile region of ``dtype`` on chip."""
        if isinstance(node, Load) and node.dtype == dtype:
            used = [d.var for d in node.dims if d.var is not None]
            if len(used) == len(self.extents):
                buffer, offsets = self._region(node, full=True)
                if buffer.on_chip:
                    return buffer, offsets
        if isinstance(node, Const):
            return self._constant(node.value, dtype), []
        temp = self._temp(dtype)
        self._compute(node, dtype, temp, [])
        return temp, []

    def _compute(self, node: Elem, dtype: str, dst: Buffer, dst_offsets: list) -> None:
        """Emit the ops that write ``node`` (as ``dtype``) into ``dst``'s region."""
        b, shape = self.b, self.extents
        if isinstance(node, Const):
            b.insert(tile.FillOp(scalar(b, node.value, dtype), dst.value, dst_offsets, shape))
        elif node.dtype is not None and node.dtype != dtype:
            src, offs = self._operand(node, node.dtype)
            b.insert(tile.CastOp(src.value, offs, dst.value, dst_offsets, shape))
            self._release(src)
        elif isinstance(node, Load):
            self._load(node, dst, dst_offsets)
        elif node.kind in BINARY_TILE_OPS:
            first, second = (as_elem(a) for a in node.args)
            if isinstance(first, Compute) and not reads(second, dst):
                # dst is scratch until the op writes it: no temporary for the first operand
                self._compute(first, dtype, dst, dst_offsets)
                lhs, lo = dst, dst_offsets
            else:
                lhs, lo = self._operand(first, dtype)
            rhs, ro = self._operand(second, dtype)
            b.insert(BINARY_TILE_OPS[node.kind](lhs.value, lo, rhs.value, ro, dst.value, dst_offsets, shape))
            if lhs is not dst:  # dst holds the result: a temporary dst is its caller's to release
                self._release(lhs)
            self._release(rhs)
        elif node.kind == "cmp":
            first, second = (as_elem(a) for a in node.args)
            if isinstance(first, Compute) and not reads(second, dst):
                self._compute(first, dtype, dst, dst_offsets)  # in place: one temporary less
                lhs, lo = dst, dst_offsets
            else:
                lhs, lo = self._operand(first, dtype)
            rhs, ro = self._operand(second, dtype)
            b.insert(tile.CmpOp(lhs.value, lo, rhs.value, ro, dst.value, dst_offsets, shape, predicate=node.attr))
            if lhs is not dst:
                self._release(lhs)
            self._release(rhs)
        elif node.kind == "select":
            mask_node, true_node, false_node = (as_elem(a) for a in node.args)
            mask, mo = self._operand(mask_node, dtype_of(mask_node) or dtype)
            on_true, to = self._operand(true_node, dtype)
            if isinstance(false_node, Const) and not reads(true_node, dst):
                # dst is scratch until the select writes it (element by element, in
                # place): the constant goes there, not into a temporary
                self._compute(false_node, dtype, dst, dst_offsets)
                on_false, fo = dst, dst_offsets
            else:
                on_false, fo = self._operand(false_node, dtype)
            b.insert(tile.SelectOp(mask.value, mo, on_true.value, to, on_false.value, fo,
                                   dst.value, dst_offsets, shape))
            for used in (mask, on_true, on_false):
                if used is not dst:
                    self._release(used)
        elif node.kind == "coordinate":
            var: LoopVar = node.attr  # type: ignore[assignment]
            start = scalar(b, var.offset, dtype)
            if var.var is None:
                b.insert(tile.FillOp(start, dst.value, dst_offsets, shape))
            else:
                b.insert(tile.IotaOp(start, dst.value, dst_offsets, shape, dim=var.var))
        elif node.kind == "neg":
            self._compute(Compute("mul", (node.args[0], Const(-1)), dtype), dtype, dst, dst_offsets)
        elif node.kind in UNARY_TILE_OPS and isinstance(arg := as_elem(node.args[0]), Compute) \
                and arg.dtype == dtype:
            self._compute(arg, dtype, dst, dst_offsets)  # in place, as the unary ops allow
            b.insert(UNARY_TILE_OPS[node.kind](dst.value, dst_offsets, dst.value, dst_offsets, shape))
        elif node.kind in UNARY_TILE_OPS or node.kind == "cast":
            arg = as_elem(node.args[0])
            src, offs = self._operand(arg, dtype if node.kind != "cast" else dtype_of(arg) or dtype)
            op = UNARY_TILE_OPS.get(node.kind, tile.CastOp)
            b.insert(op(src.value, offs, dst.value, dst_offsets, shape))
            self._release(src)
        else:  # pragma: no cover - every Compute kind is handled above
            raise FrontendError(f"internal: unknown element op {node.kind}")

    def _load(self, node: Load, dst: Buffer, dst_offsets: list) -> None:
        used = [d.var for d in node.dims if d.var is not None]
        if len(used) == len(self.extents):
            src, offs = self._region(node, full=True)
            self.b.insert(tile.CopyOp(src.value, offs, dst.value, dst_offsets, self.extents))
            return
        if len(used) != len(self.extents) - 1:
            raise FrontendError(
                f"{node.buffer.name}[...] uses {len(used)} of the {len(self.extents)} T.Parallel "
                "variables; a broadcast may leave out exactly one"
            )
        axis = next(v for v in range(len(self.extents)) if v not in used)
        src, offs = self._region(node, full=False)
        if not src.on_chip:  # tile.broadcast reads on-chip memory: stage the vector
            vector_shape = self.extents[:axis] + self.extents[axis + 1:]
            staged = self._temp(src.dtype, vector_shape)
            self.b.insert(tile.CopyOp(src.value, offs, staged.value, [], vector_shape))
            src, offs = staged, []
        self.b.insert(tile.BroadcastOp(src.value, offs, dst.value, dst_offsets, self.extents, axis))
        self._release(src)
