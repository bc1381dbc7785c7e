"""Small emission helpers for the NVVM lowering: index arithmetic, loops, accesses.

Every helper creates ops at the current ``ImplicitBuilder`` insertion point (the
lowering patterns open one on their rewriter), so a lowering reads like the code it
produces.  Alignment facts (``passes.analysis.divisibility``) decide where 16-byte vector
accesses and ``cp.async`` chunks are legal.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from xdsl.builder import Builder, ImplicitBuilder
from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    VectorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from tilepipe.dialects.llvm_upstream import FULL_UNROLL, LOOP_ANNOTATION
from tilepipe.dialects.tile import constant_index
from tilepipe.dialects.vector_upstream import AlignedVectorLoadOp, AlignedVectorStoreOp


class ConstantPool:
    """Integer constants created once each, at a point that dominates all their uses:
    the entry of the kernel being lowered (one pool per ``gpu.func``, so the
    lowerings of all its tile ops share them), or just before an op outside one."""

    def __init__(self, anchor: Operation | None, block: Block | None):
        self.anchor = anchor
        self.block = block
        self.constants: dict[tuple[int, Attribute], SSAValue] = {}

    @staticmethod
    def for_op(op: Operation) -> ConstantPool:
        kernel = op.parent_op()
        while kernel is not None and kernel.name != "gpu.func":
            kernel = kernel.parent_op()
        if kernel is None:
            return ConstantPool(op.prev_op, op.parent_block())
        pool = _KERNEL_POOLS.get(kernel)
        if pool is None:
            pool = _KERNEL_POOLS[kernel] = ConstantPool(None, kernel.regions[0].block)
        return pool

    def get(self, value: int, value_type: Attribute) -> SSAValue:
        key = (value, value_type)
        cached = self.constants.get(key)
        # The rewrite walkers erase a constant whose users all went away; make anew.
        if cached is None or cached.owner.parent is None:
            assert self.block is not None
            point = (
                InsertPoint.after(self.anchor)
                if self.anchor is not None
                else InsertPoint.at_start(self.block)
            )
            with ImplicitBuilder(Builder(point)):
                self.constants[key] = arith.ConstantOp(IntegerAttr(value, value_type)).result
        return self.constants[key]


_POOL: ContextVar[ConstantPool | None] = ContextVar("nvvm_constant_pool", default=None)
_KERNEL_POOLS: weakref.WeakKeyDictionary[Operation, ConstantPool] = weakref.WeakKeyDictionary()


def _constant(value: int, value_type: Attribute) -> SSAValue:
    pool = _POOL.get()
    if pool is None:
        return arith.ConstantOp(IntegerAttr(value, value_type)).result
    return pool.get(value, value_type)


def const(value: int) -> SSAValue:
    return _constant(value, IndexType())


def const_i32(value: int) -> SSAValue:
    return _constant(value, i32)


def _index_constant(value: SSAValue) -> int | None:
    return constant_index(value) if isinstance(value.type, IndexType) else None


def add(a: SSAValue, b: SSAValue | int) -> SSAValue:
    """``a + b``, folded as ``OpBuilder::createOrFold`` would: constants combine,
    ``x + 0`` is ``x`` and ``(x + c1) + c2`` is ``x + (c1 + c2)``."""
    if isinstance(b, int):
        b = const(b) if b else None
        if b is None:
            return a
    a_value, b_value = _index_constant(a), _index_constant(b)
    if a_value is not None and b_value is not None:
        return const(a_value + b_value)
    if a_value is not None:
        a, b, a_value, b_value = b, a, b_value, a_value
    if b_value == 0:
        return a
    owner = a.owner
    if b_value is not None and isinstance(owner, arith.AddiOp):
        inner = _index_constant(owner.rhs)
        if inner is not None:
            return add(owner.lhs, inner + b_value)
    return arith.AddiOp(a, b).result


def mul(a: SSAValue, b: int) -> SSAValue:
    if b == 1:
        return a
    a_value = _index_constant(a)
    if a_value is not None:
        return const(a_value * b)
    return arith.MuliOp(a, const(b)).result


def div(a: SSAValue, b: int) -> SSAValue:
    """Unsigned division of a non-negative index by a positive constant."""
    if b == 1:
        return a
    a_value = _index_constant(a)
    if a_value is not None and a_value >= 0:
        return const(a_value // b)
    return arith.DivUIOp(a, const(b)).result


def rem(a: SSAValue, b: int) -> SSAValue:
    a_value = _index_constant(a)
    if a_value is not None and a_value >= 0:
        return const(a_value % b)
    return arith.RemUIOp(a, const(b)).result


def delinearize(linear: SSAValue, shape: Sequence[int]) -> list[SSAValue]:
    """Row-major coordinates of element ``linear`` of a tile of ``shape``."""
    coords: list[SSAValue] = []
    stride = math.prod(shape)
    for extent in shape:
        stride //= extent
        coordinate = div(linear, stride)
        coords.append(rem(coordinate, extent) if coords else coordinate)
    return coords


def for_range(
    count: int,
    body: Callable[[SSAValue], None],
    start: int = 0,
    step: int = 1,
    unroll: bool = False,
) -> None:
    """``scf.for %i = start to count step step`` around ``body(%i)``; with ``unroll``
    marked for LLVM to unroll completely (one copy of the body in the IR, every
    iteration's addresses constant offsets in the machine code)."""
    block = Block(arg_types=[IndexType()])
    loop = scf.ForOp(const(start), const(count), const(step), [], Region(block))
    if unroll:
        loop.attributes[LOOP_ANNOTATION] = FULL_UNROLL
    with ImplicitBuilder(block):
        body(block.args[0])
        scf.YieldOp()


def for_range_carrying(
    count: int,
    init: SSAValue,
    body: Callable[[SSAValue, SSAValue], SSAValue],
) -> SSAValue:
    """``scf.for`` with one loop-carried value: ``acc = body(i, acc)``."""
    block = Block(arg_types=[IndexType(), init.type])
    loop = scf.ForOp(const(0), const(count), const(1), [init], Region(block))
    with ImplicitBuilder(block):
        scf.YieldOp(body(block.args[0], block.args[1]))
    return loop.results[0]


def for_range_carrying_all(
    start: int,
    count: int,
    inits: Sequence[SSAValue],
    body: Callable[[SSAValue, list[SSAValue]], Sequence[SSAValue]],
) -> list[SSAValue]:
    """``scf.for %i = start to count`` with several loop-carried values:
    ``accs = body(i, accs)``."""
    block = Block(arg_types=[IndexType(), *(init.type for init in inits)])
    loop = scf.ForOp(const(start), const(count), const(1), list(inits), Region(block))
    with ImplicitBuilder(block):
        scf.YieldOp(*body(block.args[0], list(block.args[1:])))
    return list(loop.results)


def if_then(condition: SSAValue, body: Callable[[], None]) -> None:
    block = Block()
    scf.IfOp(condition, [], Region(block))
    with ImplicitBuilder(block):
        body()
        scf.YieldOp()


def less_than(a: SSAValue, bound: int) -> SSAValue:
    return arith.CmpiOp(a, const(bound), "ult").result


# ---------------------------------------------------------------- aligned accesses


# Every buffer base is 16-byte aligned (cudaMalloc: 256, the shared arena's layout
# and the register fragments' allocas: 16), so a vector access at an element index
# that is a multiple of its width is aligned to its size, up to 16 bytes.
BASE_ALIGNMENT = 16


def _alignment(vector_type: VectorType) -> IntegerAttr:
    width = vector_type.get_shape()[0]
    size = width * vector_type.element_type.bitwidth // 8
    return IntegerAttr(min(size, BASE_ALIGNMENT), i64)


def vector_load(buffer: SSAValue, indices: Sequence[SSAValue], width: int) -> SSAValue:
    assert isinstance(buffer.type, MemRefType)
    result_type = VectorType(buffer.type.element_type, [width])
    return AlignedVectorLoadOp.build(
        operands=[buffer, indices],
        properties={"alignment": _alignment(result_type)},
        result_types=[result_type],
    ).result


def vector_store(value: SSAValue, buffer: SSAValue, indices: Sequence[SSAValue]) -> None:
    assert isinstance(value.type, VectorType)
    AlignedVectorStoreOp.build(
        operands=[value, buffer, indices],
        properties={"alignment": _alignment(value.type)},
    )


# Vectors change shape through ``vector.shuffle``, ``vector.extract`` and
# ``vector.insert`` only: upstream's vector-to-LLVM conversion patterns lower these
# directly at any rank.  ``vector.shape_cast`` and ``vector.extract_strided_slice``
# of a 2-D vector need the pre-lowerings that only the ``convert-vector-to-llvm``
# pass applies; under upstream's ``gpu-lower-to-nvvm-pipeline`` (vector ops lowered
# inside ``convert-gpu-to-nvvm``) they would stay behind an unrealized cast.


def rows(value: SSAValue, first: int, count: int) -> SSAValue:
    """Rows ``first .. first + count`` of ``value``'s leading dimension (elements,
    for a 1-D vector): a ``vector.shuffle`` of ``value`` with itself."""
    source = value.type
    assert isinstance(source, VectorType)
    shape = source.get_shape()
    assert 0 <= first and first + count <= shape[0]
    result_type = VectorType(source.element_type, [count, *shape[1:]])
    mask = DenseArrayBase.from_list(i64, list(range(first, first + count)))
    return vector.ShuffleOp(value, value, mask, result_type=result_type).result


def concatenate(first: SSAValue, second: SSAValue) -> SSAValue:
    """``first`` then ``second`` along the leading dimension (a ``vector.shuffle``)."""
    first_type, second_type = first.type, second.type
    assert isinstance(first_type, VectorType) and isinstance(second_type, VectorType)
    length = first_type.get_shape()[0] + second_type.get_shape()[0]
    result_type = VectorType(first_type.element_type, [length, *first_type.get_shape()[1:]])
    mask = DenseArrayBase.from_list(i64, list(range(length)))
    return vector.ShuffleOp(first, second, mask, result_type=result_type).result


def float_zeros(vector_type: VectorType) -> SSAValue:
    """A float vector of zeros (a ``vector.broadcast`` of ``0.0``, which upstream
    lowers directly at any rank), as the base that :func:`split_rows` fills."""
    zero = arith.ConstantOp(FloatAttr(0.0, vector_type.element_type)).result
    return vector.BroadcastOp(zero, vector_type).vector


def split_rows(value: SSAValue, into: SSAValue) -> SSAValue:
    """The 1-D ``value`` as the 2-D vector of ``into``'s type: each row of
    ``value``'s elements shuffled out and inserted over ``into``'s."""
    source, result_type = value.type, into.type
    assert isinstance(source, VectorType) and len(source.get_shape()) == 1
    assert isinstance(result_type, VectorType) and len(result_type.get_shape()) == 2
    count, width = result_type.get_shape()
    assert source.get_shape()[0] == count * width
    result = into
    for row in range(count):
        result = vector.InsertOp(rows(value, row * width, width), result, [row]).result
    return result


def join_rows(value: SSAValue) -> SSAValue:
    """The rows of the 2-D ``value`` one after another, as a 1-D vector."""
    source = value.type
    assert isinstance(source, VectorType) and len(source.get_shape()) == 2
    count, width = source.get_shape()
    row_type = VectorType(source.element_type, [width])
    result = vector.ExtractOp(value, [0], row_type).result
    for row in range(1, count):
        result = concatenate(result, vector.ExtractOp(value, [row], row_type).result)
    return result


def broadcast(value: SSAValue, width: int) -> SSAValue:
    """``width`` copies of a scalar as a vector (the scalar itself for one)."""
    if width == 1:
        return value
    return vector.BroadcastOp(value, VectorType(value.type, [width])).vector


def element_pointer(
    buffer: SSAValue, indices: Sequence[SSAValue], address_space: int
) -> SSAValue:
    """``!llvm.ptr<address_space>`` to ``buffer[indices]`` of a row-major memref.

    A dynamic dimension's size (``?``) is read from the memref's descriptor: the
    strides of the dimensions before it depend on it.  (A generic global address is
    its global address on NVIDIA GPUs, so the pointer of a kernel argument may be used
    as ``!llvm.ptr<1>``.)"""
    from xdsl.dialects import llvm
    from xdsl.dialects.builtin import IntAttr

    buffer_type = buffer.type
    assert isinstance(buffer_type, MemRefType)
    shape = buffer_type.get_shape()
    linear = const(0)
    # The stride in elements: a constant until a dynamic size joins it, then
    # (a product of descriptor sizes) x (the constant part).
    static_stride, dynamic_stride = 1, None
    for dim in reversed(range(len(indices))):
        term = mul(indices[dim], static_stride)
        if dynamic_stride is not None:
            term = arith.MuliOp(term, dynamic_stride).result
        linear = add(linear, term)
        if shape[dim] == DYNAMIC_INDEX:
            size = memref.DimOp(buffer, const(dim)).result
            if dynamic_stride is not None:
                size = arith.MuliOp(dynamic_stride, size).result
            dynamic_stride = size
        else:
            static_stride *= shape[dim]
    element_bytes = max(1, buffer_type.element_type.bitwidth // 8)
    base = memref.ExtractAlignedPointerAsIndexOp.get(buffer).aligned_pointer
    address = arith.IndexCastOp(add(base, mul(linear, element_bytes)), i64).result
    return llvm.IntToPtrOp.build(
        operands=[address], result_types=[llvm.LLVMPointerType(IntAttr(address_space))]
    ).results[0]


def load(buffer: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
    return memref.LoadOp.get(buffer, indices).res


def store(value: SSAValue, buffer: SSAValue, indices: Sequence[SSAValue]) -> None:
    memref.StoreOp.get(value, buffer, indices)


@contextmanager
def located_before(op: Operation):
    """Give the ops emitted before ``op`` inside this context ``op``'s location, so
    diagnostics (and the NVVM interpreter's race reports) point at the source."""
    first_before = op.prev_op
    yield
    block = op.parent_block()
    assert block is not None
    current = op.prev_op
    while current is not None and current is not first_before:
        for inner in current.walk():
            inner.location = op.location
        current = current.prev_op


@contextmanager
def emitting(rewriter: PatternRewriter, op: Operation):
    """Emit (with ``ImplicitBuilder``) before ``op``, at ``op``'s location, sharing
    integer constants."""
    token = _POOL.set(ConstantPool.for_op(op))
    try:
        with located_before(op), ImplicitBuilder(rewriter):
            yield
    finally:
        _POOL.reset(token)
