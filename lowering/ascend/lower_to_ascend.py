"""``lower-to-ascend``: a tile-level Ascend kernel -> the ``ascend`` emission dialect.

* ``tile.copy`` -> ``ascend.data_copy`` (GM <-> L1/UB), ``ascend.load_data``
  (L1 -> L0A/L0B) or ``ascend.fixpipe`` (L0C -> GM/L1), by the memories it connects;
  a copy whose GM region may reach past the array is marked ``ascend.boundary``
  (:func:`may_reach_past`): it moves only the in-bounds part (docs/ascend.md);
* ``tile.gemm`` -> ``ascend.mmad``;
* ``tile.add/sub/mul/max/div/exp/log/sqrt/rsqrt/iota/cmp/select`` on UB -> the vector
  ops (``tile.log`` -> ``ascend.ln``), ``tile.fill`` of UB -> ``ascend.duplicate``;
  ``tile.copy`` UB -> UB -> ``ascend.data_copy`` on V;
* ``tile.cast`` on UB -> ``ascend.cast`` (the pairs ``VECTOR_CAST_MODES`` converts
  exactly; others are a located error); a cast out of L0C (f32 -> f16/bf16/f32 into
  GM/L1) -> the converting ``ascend.fixpipe``; a cast to the same type -> a copy;
* ``tile.reduce`` on UB -> ``ascend.reduce`` (its plan adds in the tile level's order;
  a tile it cannot reduce exactly is a located error); ``tile.broadcast`` on UB ->
  ``ascend.broadcast``;
* ``tile.fill`` of L0C with zero: L0C has no vector path, so the fill folds into the
  ``init`` flag of the mmads that accumulate into it: ``init = (k == lb)`` for an mmad
  in a loop right after the fill, ``true`` for one in the same block;
* ``pipeline.for`` -> ``scf.for`` (the pipes overlap the iterations; no prologue or
  epilogue is needed on Ascend);
* common subexpressions are merged (the epoch slot is computed once per iteration).

Sync ops inserted by ``ascend-insert-sync`` pass through unchanged; the ``ascend.pipe``
and ``ascend.core`` annotations are dropped (every ascend op knows its pipe).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    UnitAttr,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.traits import IsTerminator, is_side_effect_free
from xdsl.utils.exceptions import VerifyException
from xdsl.transforms.common_subexpression_elimination import cse
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from tilepipe.core.diagnostics import op_error
from tilepipe.dialects import ascend, pipeline, tile
from tilepipe.dialects.ascend import BOUNDARY_ATTR
from tilepipe.dialects.ascend_sync import IdOperandOp, PipeBarrierOp
from tilepipe.dialects.ascend_pipes import COPY_PIPES, Pipe, ascend_space
from tilepipe.dialects.memory_space import MemorySpace
from tilepipe.passes.ascend.resolve_core import CORE_ATTR, PIPE_ATTR, is_ascend_kernel
from tilepipe.passes.ascend.zero_boundary_tiles import may_reach_past

_COPY_OPS = {
    Pipe.MTE2: ascend.DataCopyOp,
    Pipe.MTE3: ascend.DataCopyOp,
    Pipe.V: ascend.DataCopyOp,  # UB -> UB
    Pipe.MTE1: ascend.LoadDataOp,
    Pipe.FIX: ascend.FixpipeOp,
}
_VECTOR_OPS = {
    tile.AddOp: ascend.AddOp,
    tile.SubOp: ascend.SubOp,
    tile.MulOp: ascend.MulOp,
    tile.MaxOp: ascend.MaxOp,
    tile.DivOp: ascend.DivOp,
    tile.ExpOp: ascend.ExpOp,
    tile.LogOp: ascend.LnOp,
    tile.SqrtOp: ascend.SqrtOp,
    tile.RsqrtOp: ascend.RsqrtOp,
    tile.IotaOp: ascend.IotaOp,
    tile.CmpOp: ascend.CmpOp,
    tile.SelectOp: ascend.SelectOp,
}


def _carry_attributes(old: Operation, new: Operation) -> Operation:
    new.attributes |= {
        k: v for k, v in old.attributes.items() if k not in (PIPE_ATTR, CORE_ATTR)
    }
    return new


def _is_zero(value: SSAValue) -> bool:
    owner = value.owner
    return isinstance(owner, arith.ConstantOp) and isinstance(
        owner.value, FloatAttr | IntegerAttr
    ) and owner.value.value.data == 0


def lower_gemm(gemm: tile.GemmOp, init: SSAValue | None) -> ascend.MmadOp:
    if gemm.transpose_a or gemm.transpose_b:
        raise op_error(gemm, "transposed operands have no ascend lowering yet")
    mmad = ascend.MmadOp(
        gemm.a, gemm.a_offsets, gemm.b, gemm.b_offsets, gemm.c, gemm.c_offsets,
        gemm.tile_shape, init,
    )
    return _carry_attributes(gemm, mmad)


def _touches_no_buffer(op: Operation) -> bool:
    """May ``op`` stand between an L0C fill and its mmads?  Pure scalar ops (constants,
    index math such as a dynamic loop bound) -- which take no stage/order slot of a
    pipelined loop either -- and the sync ops inserted around the loop."""
    if op.has_trait(IsTerminator):
        return False
    return is_side_effect_free(op) or isinstance(op, IdOperandOp | PipeBarrierOp)


def fold_accumulator_fills(kernel: FuncOp) -> None:
    """Erase the zero fills of L0C; the gemms accumulating there become mmads with
    the init flag (lowered here, so the flag is used as soon as it exists)."""
    inits: dict[tile.GemmOp, SSAValue] = {}
    for fill in [o for o in kernel.walk() if isinstance(o, tile.FillOp)]:
        if ascend_space(fill.dst.type) != MemorySpace.L0C:
            continue
        if not _is_zero(fill.value):
            raise op_error(fill, "L0C can only be zero-initialized (mmad's init flag)")
        next_op = fill.next_op
        while next_op is not None and _touches_no_buffer(next_op):
            next_op = next_op.next_op
        gemms = [u.operation for u in fill.dst.uses if isinstance(u.operation, tile.GemmOp)]
        if isinstance(next_op, pipeline.ForOp):
            first = [g for g in gemms if g.parent_op() is next_op]
            if not first:
                raise op_error(fill, "expected the accumulation loop to use this L0C buffer")
            cmp = arith.CmpiOp(next_op.induction_var, next_op.lb, "eq")
            next_op.body.block.insert_op_before(cmp, next_op.body.block.first_op)
            cmp.result.name_hint = "init"
            for gemm in first:
                inits[gemm] = cmp.result
        elif isinstance(next_op, tile.GemmOp) and next_op in gemms:
            true = arith.ConstantOp(IntegerAttr(1, IntegerType(1)))
            fill.parent_block().insert_op_before(true, next_op)
            inits[next_op] = true.result
        else:
            raise op_error(fill, "a fill of L0C must directly precede the mmads it initializes")
        fill.detach()
        fill.erase()
    for gemm, init in inits.items():
        Rewriter.replace_op(gemm, lower_gemm(gemm, init))


def _is_move(op: Operation) -> bool:
    """A ``tile.cast`` the fixpipe does on its way out of L0C (f32 -> f16/bf16/f32
    into GM or L1), or one to the element's own type (a copy)."""
    if not isinstance(op, tile.CastOp):
        return False
    return (
        ascend_space(op.src.type) == MemorySpace.L0C
        or op.element_type("src") == op.element_type("dst")
    )


def lower_move(op: tile.CopyOp | tile.CastOp) -> ascend.AscendTileOp:
    """``tile.copy`` (or a converting move) -> the move op of its memories' pipe."""
    spaces = (ascend_space(op.src.type), ascend_space(op.dst.type))
    pipe = COPY_PIPES.get(spaces)
    if pipe is None:
        raise op_error(op, f"no Ascend pipe moves {spaces[0].value} -> {spaces[1].value}")
    copy = _COPY_OPS[pipe]
    if spaces == (MemorySpace.GM, MemorySpace.L1):
        copy = ascend.DataCopyNd2NzOp  # the cube reads L1 in the NZ layout
    new = copy(op.src, op.src_offsets, op.dst, op.dst_offsets, op.tile_shape)
    if any(may_reach_past(access) for access in op.buffer_accesses()):
        new.attributes[BOUNDARY_ATTR] = UnitAttr()
    return new


def lower_checked(op: tile.TileOp, target: type[ascend.AscendTileOp]) -> ascend.AscendTileOp:
    """``op`` as the ascend op ``target`` of the same operands and properties, whose
    own checks (the vector unit's limits) become a diagnostic at ``op``."""
    new = target.create(
        operands=list(op.operands), properties=dict(op.properties), location=op.location
    )
    try:
        new.verify_tile_op()
    except VerifyException as problem:
        new.erase()
        raise op_error(op, f"has no exact Ascend form: {problem}") from None
    return new


class LowerTileOps(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, tile.CopyOp) or _is_move(op):
            new = lower_move(op)
        elif isinstance(op, tile.CastOp):
            new = lower_checked(op, ascend.CastOp)
        elif isinstance(op, tile.ReduceOp):
            new = lower_checked(op, ascend.ReduceOp)
        elif isinstance(op, tile.BroadcastOp):
            new = lower_checked(op, ascend.BroadcastOp)
        elif isinstance(op, tile.GemmOp):
            new = lower_gemm(op, None)
        elif type(op) in _VECTOR_OPS:
            # The same operands and properties (shape, segments, predicate, dim).
            new = _VECTOR_OPS[type(op)].create(
                operands=list(op.operands), properties=dict(op.properties), location=op.location
            )
        elif isinstance(op, tile.FillOp):
            new = ascend.DuplicateOp(op.value, op.dst, op.dst_offsets, op.tile_shape)
        elif isinstance(op, tile.TileOp) and not isinstance(op, ascend.AscendTileOp):
            raise op_error(op, "has no ascend lowering")
        else:
            return
        rewriter.replace(op, _carry_attributes(op, new))


class LowerPipelineFor(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: pipeline.ForOp, rewriter: PatternRewriter) -> None:
        body = op.detach_region(op.body)
        terminator = body.block.last_op
        assert isinstance(terminator, pipeline.YieldOp)
        rewriter.replace(terminator, scf.YieldOp())
        loop = scf.ForOp(op.lb, op.ub, op.step, [], body)
        loop.location = op.location  # the user's loop, for what reports on it
        rewriter.replace(op, loop)


@dataclass(frozen=True)
class LowerToAscend(ModulePass):
    """Lower tile ops and pipelined loops of Ascend kernels to the ascend dialect."""

    name = "lower-to-ascend"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [f for f in op.walk() if isinstance(f, FuncOp)]:
            if not is_ascend_kernel(kernel):
                continue
            fold_accumulator_fills(kernel)
            PatternRewriteWalker(
                GreedyRewritePatternApplier([LowerTileOps(), LowerPipelineFor()]),
                apply_recursively=False,
            ).rewrite_region(kernel.body)
            # Ops that were emission ops already (``ascend.zero_tail``) drop the
            # annotations too.
            for tile_op in kernel.walk():
                if isinstance(tile_op, ascend.AscendTileOp):
                    tile_op.attributes.pop(PIPE_ATTR, None)
                    tile_op.attributes.pop(CORE_ATTR, None)
            # Sync insertion and slot materialization each computed the epoch slot;
            # the emitted kernel computes it once.
            cse(kernel)
