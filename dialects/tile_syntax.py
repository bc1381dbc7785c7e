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


# Integers written in the custom syntax are stored as i64 properties; a value outside
# that range would fail when the op is built (a ValueError with no place in the text),
# so the parser rejects it where it is written.
I64_MIN, I64_MAX = -(2**63), 2**63 - 1


def parse_i64(parser: Parser, what: str, allow_negative: bool = True) -> int:
    """An integer literal that fits in a signed 64-bit integer, else a located error."""
    start = parser.pos
    value = parser.parse_integer(allow_negative=allow_negative, allow_boolean=False)
    if not I64_MIN <= value <= I64_MAX:
        parser.raise_error(
            f"{what} {value} does not fit in a 64-bit signed integer", start, parser.pos
        )
    return value


def parse_tile_shape(parser: Parser) -> list[int]:
    parser.parse_punctuation("<")
    start = parser.pos
    dims = parser.parse_dimension_list()
    if any(d > I64_MAX for d in dims):
        parser.raise_error(
            f"tile shape {'x'.join(map(str, dims))} has a size that does not fit in a "
            "64-bit signed integer",
            start,
            parser.pos,
        )
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
