"""The ``llvm`` dialect with the loop annotation MLIR 22.1.8 has and xDSL 0.75 lacks.

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
:data:`LLVM` is xDSL's ``llvm`` dialect plus these two attributes, registered in its
place (``registry.OVERRIDES``), so that the lowered level reads back.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import BoolAttr, IntegerAttr, StringAttr
from xdsl.dialects.llvm import LLVM as XDSL_LLVM
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

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


FULL_UNROLL = LoopAnnotationAttr(LoopUnrollAttr("full"))
NO_UNROLL = LoopAnnotationAttr(LoopUnrollAttr("disable"))

LLVM = Dialect(
    "llvm",
    list(XDSL_LLVM.operations),
    [*XDSL_LLVM.attributes, LoopUnrollAttr, LoopAnnotationAttr],
)
