"""The attributes of tilepipe's ``nvvm`` ops (:mod:`tilepipe.dialects.nvvm`), spelled as
MLIR 22.1.8 spells them: the opaque ``#nvvm<name value>`` form where upstream prints
that, ``#nvvm.name<value>`` where upstream rejects the opaque one."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DictionaryAttr, IntAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, ParametrizedAttribute, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.str_enum import StrEnum


class LoadCacheModifier(StrEnum):
    CA = "ca"  # cache at all levels
    CG = "cg"  # cache in L2 only (16-byte cp.async)
    CS = "cs"
    LU = "lu"
    CV = "cv"


@irdl_attr_definition
class LoadCacheModifierAttr(EnumAttribute[LoadCacheModifier], SpacedOpaqueSyntaxAttribute):
    """``#nvvm<load_cache_modifier cg>``"""

    name = "nvvm.load_cache_modifier"


class ShflKind(StrEnum):
    BFLY = "bfly"
    UP = "up"
    DOWN = "down"
    IDX = "idx"


@irdl_attr_definition
class ShflKindAttr(EnumAttribute[ShflKind], SpacedOpaqueSyntaxAttribute):
    """``#nvvm<shfl_kind bfly>``"""

    name = "nvvm.shfl_kind"


class _AngleEnum:
    """Enum attributes upstream spells ``#nvvm.name<value>`` (it rejects the opaque
    ``#nvvm<name value>`` form for these)."""

    @classmethod
    def parse_parameter(cls, parser: AttrParser):
        parser.parse_punctuation("<")
        value = parser.parse_str_enum(cls.enum_type)  # type: ignore[attr-defined]
        parser.parse_punctuation(">")
        return value

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{self.data.value}>")  # type: ignore[attr-defined]


class MMALayout(StrEnum):
    ROW = "row"
    COL = "col"


@irdl_attr_definition
class MMALayoutAttr(_AngleEnum, EnumAttribute[MMALayout]):
    """``#nvvm.mma_layout<row>`` (upstream rejects the opaque ``#nvvm<mma_layout row>``)"""

    name = "nvvm.mma_layout"


class MMAType(StrEnum):
    F16 = "f16"
    BF16 = "bf16"
    F32 = "f32"
    TF32 = "tf32"


@irdl_attr_definition
class MMATypesAttr(_AngleEnum, EnumAttribute[MMAType]):
    """``#nvvm.mma_type<bf16>``"""

    name = "nvvm.mma_type"


def parse_keyed_integers(parser: AttrParser, keys: Sequence[str]) -> list[IntAttr]:
    """``<m = 16, n = 8, k = 16>``: one integer per key, in the order of ``keys``."""
    values = []
    with parser.in_angle_brackets():
        for i, key in enumerate(keys):
            if i:
                parser.parse_punctuation(",")
            parser.parse_keyword(key)
            parser.parse_punctuation("=")
            values.append(IntAttr(parser.parse_integer()))
    return values


@irdl_attr_definition
class MMAShapeAttr(ParametrizedAttribute):
    """``#nvvm.shape<m = 16, n = 8, k = 16>``"""

    name = "nvvm.shape"
    m: IntAttr
    n: IntAttr
    k: IntAttr

    def __init__(self, m: int, n: int, k: int):
        super().__init__(IntAttr(m), IntAttr(n), IntAttr(k))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return parse_keyed_integers(parser, "mnk")

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<m = {self.m.data}, n = {self.n.data}, k = {self.k.data}>")


class ProxyKind(StrEnum):
    ASYNC_SHARED = "async.shared"  # the only kind tilepipe emits


@irdl_attr_definition
class ProxyKindAttr(_AngleEnum, EnumAttribute[ProxyKind]):
    """``#nvvm.proxy_kind<async.shared>``"""

    name = "nvvm.proxy_kind"


class SharedSpace(StrEnum):
    CTA = "cta"


@irdl_attr_definition
class SharedSpaceAttr(_AngleEnum, EnumAttribute[SharedSpace]):
    """``#nvvm.shared_space<cta>``"""

    name = "nvvm.shared_space"


class ReductionKind(StrEnum):
    AND = "and"
    OR = "or"
    POPC = "popc"


@irdl_attr_definition
class ReductionAttr(_AngleEnum, EnumAttribute[ReductionKind]):
    """``#nvvm.reduction<popc>``: the reduction of a reducing ``nvvm.barrier`` (read
    from upstream's text; tilepipe emits none)."""

    name = "nvvm.reduction"


class TMALoadMode(StrEnum):
    TILE = "tile"  # the only mode tilepipe emits (upstream's default)
    IM2COL = "im2col"
    IM2COL_W = "im2col_w"
    IM2COL_W_128 = "im2col_w_128"
    TILE_GATHER4 = "tile_gather4"


@irdl_attr_definition
class TMALoadModeAttr(_AngleEnum, EnumAttribute[TMALoadMode]):
    """``#nvvm.tma_load_mode<tile>``: how a tensor copy reads its box (read from
    upstream's generic print, where the default is spelled out)."""

    name = "nvvm.tma_load_mode"


@irdl_attr_definition
class TargetAttr(ParametrizedAttribute):
    """``#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">``: the compile target
    upstream's ``nvvm-attach-target`` puts on a ``gpu.module`` (the ``llvm`` level).
    tilepipe only reads it back and prints it as it came: the fields (``O``,
    ``triple``, ``chip``, ``features``, ``flags``, ``link``, all optional) in their
    order."""

    name = "nvvm.target"
    fields: DictionaryAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        fields: dict[str, Attribute] = {}
        if parser.parse_optional_punctuation("<") is None:
            return [DictionaryAttr(fields)]

        def parse_field() -> None:
            key = parser.parse_identifier()
            parser.parse_punctuation("=")
            value = parser.parse_optional_integer(allow_boolean=False)
            fields[key] = IntAttr(value) if value is not None else parser.parse_attribute()

        parser.parse_comma_separated_list(parser.Delimiter.NONE, parse_field)
        parser.parse_punctuation(">")
        return [DictionaryAttr(fields)]

    def print_parameters(self, printer: Printer) -> None:
        if not self.fields.data:
            return
        printer.print_string("<")
        for i, (key, value) in enumerate(self.fields.data.items()):
            printer.print_string(f"{', ' if i else ''}{key} = ")
            if isinstance(value, IntAttr):
                printer.print_string(str(value.data))
            else:
                printer.print_attribute(value)
        printer.print_string(">")


NVVM_ATTRIBUTES = [
    TargetAttr,
    LoadCacheModifierAttr,
    ShflKindAttr,
    MMALayoutAttr,
    MMATypesAttr,
    MMAShapeAttr,
    ProxyKindAttr,
    SharedSpaceAttr,
    ReductionAttr,
    TMALoadModeAttr,
]
