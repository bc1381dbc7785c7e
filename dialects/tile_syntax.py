"""Textual syntax shared by ops with region operands (tile, pipeline, ascend).

A region operand is ``%buf`` or ``%buf[%i, %j]``; a tile shape is ``<128x64>``; the
trailing signature is ``: t1, t2 -> t3``.  Operands are parsed unresolved and resolved
once the signature gives their types.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, SSAValue
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer

RegionOperand = tuple[UnresolvedOperand, list[UnresolvedOperand]]


def parse_region_operand(
    parser: Parser,
) -> RegionOperand:
    """``%buf`` or ``%buf[%i, %j]``; resolved once the trailing types are parsed."""
    buffer = parser.parse_unresolved_operand()
    offsets: list[UnresolvedOperand] = []
    if parser.parse_optional_punctuation("[") is not None:
        if parser.parse_optional_punctuation("]") is None:
            offsets = parser.parse_comma_separated_list(
                Parser.Delimiter.NONE, parser.parse_unresolved_operand
            )
            parser.parse_punctuation("]")
    return buffer, offsets


def resolve_region_operand(
    parser: Parser,
    operand: RegionOperand,
    buffer_type: Attribute,
) -> tuple[SSAValue, list[SSAValue]]:
    buffer, offsets = operand
    return parser.resolve_operand(buffer, buffer_type), [
        parser.resolve_operand(o, IndexType()) for o in offsets
    ]


def print_region_operand(
    printer: Printer, buffer: SSAValue, offsets: Sequence[SSAValue]
) -> None:
    printer.print_operand(buffer)
    if offsets:
        printer.print_string("[")
        printer.print_list(offsets, printer.print_operand)
        printer.print_string("]")


def parse_tile_shape(parser: Parser) -> list[int]:
    parser.parse_punctuation("<")
    dims = parser.parse_dimension_list()
    parser.parse_punctuation(">")
    return dims


def print_tile_shape(printer: Printer, shape: Sequence[int]) -> None:
    printer.print_string("<" + "x".join(str(d) for d in shape) + ">")


def parse_signature(parser: Parser, num_inputs: int) -> list[Attribute]:
    """Parse the trailing ``: t1, t2 -> t3`` (``num_inputs`` types before the arrow)."""
    parser.parse_punctuation(":")
    types = [parser.parse_type()]
    while len(types) < num_inputs:
        parser.parse_punctuation(",")
        types.append(parser.parse_type())
    parser.parse_punctuation("->")
    types.append(parser.parse_type())
    return types
