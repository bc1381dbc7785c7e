"""The ``tile`` dialect: tile operations with exact, analyzable buffer regions.

Every tile op names the buffers it touches together with the *region* it touches in
each: a list of per-dimension offsets (SSA ``index`` values; an omitted list means the
buffer's origin) and the op's static tile shape, written once after the op name::

    tile.copy<128x64> %A[%m, %k] -> %A_s : memref<1024x1024xf16> -> memref<128x64xf16, "shared">
    tile.gemm<128x128x64> %A_s, %B_s -> %C_f : memref<...>, memref<...> -> memref<...>

A buffer of rank R touched by an op whose tile has rank r <= R is touched in the box
``offsets[d] .. offsets[d] + size[d]`` where the sizes are ``1`` for the leading
``R - r`` dimensions and the tile's extents for the trailing ones.  This is exactly what
multi-buffering needs: a versioned buffer ``memref<2x128x64xf16>`` is accessed as
``%A_s[%slot, %c0, %c0]`` by the same ``128x64`` tile.

``buffer_accesses()`` gives these regions to every analysis (dependences, liveness,
hazards, the interpreter and the race detector), so no pass re-derives them.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import ClassVar

from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseArrayBase,
    Float16Type,
    Float32Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tilepipe.dialects.memory_space import memory_space
from tilepipe.dialects.tile_base import (
    ACCUMULATOR_SPACES,
    ANY_SPACE,
    MATMUL_INPUT_SPACES,
    ON_CHIP,
    BufferAccess,
    ElementMapping,
    TileOp,
    constant_index,
    region_sizes,
)
# The element-wise ops live in their own module; ``tile`` is their namespace too.
from tilepipe.dialects.tile_elementwise import (  # noqa: F401 (re-exported)
    ELEMENTWISE_OPS,
    AddOp,
    BinaryElementwiseOp,
    CastOp,
    CmpOp,
    ComparePredicate,
    DivOp,
    ElementwiseOp,
    ExpOp,
    IotaOp,
    LogOp,
    MaxOp,
    MulOp,
    RsqrtOp,
    SelectOp,
    SqrtOp,
    SubOp,
    UnaryElementwiseOp,
    is_number_type,
)
from tilepipe.dialects.tile_atomic import AtomicAddOp  # noqa: F401 (re-exported)
from tilepipe.dialects.tile_forms import (
    MatmulForm,
    SrcDstForm,
    ValueDstForm,
    shape_property,
)
from tilepipe.dialects.tile_launch import GridDimsOp
from tilepipe.dialects.tile_syntax import (
    parse_i64,
    parse_region_operand,
    parse_signature,
    parse_tile_shape,
    print_region_operand,
    print_tile_shape,
    resolve_region_operand,
)

# --------------------------------------------------------------------------- ops


@irdl_op_definition
class CopyOp(SrcDstForm, TileOp):
    """Copy a tile between any two memory spaces (same element type)."""

    name = "tile.copy"

    def verify_tile_op(self) -> None:
        if self.element_type("src") != self.element_type("dst"):
            raise VerifyException(
                "source and destination element types differ "
                f"({self.element_type('src')} vs {self.element_type('dst')}); "
                "use tile.cast to convert"
            )


@irdl_op_definition
class GemmOp(MatmulForm, TileOp):
    """``C += op(A) * op(B)`` on an ``MxNxK`` tile (shape = [M, N, K]).

    f16/bf16 inputs accumulate in f32; f32 inputs accumulate in f32.
    """

    name = "tile.gemm"
    transpose_a = opt_prop_def(UnitAttr)
    transpose_b = opt_prop_def(UnitAttr)

    ELEMENT_MAPPING: ClassVar = ElementMapping.WARP_TILED
    LEGAL_SPACES: ClassVar = {
        "a": MATMUL_INPUT_SPACES,
        "b": MATMUL_INPUT_SPACES,
        "c": ACCUMULATOR_SPACES,
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
        transpose_a: bool = False,
        transpose_b: bool = False,
    ):
        props = shape_property(shape)
        if transpose_a:
            props["transpose_a"] = UnitAttr()
        if transpose_b:
            props["transpose_b"] = UnitAttr()
        super().__init__(
            operands=[a, a_offsets, b, b_offsets, c, c_offsets], properties=props
        )

    def operand_tile_shape(self, role: str) -> tuple[int, ...]:
        m, n, k = self.mnk
        if role == "a":
            return (k, m) if self.transpose_a else (m, k)
        if role == "b":
            return (n, k) if self.transpose_b else (k, n)
        return (m, n)

    def verify_(self) -> None:
        self.verify_matmul_shape()
        super().verify_()

    def verify_tile_op(self) -> None:
        a_t, b_t, c_t = (self.element_type(r) for r in ("a", "b", "c"))
        if a_t != b_t:
            raise VerifyException(f"A and B element types differ ({a_t} vs {b_t})")
        if not isinstance(a_t, Float16Type | BFloat16Type | Float32Type):
            raise VerifyException(f"gemm inputs must be f16, bf16 or f32, got {a_t}")
        if not isinstance(c_t, Float32Type):
            raise VerifyException(f"gemm accumulates in f32, got {c_t}")

    def print_modifiers(self, printer: Printer) -> None:
        if self.transpose_a:
            printer.print_string(" transpose_a")
        if self.transpose_b:
            printer.print_string(" transpose_b")

    @classmethod
    def parse_modifiers(cls, parser: Parser) -> dict[str, bool]:
        return {
            "transpose_a": parser.parse_optional_keyword("transpose_a") is not None,
            "transpose_b": parser.parse_optional_keyword("transpose_b") is not None,
        }


@irdl_op_definition
class FillOp(ValueDstForm, TileOp):
    """Fill a tile with a scalar of the buffer's element type."""

    name = "tile.fill"
    LEGAL_SPACES: ClassVar = {"dst": ON_CHIP}


class ReduceKind(Enum):
    SUM = "sum"
    MAX = "max"


class AlongAxisOp(TileOp):
    """A tile op between a tile and the same tile without one axis.

    ``shape`` is the full tile; the operand named ``COLLAPSED_ROLE`` is the tile with
    ``axis`` removed (a reduction's destination, a broadcast's source).  Syntax:
    ``op<shape> [word] %src[offs] -> %dst[offs] axis N : S -> D``, where the optional
    word (a reduction's kind) comes from ``print_keyword``/``parse_keyword``.
    """

    src = operand_def(MemRefType)
    src_offsets = var_operand_def(IndexType)
    dst = operand_def(MemRefType)
    dst_offsets = var_operand_def(IndexType)
    axis = prop_def(IntegerAttr[IntegerType])

    REGION_OPERANDS: ClassVar = (("src", "src_offsets", "src"), ("dst", "dst_offsets", "dst"))
    LEGAL_SPACES: ClassVar = {"src": ON_CHIP, "dst": ON_CHIP}
    COLLAPSED_ROLE: ClassVar[str]
    AXIS_NAME: ClassVar[str] = "axis"  # in diagnostics

    def __init__(
        self,
        src: SSAValue | Operation,
        src_offsets: Sequence[SSAValue | Operation],
        dst: SSAValue | Operation,
        dst_offsets: Sequence[SSAValue | Operation],
        shape: Sequence[int],
        axis: int,
        properties: dict[str, Attribute] | None = None,
    ):
        super().__init__(
            operands=[src, src_offsets, dst, dst_offsets],
            properties={
                "shape": DenseArrayBase.from_list(i64, shape),
                "axis": IntegerAttr(axis, i64),
                **(properties or {}),
            },
        )

    @property
    def along_axis(self) -> int:
        return self.axis.value.data

    def operand_tile_shape(self, role: str) -> tuple[int, ...]:
        shape = self.tile_shape
        if role == self.COLLAPSED_ROLE:
            return shape[: self.along_axis] + shape[self.along_axis + 1 :]
        return shape

    def verify_(self) -> None:
        if not 0 <= self.along_axis < len(self.tile_shape):
            raise VerifyException(
                f"{self.AXIS_NAME} {self.along_axis} is out of range for a "
                f"{self._shape_str()} tile"
            )
        super().verify_()

    def verify_tile_op(self) -> None:
        if self.element_type("src") != self.element_type("dst"):
            raise VerifyException("source and destination element types differ")

    def print_keyword(self, printer: Printer) -> None:
        pass

    @classmethod
    def parse_keyword(cls, parser: Parser) -> dict[str, str]:
        """Constructor keyword arguments parsed after the shape."""
        return {}

    def print(self, printer: Printer) -> None:
        print_tile_shape(printer, self.tile_shape)
        self.print_keyword(printer)
        printer.print_string(" ")
        print_region_operand(printer, self.src, self.src_offsets)
        printer.print_string(" -> ")
        print_region_operand(printer, self.dst, self.dst_offsets)
        printer.print_string(f" axis {self.along_axis}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(f" : {self.src.type} -> {self.dst.type}")

    @classmethod
    def parse(cls, parser: Parser):
        shape = parse_tile_shape(parser)
        keywords = cls.parse_keyword(parser)
        src = parse_region_operand(parser)
        parser.parse_punctuation("->")
        dst = parse_region_operand(parser)
        parser.parse_keyword("axis")
        axis = parse_i64(parser, "axis", allow_negative=False)
        attrs = parser.parse_optional_attr_dict()
        src_type, dst_type = parse_signature(parser, 1)
        op = cls(
            *resolve_region_operand(parser, src, src_type),
            *resolve_region_operand(parser, dst, dst_type),
            shape,
            axis,
            **keywords,
        )
        op.attributes |= attrs
        return op


class ReduceOpBase(AlongAxisOp):
    """Reduce a tile along one axis: ``dst[...] = reduce(src, axis)``.

    The destination tile is the source tile with ``axis`` removed; its previous
    contents are overwritten (``clear`` semantics, as TileLang's default).  A float sum
    adds in f32 (f64 for f64) in one defined order, numpy's pairwise order along the
    axis (``tile_reduce_order``), in every interpreter and lowering alike; an integer
    sum adds in its own type, wrapping (exact in any order); max is signed.

    A source in shared memory is read by the threads that own the destination's
    elements, each reading its elements' whole lines along ``axis``: not the source's
    cooperative chunks.  The analyses count it as read by all threads
    (``ROLES_READ_BY_ALL_THREADS``).  A source in registers follows its fragment
    layout (the lowering reduces with warp shuffles).
    """

    kind = prop_def(StringAttr)

    COLLAPSED_ROLE: ClassVar = "dst"
    AXIS_NAME: ClassVar = "reduction axis"

    def __init__(
        self,
        src: SSAValue | Operation,
        src_offsets: Sequence[SSAValue | Operation],
        dst: SSAValue | Operation,
        dst_offsets: Sequence[SSAValue | Operation],
        shape: Sequence[int],
        axis: int,
        kind: ReduceKind | str,
    ):
        kind_name = kind.value if isinstance(kind, ReduceKind) else kind
        super().__init__(
            src, src_offsets, dst, dst_offsets, shape, axis, {"kind": StringAttr(kind_name)}
        )

    @property
    def ROLES_READ_BY_ALL_THREADS(self) -> frozenset[str]:  # noqa: N802 (TileOp's name)
        if memory_space(self.src.type).is_thread_private:
            return frozenset()
        return frozenset({"src"})

    @property
    def reduce_axis(self) -> int:
        return self.along_axis

    @property
    def reduce_kind(self) -> ReduceKind:
        return ReduceKind(self.kind.data)

    def verify_(self) -> None:
        if self.kind.data not in {k.value for k in ReduceKind}:
            raise VerifyException(
                f"unknown reduction '{self.kind.data}' (expected sum or max)"
            )
        super().verify_()
        element = self.element_type("src")
        if not is_number_type(element):
            # i1 is stored in a byte: neither its sum nor its (signed) max has one meaning.
            raise VerifyException(
                f"tile.reduce reduces float or integer tiles of 8 to 64 bits, not {element}"
            )

    def print_keyword(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data}")

    @classmethod
    def parse_keyword(cls, parser: Parser) -> dict[str, str]:
        return {"kind": parser.parse_identifier()}


@irdl_op_definition
class ReduceOp(ReduceOpBase):
    __doc__ = ReduceOpBase.__doc__
    name = "tile.reduce"


class BroadcastOpBase(AlongAxisOp):
    """Materialize a tile by repeating ``src`` along ``axis``:
    ``dst[i, j] = src[i]`` for ``axis 1`` (a row statistic over its row).

    The source tile is the destination tile with ``axis`` removed.  Every thread that
    writes a destination element reads the source element it repeats, so the source
    is read by all threads (``ROLES_READ_BY_ALL_THREADS``), not in the op's element
    mapping.
    """

    COLLAPSED_ROLE: ClassVar = "src"
    AXIS_NAME: ClassVar = "broadcast axis"
    ROLES_READ_BY_ALL_THREADS: ClassVar = frozenset({"src"})


@irdl_op_definition
class BroadcastOp(BroadcastOpBase):
    __doc__ = BroadcastOpBase.__doc__
    name = "tile.broadcast"


@irdl_op_definition
class BlockIdOp(IRDLOperation):
    """The index of the executing block in the launch grid along x, y or z.

    Lowered to ``gpu.block_id`` (CUDA) or the block index (Ascend)."""

    name = "tile.block_id"
    dimension = prop_def(StringAttr)
    result = result_def(IndexType)
    traits = traits_def(Pure())

    def __init__(self, dimension: str):
        super().__init__(
            properties={"dimension": StringAttr(dimension)}, result_types=[IndexType()]
        )

    def verify_(self) -> None:
        if self.dimension.data not in ("x", "y", "z"):
            raise VerifyException(
                f"dimension must be x, y or z, got '{self.dimension.data}'"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.dimension.data}")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> BlockIdOp:
        pos = parser.pos
        dimension = parser.parse_identifier()
        if dimension not in ("x", "y", "z"):
            parser.raise_error("expected x, y or z", pos, parser.pos)
        op = cls(dimension)
        op.attributes |= parser.parse_optional_attr_dict()
        return op


TILE_OPS: list[type[IRDLOperation]] = [
    BlockIdOp,
    GridDimsOp,
    CopyOp,
    AtomicAddOp,
    GemmOp,
    FillOp,
    *ELEMENTWISE_OPS,
    ReduceOp,
    BroadcastOp,
]

Tile = Dialect("tile", TILE_OPS, [])
