"""Ops that read upstream MLIR's custom form and print the generic one.

Upstream prints the levels it hands back (``tilepipe compile --emit nvvm``) with
every op it knows in its custom form, so tile-opt must read that form of every op
the lowered level holds.  An op's ``assembly_format`` (upstream's, from its ``.td``)
gives xDSL both the parser and the printer; :func:`reads_custom_form` keeps the
parser and puts the generic printer back, so that what tilepipe itself prints stays
as it was:

* ``lower-to-nvvm`` builds some of these ops with xDSL's classes
  (``memref.memory_space_cast``, ``gpu.thread_id``), which print the generic form;
  a parsed op of tilepipe's class printing the custom one would make print ->
  parse -> print no fixed point (``test/python/tools/test_roundtrip.py``);
* the tests of the lowering match the generic spelling of these ops.

Both forms are MLIR, and upstream reads either; dropping the decorator (once the
lowering builds tilepipe's classes) makes tilepipe print upstream's custom form too.
"""

from __future__ import annotations

from typing import TypeVar

from xdsl.dialects.builtin import IntAttr
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation
from xdsl.irdl.declarative_assembly_format import (
    CustomDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

OpT = TypeVar("OpT", bound=type[IRDLOperation])


def reads_custom_form(op_class: OpT) -> OpT:
    """``op_class`` (an ``irdl_op_definition`` with an ``assembly_format``), parsing
    that format and printing the generic form (xDSL's printer takes an op whose
    ``print`` is :meth:`Operation.print` as one without a custom form)."""
    assert op_class.assembly_format is not None, f"{op_class.name} has no assembly_format"
    op_class.print = Operation.print  # type: ignore[method-assign]
    return op_class


@irdl_custom_directive
class PointerAddressSpace(CustomDirective):
    """``custom<PointerAddressSpace>(type($x))``: an ``!llvm.ptr<N>`` operand type
    spelled ``<N>``, as upstream prints the type of an operand whose constraint names
    one address space (``LLVM_PointerGlobal``: ``: !llvm.ptr<7>, <1>``)."""

    type: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        with parser.in_angle_brackets():
            space = parser.parse_integer(allow_boolean=False, allow_negative=False)
        self.type.set(state, (LLVMPointerType(IntAttr(space)),))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        (pointer,) = self.type.get(op)
        assert isinstance(pointer, LLVMPointerType)
        state.print_whitespace(printer)
        printer.print_string(f"<{pointer.addr_space.data}>")


@irdl_custom_directive
class OperandGroupTypes(CustomDirective):
    """``custom<OperandGroupTypes>(type($a), type($b), type($c))``: one type for all
    the operands of each of three variadic groups, ``(i32, i32, f32)``, as upstream's
    hand-written form of ``nvvm.mma.sync`` spells the types of its ``A[...]``,
    ``B[...]`` and ``C[...]`` registers.  The groups are parsed before it."""

    a: TypeDirective
    b: TypeDirective
    c: TypeDirective

    def _groups(self) -> tuple[TypeDirective, TypeDirective, TypeDirective]:
        return (self.a, self.b, self.c)

    def parse(self, parser: Parser, state: ParsingState) -> None:
        types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        if len(types) != 3:
            parser.raise_error(f"expected 3 operand types, one per group, got {len(types)}")
        for group, type_ in zip(self._groups(), types):
            operands = state.operands[group.inner.index]  # type: ignore[attr-defined]
            group.set(state, (type_,) * len(operands or ()))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        with printer.in_parens():
            printer.print_list(
                (group.get(op)[0] for group in self._groups()), printer.print_attribute
            )


__all__ = ["OperandGroupTypes", "PointerAddressSpace", "reads_custom_form"]
