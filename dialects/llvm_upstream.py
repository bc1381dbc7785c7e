"""The ``llvm`` dialect with what MLIR 22.1.8 has and xDSL 0.75 lacks: the loop
annotation tilepipe emits, and the ops and spellings of the ``llvm`` level that
upstream's conversions produce, so that level reads back (the end of this module).

``lower-to-nvvm`` marks the short loops it wants LLVM to unroll completely (the 16-wide
k-steps of a tensor-core gemm, the rounds of a cooperative copy) with
``{loop_annotation = #llvm.loop_annotation<unroll = #llvm.loop_unroll<full = true>>}``
on the ``scf.for``: upstream's ``convert-scf-to-cf`` moves the attributes of the LLVM
dialect to the loop's latch branch, ``convert-cf-to-llvm`` forwards them to ``llvm.br``,
whose ``loop_annotation`` property it becomes under that name (not under
``llvm.loop_annotation``, which would stay a discardable attribute that the LLVM IR
translation ignores), and LLVM unrolls the loop (``llvm.loop.unroll.full``).  Keeping the loop in the IR keeps
tilepipe's and upstream's MLIR passes as fast as one copy of the body allows.  The
pipelined loops whose counter ``lowering/nvvm/induction.py`` hides carry ``<disable = true>``
instead: neither LLVM nor ptxas unrolls them.
:data:`LLVM` is xDSL's ``llvm`` dialect plus all of these, registered in its place
(``registry.OVERRIDES``), so that the lowered levels read back.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    BoolAttr,
    IntAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    VectorType,
)
from xdsl.dialects.llvm import LLVM as XDSL_LLVM
from xdsl.dialects.llvm import ConstantOp as XDSL_ConstantOp
from xdsl.dialects.llvm import GEPOp as XDSL_GEPOp
from xdsl.dialects.llvm import GenericCastOp
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import Pure

from tilepipe.dialects.llvm_atomic import AtomicRMWOp

LOOP_ANNOTATION = "loop_annotation"  # on scf.for: llvm.br's property of that name


UNROLL_OPTIONS = ("full", "disable")


@irdl_attr_definition
class LoopUnrollAttr(ParametrizedAttribute):
    """``#llvm.loop_unroll<full = true>`` or ``#llvm.loop_unroll<disable = true>``: the
    unroll options tilepipe sets, one at a time (``llvm.loop.unroll.full`` /
    ``.disable``; NVPTX prints the latter as ``.pragma "nounroll"``, which ptxas
    obeys too)."""

    name = "llvm.loop_unroll"
    option: StringAttr
    value: IntegerAttr

    def __init__(self, option: str = "full", value: bool = True):
        super().__init__(StringAttr(option), BoolAttr.from_bool(value))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        option = parser.parse_identifier()
        if option not in UNROLL_OPTIONS:
            parser.raise_error(f"expected one of {', '.join(UNROLL_OPTIONS)}")
        parser.parse_punctuation("=")
        value = parser.parse_boolean()
        parser.parse_punctuation(">")
        return [StringAttr(option), BoolAttr.from_bool(value)]

    def print_parameters(self, printer: Printer) -> None:
        value = "true" if self.value.value.data else "false"
        printer.print_string(f"<{self.option.data} = {value}>")


@irdl_attr_definition
class LoopAnnotationAttr(ParametrizedAttribute):
    """``#llvm.loop_annotation<unroll = #llvm.loop_unroll<...>>``"""

    name = "llvm.loop_annotation"
    unroll: LoopUnrollAttr

    def __init__(self, unroll: LoopUnrollAttr):
        super().__init__(unroll)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        parser.parse_keyword("unroll")
        parser.parse_punctuation("=")
        unroll = parser.parse_attribute()
        parser.parse_punctuation(">")
        return [unroll]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<unroll = ")
        printer.print_attribute(self.unroll)
        printer.print_string(">")


@irdl_attr_definition
class ConstantRangeAttr(ParametrizedAttribute):
    """``#llvm.constant_range<i32, 0, 128>``: the half-open range of an integer value
    (upstream's ``range`` on NVVM's special register reads)."""

    name = "llvm.constant_range"
    type: IntegerType
    lower: IntAttr
    upper: IntAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            bound_type = parser.parse_type()
            parser.parse_punctuation(",")
            lower = parser.parse_integer()
            parser.parse_punctuation(",")
            upper = parser.parse_integer()
        return [bound_type, IntAttr(lower), IntAttr(upper)]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.type)
        printer.print_string(f", {self.lower.data}, {self.upper.data}>")


FULL_UNROLL = LoopAnnotationAttr(LoopUnrollAttr("full"))
NO_UNROLL = LoopAnnotationAttr(LoopUnrollAttr("disable"))


@irdl_op_definition
class PoisonOp(IRDLOperation):
    """``%0 = llvm.mlir.poison : !llvm.struct<...>``: the start of every struct or
    vector upstream's conversions build value by value."""

    name = "llvm.mlir.poison"
    res = result_def()
    assembly_format = "attr-dict `:` type($res)"
    traits = traits_def(Pure())


@irdl_op_definition
class AddrSpaceCastOp(GenericCastOp):
    """``llvm.addrspacecast %p : !llvm.ptr to !llvm.ptr<1>``"""

    name = "llvm.addrspacecast"


@irdl_op_definition
class ExtractElementOp(IRDLOperation):
    """``llvm.extractelement %v[%i : i64] : vector<4xf32>``.  The result type is the
    vector's element type, which a declarative format cannot derive."""

    name = "llvm.extractelement"
    vector = operand_def(VectorType)
    position = operand_def(IntegerType)
    res = result_def()
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> ExtractElementOp:
        unresolved_vector = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        unresolved_position = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        position = parser.resolve_operand(unresolved_position, parser.parse_type())
        parser.parse_punctuation("]")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        vector_type = parser.parse_type()
        if not isinstance(vector_type, VectorType):
            parser.raise_error("expected a vector type")
        op = cls.create(
            operands=[parser.resolve_operand(unresolved_vector, vector_type), position],
            result_types=[vector_type.element_type],
        )
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.vector)
        printer.print_string("[")
        printer.print_operand(self.position)
        printer.print_string(" : ")
        printer.print_attribute(self.position.type)
        printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.vector.type)


class ConstantOp(XDSL_ConstantOp):
    """``llvm.mlir.constant(32 : index) : i64``: xDSL's op printing its value with the
    value's own type, as upstream does (xDSL drops ``: i64`` from an i64 result's
    value, which reads back as the same value but ``: index`` as another one)."""

    @classmethod
    def parse(cls, parser: Parser) -> XDSL_ConstantOp:
        with parser.in_parens():
            value = cls.parse_value(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        op = cls(value, parser.parse_type())
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        with printer.in_parens():
            printer.print_attribute(self.value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


# GEPNoWrapFlags, as upstream spells them before the pointer (`inbounds` is
# `inbounds_flag|nusw`, and printed as the one word).
_GEP_FLAG_BITS = {"inbounds": 3, "nusw": 2, "nuw": 4}


class GEPOp(XDSL_GEPOp):
    """``llvm.getelementptr inbounds|nuw %p[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32``:
    xDSL's op with MLIR 22's no-wrap flags (xDSL reads only ``inbounds``), kept in
    ``noWrapFlags`` as upstream keeps them (a plain subclass: only the syntax differs)."""

    @classmethod
    def parse(cls, parser: Parser) -> XDSL_GEPOp:
        flags = 0
        word = parser.parse_optional_keyword("inbounds")
        word = word or parser.parse_optional_keyword("nusw") or parser.parse_optional_keyword("nuw")
        while word is not None:
            flags |= _GEP_FLAG_BITS[word]
            if parser.parse_optional_punctuation("|") is None:
                break
            word = parser.parse_identifier()
            if word not in _GEP_FLAG_BITS:
                parser.raise_error(f"unknown getelementptr flag '{word}'")
        op = super().parse(parser)
        op.properties["noWrapFlags"] = IntegerAttr(flags, 32)
        return op

    def print(self, printer: Printer) -> None:
        flags = self.noWrapFlags.value.data | (3 if self.inbounds is not None else 0)
        words = [word for word, bits in _GEP_FLAG_BITS.items() if bits == flags & bits]
        if "inbounds" in words:
            words.remove("nusw")
        if words:
            printer.print_string(" " + "|".join(words))
        saved = self.properties.pop("inbounds", None)
        try:
            super().print(printer)
        finally:
            if saved is not None:
                self.properties["inbounds"] = saved


class _BinaryIntrinsicOp(IRDLOperation):
    """``llvm.intr.<name>(%a, %b) : (T, T) -> T``"""

    lhs = operand_def()
    rhs = operand_def()
    res = result_def()
    assembly_format = "`(` operands `)` attr-dict `:` functional-type(operands, results)"
    traits = traits_def(Pure())


def _binary_intrinsic(name: str, class_name: str) -> type[IRDLOperation]:
    namespace = {"name": f"llvm.intr.{name}", "__module__": __name__}
    return irdl_op_definition(type(class_name, (_BinaryIntrinsicOp,), namespace))


BINARY_INTRINSIC_OPS = [
    _binary_intrinsic(name, class_name)
    for name, class_name in (
        ("maximum", "MaximumOp"),
        ("minimum", "MinimumOp"),
        ("smax", "SMaxOp"),
        ("smin", "SMinOp"),
        ("umax", "UMaxOp"),
        ("umin", "UMinOp"),
    )
]

LEVEL_OPS: list[type[IRDLOperation]] = [
    AtomicRMWOp,
    PoisonOp,
    AddrSpaceCastOp,
    ExtractElementOp,
    *BINARY_INTRINSIC_OPS,
]

_REPLACED = {XDSL_GEPOp: GEPOp, XDSL_ConstantOp: ConstantOp}

LLVM = Dialect(
    "llvm",
    [
        *(_REPLACED.get(op, op) for op in XDSL_LLVM.operations),
        *LEVEL_OPS,
    ],
    [*XDSL_LLVM.attributes, LoopUnrollAttr, LoopAnnotationAttr, ConstantRangeAttr],
)
