"""Integer conversions of the NVVM model: ``arith.sitofp``, ``arith.fptosi``,
``arith.extsi``, ``arith.extui``, ``arith.trunci`` and ``arith.cmpf`` (registers its
handlers).

``fptosi`` is LLVM's: a value that does not fit the integer type (or NaN) gives
poison.  The model refuses it (``NvvmExecutionError``) in any active lane, so a
lowering that feeds one -- instead of clamping first, as ``tile.cast``'s saturating
semantics need -- fails its tests rather than agreeing by accident.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import VectorType

from tilepipe.semantics.nvvm.execution import NvvmExecutionError, handles, numpy_dtype


def _result_dtype(op) -> np.dtype:
    result_type = op.results[0].type
    if isinstance(result_type, VectorType):
        result_type = result_type.element_type
    return numpy_dtype(result_type)


@handles("arith.sitofp")
def _sitofp(ex, op, mask):
    # Through float64: exact for up to 53 bits, then one rounding to the result
    # (an i64 beyond 2^53 would round twice; the lowering casts i64 to f64 directly).
    source = ex[op.operands[0]]
    return [source.astype(_result_dtype(op))]


@handles("arith.fptosi")
def _fptosi(ex, op, mask):
    source = ex[op.operands[0]].astype(np.float64)
    dtype = _result_dtype(op)
    info = np.iinfo(dtype)
    active = mask.reshape(mask.shape + (1,) * (source.ndim - 1))
    truncated = np.trunc(np.where(active, source, 0.0))
    if np.isnan(truncated).any() or (truncated < info.min).any() or (truncated > info.max).any():
        raise NvvmExecutionError(op, "fptosi of a value outside the integer's range (poison)")
    return [truncated.astype(dtype)]


@handles("arith.extsi", "arith.trunci")
def _integer_width(ex, op, mask):
    # Two's complement: sign extension, or the low bits (numpy's wrap-around).
    return [ex[op.operands[0]].astype(_result_dtype(op))]


@handles("arith.extui")
def _zero_extend(ex, op, mask):
    # The source's bits as unsigned, widened (i1 is a numpy bool already).
    source = np.asarray(ex[op.operands[0]])
    if source.dtype != np.bool_:
        source = source.view(np.dtype(f"u{source.dtype.itemsize}"))
    return [source.astype(_result_dtype(op))]


_CMPF = {
    "oeq": np.equal, "ogt": np.greater, "oge": np.greater_equal, "olt": np.less,
    "ole": np.less_equal, "one": lambda a, b: np.less(a, b) | np.greater(a, b),
    "une": np.not_equal,  # true when either is NaN
    "uno": lambda a, b: np.isnan(a) | np.isnan(b),
    "ord": lambda a, b: ~(np.isnan(a) | np.isnan(b)),
}
_CMPF_PREDICATES = [
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
    "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true",
]


@handles("arith.cmpf")
def _cmpf(ex, op, mask):
    predicate = _CMPF_PREDICATES[op.properties["predicate"].value.data]
    if predicate not in _CMPF:
        raise NvvmExecutionError(op, f"cmpf {predicate} is not modelled")
    return [_CMPF[predicate](ex[op.operands[0]], ex[op.operands[1]])]
