"""The ``nvvm`` ops upstream's own conversions add at the ``llvm`` level.

``convert-gpu-to-nvvm`` turns ``gpu.thread_id``/``gpu.block_id`` into the special
register reads and ``convert-nvgpu-to-nvvm`` turns ``nvgpu.ldmatrix`` into
``nvvm.ldmatrix``.  tilepipe never builds these ops; it defines them so that the
``llvm`` level (``tilepipe compile --emit llvm``) reads back into ``tile-opt`` and
``xdsl-opt -f tilepipe``, in the custom form MLIR 22.1.8 prints
(``test/python/tools/test_upstream_printing.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntAttr, IntegerAttr, i32
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.str_enum import StrEnum

from tilepipe.dialects.llvm_upstream import ConstantRangeAttr
from tilepipe.dialects.nvvm_attrs import MMALayoutAttr, parse_keyed_integers

# --------------------------------------------------------------------------- registers


class SpecialRegisterOp(IRDLOperation):
    """``%0 = nvvm.read.ptx.sreg.tid.x range <i32, 0, 128> : i32``: one PTX special
    register; ``range`` is the value's bound when the launch gives one
    (``gpu.known_block_size``)."""

    range = opt_prop_def(ConstantRangeAttr)
    res = result_def(i32)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> SpecialRegisterOp:
        properties: dict[str, Attribute] = {}
        if parser.parse_optional_keyword("range") is not None:
            properties["range"] = ConstantRangeAttr(*ConstantRangeAttr.parse_parameters(parser))
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        op = cls.create(properties=properties, result_types=[parser.parse_type()])
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        if self.range is not None:
            printer.print_string(" range ")
            self.range.print_parameters(printer)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.res.type)


def _special_register(register: str) -> type[SpecialRegisterOp]:
    op_class = type(
        f"ReadPtxSreg{register.title().replace('.', '')}Op",
        (SpecialRegisterOp,),
        {"name": f"nvvm.read.ptx.sreg.{register}", "__module__": __name__},
    )
    return irdl_op_definition(op_class)


SPECIAL_REGISTERS = (
    *(f"{name}.{axis}" for name in ("tid", "ntid", "ctaid", "nctaid") for axis in "xyz"),
    "laneid",
    "warpid",
    "warpsize",
)
SPECIAL_REGISTER_OPS = [_special_register(register) for register in SPECIAL_REGISTERS]

# --------------------------------------------------------------------------- ldmatrix


class LdStMatrixEltType(StrEnum):
    B16 = "b16"
    B8 = "b8"
    B8X16_B4X16_P64 = "b8x16.b4x16_p64"
    B8X16_B6X16_P32 = "b8x16.b6x16_p32"


@irdl_attr_definition
class LdStMatrixEltTypeAttr(EnumAttribute[LdStMatrixEltType]):
    """``#nvvm.ld_st_matrix_elt_type<b16>``"""

    name = "nvvm.ld_st_matrix_elt_type"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> LdStMatrixEltType:
        with parser.in_angle_brackets():
            return parser.parse_str_enum(LdStMatrixEltType)

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{self.data}>")


@irdl_attr_definition
class LdStMatrixShapeAttr(ParametrizedAttribute):
    """``#nvvm.ld_st_matrix_shape<m = 8, n = 8>``"""

    name = "nvvm.ld_st_matrix_shape"
    m: IntAttr
    n: IntAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return parse_keyed_integers(parser, "mn")

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<m = {self.m.data}, n = {self.n.data}>")


@irdl_op_definition
class LdMatrixOp(IRDLOperation):
    """``ldmatrix.sync.aligned``: ``num`` 8x8 tiles from shared memory into registers."""

    name = "nvvm.ldmatrix"
    ptr = operand_def()
    num = prop_def(IntegerAttr)
    layout = prop_def(MMALayoutAttr)
    shape = prop_def(LdStMatrixShapeAttr)
    eltType = prop_def(LdStMatrixEltTypeAttr)
    res = result_def()
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$ptr attr-dict `:` functional-type($ptr, $res)"


LOWERED_OPS: list[type[IRDLOperation]] = [*SPECIAL_REGISTER_OPS, LdMatrixOp]
LOWERED_ATTRIBUTES = [LdStMatrixEltTypeAttr, LdStMatrixShapeAttr]
