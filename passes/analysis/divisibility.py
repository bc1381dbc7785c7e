"""Provable divisibility and alignment of sizes, strides and offsets.

A vector access (a 16-byte ``cp.async``, an ``ld.v4``) is only correct when the
address and the number of elements left in a row are multiples of its width; with
dynamic shapes that has to be *proved*.  The facts come from static shapes, the
user's ``tile.divisibility`` argument attributes (docs/semantics.md) and index
arithmetic.  Every function returns a ``k`` such that the quantity is a multiple of
``k`` for every run the types and facts admit; ``1`` means nothing is known, ``0``
that the quantity is provably 0 (every ``k`` divides it).  ``k % width == 0`` is
therefore the test a width choice makes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType, NoneAttr, StridedLayoutAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import BlockArgument, Operation, SSAValue

from tilepipe.dialects import pipeline
from tilepipe.dialects.gpu_upstream import KernelFuncOp
from tilepipe.dialects.tile_base import element_bytes
from tilepipe.dialects.tile_launch import argument_divisibility

# Base pointers of kernel arguments and on-chip buffers are taken as 16-byte aligned:
# the CUDA allocator gives 256 bytes, merge-shared-memory packs at 16 or more.
BASE_ALIGNMENT_BYTES = 16


def value_divisibility(value: SSAValue, _depth: int = 0) -> int:
    """The largest ``k`` proved to divide the index/integer ``value`` (0: it is 0)."""
    if _depth > 64:  # deep expressions: give up rather than recurse without bound
        return 1
    if isinstance(value, BlockArgument):
        return _block_argument_divisibility(value, _depth)
    owner = value.owner
    assert isinstance(owner, Operation)

    def of(operand: SSAValue) -> int:
        return value_divisibility(operand, _depth + 1)

    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return abs(owner.value.value.data)
    if isinstance(owner, arith.AddiOp | arith.SubiOp):
        return math.gcd(of(owner.lhs), of(owner.rhs))
    if isinstance(owner, arith.MuliOp):
        return of(owner.lhs) * of(owner.rhs)
    if isinstance(owner, arith.ShLIOp):
        shift = _constant(owner.rhs)
        return of(owner.lhs) << shift if shift is not None and 0 <= shift < 63 else 1
    if isinstance(owner, arith.SelectOp):  # either value
        return math.gcd(of(owner.operands[1]), of(owner.operands[2]))
    if isinstance(owner, arith.MaxUIOp | arith.MinUIOp | arith.MaxSIOp | arith.MinSIOp):
        return math.gcd(of(owner.lhs), of(owner.rhs))
    if isinstance(owner, arith.IndexCastOp | arith.ExtSIOp | arith.ExtUIOp):
        return of(owner.input)
    if isinstance(owner, memref.DimOp):
        dim = _constant(owner.index)
        return dim_divisibility(owner.source, dim) if dim is not None else 1
    return 1


def _constant(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _block_argument_divisibility(arg: BlockArgument, depth: int) -> int:
    parent = arg.block.parent_op()
    if isinstance(parent, FuncOp | KernelFuncOp):
        fact = argument_divisibility(parent, arg.index)
        return fact if isinstance(fact, int) else 1
    # A loop's induction variable is lb + i * step.
    if arg.index == 0 and isinstance(parent, scf.ForOp | pipeline.ForOp):
        return math.gcd(
            value_divisibility(parent.lb, depth + 1), value_divisibility(parent.step, depth + 1)
        )
    return 1


def dim_divisibility(buffer: SSAValue, dim: int) -> int:
    """The largest ``k`` proved to divide the size of dimension ``dim`` of ``buffer``."""
    assert isinstance(buffer.type, MemRefType)
    shape = buffer.type.get_shape()
    if not 0 <= dim < len(shape):
        return 1
    if shape[dim] >= 0:
        return shape[dim]
    if isinstance(buffer, BlockArgument) and isinstance(
        buffer.block.parent_op(), FuncOp | KernelFuncOp
    ):
        fact = argument_divisibility(buffer.block.parent_op(), buffer.index)
        if isinstance(fact, tuple) and dim < len(fact):
            return fact[dim]
    return 1


def stride_divisibility(buffer: SSAValue, dim: int) -> int:
    """The largest ``k`` proved to divide the stride (in elements) of dimension
    ``dim``: a static stride of the layout, else the product of the later sizes of a
    row-major (identity layout) buffer."""
    type_ = buffer.type
    assert isinstance(type_, MemRefType)
    layout = type_.layout
    if isinstance(layout, StridedLayoutAttr):
        stride = layout.get_strides()[dim]
        return stride if isinstance(stride, int) else 1
    return math.prod(dim_divisibility(buffer, d) for d in range(dim + 1, len(type_.get_shape())))


def offset_divisibility(buffer: SSAValue, offsets: Sequence[SSAValue]) -> int:
    """The largest ``k`` proved to divide the element offset of the region starting at
    ``offsets`` (one per dimension; none: the origin) from the buffer's base."""
    type_ = buffer.type
    assert isinstance(type_, MemRefType)
    base = 0
    if isinstance(type_.layout, StridedLayoutAttr):
        layout_offset = type_.layout.get_offset()
        base = layout_offset if isinstance(layout_offset, int) else 1
    terms = [
        value_divisibility(offset) * stride_divisibility(buffer, d)
        for d, offset in enumerate(offsets)
    ]
    return math.gcd(base, *terms)


def alignment_bytes(buffer: SSAValue, offsets: Sequence[SSAValue]) -> int:
    """The byte alignment proved for the address of the region at ``offsets``: a
    divisor of :data:`BASE_ALIGNMENT_BYTES`."""
    type_ = buffer.type
    assert isinstance(type_, MemRefType)
    offset_bytes = offset_divisibility(buffer, offsets) * element_bytes(type_.element_type)
    return math.gcd(BASE_ALIGNMENT_BYTES, offset_bytes)


def row_divisibility(buffer: SSAValue, offsets: Sequence[SSAValue]) -> int:
    """The largest ``k`` proved to divide the element offset of every row start of a
    region of ``buffer`` at ``offsets``: the region's origin and every stride but the
    innermost, which must be 1 (a row is contiguous) for anything above 1."""
    type_ = buffer.type
    assert isinstance(type_, MemRefType)
    layout = type_.layout
    if isinstance(layout, StridedLayoutAttr):
        if layout.get_strides()[-1] != 1:
            return 1
    elif not isinstance(layout, NoneAttr):  # an affine map: strides not analysed
        return 1
    outer_strides = (stride_divisibility(buffer, d) for d in range(len(type_.get_shape()) - 1))
    return math.gcd(offset_divisibility(buffer, offsets), *outer_strides)


def provable_vector_width(
    buffer: SSAValue, offsets: Sequence[SSAValue], row_length: int, widest: int
) -> int:
    """The widest power of two ``w <= widest`` dividing ``row_length`` such that every
    run of ``w`` elements starting at a multiple of ``w`` of a tile row of ``buffer``
    at ``offsets`` is ``w``-element aligned (1 when nothing wider is).  The copy
    widths of ``async-copy`` and ``tma-copy`` and the vector accesses of
    ``lower-to-nvvm`` are all chosen here, so a pass never promises a width the
    lowering cannot prove; element alignment becomes byte alignment through the
    16-byte aligned bases (:data:`BASE_ALIGNMENT_BYTES`)."""
    multiple = row_divisibility(buffer, offsets)
    width = widest
    while width > 1 and (row_length % width or multiple % width):
        width //= 2
    return width
