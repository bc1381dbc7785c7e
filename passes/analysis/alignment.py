"""Provable alignment of tile accesses: how many consecutive elements of a tile row
may be moved as one aligned vector (or one ``cp.async`` chunk).

A vector of ``w`` elements at tile coordinates ``(..., r, c)`` is aligned when the
element's linear index is a multiple of ``w`` for every row ``r`` and every chunk
start ``c`` (a multiple of ``w``): the innermost offset must be a multiple of ``w``,
and so must every stride but the innermost one -- for a row-major array, the size of
its last dimension.  A static size proves what it divides; a dynamic size proves
only what a divisibility fact states (``dim_multiple``); everything else proves 1,
and the callers fall back to narrower accesses, down to single elements -- never to
an error.  Buffer bases count as 16-byte aligned (cudaMalloc gives 256 bytes, the
shared arena 16), so an element index that is a multiple of ``w`` is aligned to the
vector's size up to 16 bytes.

``async-copy`` and ``tma-copy`` choose their copy widths with these functions, and
``lower-to-nvvm`` its vector accesses, so the passes never promise a width the
lowering cannot prove.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, NoneAttr, StridedLayoutAttr
from xdsl.ir import SSAValue

from tilepipe.dialects.tile import constant_index

_UNKNOWN_ZERO = 1 << 30  # what 0 "is a multiple of" (any width we ask about)


def known_multiple(value: SSAValue, depth: int = 8) -> int:
    """The largest power-of-two-times-constant factor provably dividing ``value``.

    Constants, products and sums of index values are analysed; anything else
    (function arguments, loop variables, thread ids) divides only by 1.
    """
    const_value = constant_index(value)
    if const_value is not None:
        return abs(const_value) if const_value else _UNKNOWN_ZERO
    owner = value.owner
    if depth == 0:
        return 1
    if isinstance(owner, arith.MuliOp):
        return known_multiple(owner.lhs, depth - 1) * known_multiple(owner.rhs, depth - 1)
    if isinstance(owner, arith.AddiOp | arith.SubiOp):
        return math.gcd(
            known_multiple(owner.lhs, depth - 1), known_multiple(owner.rhs, depth - 1)
        )
    return 1


def dim_multiple(buffer: SSAValue, dim: int) -> int:
    """A number that provably divides dimension ``dim`` of ``buffer``'s type: the
    size itself when static, else what the user's divisibility facts state.

    Divisibility facts are the ``dyn`` work item of issue #16 (the form is theirs to
    fix); until they land a dynamic size proves nothing, which is always safe."""
    buffer_type = buffer.type
    assert isinstance(buffer_type, MemRefType)
    size = buffer_type.get_shape()[dim]
    if size == DYNAMIC_INDEX:
        return 1
    return size if size else _UNKNOWN_ZERO


def row_stride_multiple(buffer: SSAValue) -> int:
    """A number that provably divides every stride of ``buffer`` but the innermost
    (what moving to the next row of a tile adds to the element index), and the
    layout's offset of element 0 from the (aligned) base."""
    buffer_type = buffer.type
    assert isinstance(buffer_type, MemRefType)
    rank = len(buffer_type.get_shape())
    layout = buffer_type.layout
    if not isinstance(layout, NoneAttr):
        if not isinstance(layout, StridedLayoutAttr):
            return 1
        strides, offset = layout.get_strides(), layout.get_offset()
        if offset is None or strides[-1] != 1 or any(s is None for s in strides):
            return 1
        return math.gcd(offset, *(s for s in strides[:-1] if s is not None)) or _UNKNOWN_ZERO
    if rank <= 1:
        return _UNKNOWN_ZERO
    # Row-major: every outer stride is a multiple of the last dimension's size.
    return dim_multiple(buffer, rank - 1)


def provable_vector_width(
    buffer: SSAValue,
    offsets: Sequence[SSAValue],
    row_length: int,
    widest: int,
) -> int:
    """The widest power of two ``w <= widest`` dividing ``row_length`` such that
    every run of ``w`` elements starting at a multiple of ``w`` of a tile row of
    ``buffer`` at ``offsets`` is ``w``-element aligned (1 when nothing wider is)."""
    multiple = row_stride_multiple(buffer)
    if offsets:
        multiple = math.gcd(multiple, known_multiple(offsets[-1]))
    width = widest
    while width > 1 and (row_length % width or multiple % width):
        width //= 2
    return width
