"""Hexadecimal elements of dense float attributes are bit patterns (MLIR's reading),
not integers converted to floats: upstream prints ``-inf`` and NaNs that way."""

from __future__ import annotations

import math

import pytest
from mlir import ir

from tilepipe.core.source import parse_source
from tilepipe.lowering.nvvm.upstream import generic_text


def constant_values(text: str) -> list[float]:
    module = parse_source(text, "hex.mlir")
    op = next(op for op in module.walk() if op.name == "arith.constant")
    return [float(v) for v in op.value.get_values()]


@pytest.mark.parametrize(
    "literal,element,expected",
    [
        ("0xFF800000", "f32", [-math.inf] * 4),
        ("0x7F800000", "f32", [math.inf] * 4),
        ("0xFC00", "f16", [-math.inf] * 4),
        ("0x3C00", "f16", [1.0] * 4),
        ("0xFF80", "bf16", [-math.inf] * 4),
        ("0x3F80", "bf16", [1.0] * 4),
        ("0xFFF0000000000000", "f64", [-math.inf] * 4),
        ("[0xFF800000, 2.0, 0x3F800000, -3.0]", "f32", [-math.inf, 2.0, 1.0, -3.0]),
    ],
)
def test_hex_elements_are_bits(literal, element, expected):
    text = (
        "func.func @f() -> vector<4x{e}> {{\n"
        "  %0 = arith.constant dense<{lit}> : vector<4x{e}>\n"
        "  func.return %0 : vector<4x{e}>\n}}\n"
    ).format(lit=literal, e=element)
    assert constant_values(text) == expected
    # and upstream reads tilepipe's print of it as it reads the original
    context = ir.Context()
    ours = ir.Module.parse(generic_text(parse_source(text, "hex.mlir")), context=context)
    assert str(ours) == str(ir.Module.parse(text, context=context))


def test_nan_and_integers_unchanged():
    nan = constant_values(
        "func.func @f() -> vector<2xf32> {\n"
        "  %0 = arith.constant dense<0x7FC00000> : vector<2xf32>\n"
        "  func.return %0 : vector<2xf32>\n}\n"
    )
    assert all(math.isnan(v) for v in nan)
    integers = constant_values(
        "func.func @f() -> vector<2xi32> {\n"
        "  %0 = arith.constant dense<0x10> : vector<2xi32>\n"
        "  func.return %0 : vector<2xi32>\n}\n"
    )
    assert integers == [16.0, 16.0]
