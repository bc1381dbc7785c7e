"""``ascend-zero-boundary-tiles``: a UB tile loaded from a ragged GM region holds
what the tile level says it holds (docs/semantics.md, boundary tiles: elements read
past a global array are 0).

The GM -> UB copy of a boundary tile is AscendC's ``DataCopyPad``, which writes the
valid rows, each zero-padded only to its 32-byte block; the rest of the UB tile keeps
what the buffer held before (an earlier iteration's tile of the same slot).  Elements
there are not always dropped: an elementwise result stored to a longer array, or
anything reading across a row, sees them.  So each such copy is followed by an
``ascend.zero_tail`` of its tile (a vector-pipe ``Duplicate`` of what the copy left
unwritten), placed right before the next op that touches the tile -- its first
reader, as a rule.  It is inserted before sync insertion: ``ascend-insert-sync``
orders it after the copy by the MTE2 -> V wait its reader needs anyway (the vector
pipe keeps its own order), and the next copy into its slot waits for it by the
V -> MTE2 flag that already waits for the reader.  A kernel whose ragged tiles are
read on the vector pipe keeps the flags of its static form (docs/ascend.md).

GM -> L1 boundary tiles need nothing here: their ``InitConstValue`` zeroes the L1
tile on the copy's own pipe (the K tail of a matmul reads 0).  Stores (UB -> GM,
L0C -> GM) write only the valid part.  Static arrays the tiles divide keep the
copies of the fast path unchanged (:func:`may_reach_past`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint
from xdsl.traits import IsTerminator
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from tilepipe.dialects import ascend, tile
from tilepipe.dialects.ascend_pipes import ascend_space
from tilepipe.dialects.memory_space import MemorySpace
from tilepipe.dialects.tile import BufferAccess, TileOp
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


def _touches(op: Operation, buffer: SSAValue) -> bool:
    """Does ``op`` (or an op nested in it) use ``buffer``?"""
    return any(buffer in nested.operands for nested in op.walk())


def _first_toucher(copy: tile.CopyOp) -> Operation | None:
    """The first op after ``copy`` in its block that touches the copied tile's buffer
    (None: none does; the tail is then zeroed at the end of the block)."""
    op = copy.next_op
    while op is not None and not _touches(op, copy.dst):
        op = op.next_op
    return op


def _is_read(buffer: SSAValue) -> bool:
    """Does any op read ``buffer`` (an op that is not a tile op counts as reading)?"""
    for use in buffer.uses:
        user = use.operation
        if not isinstance(user, TileOp):
            return True
        if any(a.buffer == buffer and a.reads for a in user.buffer_accesses()):
            return True
    return False


def _zeroes_tail_of(op: Operation | None, copy: tile.CopyOp) -> bool:
    return (
        isinstance(op, ascend.ZeroTailOp)
        and (op.src, op.dst) == (copy.src, copy.dst)
        and tuple(op.src_offsets) == tuple(copy.src_offsets)
        and tuple(op.dst_offsets) == tuple(copy.dst_offsets)
        and op.tile_shape == copy.tile_shape
    )


class ZeroBoundaryTile(RewritePattern):
    """``copy; ...; reader`` -> ``copy; ...; zero_tail; reader`` for a GM -> UB copy
    that may reach past its array.

    The zeroing is unconditional (an interior tile has no tail and its AscendC skips
    the ``Duplicate`` calls): a zeroing guarded by "this tile is ragged" would leave
    ``ascend-insert-sync`` a flag ring set every iteration but ordered after its wait
    only in the iterations that take the branch (fuzz seeds 300032, 300113, 300191).
    It goes after the copy, not before it: zeroed first, the tile needed a V -> MTE2
    flag of its own before every ragged copy."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tile.CopyOp, rewriter: PatternRewriter) -> None:
        if ascend_space(op.dst.type) != MemorySpace.UB:
            return
        source = next(a for a in op.buffer_accesses() if a.buffer == op.src)
        if not may_reach_past(source) or not _is_read(op.dst):
            return  # a whole tile, or one nothing reads: no tail to zero
        toucher = _first_toucher(op)
        if _zeroes_tail_of(toucher, op):
            return  # already zeroed (the pass is idempotent)
        zero_tail = ascend.ZeroTailOp(
            op.src, op.src_offsets, op.dst, op.dst_offsets, op.tile_shape
        )
        block = op.parent_block()
        assert block is not None
        if toucher is not None:
            # Before the tails already zeroed for this reader (later copies' tails
            # first): the vector pipe starts on the tile whose copy lands last, so one
            # MTE2 -> V wait covers every copy the reader needs, as in the static kernel.
            while isinstance(toucher.prev_op, ascend.ZeroTailOp):
                toucher = toucher.prev_op
            where = InsertPoint.before(toucher)
        elif block.last_op is not None and block.last_op.has_trait(IsTerminator):
            where = InsertPoint.before(block.last_op)
        else:
            where = InsertPoint.at_end(block)
        rewriter.insert(zero_tail, where)


@dataclass(frozen=True)
class AscendZeroBoundaryTiles(ModulePass):
    """Zero what a GM -> UB copy of a boundary tile leaves unwritten in its tile."""

    name = "ascend-zero-boundary-tiles"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [f for f in op.walk() if isinstance(f, FuncOp)]:
            if is_ascend_kernel(kernel):
                PatternRewriteWalker(ZeroBoundaryTile(), apply_recursively=False).rewrite_region(
                    kernel.body
                )
