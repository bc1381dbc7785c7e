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
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    UnitAttr,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
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
from tilepipe.dialects.pipeline import ForOp
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


_GUARD_ATTR = "ascend.zeroed_boundary_tile"


def _is_guarded_copy(copy: tile.CopyOp) -> bool:
    """The copy is already a branch of this pass's guard, or follows its fill (the
    pass is idempotent)."""
    guard = copy.parent_op()
    fill = copy.prev_op
    return (isinstance(guard, scf.IfOp) and _GUARD_ATTR in guard.attributes) or (
        isinstance(fill, tile.FillOp) and _GUARD_ATTR in fill.attributes
    )


def _reaches_past(copy: tile.CopyOp, source: BufferAccess) -> tuple[list[Operation], SSAValue]:
    """Ops computing whether the copy's GM region reaches past its array at run time
    (``offset + size > dim`` in some dimension the tile may overhang), and the i1."""
    assert isinstance(source.buffer.type, MemRefType)
    ops: list[Operation] = []
    conditions: list[SSAValue] = []
    for d, (dim, size) in enumerate(zip(source.buffer.type.get_shape(), source.sizes)):
        offset = source.offsets[d] if source.offsets else None
        if dim >= 0 and not dim % size and (offset is None or not value_divisibility(offset) % size):
            continue  # whole tiles in this dimension
        extent = arith.ConstantOp.from_int_and_width(size, IndexType())
        ops.append(extent)
        end: SSAValue = extent.result
        if offset is not None:
            ops.append(add := arith.AddiOp(offset, extent))
            end = add.result
        if dim >= 0:
            ops.append(bound := arith.ConstantOp.from_int_and_width(dim, IndexType()))
        else:
            ops.append(index := arith.ConstantOp.from_int_and_width(d, IndexType()))
            ops.append(bound := memref.DimOp(source.buffer, index))
        ops.append(past := arith.CmpiOp(end, bound.results[0], "sgt"))
        if conditions:
            ops.append(either := arith.OrIOp(conditions[-1], past.result))
            conditions.append(either.result)
        else:
            conditions.append(past.result)
    return ops, conditions[-1]


class ZeroBoundaryTile(RewritePattern):
    """``copy`` -> ``scf.if ragged { fill 0; copy } else { copy }``: only a tile that
    reaches past its array pays for the fill (and the vector -> MTE2 sync it needs,
    which stays inside the branch); interior tiles keep the load/compute overlap."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tile.CopyOp, rewriter: PatternRewriter) -> None:
        if ascend_space(op.dst.type) != MemorySpace.UB or _is_guarded_copy(op):
            return
        source = next(a for a in op.buffer_accesses() if a.buffer == op.src)
        if not may_reach_past(source):
            return
        assert isinstance(op.dst.type, MemRefType)
        zero = _zero(op.dst.type.element_type)
        fill = tile.FillOp(zero.result, op.dst, op.dst_offsets, op.tile_shape)
        if not isinstance(op.parent_op(), ForOp):
            # Outside a pipelined loop's own statements (the kernel's top level, a
            # guard or an inner loop of the body) a branch could not be synchronized
            # (ascend-insert-sync takes one level of scf.if in the loop); there is no
            # load/compute overlap to keep either: zero the tile unconditionally.
            fill.attributes[_GUARD_ATTR] = UnitAttr()
            rewriter.insert_op([zero, fill], InsertPoint.before(op))
            return
        checks, ragged = _reaches_past(op, source)
        padded = Block([zero, fill, op.clone(), scf.YieldOp()])
        whole = Block([op.clone(), scf.YieldOp()])
        guard = scf.IfOp(ragged, [], Region(padded), Region(whole))
        guard.attributes[_GUARD_ATTR] = UnitAttr()
        rewriter.replace(op, [*checks, guard], [])


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
