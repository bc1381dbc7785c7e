"""Scalar and vector arithmetic shared by the elementwise and the reduction lowerings:
the binary op of a tile op class and the identity of a reduction."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, FloatAttr, IntegerAttr, IntegerType, VectorType
from xdsl.ir import Attribute, SSAValue

from tilepipe.dialects.tile import AddOp, DivOp, MaxOp, MulOp, ReduceKind, SubOp


def is_float(element_type: Attribute) -> bool:
    return isinstance(element_type, AnyFloat)


def scalar_type(value_type: Attribute) -> Attribute:
    return value_type.element_type if isinstance(value_type, VectorType) else value_type


def combine(kind: type, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    """``lhs (op) rhs`` for a binary tile op class, on floats or integers (scalars or
    vectors of them)."""
    floating = is_float(scalar_type(lhs.type))
    ops = {
        AddOp: (arith.AddfOp, arith.AddiOp),
        SubOp: (arith.SubfOp, arith.SubiOp),
        MulOp: (arith.MulfOp, arith.MuliOp),
        MaxOp: (arith.MaximumfOp, arith.MaxSIOp),
        DivOp: (arith.DivfOp, arith.DivSIOp),
    }[kind]
    return (ops[0] if floating else ops[1])(lhs, rhs).result


def reduction_identity(kind: ReduceKind, element_type: Attribute) -> SSAValue:
    if isinstance(element_type, IntegerType):  # max is signed (arith.maxsi)
        width = element_type.width.data
        value = 0 if kind is ReduceKind.SUM else -(1 << (width - 1))
        return arith.ConstantOp(IntegerAttr(value, element_type)).result
    value = 0.0 if kind is ReduceKind.SUM else float("-inf")
    return arith.ConstantOp(FloatAttr(value, element_type)).result
