"""Operand forms shared by the tile-like ops of every dialect.

A *form* is a mixin giving an op its region operands, its constructor and its custom
syntax; ``tile.copy``, ``pipeline.async_copy`` and ``ascend.data_copy`` are all
``SrcDstForm``, ``tile.gemm`` and ``ascend.mmad`` are ``MatmulForm``, ``tile.select``
is ``SelectForm``.  Ops combine a form with ``TileOp`` (or a subclass) and add their
name, legal memory spaces and checks.  Extra syntax goes through
``print_keyword``/``parse_keyword`` before the regions (a comparison's predicate) and
``print_modifiers``/``parse_modifiers`` after them (``transpose_a``, ``init %flag``,
``tile.iota``'s ``dim 1``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IndexType, MemRefType, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import operand_def, var_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tilepipe.dialects.tile_syntax import (
    parse_region_operand,
    parse_signature,
    parse_tile_shape,
    print_region_operand,
    print_tile_shape,
    resolve_region_operand,
)

Operand = SSAValue | Operation


def shape_property(shape: Sequence[int]) -> dict[str, Attribute]:
    return {"shape": DenseArrayBase.from_list(i64, shape)}


class SrcDstForm:
    """``op<shape> %src[offs] -> %dst[offs] : T -> T``: one input region, one output."""

    src = operand_def(MemRefType)
    src_offsets = var_operand_def(IndexType)
    dst = operand_def(MemRefType)
    dst_offsets = var_operand_def(IndexType)

    REGION_OPERANDS: ClassVar = (("src", "src_offsets", "src"), ("dst", "dst_offsets", "dst"))

    def __init__(
        self,
        src: Operand,
        src_offsets: Sequence[Operand],
        dst: Operand,
        dst_offsets: Sequence[Operand],
        shape: Sequence[int],
        **kwargs: Any,
    ):
        super().__init__(  # type: ignore[call-arg]
            operands=[src, src_offsets, dst, dst_offsets],
            properties=shape_property(shape),
            **kwargs,
        )

    def print(self, printer: Printer) -> None:
        print_tile_shape(printer, self.tile_shape)  # type: ignore[attr-defined]
        printer.print_string(" ")
        print_region_operand(printer, self.src, self.src_offsets)
        printer.print_string(" -> ")
        print_region_operand(printer, self.dst, self.dst_offsets)
        printer.print_op_attributes(self.attributes)  # type: ignore[attr-defined]
        printer.print_string(f" : {self.src.type} -> {self.dst.type}")

    @classmethod
    def parse(cls, parser: Parser):
        shape = parse_tile_shape(parser)
        src = parse_region_operand(parser)
        parser.parse_punctuation("->")
        dst = parse_region_operand(parser)
        attrs = parser.parse_optional_attr_dict()
        src_type, dst_type = parse_signature(parser, 1)
        op = cls(
            *resolve_region_operand(parser, src, src_type),
            *resolve_region_operand(parser, dst, dst_type),
            shape,
        )
        op.attributes |= attrs  # type: ignore[attr-defined]
        return op


class ValueDstForm:
    """``op<shape> %value -> %dst[offs] [modifiers] : t -> T``: fill a region from a
    scalar.  ``print_modifiers``/``parse_modifiers`` (constructor keyword arguments)
    add op-specific words after the region, as for ``RegionsSyntax``."""

    value = operand_def()
    dst = operand_def(MemRefType)
    dst_offsets = var_operand_def(IndexType)

    REGION_OPERANDS: ClassVar = (("dst", "dst_offsets", "dst"),)

    def __init__(
        self,
        value: Operand,
        dst: Operand,
        dst_offsets: Sequence[Operand],
        shape: Sequence[int],
        properties: dict[str, Attribute] | None = None,
    ):
        super().__init__(  # type: ignore[call-arg]
            operands=[value, dst, dst_offsets],
            properties=shape_property(shape) | (properties or {}),
        )

    def verify_tile_op(self) -> None:
        element = self.element_type("dst")  # type: ignore[attr-defined]
        if self.value.type != element:
            raise VerifyException(
                f"value of type {self.value.type} does not match the element type {element}"
            )

    def print(self, printer: Printer) -> None:
        print_tile_shape(printer, self.tile_shape)  # type: ignore[attr-defined]
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(" -> ")
        print_region_operand(printer, self.dst, self.dst_offsets)
        self.print_modifiers(printer)
        printer.print_op_attributes(self.attributes)  # type: ignore[attr-defined]
        printer.print_string(f" : {self.value.type} -> {self.dst.type}")

    @classmethod
    def parse(cls, parser: Parser):
        shape = parse_tile_shape(parser)
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation("->")
        dst = parse_region_operand(parser)
        modifiers = cls.parse_modifiers(parser)
        attrs = parser.parse_optional_attr_dict()
        value_type, dst_type = parse_signature(parser, 1)
        op = cls(
            parser.resolve_operand(value, value_type),
            *resolve_region_operand(parser, dst, dst_type),
            shape,
            **modifiers,
        )
        op.attributes |= attrs  # type: ignore[attr-defined]
        return op

    def print_modifiers(self, printer: Printer) -> None:
        pass

    @classmethod
    def parse_modifiers(cls, parser: Parser) -> dict[str, Any]:
        return {}


class RegionsSyntax:
    """``op<shape> [keyword] %x[offs], %y[offs], ... -> %z[offs] [modifiers] : X, Y, ... -> Z``.

    ``ROLES`` names the region operands, the output last; ``print_keyword`` and
    ``parse_keyword`` add a word before the regions (``tile.cmp``'s predicate),
    ``print_modifiers`` and ``parse_modifiers`` words between the regions and the
    attribute dictionary; both parse to keyword arguments of the constructor."""

    ROLES: ClassVar[tuple[str, ...]]

    def print(self, printer: Printer) -> None:
        _print_regions(printer, self, self.ROLES)

    @classmethod
    def parse(cls, parser: Parser):
        shape, regions, words, attrs = _parse_regions(cls, parser, len(cls.ROLES))
        op = cls(*regions, shape, **words)
        op.attributes |= attrs  # type: ignore[attr-defined]
        return op

    def print_keyword(self, printer: Printer) -> None:
        pass

    @classmethod
    def parse_keyword(cls, parser: Parser) -> dict[str, Any]:
        return {}

    def print_modifiers(self, printer: Printer) -> None:
        pass

    @classmethod
    def parse_modifiers(cls, parser: Parser) -> dict[str, Any]:
        return {}


class BinaryForm(RegionsSyntax):
    """Two input regions and one output region of the same tile."""

    lhs = operand_def(MemRefType)
    lhs_offsets = var_operand_def(IndexType)
    rhs = operand_def(MemRefType)
    rhs_offsets = var_operand_def(IndexType)
    dst = operand_def(MemRefType)
    dst_offsets = var_operand_def(IndexType)

    ROLES: ClassVar = ("lhs", "rhs", "dst")
    REGION_OPERANDS: ClassVar = (
        ("lhs", "lhs_offsets", "lhs"),
        ("rhs", "rhs_offsets", "rhs"),
        ("dst", "dst_offsets", "dst"),
    )

    def __init__(
        self,
        lhs: Operand,
        lhs_offsets: Sequence[Operand],
        rhs: Operand,
        rhs_offsets: Sequence[Operand],
        dst: Operand,
        dst_offsets: Sequence[Operand],
        shape: Sequence[int],
        properties: dict[str, Attribute] | None = None,
    ):
        super().__init__(  # type: ignore[call-arg]
            operands=[lhs, lhs_offsets, rhs, rhs_offsets, dst, dst_offsets],
            properties=shape_property(shape) | (properties or {}),
        )


class SelectForm(RegionsSyntax):
    """``op<shape> %mask[offs], %on_true[offs], %on_false[offs] -> %dst[offs]``: three
    input regions and one output region of the same tile."""

    mask = operand_def(MemRefType)
    mask_offsets = var_operand_def(IndexType)
    on_true = operand_def(MemRefType)
    on_true_offsets = var_operand_def(IndexType)
    on_false = operand_def(MemRefType)
    on_false_offsets = var_operand_def(IndexType)
    dst = operand_def(MemRefType)
    dst_offsets = var_operand_def(IndexType)

    ROLES: ClassVar = ("mask", "on_true", "on_false", "dst")
    REGION_OPERANDS: ClassVar = tuple((role, f"{role}_offsets", role) for role in ROLES)

    def __init__(
        self,
        mask: Operand,
        mask_offsets: Sequence[Operand],
        on_true: Operand,
        on_true_offsets: Sequence[Operand],
        on_false: Operand,
        on_false_offsets: Sequence[Operand],
        dst: Operand,
        dst_offsets: Sequence[Operand],
        shape: Sequence[int],
    ):
        super().__init__(  # type: ignore[call-arg]
            operands=[
                mask, mask_offsets, on_true, on_true_offsets,
                on_false, on_false_offsets, dst, dst_offsets,
            ],
            properties=shape_property(shape),
        )


class MatmulForm(RegionsSyntax):
    """``C (+)= A * B`` on an ``MxNxK`` tile: regions ``a``, ``b`` and ``c``."""

    a = operand_def(MemRefType)
    a_offsets = var_operand_def(IndexType)
    b = operand_def(MemRefType)
    b_offsets = var_operand_def(IndexType)
    c = operand_def(MemRefType)
    c_offsets = var_operand_def(IndexType)

    ROLES: ClassVar = ("a", "b", "c")
    REGION_OPERANDS: ClassVar = (
        ("a", "a_offsets", "a"),
        ("b", "b_offsets", "b"),
        ("c", "c_offsets", "c"),
    )

    @property
    def mnk(self) -> tuple[int, int, int]:
        m, n, k = self.tile_shape  # type: ignore[attr-defined]
        return m, n, k

    def reads_and_writes(self, role: str) -> tuple[bool, bool]:
        return (True, role == "c")  # C is accumulated into

    def verify_matmul_shape(self) -> None:
        if len(self.tile_shape) != 3:  # type: ignore[attr-defined]
            kind = self.name.split(".")[-1]  # type: ignore[attr-defined]
            raise VerifyException(
                f"{kind} tile shape must be MxNxK, got {self._shape_str()}"  # type: ignore[attr-defined]
            )


def _print_regions(printer: Printer, op, roles: tuple[str, ...]) -> None:
    print_tile_shape(printer, op.tile_shape)
    op.print_keyword(printer)
    printer.print_string(" ")
    *inputs, out = roles
    for index, role in enumerate(inputs):
        if index:
            printer.print_string(", ")
        print_region_operand(printer, getattr(op, role), getattr(op, f"{role}_offsets"))
    printer.print_string(" -> ")
    print_region_operand(printer, getattr(op, out), getattr(op, f"{out}_offsets"))
    op.print_modifiers(printer)
    printer.print_op_attributes(op.attributes)
    input_types = ", ".join(str(getattr(op, role).type) for role in inputs)
    printer.print_string(f" : {input_types} -> {getattr(op, out).type}")


def _parse_regions(cls, parser: Parser, count: int):
    shape = parse_tile_shape(parser)
    words = cls.parse_keyword(parser)
    operands = [parse_region_operand(parser)]
    while len(operands) < count - 1:
        parser.parse_punctuation(",")
        operands.append(parse_region_operand(parser))
    parser.parse_punctuation("->")
    operands.append(parse_region_operand(parser))
    words |= cls.parse_modifiers(parser)
    attrs = parser.parse_optional_attr_dict()
    types = parse_signature(parser, count - 1)
    regions: list = []
    for operand, operand_type in zip(operands, types):
        regions.extend(resolve_region_operand(parser, operand, operand_type))
    return shape, regions, words, attrs
