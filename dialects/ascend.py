"""The ``ascend`` emission dialect: what an AscendC kernel does, one op per call.

Data movement and compute ops reuse the tile dialect's region operands
(``%buf[%i, %j]`` + a static tile shape), so dependence analysis, the AscendC printer
and the pipe simulator read their regions through ``buffer_accesses()``::

    ascend.data_copy<64x128> %x[%i, %c0] -> %x_ub : memref<...> -> memref<..., "ub">
    ascend.data_copy_nd2nz<128x64> %a[%m, %k] -> %a_l1 : memref<...> -> memref<..., "l1">
    ascend.load_data<128x64> %a_l1 -> %a_l0a : memref<..., "l1"> -> memref<..., "l0a">
    ascend.mmad<128x128x64> %a_l0a, %b_l0b -> %c_l0c init %first : ...
    ascend.fixpipe<128x128> %c_l0c -> %C[%m, %n] : memref<..., "l0c"> -> memref<...>
    ascend.add<64x128> %x_ub, %y_ub -> %z_ub : ...
    ascend.cmp<64x128> lt %x_ub, %y_ub -> %m_ub : ...

Every such op knows its pipe (``op.pipe``) and its core (``op.core``): data copies
by the pair of memories they connect (GM -> L1/UB on MTE2, UB -> GM on MTE3, L1 ->
L0A/L0B on MTE1, L0C -> GM/L1 on the fixpipe), ``mmad`` on M, vector ops on V.  The
verifiers reject memory positions an op cannot touch.  Synchronization ops live in
``ascend_sync``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import AnyFloat, Float32Type, IntegerType, MemRefType
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, opt_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tilepipe.dialects.ascend_pipes import COPY_PIPES, Core, Pipe, PipeAttr, ascend_space, core_of
from tilepipe.dialects.ascend_sync import ASCEND_SYNC_OPS
from tilepipe.dialects.memory_space import MemorySpace
from tilepipe.dialects.ascend_reduce_plan import PlanError, ReducePlan, reduce_plan
from tilepipe.dialects.tile import BinaryElementwiseOp, TileOp, UnaryElementwiseOp
from tilepipe.dialects.tile import BroadcastOpBase, ReduceOpBase
from tilepipe.dialects.tile_elementwise import CmpOpBase, IotaOpBase, SelectOpBase
from tilepipe.dialects.tile_base import BufferAccess, region_sizes
from tilepipe.dialects.tile_forms import MatmulForm, SrcDstForm, ValueDstForm, shape_property

UB_ONLY = frozenset({MemorySpace.UB})

# A unit attribute of a copy whose GM region may reach past the array (a boundary
# tile, docs/ascend.md): it moves only the in-bounds part.  Without it a GM region
# must lie inside (the unpredicated fast path), as the pipe simulator checks.
BOUNDARY_ATTR = "ascend.boundary"


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


class MoveOp(SrcDstForm, AscendTileOp):
    """A copy between two memories; the pair of memories selects the pipe."""

    # The pipes this op may run on (each names its memory pairs in COPY_PIPES).
    MOVE_PIPES: ClassVar[frozenset[Pipe]] = frozenset()
    SAME_ELEMENT_TYPE: ClassVar[bool] = True

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
    """``DataCopy``: GM -> L1/UB on MTE2, UB -> GM on MTE3, UB -> UB on V (asc-devkit
    doc asc_copy_ub2ub: PIPE_V)."""

    name = "ascend.data_copy"
    MOVE_PIPES: ClassVar = frozenset({Pipe.MTE2, Pipe.MTE3, Pipe.V})


@irdl_op_definition
class DataCopyNd2NzOp(MoveOp):
    """``DataCopy`` with ``Nd2NzParams``: GM (ND, row-major) -> L1 in the fractal NZ
    layout the cube reads (MTE2).  A plain ``data_copy`` into L1 writes it ND: what
    ``load_data`` then reads is not the tile (the pipe simulator models both layouts,
    see :mod:`tilepipe.semantics.ascend.layout`)."""

    name = "ascend.data_copy_nd2nz"
    MOVE_PIPES: ClassVar = frozenset({Pipe.MTE2})

    def verify_tile_op(self) -> None:
        super().verify_tile_op()
        if self.spaces != (MemorySpace.GM, MemorySpace.L1):
            raise VerifyException("ND -> NZ copies go from gm to l1")


@irdl_op_definition
class LoadDataOp(MoveOp):
    """``LoadData``: L1 (NZ) -> L0A/L0B on MTE1, in the fractal layout the cube reads."""

    name = "ascend.load_data"
    MOVE_PIPES: ClassVar = frozenset({Pipe.MTE1})


@irdl_op_definition
class FixpipeOp(MoveOp):
    """``Fixpipe``: L0C -> GM/L1 on the fixpipe, converting f32 to the output type."""

    name = "ascend.fixpipe"
    MOVE_PIPES: ClassVar = frozenset({Pipe.FIX})
    SAME_ELEMENT_TYPE: ClassVar = False


@irdl_op_definition
class MmadOp(MatmulForm, AscendTileOp):
    """``Mmad``: C (+)= A * B on the cube, A in L0A, B in L0B, C in L0C (f32).

    With ``init %flag`` the product overwrites C when ``%flag`` is true
    (``MmadParams::cmatrixInitVal``) and accumulates otherwise; without it C always
    accumulates."""

    name = "ascend.mmad"
    init = opt_operand_def(IntegerType(1))

    PIPE: ClassVar = Pipe.M
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
            # The op's own ``init`` comes before the form's operands in the definition.
            operands=[[] if init is None else [init], a, a_offsets, b, b_offsets, c, c_offsets],
            properties=shape_property(shape),
        )

    def operand_tile_shape(self, role: str) -> tuple[int, ...]:
        m, n, k = self.mnk
        return {"a": (m, k), "b": (k, n), "c": (m, n)}[role]

    def verify_(self) -> None:
        self.verify_matmul_shape()
        super().verify_()

    def verify_tile_op(self) -> None:
        a_t, b_t, c_t = (self.element_type(r) for r in ("a", "b", "c"))
        if a_t != b_t or not isinstance(a_t, AnyFloat):
            raise VerifyException(f"A and B must share a float element type ({a_t}, {b_t})")
        if not isinstance(c_t, Float32Type):
            raise VerifyException(f"mmad accumulates in f32, got {c_t}")

    def print_modifiers(self, printer: Printer) -> None:
        if self.init is not None:
            printer.print_string(" init ")
            printer.print_operand(self.init)

    @classmethod
    def parse_modifiers(cls, parser: Parser) -> dict[str, SSAValue]:
        if parser.parse_optional_keyword("init") is None:
            return {}
        return {"init": parser.parse_operand(IntegerType(1))}


class VectorBinaryOp(AscendTileOp, BinaryElementwiseOp):
    PIPE: ClassVar = Pipe.V
    LEGAL_SPACES: ClassVar = {"lhs": UB_ONLY, "rhs": UB_ONLY, "dst": UB_ONLY}


class VectorUnaryOp(AscendTileOp, UnaryElementwiseOp):
    PIPE: ClassVar = Pipe.V
    LEGAL_SPACES: ClassVar = {"src": UB_ONLY, "dst": UB_ONLY}


class FloatVectorUnaryOp(VectorUnaryOp):
    FLOAT_ONLY: ClassVar[bool] = True


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
class DivOp(VectorBinaryOp):
    """``Div(dst, lhs, rhs, n)``: IEEE division, as ``tile.div``."""

    name = "ascend.div"
    FLOAT_ONLY: ClassVar[bool] = True


# The element type pairs the 910B-class vector unit's ``Cast`` converts exactly as
# ``tile.cast`` does, with the ``RoundMode`` that does it (asc-devkit
# impl/basic_api/dav_c220/kernel_operator_vec_vconv_impl.h lists the pairs; doc Cast
# the modes): to a float, round to nearest even (CAST_RINT) or exact (CAST_NONE);
# float to integer toward zero (CAST_TRUNC), saturating ("溢出默认按照饱和处理").
# Not here, so refused: i32 -> f16 (a dequantization through SetDeqScale), integer
# narrowing (the hardware saturates where tile.cast wraps), and pairs without an
# instruction (f16 <-> bf16, anything of f64).
VECTOR_CAST_MODES: dict[tuple[str, str], str] = {
    ("f32", "f16"): "CAST_RINT",
    ("f32", "bf16"): "CAST_RINT",
    ("f16", "f32"): "CAST_NONE",
    ("bf16", "f32"): "CAST_NONE",
    ("f32", "i64"): "CAST_TRUNC",
    ("f32", "i32"): "CAST_TRUNC",
    ("f32", "i16"): "CAST_TRUNC",
    ("f16", "i32"): "CAST_TRUNC",
    ("f16", "i16"): "CAST_TRUNC",
    ("f16", "i8"): "CAST_TRUNC",
    ("bf16", "i32"): "CAST_TRUNC",
    ("i64", "f32"): "CAST_RINT",
    ("i32", "f32"): "CAST_RINT",
    ("i16", "f32"): "CAST_NONE",
    ("i16", "f16"): "CAST_RINT",
    ("i8", "f16"): "CAST_NONE",
    ("i32", "i64"): "CAST_NONE",
}


def vector_cast_problem(src: Attribute, dst: Attribute) -> str | None:
    """Why the vector unit cannot cast ``src`` -> ``dst`` elements as ``tile.cast``
    does, or None when ``VECTOR_CAST_MODES`` has the pair."""
    if (str(src), str(dst)) in VECTOR_CAST_MODES:
        return None
    if isinstance(src, IntegerType) and isinstance(dst, IntegerType):
        return (f"the vector unit's Cast saturates {src} -> {dst}, where tile.cast "
                "truncates (wraps)")
    if str(src) == "i32" and str(dst) == "f16":
        return "the vector unit's Cast i32 -> f16 is a dequantization (SetDeqScale), not a rounding"
    return f"the 910B-class vector unit has no Cast {src} -> {dst}"


@irdl_op_definition
class CastOp(VectorUnaryOp):
    """``Cast(dst, src, RoundMode, n)`` on UB, as ``tile.cast``: the round mode per
    pair is ``VECTOR_CAST_MODES``'s."""

    name = "ascend.cast"
    SAME_ELEMENT_TYPES: ClassVar[bool] = False

    @property
    def round_mode(self) -> str:
        return VECTOR_CAST_MODES[(str(self.element_type("src")), str(self.element_type("dst")))]

    def verify_tile_op(self) -> None:
        problem = vector_cast_problem(self.element_type("src"), self.element_type("dst"))
        if problem is not None:
            raise VerifyException(problem)


@irdl_op_definition
class ReduceOp(AscendTileOp, ReduceOpBase):
    """A reduction of a UB tile, as ``tile.reduce``, by the vector calls of its
    :func:`reduce_plan` (the tile level's summation order, exactly)."""

    name = "ascend.reduce"
    PIPE: ClassVar = Pipe.V
    LEGAL_SPACES: ClassVar = {"src": UB_ONLY, "dst": UB_ONLY}

    def plan(self) -> ReducePlan:
        src_t, dst_t = self.element_type("src"), self.element_type("dst")
        return reduce_plan(
            self.kind.data, self.tile_shape, self.reduce_axis,
            widen=not isinstance(src_t, Float32Type), narrow=not isinstance(dst_t, Float32Type),
        )

    def verify_tile_op(self) -> None:
        super().verify_tile_op()
        element = self.element_type("src")
        if not isinstance(element, AnyFloat) or element.bitwidth > 32:
            raise VerifyException(
                f"reduces {element} elements; the vector unit's block reductions take "
                "half and float (bf16 through f32)"
            )
        try:
            self.plan()
        except PlanError as problem:
            raise VerifyException(str(problem)) from None


@irdl_op_definition
class BroadcastOp(AscendTileOp, BroadcastOpBase):
    """A UB tile repeated along an axis, as ``tile.broadcast`` (exact copies).
    AscendC: along the last axis ``Brcb`` (each element to one 32-byte block of the
    ``reduce_work`` scratch) then ``Adds`` of ``-0`` with a source block stride of 0
    (one block over each 64-element repeat of a row); along the first axis one
    ``Adds`` of ``-0`` per row (``x + -0`` is ``x`` for every ``x``)."""

    name = "ascend.broadcast"
    PIPE: ClassVar = Pipe.V
    LEGAL_SPACES: ClassVar = {"src": UB_ONLY, "dst": UB_ONLY}

    def verify_tile_op(self) -> None:
        super().verify_tile_op()
        if (problem := broadcast_problem(self)) is not None:
            raise VerifyException(problem)


def broadcast_problem(op: BroadcastOpBase) -> str | None:
    """Why the vector unit cannot repeat this tile (None: it can)."""
    element = op.element_type("src")
    shape = op.tile_shape
    if not isinstance(element, Float32Type):
        return (f"broadcasts {element} elements; the vector unit broadcasts f32 "
                "(Brcb and the exact Adds copy)")
    if len(shape) > 2:
        return f"broadcasts a rank-{len(shape)} tile; the vector unit takes 1-d and 2-d tiles"
    rows, columns = (1, shape[0]) if len(shape) == 1 else shape
    if op.along_axis == len(shape) - 1 and (columns % 8 or rows > 255 or columns > 2040):
        return (f"broadcasts along rows of {columns} elements ({rows} rows); the strided "
                "copies take whole 32-byte blocks, at most 255 rows of at most 2040")
    return None


@irdl_op_definition
class ExpOp(FloatVectorUnaryOp):
    name = "ascend.exp"


@irdl_op_definition
class LnOp(FloatVectorUnaryOp):
    """``Ln(dst, src, n)``: the natural logarithm, as ``tile.log``."""

    name = "ascend.ln"


@irdl_op_definition
class SqrtOp(FloatVectorUnaryOp):
    """``Sqrt(dst, src, n)``, as ``tile.sqrt``."""

    name = "ascend.sqrt"


@irdl_op_definition
class RsqrtOp(FloatVectorUnaryOp):
    """``Rsqrt(dst, src, n)``: ``1 / sqrt``, as ``tile.rsqrt``."""

    name = "ascend.rsqrt"


@irdl_op_definition
class IotaOp(AscendTileOp, IotaOpBase):
    """Coordinates of a UB tile along one dimension, as ``tile.iota``.  AscendC:
    ``CreateVecIndex`` of 0 .. n-1 and an ``Adds`` of the start along the last
    dimension, a ``Duplicate`` of the row's value along the first (docs/ascend.md)."""

    name = "ascend.iota"
    PIPE: ClassVar = Pipe.V
    LEGAL_SPACES: ClassVar = {"dst": UB_ONLY}


@irdl_op_definition
class CmpOp(AscendTileOp, CmpOpBase):
    """``dst = (lhs PRED rhs) ? 1 : 0`` on UB tiles, as ``tile.cmp``.  AscendC:
    ``Compare`` into a bit mask in a UB scratch, then ``Select`` between 1 and 0."""

    name = "ascend.cmp"
    PIPE: ClassVar = Pipe.V
    LEGAL_SPACES: ClassVar = {"lhs": UB_ONLY, "rhs": UB_ONLY, "dst": UB_ONLY}


@irdl_op_definition
class SelectOp(AscendTileOp, SelectOpBase):
    """``dst = (mask != 0) ? on_true : on_false`` on UB tiles, as ``tile.select``.
    AscendC: ``CompareScalar`` of the mask with 0 into a bit mask in a UB scratch, then
    ``Select`` (``VSEL_TENSOR_TENSOR_MODE``)."""

    name = "ascend.select"
    PIPE: ClassVar = Pipe.V
    LEGAL_SPACES: ClassVar = {
        "mask": UB_ONLY, "on_true": UB_ONLY, "on_false": UB_ONLY, "dst": UB_ONLY
    }


@irdl_op_definition
class DuplicateOp(ValueDstForm, AscendTileOp):
    """``Duplicate(dst, value, n)``: fill a UB tile with a scalar."""

    name = "ascend.duplicate"
    PIPE: ClassVar = Pipe.V
    LEGAL_SPACES: ClassVar = {"dst": UB_ONLY}


@irdl_op_definition
class ZeroTailOp(SrcDstForm, AscendTileOp):
    """Zero what a boundary GM -> UB copy of the same region left unwritten, on V::

        ascend.zero_tail<16x64> %x[%i, %c0] -> %x_ub : memref<?x64xf32> -> memref<16x64xf32, "ub">

    Meaning: the rows of the UB tile past the array become 0, and in the other rows
    the columns past the 32-byte block that holds the array's end (:meth:`kept`); the
    rest of the tile is unchanged.  After the ``DataCopyPad`` of the same region,
    which zero-pads each row to that block, every element past the array is 0, as
    the tile level's copy left it.  The GM region is not
    accessed -- only the array's sizes are read -- so the op's one buffer access is the
    write of the UB tile, and it is ordered like any vector op on it.

    ``ascend-zero-boundary-tiles`` puts one after each GM -> UB copy that may reach
    past its array, before the next op that touches the tile: ``DataCopyPad`` writes
    the valid rows, each zero-padded to its 32-byte block, and leaves the rest of the
    tile as it was.  AscendC: a ``Duplicate`` of 0 from each valid row's padded end to
    the row's end, and one of the rows past the array (docs/ascend.md)."""

    name = "ascend.zero_tail"
    PIPE: ClassVar = Pipe.V
    LEGAL_SPACES: ClassVar = {"dst": UB_ONLY}
    # Only the UB tile is accessed; ``src`` names the GM region whose bounds decide
    # which of its elements are zeroed.
    REGION_OPERANDS: ClassVar = (("dst", "dst_offsets", "dst"),)

    def source(self) -> BufferAccess:
        """The GM region the tile was copied from (neither read nor written here)."""
        assert isinstance(self.src.type, MemRefType)
        sizes = region_sizes(self.src.type, self.tile_shape)
        return BufferAccess(self, self.src, tuple(self.src_offsets), sizes, False, False, "src")

    @staticmethod
    def kept(valid: Sequence[int], element_bytes: int, tile_columns: int) -> tuple[int, int]:
        """The rows of the tile the op keeps, and the columns it keeps in them, given
        the sizes of the in-bounds part of the GM region: the valid rows, and in them
        the columns up to the end of the 32-byte block holding the last valid one
        (where ``DataCopyPad``'s padding ends).  Everything else becomes 0."""
        rows = valid[-2] if len(valid) > 1 and all(valid[:-2]) else int(all(valid[:-1]))
        block = max(1, 32 // element_bytes)
        return rows, min(tile_columns, -(-valid[-1] // block) * block)

    def verify_tile_op(self) -> None:
        self._verify_region("src", self.src, tuple(self.src_offsets))
        src_t, dst_t = self.src.type, self.dst.type
        assert isinstance(src_t, MemRefType) and isinstance(dst_t, MemRefType)
        if ascend_space(src_t) != MemorySpace.GM:
            raise VerifyException(f"src must be a gm region, got {ascend_space(src_t).value}")
        if src_t.element_type != dst_t.element_type:
            raise VerifyException(
                f"element types differ ({src_t.element_type} vs {dst_t.element_type})"
            )


VECTOR_OPS: list[type[AscendTileOp]] = [
    AddOp, SubOp, MulOp, MaxOp, DivOp, ExpOp, LnOp, SqrtOp, RsqrtOp, IotaOp, CmpOp, SelectOp,
    CastOp, ReduceOp, BroadcastOp, DuplicateOp, ZeroTailOp,
]
DATA_OPS: list[type[AscendTileOp]] = [DataCopyOp, DataCopyNd2NzOp, LoadDataOp, FixpipeOp, MmadOp]

ASCEND_OPS: list[type[IRDLOperation]] = [*DATA_OPS, *VECTOR_OPS, *ASCEND_SYNC_OPS]

Ascend = Dialect("ascend", ASCEND_OPS, [PipeAttr])
