"""The ``ascend`` emission dialect: what an AscendC kernel does, one op per call.

Data movement and compute ops reuse the tile dialect's region operands
(``%buf[%i, %j]`` + a static tile shape), so dependence analysis, the AscendC printer
and the pipe simulator read their regions through ``buffer_accesses()``::

    ascend.data_copy<64x128> %x[%i, %c0] -> %x_ub : memref<...> -> memref<..., "ub">
    ascend.load_data<128x64> %a_l1 -> %a_l0a : memref<..., "l1"> -> memref<..., "l0a">
    ascend.mmad<128x128x64> %a_l0a, %b_l0b -> %c_l0c init %first : ...
    ascend.fixpipe<128x128> %c_l0c -> %C[%m, %n] : memref<..., "l0c"> -> memref<...>
    ascend.add<64x128> %x_ub, %y_ub -> %z_ub : ...

Every such op knows its pipe (``op.pipe``) and its core (``op.core``): data copies
by the pair of memories they connect (GM -> L1/UB on MTE2, UB -> GM on MTE3, L1 ->
L0A/L0B on MTE1, L0C -> GM/L1 on the fixpipe), ``mmad`` on M, vector ops on V.  The
verifiers reject memory positions an op cannot touch.  Synchronization ops live in
``ascend_sync``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    Float32Type,
    IndexType,
    IntegerType,
    MemRefType,
    i64,
)
from xdsl.ir import Dialect, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from .ascend_pipes import COPY_PIPES, Core, Pipe, PipeAttr, ascend_space, core_of
from .ascend_sync import ASCEND_SYNC_OPS
from .memory_space import MemorySpace
from .tile import BinaryElementwiseOp, SrcDstSyntax, TileOp, UnaryElementwiseOp
from .tile_syntax import (
    parse_region_operand,
    parse_signature,
    parse_tile_shape,
    print_region_operand,
    print_tile_shape,
    resolve_region_operand,
)

UB_ONLY = frozenset({MemorySpace.UB})


class AscendTileOp(TileOp):
    """A tile op that runs on one pipe of one core."""

    PIPE: ClassVar[Pipe | None] = None  # None: decided by the operands' memories

    @property
    def pipe(self) -> Pipe:
        assert self.PIPE is not None
        return self.PIPE

    @property
    def core(self) -> Core:
        spaces = frozenset(ascend_space(a.buffer.type) for a in self.buffer_accesses())
        return core_of(self.pipe, spaces)


class MoveOp(SrcDstSyntax, AscendTileOp):
    """A copy between two memories; the pair of memories selects the pipe."""

    src = operand_def(MemRefType)
    src_offsets = var_operand_def(IndexType)
    dst = operand_def(MemRefType)
    dst_offsets = var_operand_def(IndexType)
    REGION_OPERANDS: ClassVar = (("src", "src_offsets", "src"), ("dst", "dst_offsets", "dst"))

    # The pipes this op may run on (each names its memory pairs in COPY_PIPES).
    MOVE_PIPES: ClassVar[frozenset[Pipe]] = frozenset()
    SAME_ELEMENT_TYPE: ClassVar[bool] = True

    def __init__(
        self,
        src: SSAValue | Operation,
        src_offsets: Sequence[SSAValue | Operation],
        dst: SSAValue | Operation,
        dst_offsets: Sequence[SSAValue | Operation],
        shape: Sequence[int],
    ):
        super().__init__(
            operands=[src, src_offsets, dst, dst_offsets],
            properties={"shape": DenseArrayBase.from_list(i64, shape)},
        )

    @property
    def spaces(self) -> tuple[MemorySpace, MemorySpace]:
        return ascend_space(self.src.type), ascend_space(self.dst.type)

    @property
    def pipe(self) -> Pipe:
        return COPY_PIPES[self.spaces]

    def verify_tile_op(self) -> None:
        src, dst = self.spaces
        if COPY_PIPES.get((src, dst)) not in self.MOVE_PIPES:
            legal = ", ".join(
                f"{a.value} -> {b.value}"
                for (a, b), pipe in COPY_PIPES.items()
                if pipe in self.MOVE_PIPES
            )
            raise VerifyException(
                f"cannot move {src.value} -> {dst.value} (legal: {legal})"
            )
        src_t, dst_t = self.element_type("src"), self.element_type("dst")
        if self.SAME_ELEMENT_TYPE and src_t != dst_t:
            raise VerifyException(f"element types differ ({src_t} vs {dst_t})")


@irdl_op_definition
class DataCopyOp(MoveOp):
    """``DataCopy``: GM -> L1/UB on MTE2, UB -> GM on MTE3."""

    name = "ascend.data_copy"
    MOVE_PIPES: ClassVar = frozenset({Pipe.MTE2, Pipe.MTE3})


@irdl_op_definition
class LoadDataOp(MoveOp):
    """``LoadData``: L1 -> L0A/L0B on MTE1."""

    name = "ascend.load_data"
    MOVE_PIPES: ClassVar = frozenset({Pipe.MTE1})


@irdl_op_definition
class FixpipeOp(MoveOp):
    """``Fixpipe``: L0C -> GM/L1 on the fixpipe, converting f32 to the output type."""

    name = "ascend.fixpipe"
    MOVE_PIPES: ClassVar = frozenset({Pipe.FIX})
    SAME_ELEMENT_TYPE: ClassVar = False


@irdl_op_definition
class MmadOp(AscendTileOp):
    """``Mmad``: C (+)= A * B on the cube, A in L0A, B in L0B, C in L0C (f32).

    With ``init %flag`` the product overwrites C when ``%flag`` is true
    (``MmadParams::cmatrixInitVal``) and accumulates otherwise; without it C always
    accumulates."""

    name = "ascend.mmad"
    a = operand_def(MemRefType)
    a_offsets = var_operand_def(IndexType)
    b = operand_def(MemRefType)
    b_offsets = var_operand_def(IndexType)
    c = operand_def(MemRefType)
    c_offsets = var_operand_def(IndexType)
    init = opt_operand_def(IntegerType(1))

    PIPE: ClassVar = Pipe.M
    REGION_OPERANDS: ClassVar = (
        ("a", "a_offsets", "a"),
        ("b", "b_offsets", "b"),
        ("c", "c_offsets", "c"),
    )
    LEGAL_SPACES: ClassVar = {
        "a": frozenset({MemorySpace.L0A}),
        "b": frozenset({MemorySpace.L0B}),
        "c": frozenset({MemorySpace.L0C}),
    }

    def __init__(
        self,
        a: SSAValue | Operation,
        a_offsets: Sequence[SSAValue | Operation],
        b: SSAValue | Operation,
        b_offsets: Sequence[SSAValue | Operation],
        c: SSAValue | Operation,
        c_offsets: Sequence[SSAValue | Operation],
        shape: Sequence[int],
        init: SSAValue | Operation | None = None,
    ):
        super().__init__(
            operands=[a, a_offsets, b, b_offsets, c, c_offsets, [] if init is None else [init]],
            properties={"shape": DenseArrayBase.from_list(i64, shape)},
        )

    @property
    def mnk(self) -> tuple[int, int, int]:
        m, n, k = self.tile_shape
        return m, n, k

    def operand_tile_shape(self, role: str) -> tuple[int, ...]:
        m, n, k = self.mnk
        return {"a": (m, k), "b": (k, n), "c": (m, n)}[role]

    def reads_and_writes(self, role: str) -> tuple[bool, bool]:
        # C is read unless the product always overwrites it (it may, with init).
        return (True, role == "c")

    def verify_(self) -> None:
        if len(self.tile_shape) != 3:
            raise VerifyException(f"mmad tile shape must be MxNxK, got {self._shape_str()}")
        super().verify_()

    def verify_tile_op(self) -> None:
        a_t, b_t, c_t = (self.element_type(r) for r in ("a", "b", "c"))
        if a_t != b_t or not isinstance(a_t, AnyFloat):
            raise VerifyException(f"A and B must share a float element type ({a_t}, {b_t})")
        if not isinstance(c_t, Float32Type):
            raise VerifyException(f"mmad accumulates in f32, got {c_t}")

    def print(self, printer: Printer) -> None:
        print_tile_shape(printer, self.tile_shape)
        printer.print_string(" ")
        print_region_operand(printer, self.a, self.a_offsets)
        printer.print_string(", ")
        print_region_operand(printer, self.b, self.b_offsets)
        printer.print_string(" -> ")
        print_region_operand(printer, self.c, self.c_offsets)
        if self.init is not None:
            printer.print_string(" init ")
            printer.print_operand(self.init)
        printer.print_op_attributes(self.attributes)
        printer.print_string(f" : {self.a.type}, {self.b.type} -> {self.c.type}")

    @classmethod
    def parse(cls, parser: Parser) -> MmadOp:
        shape = parse_tile_shape(parser)
        a = parse_region_operand(parser)
        parser.parse_punctuation(",")
        b = parse_region_operand(parser)
        parser.parse_punctuation("->")
        c = parse_region_operand(parser)
        init = None
        if parser.parse_optional_keyword("init") is not None:
            init = parser.parse_operand()
        attrs = parser.parse_optional_attr_dict()
        a_type, b_type, c_type = parse_signature(parser, 2)
        op = cls(
            *resolve_region_operand(parser, a, a_type),
            *resolve_region_operand(parser, b, b_type),
            *resolve_region_operand(parser, c, c_type),
            shape,
            init,
        )
        op.attributes |= attrs
        return op


class VectorBinaryOp(AscendTileOp, BinaryElementwiseOp):
    PIPE: ClassVar = Pipe.V
    LEGAL_SPACES: ClassVar = {"lhs": UB_ONLY, "rhs": UB_ONLY, "dst": UB_ONLY}


class VectorUnaryOp(AscendTileOp, UnaryElementwiseOp):
    PIPE: ClassVar = Pipe.V
    LEGAL_SPACES: ClassVar = {"src": UB_ONLY, "dst": UB_ONLY}


@irdl_op_definition
class AddOp(VectorBinaryOp):
    """``Add(dst, lhs, rhs, n)`` on the vector unit."""

    name = "ascend.add"


@irdl_op_definition
class SubOp(VectorBinaryOp):
    name = "ascend.sub"


@irdl_op_definition
class MulOp(VectorBinaryOp):
    name = "ascend.mul"


@irdl_op_definition
class MaxOp(VectorBinaryOp):
    name = "ascend.max"


@irdl_op_definition
class ExpOp(VectorUnaryOp):
    name = "ascend.exp"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class DuplicateOp(AscendTileOp):
    """``Duplicate(dst, value, n)``: fill a UB tile with a scalar."""

    name = "ascend.duplicate"
    value = operand_def()
    dst = operand_def(MemRefType)
    dst_offsets = var_operand_def(IndexType)

    PIPE: ClassVar = Pipe.V
    REGION_OPERANDS: ClassVar = (("dst", "dst_offsets", "dst"),)
    LEGAL_SPACES: ClassVar = {"dst": UB_ONLY}

    def __init__(
        self,
        value: SSAValue | Operation,
        dst: SSAValue | Operation,
        dst_offsets: Sequence[SSAValue | Operation],
        shape: Sequence[int],
    ):
        super().__init__(
            operands=[value, dst, dst_offsets],
            properties={"shape": DenseArrayBase.from_list(i64, shape)},
        )

    def verify_tile_op(self) -> None:
        if self.value.type != self.element_type("dst"):
            raise VerifyException(
                f"value of type {self.value.type} does not match the element type "
                f"{self.element_type('dst')}"
            )

    def print(self, printer: Printer) -> None:
        print_tile_shape(printer, self.tile_shape)
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(" -> ")
        print_region_operand(printer, self.dst, self.dst_offsets)
        printer.print_op_attributes(self.attributes)
        printer.print_string(f" : {self.value.type} -> {self.dst.type}")

    @classmethod
    def parse(cls, parser: Parser) -> DuplicateOp:
        shape = parse_tile_shape(parser)
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation("->")
        dst = parse_region_operand(parser)
        attrs = parser.parse_optional_attr_dict()
        value_type, dst_type = parse_signature(parser, 1)
        op = cls(
            parser.resolve_operand(value, value_type),
            *resolve_region_operand(parser, dst, dst_type),
            shape,
        )
        op.attributes |= attrs
        return op


VECTOR_OPS: list[type[AscendTileOp]] = [AddOp, SubOp, MulOp, MaxOp, ExpOp, DuplicateOp]
DATA_OPS: list[type[AscendTileOp]] = [DataCopyOp, LoadDataOp, FixpipeOp, MmadOp]

ASCEND_OPS: list[type[IRDLOperation]] = [*DATA_OPS, *VECTOR_OPS, *ASCEND_SYNC_OPS]

Ascend = Dialect("ascend", ASCEND_OPS, [PipeAttr])
