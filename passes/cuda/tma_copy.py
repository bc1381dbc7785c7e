"""``tma-copy``: global -> shared copies of a planned pipelined loop become bulk (TMA)
copies completing on mbarrier phases that their first consumer waits for (sm_90),
grouped per first consumer; copies no wait can order stay ``tile.copy``.  See
docs/sync.md, "`tma-copy` (sm_90)"."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeGuard

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, memref
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, StringAttr, i64
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from tilepipe.dialects.memory_space import MemorySpace, memory_space
from tilepipe.dialects.pipeline import ForOp, set_stage_order
from tilepipe.dialects.pipeline_sync import (
    BarrierOp,
    BulkCopyOp,
    FenceProxyAsyncOp,
    MBarrierArriveExpectTxOp,
    MBarrierInitOp,
    MBarrierWaitParityOp,
)
from tilepipe.dialects.tile import CopyOp, GemmOp
from tilepipe.core.diagnostics import emit_remark, op_error
from tilepipe.core.targets import CudaTarget, UnknownTarget, target_of

from tilepipe.passes.analysis.loop_dependences import LoopAccessAnalysis
from tilepipe.passes.analysis.divisibility import provable_vector_width
from tilepipe.passes.pipelining.buffer_versions import compute_buffer_versions, versions_by_buffer
from tilepipe.passes.cuda.tensor_map import BOX_ALIGNMENT, shared_alloc, tensor_box
from tilepipe.passes.memory.arena_aliasing import underlying_buffer
from tilepipe.passes.memory.liveness import ALIGNMENT_ATTR, SWIZZLE_ATTR, is_loop_like
from tilepipe.passes.cuda.warpgroup_mma import (
    is_register_fragment,
    operand_swizzle,
    reads_through_async_proxy,
    wgmma_refused,
)
from tilepipe.passes.analysis.pipeline_schedule import LoopSchedule, read_schedule

TMA_ALIGNMENT = 16  # bytes: the innermost box extent must be a multiple of 16 B
TMA_MAX_BOX = 256  # elements per box dimension


def is_global_to_shared(op: Operation) -> TypeGuard[CopyOp]:
    if not isinstance(op, CopyOp):
        return False
    src, dst = op.src.type, op.dst.type
    assert isinstance(src, MemRefType) and isinstance(dst, MemRefType)
    return memory_space(src) is MemorySpace.GLOBAL and memory_space(dst) is MemorySpace.SHARED


def bulk_copy_refusal(op: CopyOp) -> str | None:
    """Why the bulk copy engine cannot move this global -> shared copy's box, or None:
    it needs rows that are provably 16-byte aligned multiples of 16 bytes on both
    sides (``divisibility.provable_vector_width``; a dynamic row length without a
    divisibility fact is left to ``async-copy``).  A box that may reach past the
    array is still a bulk copy: the lowering guards it (``lowering/nvvm/boundary.py``)."""
    element_bytes = op.dst.type.element_type.bitwidth // 8  # type: ignore[attr-defined]
    aligned = max(1, TMA_ALIGNMENT // element_bytes)
    row = op.tile_shape[-1]
    if row * element_bytes % TMA_ALIGNMENT:
        return f"its rows of {row * element_bytes} bytes are no multiple of {TMA_ALIGNMENT}"
    if any(extent > TMA_MAX_BOX for extent in op.tile_shape):
        return f"a tile extent exceeds {TMA_MAX_BOX} elements"
    if (
        provable_vector_width(op.src, op.src_offsets, row, aligned) != aligned
        or provable_vector_width(op.dst, op.dst_offsets, row, aligned) != aligned
    ):
        return (
            f"its rows are not provably {TMA_ALIGNMENT}-byte aligned "
            "(a tile.divisibility fact on a dynamic size would prove it)"
        )
    return None


def tile_bytes(op: CopyOp) -> int:
    dst = op.dst.type
    assert isinstance(dst, MemRefType)
    count = 1
    for extent in op.tile_shape:
        count *= extent
    return count * (dst.element_type.bitwidth // 8)  # type: ignore[attr-defined]


@dataclass
class BulkCopyGroup:
    """Bulk copies whose completion one wait observes: one mbarrier slot, one
    arrive_expect_tx after the last of them, one wait before their first consumer."""

    consumer: Operation  # the first statement (time order) touching their bytes
    copies: list[CopyOp]  # in time order


class BulkCopyPlanner:
    """Decides which copies of a planned loop become bulk copies, and their groups.

    All analysis happens here, before the loop is rewritten."""

    def __init__(self, schedule: LoopSchedule):
        self.schedule = schedule
        self.analysis = LoopAccessAnalysis(schedule.loop)
        # A conflict at a loop-carried distance only exists in the same version of a
        # multi-buffered buffer: every ``versions``-th iteration.
        self.period = versions_by_buffer(compute_buffer_versions(schedule, self.analysis))
        # The global -> shared copies that stay tile.copy, and why (groups()).
        self.refused: list[tuple[CopyOp, str]] = []

    def time(self, op: Operation) -> tuple[int, int]:
        """When ``op`` runs relative to the other statements of its iteration."""
        return self.schedule.stage(op), self.schedule.order(op)

    def _conflict(self, first: Operation, second: Operation, distance: int) -> bool:
        """Does ``second`` of iteration k + distance touch bytes ``first`` of iteration
        k touches, one of them writing (in the same buffer version)?"""
        for a in self.analysis.accesses(first):
            for b in self.analysis.accesses(second):
                period = 1 if a.is_opaque or b.is_opaque else self.period.get(a.buffer, 1)
                if (
                    a.conflicts_with(b)
                    and distance % period == 0
                    and self.analysis.may_intersect(a, b, distance)
                ):
                    return True
        return False

    def first_consumer(self, copy: CopyOp) -> Operation | None:
        consumers = [
            op
            for op in self.schedule.statements
            if op is not copy
            and self.analysis.program_order_precedes(copy, op)
            and self._conflict(copy, op, 0)
        ]
        return min(consumers, key=self.time, default=None)

    def waited_before_reuse(self, copy: CopyOp, consumer: Operation) -> bool:
        """Does the wait before ``consumer`` (iteration k) run before iteration
        k + depth arrives on the same ring slot again, and before any statement of a
        later iteration touches ``copy``'s bytes?"""
        wait = self.time(consumer)
        stage, order = self.time(copy)
        if wait > (self.schedule.depth + stage, order):
            return False
        for op in self.schedule.statements:
            stage, order = self.time(op)
            for distance in range(1, wait[0] - stage + 1):
                if wait > (distance + stage, order) and self._conflict(copy, op, distance):
                    return False
        return True

    def groups(self) -> list[BulkCopyGroup]:
        """The groups in time order of their consumers (so, deterministic); why each
        other global -> shared copy stays a ``tile.copy`` goes to ``self.refused``."""
        groups: list[BulkCopyGroup] = []
        self.refused = []
        copies = []
        for op in self.schedule.statements:
            if is_global_to_shared(op):
                if (reason := bulk_copy_refusal(op)) is None:
                    copies.append(op)
                else:
                    self.refused.append((op, reason))
        for copy in sorted(copies, key=self.time):
            consumer = self.first_consumer(copy)
            if consumer is None:
                self.refused.append((copy, "nothing of its own iteration reads it, so no "
                                     "mbarrier wait of the iteration can land it"))
                continue
            if not self.waited_before_reuse(copy, consumer):
                self.refused.append((copy, "a later iteration touches its bytes, or "
                                     "re-arms its mbarrier slot, before the wait that lands it"))
                continue
            group = next((g for g in groups if g.consumer is consumer), None)
            if group is None:
                groups.append(group := BulkCopyGroup(consumer, []))
            group.copies.append(copy)
        return sorted(groups, key=lambda g: self.time(g.consumer))


def as_tensor_copy(copy: CopyOp) -> bool:
    """Can ``copy`` be one tensor-map copy?  If so, ask its shared buffer for the
    alignment the box (and its swizzle) needs; if not, say why in a remark."""
    box = tensor_box(copy)
    alloc = shared_alloc(copy)
    if isinstance(box, str) or alloc is None:
        reason = box if isinstance(box, str) else "its shared tile is not an allocation"
        emit_remark(copy, f"bulk copy without a tensor map: {reason}; copied row by row")
        return False
    _ask_alignment(alloc, ALIGNMENT_ATTR, BOX_ALIGNMENT)
    if box.swizzle_candidate:
        _ask_alignment(alloc, SWIZZLE_ATTR, box.swizzle_candidate)
    return True


def _ask_alignment(alloc: memref.AllocOp, name: str, value: int) -> None:
    current = alloc.attributes.get(name)
    if isinstance(current, IntegerAttr) and current.value.data >= value:
        return
    alloc.attributes[name] = IntegerAttr(value, i64)


def convert_loop(loop: ForOp, rewriter: PatternRewriter, tensor_maps: bool = False) -> int:
    """Rewrite one planned loop; returns the number of copies converted.  With
    ``tensor_maps`` each copy that can be is one tensor-map copy."""
    schedule = read_schedule(loop)
    if schedule is None:
        return 0
    planner = BulkCopyPlanner(schedule)
    groups = planner.groups()
    if tensor_maps:  # the Hopper path is the default there: say what does not take it
        for copy, reason in planner.refused:
            emit_remark(copy, f"copy stays cp.async: {reason}")
    if not groups:
        return 0

    # The barrier array, initialized before the loop, fenced for the async proxy and
    # published by a barrier.
    bars_type = MemRefType(i64, [len(groups)], memory_space=StringAttr("shared"))
    bars = memref.AllocOp([], [], bars_type)
    bars.memref.name_hint = "tma_bars"
    setup: list[Operation] = [bars]
    slots = []
    for g in range(len(groups)):
        slot = arith.ConstantOp(IntegerAttr(g, IndexType()))
        slots.append(slot.result)
        setup += [slot, MBarrierInitOp(bars.memref, slot.result, arrivals=1)]
    setup += [FenceProxyAsyncOp(), BarrierOp()]
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    # The mbarrier setup is located at the loop it serves, each wait at its consumer
    # and each arrival at its copy: the lowered sync points at user code.
    for op in setup + [zero]:
        op.location = loop.location
    rewriter.insert(setup, InsertPoint.before(loop))
    rewriter.insert(zero, InsertPoint.before(loop))

    wait_before = {group.consumer: g for g, group in enumerate(groups)}
    arrive_after = {group.copies[-1]: g for g, group in enumerate(groups)}
    slot_of = {copy: g for g, group in enumerate(groups) for copy in group.copies}
    stage_of = {op: schedule.stage(op) for op in schedule.statements}
    new_emission: list[Operation] = []
    for op in schedule.emission_order():
        if (g := wait_before.get(op)) is not None:
            wait = MBarrierWaitParityOp(bars.memref, slots[g], zero.result)
            wait.location = op.location
            rewriter.insert(wait, InsertPoint.before(op))
            stage_of[wait] = stage_of[op]
            new_emission.append(wait)
        if (g := slot_of.get(op)) is None:
            new_emission.append(op)
            continue
        assert isinstance(op, CopyOp)
        bulk = BulkCopyOp(
            op.src,
            op.src_offsets,
            op.dst,
            op.dst_offsets,
            bars.memref,
            slots[g],
            op.tile_shape,
            tensor_map=tensor_maps and as_tensor_copy(op),
        )
        bulk.location = op.location
        rewriter.replace(op, bulk)
        stage_of[bulk] = stage_of[op]
        new_emission.append(bulk)
        if op in arrive_after:
            total = sum(tile_bytes(c) for c in groups[g].copies)
            arrive = MBarrierArriveExpectTxOp(bars.memref, slots[g], bytes=total)
            arrive.location = op.location
            rewriter.insert(arrive, InsertPoint.after(bulk))
            stage_of[arrive] = stage_of[op]
            new_emission.append(arrive)
    for order, op in enumerate(new_emission):
        set_stage_order(op, stage_of[op], order)
    for name in ("stage", "order"):
        if getattr(loop, name) is not None:
            del loop.properties[name]
    rewriter.notify_op_modified(loop)
    return sum(len(group.copies) for group in groups)


class ConvertPipelinedCopies(RewritePattern):
    """Bulk copies for the loops of kernels whose target has the bulk copy engine;
    tensor-map copies where the target has them too, unless ``tensor_maps`` is off."""

    def __init__(self, tensor_maps: bool = True):
        self.tensor_maps = tensor_maps

    @op_type_rewrite_pattern
    def match_and_rewrite(self, loop: ForOp, rewriter: PatternRewriter) -> None:
        function = loop.parent_op()
        while function is not None and not isinstance(function, func.FuncOp):
            function = function.parent_op()
        if function is None:
            return
        try:
            target = target_of(function)
        except UnknownTarget as err:
            raise op_error(function, str(err)) from None
        if isinstance(target, CudaTarget) and target.has_bulk_tensor_copy:
            hopper_path = self.tensor_maps and target.has_tensor_map_copy
            if not _runs_more_than_once(loop, function):
                convert_loop(loop, rewriter, hopper_path)
            elif hopper_path and read_schedule(loop) is not None:
                emit_remark(
                    loop,
                    "a pipelined loop inside another loop keeps cp.async copies: its "
                    "mbarriers would be initialized again while they hold a phase",
                )


def _runs_more_than_once(loop: ForOp, function: func.FuncOp) -> bool:
    """Is ``loop`` inside another loop of the kernel?  Its mbarriers would then be
    initialized again while they hold a phase (PTX wants ``mbarrier.inval`` first, and
    every thread's last wait ordered before the new init), which tilepipe does not
    emit: such a loop keeps its copies for ``async-copy``."""
    parent = loop.parent_op()
    while parent is not None and parent is not function:
        if is_loop_like(parent):
            return True
        parent = parent.parent_op()
    return False


@dataclass(frozen=True)
class TmaCopy(ModulePass):
    """Turn pipelined global->shared copies into TMA bulk copies with mbarrier phases
    (sm_90).  On a target with tensor maps (sm_90a) each copy whose source is a kernel
    argument and whose tile is a whole slice of its shared buffer is one tensor-map
    copy; ``tensor-maps=false`` keeps the row-wise bulk copies."""

    name = "tma-copy"

    tensor_maps: bool = True

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(
            ConvertPipelinedCopies(self.tensor_maps), apply_recursively=False
        ).rewrite_module(op)
        for gemm in op.walk():
            if isinstance(gemm, GemmOp):
                if reads_through_async_proxy(gemm):
                    _align_for_descriptors(gemm)
                elif (reason := wgmma_refused(gemm)) is not None:
                    emit_remark(gemm, f"gemm stays on mma.sync: {reason}")


def _align_for_descriptors(gemm: GemmOp) -> None:
    """Ask the arena to start each shared operand of a gemm that will run on wgmma
    where a descriptor's swizzle pattern starts (``warpgroup_mma.py``): the
    permutation is of absolute address bits, as for a tensor copy's box."""
    for operand in (gemm.a, gemm.b):
        alloc = underlying_buffer(operand).owner
        if isinstance(alloc, memref.AllocOp) and not is_register_fragment(operand):
            _ask_alignment(alloc, SWIZZLE_ATTR, operand_swizzle(operand))
