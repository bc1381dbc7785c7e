"""Scalar and vector arithmetic shared by the elementwise and the reduction lowerings:
the binary op of a tile op class, comparisons, and the identity of a reduction."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, FloatAttr, IntegerAttr, IntegerType, VectorType
from xdsl.ir import Attribute, SSAValue

from tilepipe.dialects.tile import AddOp, ComparePredicate, DivOp, MaxOp, MulOp, ReduceKind, SubOp
from tilepipe.lowering.nvvm import emit


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


# Floats compare ordered (a NaN operand is false), but for ``ne``, which IEEE makes
# true on NaN (unordered); integers signed.
_CMPF = {
    ComparePredicate.EQ: "oeq", ComparePredicate.NE: "une", ComparePredicate.LT: "olt",
    ComparePredicate.LE: "ole", ComparePredicate.GT: "ogt", ComparePredicate.GE: "oge",
}
_CMPI = {
    ComparePredicate.EQ: "eq", ComparePredicate.NE: "ne", ComparePredicate.LT: "slt",
    ComparePredicate.LE: "sle", ComparePredicate.GT: "sgt", ComparePredicate.GE: "sge",
}


def compare(predicate: ComparePredicate, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    """``lhs PRED rhs`` as an i1, as ``tile.cmp`` defines it, on scalars (xDSL's
    ``arith.cmpf``/``cmpi`` and ``arith.select`` take no vectors of i1)."""
    if is_float(scalar_type(lhs.type)):
        return arith.CmpfOp(lhs, rhs, _CMPF[predicate]).result
    return arith.CmpiOp(lhs, rhs, _CMPI[predicate]).result


def splat(number: float, like: SSAValue) -> SSAValue:
    """``number`` in the element type of ``like``, as wide as ``like`` (a scalar or a
    vector of it)."""
    element_type = scalar_type(like.type)
    attr = (
        FloatAttr(float(number), element_type) if is_float(element_type)
        else IntegerAttr(int(number), element_type)
    )
    value = arith.ConstantOp(attr).result
    if isinstance(like.type, VectorType):
        return emit.broadcast(value, like.type.get_shape()[0])
    return value


def nonzero(value: SSAValue) -> SSAValue:
    """``value != 0`` as i1: a NaN is nonzero, ``+-0`` is zero."""
    return compare(ComparePredicate.NE, value, splat(0, value))


def reduction_identity(kind: ReduceKind, element_type: Attribute) -> SSAValue:
    if isinstance(element_type, IntegerType):  # max is signed (arith.maxsi)
        width = element_type.width.data
        value = 0 if kind is ReduceKind.SUM else -(1 << (width - 1))
        return arith.ConstantOp(IntegerAttr(value, element_type)).result
    value = 0.0 if kind is ReduceKind.SUM else float("-inf")
    return arith.ConstantOp(FloatAttr(value, element_type)).result
