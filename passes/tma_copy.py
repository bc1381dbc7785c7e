"""``tma-copy``: bulk (TMA) copies with mbarrier completion in pipelined loops (sm_90).

Runs on the planned pipelined level -- after ``pipeline-planning``, before
``inject-software-pipeline`` -- on kernels whose target has the bulk tensor copy engine
(sm_90).  As TileLang's ``InjectSoftwarePipeline`` does for TMA copies without warp
specialization (§4.3), every stage's global -> shared copies become:

* ``pipeline.bulk_copy ... , %bars[g]`` -- issued by one thread, completing its bytes on
  mbarrier ``g`` of the loop's barrier array;
* one ``pipeline.mbarrier_arrive_expect_tx %bars[g], bytes = B`` (B = the group's bytes)
  after the group's copies, in the copies' stage;
* one ``pipeline.mbarrier_wait_parity %bars[g], %c0`` right before the first statement
  that reads the copied data, in that statement's stage: every thread waits for the
  phase, so the data is visible to all of them without a block barrier.

The barrier array is allocated and initialized before the loop (one arrival each),
followed by a block barrier that makes the initialization visible to every thread.
``inject-software-pipeline`` then expands the array per stage with ring slots and
parities (§3.2), and ``thread-sync`` adds the one barrier per iteration the WAR on a
reused slot needs (the readers must be done before thread 0 issues the next copy).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, memref
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, StringAttr, i64
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tilepipe.dialects.memory_space import MemorySpace, memory_space
from tilepipe.dialects.pipeline import ForOp, set_stage_order
from tilepipe.dialects.pipeline_sync import (
    BarrierOp,
    BulkCopyOp,
    MBarrierArriveExpectTxOp,
    MBarrierInitOp,
    MBarrierWaitParityOp,
)
from tilepipe.dialects.tile import CopyOp
from tilepipe.targets import CudaTarget, target_of

from .access_analysis import LoopAccessAnalysis
from .pipeline_schedule import read_schedule

TMA_ALIGNMENT = 16  # bytes: the innermost box extent must be a multiple of 16 B
TMA_MAX_BOX = 256  # elements per box dimension


def is_tma_copy(op: Operation) -> bool:
    if not isinstance(op, CopyOp):
        return False
    src, dst = op.src.type, op.dst.type
    assert isinstance(src, MemRefType) and isinstance(dst, MemRefType)
    if memory_space(src) is not MemorySpace.GLOBAL or memory_space(dst) is not MemorySpace.SHARED:
        return False
    element_bytes = dst.element_type.bitwidth // 8  # type: ignore[attr-defined]
    return (
        op.tile_shape[-1] * element_bytes % TMA_ALIGNMENT == 0
        and all(extent <= TMA_MAX_BOX for extent in op.tile_shape)
    )


def tile_bytes(op: CopyOp) -> int:
    dst = op.dst.type
    assert isinstance(dst, MemRefType)
    count = 1
    for extent in op.tile_shape:
        count *= extent
    return count * (dst.element_type.bitwidth // 8)  # type: ignore[attr-defined]


def convert_loop(loop: ForOp) -> int:
    """Rewrite one planned loop; returns the number of copies converted."""
    schedule = read_schedule(loop)
    if schedule is None:
        return 0
    emission = schedule.emission_order()
    copies = [op for op in emission if is_tma_copy(op)]
    if not copies:
        return 0
    stages = sorted({schedule.stage(op) for op in copies})
    group_of = {op: stages.index(schedule.stage(op)) for op in copies}
    analysis = LoopAccessAnalysis(loop)
    stage_of = {op: schedule.stage(op) for op in emission}

    # The barrier array, initialized before the loop and published by a barrier.
    builder = Rewriter()
    bars_type = MemRefType(i64, [len(stages)], memory_space=StringAttr("shared"))
    bars = memref.AllocOp([], [], bars_type)
    bars.memref.name_hint = "tma_bars"
    setup: list[Operation] = [bars]
    slots = []
    for g in range(len(stages)):
        slot = arith.ConstantOp(IntegerAttr(g, IndexType()))
        slots.append(slot)
        setup += [slot, MBarrierInitOp(bars.memref, slot.result, arrivals=1)]
    setup.append(BarrierOp())
    builder.insert_op(setup, InsertPoint.before(loop))
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    builder.insert_op(zero, InsertPoint.before(loop))

    new_emission: list[Operation] = []
    waited: set[int] = set()
    for op in emission:
        groups_read = {
            group_of[copy]
            for copy in copies
            if copy is not op
            and analysis.program_order_precedes(copy, op)
            and any(
                w.writes and r.reads and analysis.may_intersect(w, r, 0)
                for w in analysis.accesses(copy)
                for r in analysis.accesses(op)
            )
        }
        for g in sorted(groups_read - waited):
            wait = MBarrierWaitParityOp(bars.memref, slots[g].result, zero.result)
            builder.insert_op(wait, InsertPoint.before(op))
            stage_of[wait] = stage_of[op]
            new_emission.append(wait)
            waited.add(g)
        if op in group_of:
            bulk = BulkCopyOp(
                op.src, op.src_offsets, op.dst, op.dst_offsets,
                bars.memref, slots[group_of[op]].result, op.tile_shape,
            )
            bulk.location = op.location
            builder.replace_op(op, bulk)
            stage_of[bulk] = stage_of.pop(op)
            new_emission.append(bulk)
            group = group_of[op]
            if op is [c for c in copies if group_of[c] == group][-1]:
                total = sum(tile_bytes(c) for c in copies if group_of[c] == group)
                arrive = MBarrierArriveExpectTxOp(bars.memref, slots[group].result, bytes=total)
                builder.insert_op(arrive, InsertPoint.after(bulk))
                stage_of[arrive] = stage_of[bulk]
                new_emission.append(arrive)
        else:
            new_emission.append(op)
    for order, op in enumerate(new_emission):
        set_stage_order(op, stage_of[op], order)
    for name in ("stage", "order"):
        if getattr(loop, name) is not None:
            del loop.properties[name]
    return len(copies)


@dataclass(frozen=True)
class TmaCopyPass(ModulePass):
    """Turn pipelined global->shared copies into TMA bulk copies with mbarrier phases (sm_90)."""

    name = "tma-copy"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for function in op.walk():
            if not isinstance(function, func.FuncOp) or function.body.first_block is None:
                continue
            target = target_of(function)
            if not isinstance(target, CudaTarget) or not target.has_bulk_tensor_copy:
                continue
            for loop in [o for o in function.body.walk() if isinstance(o, ForOp)]:
                convert_loop(loop)
