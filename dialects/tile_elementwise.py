"""The element-wise ops of the ``tile`` dialect: each computes every element of its
destination tile from the elements at the same coordinates of its input tiles (or
from the coordinates themselves, ``tile.iota``).

Every operand lives on chip (registers, shared memory, UB); the numerics are in
docs/semantics.md and ``tilepipe.semantics.numerics``::

    tile.add<64x64> %x, %y -> %z : memref<...>, memref<...> -> memref<...>
    tile.rsqrt<64x64> %x -> %y : memref<...> -> memref<...>
    tile.iota<64x64> %c0 -> %i dim 1 : f32 -> memref<64x64xf32, "fragment">
    tile.cmp<64x64> lt %x, %y -> %m : memref<...>, memref<...> -> memref<...>
    tile.select<64x64> %m, %x, %y -> %z : memref<...>, memref<...>, memref<...> -> memref<...>
"""

from __future__ import annotations

from enum import Enum
from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    Float16Type,
    Float32Type,
    IntegerAttr,
    IntegerType,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tilepipe.dialects.memory_space import MemorySpace, memory_space
from tilepipe.dialects.tile_base import ANY_SPACE, ON_CHIP, TileOp
from tilepipe.dialects.tile_forms import (
    BinaryForm,
    SelectForm,
    SrcDstForm,
    ValueDstForm,
)
from tilepipe.dialects.tile_syntax import parse_i64


def is_number_type(element: Attribute) -> bool:
    """A float, or an integer of 8 to 64 bits: what comparisons, selections and
    coordinates are defined on (an ``i1`` is stored in a byte, where 1 and 0 are not
    the only values a load can see)."""
    if isinstance(element, AnyFloat):
        return True
    return isinstance(element, IntegerType) and 8 <= element.width.data <= 64


class ElementwiseOp(TileOp):
    """Elementwise ops over tiles of one shape, all on chip."""

    LEGAL_SPACES: ClassVar = {
        role: ON_CHIP for role in ("lhs", "rhs", "src", "dst", "mask", "on_true", "on_false")
    }
    SAME_ELEMENT_TYPES: ClassVar[bool] = True
    # The roles that must share the element type (all of them when empty).
    TYPED_ROLES: ClassVar[tuple[str, ...]] = ()
    FLOAT_ONLY: ClassVar[bool] = False
    NUMBERS_ONLY: ClassVar[bool] = False

    def verify_tile_op(self) -> None:
        if not self.SAME_ELEMENT_TYPES:
            return
        roles = self.TYPED_ROLES or tuple(role for role, _, _ in self.tile_regions())
        types = {self.element_type(role) for role in roles}
        if len(types) != 1:
            raise VerifyException(
                "operands must have one element type, got "
                + ", ".join(sorted(str(t) for t in types))
            )
        (elem,) = types
        if self.FLOAT_ONLY and not isinstance(elem, AnyFloat):
            raise VerifyException(f"{self.name} needs a float element type, got {elem}")
        if self.NUMBERS_ONLY and not is_number_type(elem):
            raise VerifyException(
                f"{self.name} needs a float or 8- to 64-bit integer element type, got {elem}"
            )


class BinaryElementwiseOp(BinaryForm, ElementwiseOp):
    pass


class UnaryElementwiseOp(SrcDstForm, ElementwiseOp):
    pass


class FloatUnaryOp(UnaryElementwiseOp):
    """A unary op of floats only (exp, log, sqrt, rsqrt)."""

    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class AddOp(BinaryElementwiseOp):
    name = "tile.add"


@irdl_op_definition
class SubOp(BinaryElementwiseOp):
    name = "tile.sub"


@irdl_op_definition
class MulOp(BinaryElementwiseOp):
    name = "tile.mul"


@irdl_op_definition
class MaxOp(BinaryElementwiseOp):
    name = "tile.max"


@irdl_op_definition
class ExpOp(FloatUnaryOp):
    name = "tile.exp"


@irdl_op_definition
class LogOp(FloatUnaryOp):
    """Natural logarithm: ``log(0) = -inf``, ``log(x < 0) = NaN``, ``log(inf) = inf``
    (computed in f32 for f16/bf16, in the element type otherwise)."""

    name = "tile.log"


@irdl_op_definition
class SqrtOp(FloatUnaryOp):
    """Square root, correctly rounded: ``sqrt(-0) = -0``, ``sqrt(x < 0) = NaN``."""

    name = "tile.sqrt"


@irdl_op_definition
class RsqrtOp(FloatUnaryOp):
    """Reciprocal square root ``1 / sqrt(x)``: ``rsqrt(+0) = +inf``,
    ``rsqrt(-0) = -inf``, ``rsqrt(inf) = 0``, ``rsqrt(x < 0) = NaN``."""

    name = "tile.rsqrt"


@irdl_op_definition
class CastOp(UnaryElementwiseOp):
    """Convert element types: to a float rounding to nearest even; float to (signed)
    integer toward zero, saturating, NaN to 0; integer to integer by sign extension or
    truncation (docs/semantics.md).

    Both operands live on chip, with one exception: a *converting move out of the
    cube's accumulator*, an f32 tile of ``l0c`` cast into ``gm`` (or ``l1``) as f16,
    bf16 or f32 -- what Ascend's fixpipe does on its way out (``Fixpipe`` with
    ``quantPre`` F322F16/F322BF16), so a GEMM writes its f16 result without a UB
    round trip."""

    name = "tile.cast"
    SAME_ELEMENT_TYPES: ClassVar = False
    LEGAL_SPACES: ClassVar = {"src": ON_CHIP, "dst": ANY_SPACE}

    def verify_tile_op(self) -> None:
        src_space, dst_space = (memory_space(self.src.type), memory_space(self.dst.type))
        if not dst_space.is_off_chip and src_space != MemorySpace.L0C:
            return
        src_t, dst_t = self.element_type("src"), self.element_type("dst")
        if src_space != MemorySpace.L0C or not (
            dst_space.is_off_chip or dst_space == MemorySpace.L1
        ):
            raise VerifyException(
                f"casts {src_space.value} -> {dst_space.value}: a cast leaves the chip only "
                "as the fixpipe's converting move, l0c -> gm or l1"
            )
        if not isinstance(src_t, Float32Type) or not isinstance(
            dst_t, Float16Type | BFloat16Type | Float32Type
        ):
            raise VerifyException(
                f"the fixpipe converts f32 to f16, bf16 or f32, not {src_t} -> {dst_t}"
            )


@irdl_op_definition
class DivOp(BinaryElementwiseOp):
    name = "tile.div"
    FLOAT_ONLY: ClassVar[bool] = True


class IotaOpBase(ValueDstForm, ElementwiseOp):
    """Fill a tile with its coordinates along one dimension:
    ``dst[i0, ..., ir] = start + i_dim`` for the scalar ``start`` of the destination's
    element type.  Floats add in f32 for f16/bf16 (in the element type otherwise) and
    are rounded once when stored; integers add in their type, wrapping."""

    dim = prop_def(IntegerAttr[IntegerType])

    def __init__(self, *start_region_and_shape, dim: int):
        """``ValueDstForm``'s arguments (start, dst, offsets, shape), then the
        dimension."""
        super().__init__(*start_region_and_shape, {"dim": IntegerAttr(dim, i64)})

    @property
    def iota_dim(self) -> int:
        return self.dim.value.data

    def verify_(self) -> None:
        """The dimension lies in the tile; the start has the destination's element
        type, a float or an 8- to 64-bit integer."""
        if not 0 <= self.iota_dim < len(self.tile_shape):
            raise VerifyException(
                f"dim {self.iota_dim} is out of range for a {self._shape_str()} tile"
            )
        super().verify_()

    def verify_tile_op(self) -> None:
        ValueDstForm.verify_tile_op(self)
        element = self.element_type("dst")
        if not is_number_type(element):
            raise VerifyException(
                f"{self.name} needs a float or 8- to 64-bit integer element type, got {element}"
            )

    def print_modifiers(self, printer: Printer) -> None:
        printer.print_string(f" dim {self.iota_dim}")

    @classmethod
    def parse_modifiers(cls, parser: Parser) -> dict[str, int]:
        parser.parse_keyword("dim")
        return {"dim": parse_i64(parser, "dim", allow_negative=False)}


class ComparePredicate(Enum):
    EQ = "eq"
    NE = "ne"
    LT = "lt"
    LE = "le"
    GT = "gt"
    GE = "ge"


class CmpOpBase(BinaryElementwiseOp):
    """Compare two tiles element by element: ``dst = (lhs PRED rhs) ? 1 : 0`` in the
    element type all three share.  Integers compare signed; floats ordered, so a NaN
    operand compares false under every predicate but ``ne``, where it compares true
    (IEEE)."""

    predicate = prop_def(StringAttr)
    NUMBERS_ONLY: ClassVar[bool] = True

    def __init__(self, *regions_and_shape, predicate: ComparePredicate | str):
        """``BinaryForm``'s arguments (lhs, offsets, rhs, offsets, dst, offsets,
        shape), then the predicate."""
        name = predicate.value if isinstance(predicate, ComparePredicate) else predicate
        super().__init__(*regions_and_shape, {"predicate": StringAttr(name)})

    @property
    def compare_predicate(self) -> ComparePredicate:
        return ComparePredicate(self.predicate.data)

    def verify_(self) -> None:
        """The predicate is one of eq, ne, lt, le, gt, ge; the operands share a float
        or 8- to 64-bit integer element type."""
        if self.predicate.data not in {p.value for p in ComparePredicate}:
            raise VerifyException(
                f"unknown predicate '{self.predicate.data}' (expected eq, ne, lt, le, gt or ge)"
            )
        super().verify_()

    def print_keyword(self, printer: Printer) -> None:
        printer.print_string(f" {self.predicate.data}")

    @classmethod
    def parse_keyword(cls, parser: Parser) -> dict[str, str]:
        return {"predicate": parser.parse_identifier()}


class SelectOpBase(SelectForm, ElementwiseOp):
    """Pick elements of two tiles by a mask: ``dst = (mask != 0) ? on_true : on_false``.
    ``on_true``, ``on_false`` and ``dst`` share an element type; the mask may have any
    float or integer element type (a float mask is nonzero unless it is +-0, so NaN
    selects ``on_true``)."""

    TYPED_ROLES: ClassVar = ("on_true", "on_false", "dst")
    NUMBERS_ONLY: ClassVar[bool] = True

    def verify_tile_op(self) -> None:
        """``on_true``, ``on_false`` and ``dst`` share an element type; every element
        type (the mask's too) is a float or an 8- to 64-bit integer."""
        super().verify_tile_op()
        mask = self.element_type("mask")
        if not is_number_type(mask):
            raise VerifyException(
                f"the mask needs a float or 8- to 64-bit integer element type, got {mask}"
            )


# The tile ops; the ascend dialect's vector ops share their bases.


@irdl_op_definition
class IotaOp(IotaOpBase):
    name = "tile.iota"


@irdl_op_definition
class CmpOp(CmpOpBase):
    name = "tile.cmp"


@irdl_op_definition
class SelectOp(SelectOpBase):
    name = "tile.select"


ELEMENTWISE_OPS: list[type[TileOp]] = [
    AddOp,
    SubOp,
    MulOp,
    MaxOp,
    ExpOp,
    LogOp,
    SqrtOp,
    RsqrtOp,
    DivOp,
    CastOp,
    IotaOp,
    CmpOp,
    SelectOp,
]
