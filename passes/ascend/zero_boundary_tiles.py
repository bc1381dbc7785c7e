"""``ascend-zero-boundary-tiles``: a UB tile loaded from a ragged GM region is zeroed
first, so that it holds what the tile level says it holds (docs/semantics.md,
boundary tiles: elements read past a global array are 0).

The GM -> UB copy of a boundary tile is AscendC's ``DataCopyPad``, which writes the
valid rows, each zero-padded only to its 32-byte block; the rest of the UB tile keeps
what the buffer held before (an earlier iteration's tile of the same slot).  Elements
there are not always dropped: an elementwise result stored to a longer array, or
anything reading across a row, sees them.  A ``tile.fill`` of the UB tile with 0
right before the copy makes every element past the array 0, as on the tile level.
It is inserted before sync insertion, so ``ascend-insert-sync`` orders the fill
(vector pipe) before the copy (MTE2) like any other pair of ops on one buffer.

GM -> L1 boundary tiles need nothing here: their ``InitConstValue`` zeroes the L1
tile on the copy's own pipe (the K tail of a matmul reads 0).  Stores (UB -> GM,
L0C -> GM) write only the valid part.  Static arrays the tiles divide keep the
copies of the fast path unchanged (:func:`may_reach_past`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    FloatAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    UnitAttr,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from tilepipe.dialects import tile
from tilepipe.dialects.ascend_pipes import ascend_space
from tilepipe.dialects.memory_space import MemorySpace
from tilepipe.dialects.tile import BufferAccess
from tilepipe.passes.analysis.divisibility import value_divisibility
from tilepipe.passes.ascend.resolve_core import is_ascend_kernel


def may_reach_past(access: BufferAccess) -> bool:
    """Whether a GM region may reach past its array (docs/ascend.md, boundary tiles):
    a dynamic size, or a static one the tile does not divide, or an offset the tile
    size does not divide.  Static arrays the tiles divide keep the unpredicated copies
    of the fast path: such a kernel's tiles are whole (its loops keep them inside)."""
    if not access.space.is_off_chip:
        return False
    assert isinstance(access.buffer.type, MemRefType)
    for d, (dim, size) in enumerate(zip(access.buffer.type.get_shape(), access.sizes)):
        offset = access.offsets[d] if access.offsets else None
        if dim < 0 or dim % size or (offset is not None and value_divisibility(offset) % size):
            return True
    return False


def _zero(element: Attribute) -> arith.ConstantOp:
    if isinstance(element, IntegerType):
        return arith.ConstantOp(IntegerAttr(0, element))
    return arith.ConstantOp(FloatAttr(0.0, element))  # type: ignore[arg-type]


_ZEROED_ATTR = "ascend.zeroed_boundary_tile"


class ZeroBoundaryTile(RewritePattern):
    """``copy`` -> ``fill 0; copy`` for a GM -> UB copy that may reach past its array.

    The fill is unconditional.  A fill guarded by "this tile is ragged" would spare
    interior tiles the vector op, but its sync cannot be balanced: the WAR ring from
    the tile's last reader to the next fill of its slot would be set every iteration
    and ordered after its wait only in the iterations that take the branch (a second
    set before the wait, a pipe-simulator deadlock; fuzz seeds 300032, 300113,
    300191).  Unconditional, the fill -> copy edge closes that ring and implies the
    fill -> next-copy ring, and the fill is issued on the vector pipe before the
    compute of older stages, so the copy does not wait behind it."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tile.CopyOp, rewriter: PatternRewriter) -> None:
        if ascend_space(op.dst.type) != MemorySpace.UB:
            return
        fill = op.prev_op
        if isinstance(fill, tile.FillOp) and _ZEROED_ATTR in fill.attributes:
            return  # already zeroed (the pass is idempotent)
        source = next(a for a in op.buffer_accesses() if a.buffer == op.src)
        if not may_reach_past(source):
            return
        assert isinstance(op.dst.type, MemRefType)
        zero = _zero(op.dst.type.element_type)
        fill = tile.FillOp(zero.result, op.dst, op.dst_offsets, op.tile_shape)
        fill.attributes[_ZEROED_ATTR] = UnitAttr()
        rewriter.insert([zero, fill], InsertPoint.before(op))


@dataclass(frozen=True)
class AscendZeroBoundaryTiles(ModulePass):
    """Zero each UB tile before a GM -> UB copy of a boundary tile fills it."""

    name = "ascend-zero-boundary-tiles"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [f for f in op.walk() if isinstance(f, FuncOp)]:
            if is_ascend_kernel(kernel):
                PatternRewriteWalker(ZeroBoundaryTile(), apply_recursively=False).rewrite_region(
                    kernel.body
                )
