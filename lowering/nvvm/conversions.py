"""Element type conversions of ``tile.cast`` (and of the reductions' f32 accumulators),
on scalars or, element by element, vectors.

* float -> float: ``extf``, or ``truncf`` rounding to nearest even; f16 <-> bf16 through
  f32 (no arith op converts between two formats of one width; the f32 step is exact).
* integer -> float: ``sitofp`` (the integers are signed, as at the tile level) to f32,
  then as float -> float, so that a bf16 result is rounded as the tile level rounds it
  (to f32, then to bf16); to f64 directly (exact for every i32).
* float -> integer: toward zero, saturating -- below the integer's range the minimum,
  above it (and +inf) the maximum, NaN 0 (the tile semantics; PTX's ``cvt.rzi``
  saturates alike).  LLVM's ``fptosi`` is poison outside the range, so the value is
  clamped into it first and the two ends and NaN are selected around it.  Computed in
  f32 (f64 for i64, whose range f32 rounds), where the range's ends are exact.
* integer -> integer: ``extsi`` (sign extension) or ``trunci`` (the low bits).

Conversions with an integer side are scalar (:func:`vectorizable`).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, IntegerType, VectorType, f32, f64
from xdsl.ir import Attribute, SSAValue

from tilepipe.lowering.nvvm.combine import is_float, scalar_type


def _typed(value: SSAValue, element_type: Attribute) -> Attribute:
    """``element_type``, as a vector of ``value``'s shape when ``value`` is one."""
    if isinstance(value.type, VectorType):
        return VectorType(element_type, value.type.get_shape())
    return element_type


def vectorizable(source: Attribute, to: Attribute) -> bool:
    """Can the conversion take a vector?  Not with an integer side: xDSL's ``sitofp``,
    ``fptosi``, ``extsi``, ``trunci`` and ``select`` take scalars only (the lowering
    then converts element by element; PTX converts one register at a time anyway)."""
    return is_float(source) and is_float(to)


def convert(value: SSAValue, to: Attribute) -> SSAValue:
    source = scalar_type(value.type)
    if source == to:
        return value
    if is_float(source) and is_float(to):
        return _float_to_float(value, source, to)
    assert vectorizable(source, to) or not isinstance(value.type, VectorType)
    if is_float(to):  # integer -> float
        wide = f64 if to == f64 else f32
        return convert(arith.SIToFPOp(value, _typed(value, wide)).result, to)
    if is_float(source):
        return _float_to_integer(value, source, to)
    if to.bitwidth > source.bitwidth:
        return arith.ExtSIOp(value, _typed(value, to)).result
    return arith.TruncIOp(value, _typed(value, to)).result


def _float_to_float(value: SSAValue, source: Attribute, to: Attribute) -> SSAValue:
    if to.bitwidth == source.bitwidth:  # f16 <-> bf16
        return convert(convert(value, f32), to)
    if to.bitwidth > source.bitwidth:
        return arith.ExtFOp(value, _typed(value, to)).result
    return arith.TruncFOp(value, _typed(value, to)).result


def _float_to_integer(value: SSAValue, source: Attribute, to: Attribute) -> SSAValue:
    assert isinstance(to, IntegerType)
    wide = f64 if to.bitwidth > 32 else f32
    x = convert(value, wide) if source != wide else value
    bits = to.bitwidth
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1

    def float_constant(number: float) -> SSAValue:
        return arith.ConstantOp(FloatAttr(number, wide)).result

    def int_constant(number: int) -> SSAValue:
        return arith.ConstantOp(IntegerAttr(number, to)).result

    # 2^(bits-1) and -2^(bits-1) are exact in f32 (f64); every value in between
    # truncates into the range.
    too_big = arith.CmpfOp(x, float_constant(2.0 ** (bits - 1)), "oge").result
    is_nan = arith.CmpfOp(x, x, "uno").result
    inside = arith.MaximumfOp(x, float_constant(float(low))).result
    inside = arith.SelectOp(too_big, float_constant(0.0), inside).result
    inside = arith.SelectOp(is_nan, float_constant(0.0), inside).result
    result = arith.FPToSIOp(inside, _typed(x, to)).result
    result = arith.SelectOp(too_big, int_constant(high), result).result
    return result
