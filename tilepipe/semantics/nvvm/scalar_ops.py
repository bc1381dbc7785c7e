"""NVVM interpreter handlers of the value ops: constants, ``arith``/``math``
arithmetic, thread and block ids, casts and ``vector`` reshuffles -- each computes
per-thread results from per-thread operands and touches no memory."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import BFloat16Type, DenseArrayBase, FloatAttr, IntegerAttr, VectorType
from xdsl.ir import Attribute, Operation

from tilepipe.semantics import numerics
from tilepipe.semantics.memory import bf16_bits_to_f32, round_f32_to_bf16_bits
from tilepipe.semantics.nvvm.execution import BlockExecution, NvvmExecutionError, handles, numpy_dtype
from tilepipe.semantics.nvvm import wgmma_register_a
from tilepipe.semantics.nvvm.wgmma import check_retired


def as_result(values: np.ndarray, result_type: Attribute) -> np.ndarray:
    """``values`` as an op's result of ``result_type``: its numpy type, and a bf16
    result rounded to bf16 (registers hold bf16 as rounded f32; every bf16 operation
    rounds, as the f32 arithmetic the hardware does for it is rounded back)."""
    element_type = result_type.element_type if isinstance(result_type, VectorType) else result_type
    values = np.asarray(values).astype(numpy_dtype(element_type))
    if isinstance(element_type, BFloat16Type):
        return bf16_bits_to_f32(round_f32_to_bf16_bits(values)).reshape(values.shape)
    return values


def _splat(ex: BlockExecution, value, result_type: Attribute) -> np.ndarray:
    if isinstance(result_type, VectorType):
        shape = (ex.threads, *result_type.get_shape())
        return np.full(shape, value, numpy_dtype(result_type.element_type))
    return np.full(ex.threads, value, numpy_dtype(result_type))


@handles("arith.constant")
def _constant(ex, op, mask):
    attr = op.properties["value"]
    if isinstance(attr, FloatAttr | IntegerAttr):
        return [_splat(ex, attr.value.data, op.results[0].type)]
    raise NvvmExecutionError(op, f"unsupported constant {attr}")


_INT_BINARY = {
    "arith.addi": np.add, "arith.subi": np.subtract, "arith.muli": np.multiply,
    "arith.divui": np.floor_divide, "arith.divsi": lambda a, b: np.trunc(a / b).astype(a.dtype),
    "arith.remui": np.remainder, "arith.remsi": np.fmod, "arith.andi": np.bitwise_and,
    "arith.ori": np.bitwise_or, "arith.xori": np.bitwise_xor, "arith.maxsi": np.maximum,
    "arith.minsi": np.minimum, "arith.maxui": np.maximum, "arith.minui": np.minimum,
    # Index arithmetic the pipelining passes build for dynamic trip counts (upstream's
    # arith-to-llvm expands them); unsigned operands are non-negative index values.
    "arith.ceildivsi": lambda a, b: -np.floor_divide(-a, b),
    "arith.ceildivui": lambda a, b: -np.floor_divide(-a, b),
    "arith.floordivsi": np.floor_divide,
}
_DIVISIONS = frozenset(
    {"arith.divui", "arith.divsi", "arith.remui", "arith.remsi", "arith.ceildivsi",
     "arith.ceildivui", "arith.floordivsi"}
)
_FLOAT_BINARY = {
    "arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply,
    "arith.divf": np.divide, "arith.maximumf": np.maximum, "arith.minimumf": np.minimum,
}


@handles(*_INT_BINARY, *_FLOAT_BINARY)
def _binary(ex, op, mask):
    fn = _INT_BINARY.get(op.name) or _FLOAT_BINARY[op.name]
    lhs, rhs = ex[op.operands[0]], ex[op.operands[1]]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if op.name in _DIVISIONS:
            rhs = np.where(rhs == 0, 1, rhs)  # inactive lanes may divide by zero
        if op.name in _FLOAT_BINARY:
            return [as_result(fn(lhs, rhs), op.results[0].type)]
        return [fn(lhs, rhs).astype(lhs.dtype)]


_CMPI = [np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal,
         np.less, np.less_equal, np.greater, np.greater_equal]


@handles("arith.cmpi")
def _cmpi(ex, op, mask):
    return [_CMPI[op.properties["predicate"].value.data](ex[op.operands[0]], ex[op.operands[1]])]


@handles("arith.index_cast", "arith.extf", "arith.truncf")
def _cast(ex, op, mask):
    return [as_result(ex[op.operands[0]], op.results[0].type)]


@handles("math.exp", "math.log", "math.sqrt", "math.rsqrt")
def _math(ex, op, mask):
    # The tile level's definitions (numerics.unary), so that a lowered kernel is
    # compared with its source bit for bit.
    kind = op.name.removeprefix("math.")
    return [as_result(numerics.unary(kind, ex[op.operands[0]]), op.results[0].type)]


@handles("arith.select")
def _select(ex, op, mask):
    cond, a, b = (ex[v] for v in op.operands)
    return [np.where(cond, a, b)]


@handles("gpu.thread_id")
def _thread_id(ex, op, mask):
    dim = op.properties["dimension"].data.value
    return [np.arange(ex.threads, dtype=np.int64) if dim == "x" else np.zeros(ex.threads, np.int64)]


@handles("gpu.block_id")
def _block_id(ex, op, mask):
    return [np.full(ex.threads, ex.block["xyz".index(op.properties["dimension"].data.value)], np.int64)]


IDENTITY_ASM = ("mov.b32 $0, $1;", "=r,r")
"""The inline assembly the lowering emits: a 32-bit move (``lowering/nvvm/induction.py``)
and wgmma with A in registers (``wgmma_register_a``)."""


@handles("llvm.inline_asm")
def _inline_asm(ex, op, mask):
    if wgmma_register_a.is_register_a_wgmma(op):
        return wgmma_register_a.execute(ex, op, mask)
    text = (op.properties["asm_string"].data, op.properties["constraints"].data)
    if text != IDENTITY_ASM:
        raise NvvmExecutionError(op, f"runs PTX the interpreter does not model: {text[0]!r}")
    return [ex[op.operands[0]].copy()]


@handles("vector.shape_cast")
def _shape_cast(ex, op, mask):
    return [ex[op.operands[0]].reshape(ex.threads, *op.results[0].type.get_shape())]


@handles("vector.broadcast")
def _broadcast(ex, op, mask):
    shape = op.results[0].type.get_shape()
    source = ex[op.operands[0]]
    return [np.broadcast_to(source.reshape(ex.threads, *([1] * len(shape))), (ex.threads, *shape)).copy()]


def _position(op: Operation) -> tuple[int, ...]:
    attr = op.properties["static_position"]
    assert isinstance(attr, DenseArrayBase)
    return tuple(attr.get_values())


@handles("vector.insert")
def _insert(ex, op, mask):
    dest = ex[op.operands[1]].copy()
    dest[(slice(None), *_position(op))] = ex[op.operands[0]]
    return [dest]


@handles("vector.extract")
def _extract(ex, op, mask):
    return [ex[op.operands[0]][(slice(None), *_position(op))].copy()]


@handles("vector.shuffle")
def _shuffle(ex, op, mask):
    """Rows of both operands' leading dimensions, numbered across the two, picked by
    the mask (values held as ``(threads, *shape)``)."""
    picks = list(op.properties["mask"].get_values())
    if any(pick < 0 for pick in picks):
        raise NvvmExecutionError(op, "a poison (-1) shuffle mask entry is not modelled")
    both = np.concatenate([ex[op.operands[0]], ex[op.operands[1]]], axis=1)
    return [both[:, picks].copy()]


@handles("vector.extract_strided_slice")
def _extract_strided_slice(ex, op, mask):
    """Rows ``offsets[0] .. + sizes[0]`` of the leading dimension (unit strides)."""
    (offset,) = (a.value.data for a in op.properties["offsets"].data)
    (size,) = (a.value.data for a in op.properties["sizes"].data)
    return [ex[op.operands[0]][:, offset : offset + size].copy()]


@handles("llvm.extractvalue")
def _extractvalue(ex, op, mask):
    """Structs (the results of ``nvvm.mma.sync`` and ``nvvm.wgmma.mma_async``) are
    held as ``(threads, fields)``."""
    if not wgmma_register_a.feeds_wgmma_accumulator(op):
        check_retired(ex, op, op.operands[0])
    position = tuple(op.properties["position"].get_values())
    return [ex[op.operands[0]][(slice(None), *position)].copy()]


@handles("llvm.inttoptr")
def _inttoptr(ex, op, mask):
    return [ex[op.operands[0]].astype(np.int64)]
