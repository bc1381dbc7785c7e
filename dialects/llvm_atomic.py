"""``llvm.atomicrmw``, which xDSL 0.75 lacks: the atomic read-modify-write that
``tile.atomic_add`` lowers to on CUDA.

Spelled as MLIR 22.1.8 does::

    %old = llvm.atomicrmw fadd %ptr, %value monotonic : !llvm.ptr<1>, f32

with the properties upstream's generic form has (``bin_op``, ``ordering``: its enums'
numbers; optional ``syncscope``).  Only the operations tilepipe emits are named
(``add``, ``fadd``); the orderings are upstream's, ``monotonic`` (PTX ``.relaxed``)
and up.
"""

from __future__ import annotations

from xdsl.dialects.builtin import I64, IntegerAttr, StringAttr, i64
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

# upstream's LLVM::AtomicBinOp and LLVM::AtomicOrdering numbers
ATOMIC_BIN_OPS = {"add": 1, "fadd": 11}
ATOMIC_ORDERINGS = {
    "monotonic": 2, "acquire": 4, "release": 5, "acq_rel": 6, "seq_cst": 7,
}


def _name_of(table: dict[str, int], number: int) -> str | None:
    return next((name for name, n in table.items() if n == number), None)


@irdl_op_definition
class AtomicRMWOp(IRDLOperation):
    """``*ptr = *ptr <bin_op> value`` atomically; the result is the old value."""

    name = "llvm.atomicrmw"
    ptr = operand_def(LLVMPointerType)
    val = operand_def()
    res = result_def()
    bin_op = prop_def(IntegerAttr[I64])
    ordering = prop_def(IntegerAttr[I64])
    syncscope = opt_prop_def(StringAttr)

    def __init__(
        self,
        ptr: SSAValue,
        val: SSAValue,
        bin_op: str,
        ordering: str = "monotonic",
        syncscope: str | None = None,
    ):
        properties: dict[str, Attribute] = {
            "bin_op": IntegerAttr(ATOMIC_BIN_OPS[bin_op], i64),
            "ordering": IntegerAttr(ATOMIC_ORDERINGS[ordering], i64),
        }
        if syncscope is not None:
            properties["syncscope"] = StringAttr(syncscope)
        super().__init__(
            operands=[ptr, val], result_types=[val.type], properties=properties
        )

    @property
    def bin_op_name(self) -> str | None:
        return _name_of(ATOMIC_BIN_OPS, self.bin_op.value.data)

    def verify_(self) -> None:
        if self.bin_op_name is None:
            raise VerifyException(f"unsupported atomic operation {self.bin_op.value.data}")
        if _name_of(ATOMIC_ORDERINGS, self.ordering.value.data) is None:
            raise VerifyException(f"unsupported atomic ordering {self.ordering.value.data}")
        if self.res.type != self.val.type:
            raise VerifyException("result type must be the value's type")

    def print(self, printer: Printer) -> None:
        ordering = _name_of(ATOMIC_ORDERINGS, self.ordering.value.data)
        printer.print_string(f" {self.bin_op_name} ")
        printer.print_operand(self.ptr)
        printer.print_string(", ")
        printer.print_operand(self.val)
        if self.syncscope is not None:
            printer.print_string(f' syncscope("{self.syncscope.data}")')
        printer.print_string(f" {ordering}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.ptr.type)
        printer.print_string(", ")
        printer.print_attribute(self.val.type)

    @classmethod
    def parse(cls, parser: Parser) -> AtomicRMWOp:
        bin_op = _parse_keyword(parser, ATOMIC_BIN_OPS, "atomic operation")
        ptr = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        val = parser.parse_unresolved_operand()
        syncscope = None
        if parser.parse_optional_keyword("syncscope") is not None:
            parser.parse_punctuation("(")
            syncscope = parser.parse_str_literal()
            parser.parse_punctuation(")")
        ordering = _parse_keyword(parser, ATOMIC_ORDERINGS, "atomic ordering")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ptr_type = parser.parse_type()
        parser.parse_punctuation(",")
        val_type = parser.parse_type()
        op = cls(
            parser.resolve_operand(ptr, ptr_type),
            parser.resolve_operand(val, val_type),
            bin_op,
            ordering,
            syncscope,
        )
        op.attributes |= attributes
        return op


def _parse_keyword(parser: Parser, table: dict[str, int], what: str) -> str:
    start = parser.pos
    word = parser.parse_identifier()
    if word not in table:
        parser.raise_error(
            f"unsupported {what} '{word}' (expected {', '.join(table)})", start, parser.pos
        )
    return word
