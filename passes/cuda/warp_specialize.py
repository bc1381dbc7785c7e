"""``warp-specialize``: a pipelined loop of an sm_90a kernel becomes a producer
warpgroup that fills a ring of shared slots with tensor-map copies and the kernel's
own warpgroups that consume them (the chapter's §8.3; TileLang's
ProducerConsumerWarpSpecialized).  It runs before planning, as in TileLang, so the
planner and the pipeline passes see the warp-specialized form and leave it alone.

For a loop of ``num_stages = S`` whose stage-0 work is copies of tiles into shared
memory and whose other statements read those tiles with wgmma gemms:

1. each copied buffer gets S versions (the ring's slots): iteration i uses slot
   ``i mod S``;
2. two arrays of S mbarriers own the hand-over: ``full[s]`` completes when the
   copies into slot s landed (one arrival by the producer with the bytes expected),
   ``empty[s]`` when every consumer thread is done with it (one arrival per thread);
3. the producer loop waits for ``empty[s]`` in the phase of the ring's previous lap
   (the first lap passes at once), issues the copies and arrives on ``full[s]``;
4. the consumer loop waits for ``full[s]`` in this lap's phase, computes and
   arrives on ``empty[s]``; what the kernel does before and after the loop with its
   registers and global memory moves into the consumer region with it.

The loop's pipeline annotations go with the ``pipeline.for`` (no pass pipelines it
twice).  A loop that cannot take this path keeps its ``pipeline.for`` and gets a
remark that says why; ``tile.warp_specialize = false`` on a kernel keeps it off.
See docs/nvvm.md, "Warp specialization".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, StringAttr, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tilepipe.core.diagnostics import emit_remark, op_error
from tilepipe.core.targets import CudaTarget, UnknownTarget, target_of
from tilepipe.dialects.kernel_attrs import kernel_launch_shape
from tilepipe.dialects.pipeline import ForOp
from tilepipe.dialects.pipeline_sync import (
    BarrierOp,
    BulkCopyOp,
    FenceProxyAsyncOp,
    MBarrierArriveExpectTxOp,
    MBarrierArriveOp,
    MBarrierInitOp,
    MBarrierWaitParityOp,
)
from tilepipe.dialects.pipeline_ws import (
    WARPGROUP_THREADS,
    WGMMA_IN_FLIGHT_ATTR,
    WarpSpecializeOp,
)
from tilepipe.dialects.tile import BlockIdOp, CopyOp, GemmOp, GridDimsOp
from tilepipe.passes.cuda.tensor_map import tensor_box
from tilepipe.passes.cuda.tma_copy import (
    as_tensor_copy,
    bulk_copy_refusal,
    is_global_to_shared,
    tile_bytes,
)
from tilepipe.passes.cuda.warpgroup_mma import reads_through_async_proxy
from tilepipe.passes.pipelining.buffer_versions import BufferVersions
from tilepipe.passes.pipelining.version_dimension import MultiBuffering
from tilepipe.passes.rewrite.index_arith import IndexBuilder

WARP_SPECIALIZE_ATTR = "tile.warp_specialize"


def warp_specialization_turned_off(kernel: Operation) -> bool:
    """``tile.warp_specialize = false`` on the kernel."""
    attr = kernel.attributes.get(WARP_SPECIALIZE_ATTR)
    return isinstance(attr, IntegerAttr) and attr.value.data == 0


# ---------------------------------------------------------------- which loops


def _is_scalar(op: Operation) -> bool:
    """Computes indices only: every thread may run it, either role may clone it."""
    if isinstance(op, BlockIdOp | arith.ConstantOp | memref.DimOp):
        return True
    return op.dialect_name() == "arith" and not op.regions


@dataclass
class RingPlan:
    """What one loop's warp specialization moves where (decided before rewriting)."""

    loop: ForOp
    depth: int
    copies: list[CopyOp]
    buffers: list[SSAValue]  # the copied shared allocations, the ring's slots
    consumer_before: list[Operation]  # kernel statements before the loop, consumers'
    consumer_after: list[Operation]  # everything after the loop but the return
    producer_slice: list[Operation] = field(default_factory=list)  # index ops the copies need
    gemm_in_flight: bool = False  # release each slot one iteration late (_gemm_in_flight)


def ring_plan(kernel: func.FuncOp, loop: ForOp) -> RingPlan | str:
    """The plan for ``loop``, or why it cannot be warp-specialized (a phrase that
    completes "not warp-specialized: ...")."""
    top = kernel.body.block
    if loop.parent_block() is not top:
        return "the loop is not at the top level of its kernel"
    depth = loop.int_annotation("num_stages")
    if depth is None and (stages := loop.array_annotation("stage")):
        depth = max(stages) + 1
    if depth is None or depth < 1:
        return "the loop has no num_stages"
    _, threads = kernel_launch_shape(kernel)
    if threads % WARPGROUP_THREADS:
        return f"its {threads} threads are not whole warpgroups"
    copies: list[CopyOp] = []
    others: list[Operation] = []
    for op in loop.statements():
        if is_global_to_shared(op):
            reason = bulk_copy_refusal(op)
            box = tensor_box(op)
            if reason is None and isinstance(box, str):
                reason = f"no tensor map: {box}"
            if reason is None and (op.dst.owner is None or op.dst.owner.parent_block() is not top):
                reason = "its shared tile is not allocated by the kernel"
            if reason is not None:
                return f"a copy cannot be one tensor copy ({reason})"
            if others:
                return "a copy follows the loop's compute (the producer runs ahead of it)"
            copies.append(op)
        elif op.regions:
            return f"the loop body holds '{op.name}' (nested control flow)"
        else:
            others.append(op)
    if not copies:
        return "the loop copies nothing into shared memory"
    # The ring's slots: what the copies fill.  The consumers read them with wgmma
    # (through the async proxy, as the producer's tensor copies write) and touch
    # nothing else of them; their other shared memory is theirs (thread-sync syncs it).
    buffers = list(dict.fromkeys(c.dst for c in copies))
    for buffer in buffers:
        for use in buffer.uses:
            user = use.operation
            if not loop.is_ancestor(user):
                return "a copied tile is used outside the loop"
            if user in copies and user.dst is buffer:
                continue
            if not (isinstance(user, GemmOp) and buffer in (user.a, user.b) and user.c is not buffer):
                # A view, a copy out, an elementwise op: a generic access the
                # producer's next tensor copy into the slot would race with.
                return f"'{user.name}' accesses a copied tile other than by a gemm's read"
            if not reads_through_async_proxy(user):
                return "a gemm that reads a copied tile does not run on wgmma"
    producer_slice = _index_slice(copies, loop)
    if isinstance(producer_slice, str):
        return producer_slice
    before: list[Operation] = []
    after: list[Operation] = []
    seen_loop = False
    for op in top.ops:
        if op is loop:
            seen_loop = True
        elif seen_loop:
            if not isinstance(op, func.ReturnOp):
                after.append(op)
        elif not (_is_scalar(op) or isinstance(op, memref.AllocOp | GridDimsOp)):
            # (tile.grid_dims states the launch: it stays in the kernel's entry block)
            before.append(op)
    for op in before:
        for result in op.results:
            if any(not _in(use.operation, before + after + [loop]) for use in result.uses):
                return f"'{op.name}' before the loop defines a value used outside it"
    plan = RingPlan(loop, depth, copies, buffers, before, after, producer_slice)
    plan.gemm_in_flight = _gemm_in_flight(loop, others, depth)
    return plan


def _gemm_in_flight(loop: ForOp, statements: list[Operation], depth: int) -> bool:
    """May the consumers leave the loop's gemm running into the next iteration
    (Triton's and CUTLASS's rule): the loop computes one gemm, whose accumulator
    nothing else in the loop touches (it feeds only the next iteration's gemm), and
    the ring has a slot to spare for the one the gemm still reads."""
    gemms = [op for op in statements if isinstance(op, GemmOp)]
    if depth < 2 or len(gemms) != 1:
        return False
    (gemm,) = gemms
    return all(
        use.operation is gemm or not loop.is_ancestor(use.operation) for use in gemm.c.uses
    )


def _in(op: Operation, roots: list[Operation]) -> bool:
    return any(root is op or root.is_ancestor(op) for root in roots)


def _index_slice(copies: list[CopyOp], loop: ForOp) -> list[Operation] | str:
    """The loop-body ops the copies' offsets are computed with, in program order;
    they must be index arithmetic (the producer runs them too)."""
    wanted: set[Operation] = set()
    work = [v for c in copies for v in c.operands]
    while work:
        value = work.pop()
        owner = value.owner
        if not isinstance(owner, Operation) or owner.parent_block() is not loop.body.block:
            continue
        if owner in wanted:
            continue
        if not _is_scalar(owner):
            return f"a copy's offset comes from '{owner.name}', not from index arithmetic"
        wanted.add(owner)
        work.extend(owner.operands)
    return [op for op in loop.body.block.ops if op in wanted]


# ---------------------------------------------------------------- the rewrite


def _constant(value: int) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, IndexType()))


def _ring_barriers(name: str, depth: int) -> memref.AllocOp:
    alloc = memref.AllocOp([], [], MemRefType(i64, [depth], memory_space=StringAttr("shared")))
    alloc.memref.name_hint = name
    return alloc


@dataclass
class _Lap:
    """The ring coordinates of one iteration, emitted at the top of a role's loop."""

    iteration: SSAValue  # (iv - lb) / step
    slot: SSAValue
    parity: SSAValue  # the phase parity of this lap (0, 1, 0, ...)
    previous_parity: SSAValue  # the parity of the lap before (1 on the first)


def _lap(builder: IndexBuilder, loop: ForOp, iv: SSAValue, depth: int) -> _Lap:
    iteration = builder.div(builder.sub(iv, loop.lb), loop.step)
    lap = builder.div(iteration, depth)
    parity = builder.rem(lap, 2)
    return _Lap(
        builder.value(iteration),
        builder.value(builder.rem(iteration, depth)),
        builder.value(parity),
        builder.value(builder.sub(1, parity)),
    )


def _role_loop(loop: ForOp) -> tuple[scf.ForOp, Block]:
    body = Block(arg_types=[IndexType()])
    new = scf.ForOp(loop.lb, loop.ub, loop.step, [], Region(body))
    new.location = loop.location
    return new, body


def specialize(kernel: func.FuncOp, plan: RingPlan, target: CudaTarget) -> WarpSpecializeOp:
    loop, depth = plan.loop, plan.depth
    rewriter = Rewriter()
    _, consumers = kernel_launch_shape(kernel)
    ws = target.warp_specialization
    assert ws is not None
    producers = ws.producer_warpgroups * WARPGROUP_THREADS

    # 1. The ring's slots: each copied buffer versioned once per stage.
    for copy in plan.copies:
        as_tensor_copy(copy)  # ask the arena for the box's alignment and swizzle
    versions = MultiBuffering(
        [BufferVersions(b, 0, 0, depth, depth, False) for b in plan.buffers]
    )
    versions.materialize(rewriter)

    # 2. The ring's mbarriers, initialized, fenced for the async proxy and published
    # to every thread before the roles split.
    full, empty = _ring_barriers("ring_full", depth), _ring_barriers("ring_empty", depth)
    setup: list[Operation] = [full, empty]
    for s in range(depth):
        slot = _constant(s)
        setup += [
            slot,
            MBarrierInitOp(full.memref, slot.result, arrivals=1),
            MBarrierInitOp(empty.memref, slot.result, arrivals=consumers),
        ]
    setup += [FenceProxyAsyncOp(), BarrierOp()]
    for op in setup:
        op.location = loop.location
    rewriter.insert_op(setup, InsertPoint.before(loop))

    # 3. The producer: wait for the slot to be free, copy, arrive with the bytes.
    producer_loop, body = _role_loop(loop)
    builder = IndexBuilder(InsertPoint.at_end(body))
    lap = _lap(builder, loop, body.args[0], depth)
    free = MBarrierWaitParityOp(empty.memref, lap.slot, lap.previous_parity)
    body.add_op(free)
    mapping = {loop.induction_var: body.args[0]}
    for op in plan.producer_slice:
        clone = op.clone(value_mapper=mapping)
        body.add_op(clone)
    for copy in plan.copies:
        versioned = versions.rewrite_instance(copy, lambda: lap.iteration, builder)
        assert isinstance(versioned, CopyOp)
        bulk = BulkCopyOp(
            mapping.get(versioned.src, versioned.src),
            [mapping.get(v, v) for v in versioned.src_offsets],
            versioned.dst,
            [mapping.get(v, v) for v in versioned.dst_offsets],
            full.memref,
            lap.slot,
            versioned.tile_shape,
            tensor_map=True,
        )
        bulk.location = copy.location
        body.add_op(bulk)
        if versioned is not copy:
            versioned.erase()
    arrive = MBarrierArriveExpectTxOp(
        full.memref, lap.slot, bytes=sum(tile_bytes(c) for c in plan.copies)
    )
    body.add_ops([arrive, scf.YieldOp()])
    for op in (free, arrive):
        op.location = loop.location

    # 4. The consumers: wait for the slot's copies, compute, release the slot.
    consumer_loop, cbody = _role_loop(loop)
    cbuilder = IndexBuilder(InsertPoint.at_end(cbody))
    clap = _lap(cbuilder, loop, cbody.args[0], depth)
    landed = MBarrierWaitParityOp(full.memref, clap.slot, clap.parity)
    cbody.add_op(landed)
    loop.induction_var.replace_all_uses_with(cbody.args[0])
    for op in list(loop.body.block.ops):
        if op in plan.copies or op is loop.body.block.last_op:
            continue
        op.detach()
        versioned = versions.rewrite_instance(op, lambda: clap.iteration, cbuilder)
        cbody.add_op(versioned)
        if versioned is not op:
            op.erase()
    if plan.gemm_in_flight:
        # Release the previous iteration's slot, once this one's gemm is issued: the
        # lowering keeps a gemm's last wgmma group running across an iteration
        # (``wgmma.wait_group 1``), and this is the first point its reads of the
        # previous slot are known to be done.  The last slot needs no release: the
        # producer has nothing left to copy into it.
        # (k + S - 1) mod S: of the iteration's form, so the lowering carries it as a
        # rotating counter as it does the slot (slots.py).
        previous = cbuilder.value(cbuilder.rem(cbuilder.add(clap.iteration, depth - 1), depth))
        release = MBarrierArriveOp(empty.memref, previous, threads=consumers)
        has_previous = arith.CmpiOp(clap.iteration, cbuilder.value(0), "sgt")
        guarded = scf.IfOp(has_previous.result, [], Region(Block([release, scf.YieldOp()])))
        guarded.location = has_previous.location = loop.location
        cbody.add_ops([has_previous, guarded, scf.YieldOp()])
        consumer_loop.attributes[WGMMA_IN_FLIGHT_ATTR] = builtin.UnitAttr()
    else:
        release = MBarrierArriveOp(empty.memref, clap.slot, threads=consumers)
        cbody.add_ops([release, scf.YieldOp()])
    for op in (landed, release):
        op.location = loop.location

    consumer_block = Block()
    for op in plan.consumer_before:
        op.detach()
        consumer_block.add_op(op)
    consumer_block.add_op(consumer_loop)
    for op in plan.consumer_after:
        op.detach()
        consumer_block.add_op(op)
    specialized = WarpSpecializeOp(
        Region(Block([producer_loop])),
        Region(consumer_block),
        producer_threads=producers,
        producer_registers=ws.producer_registers,
        consumer_registers=ws.consumer_registers(consumers),
    )
    specialized.location = loop.location
    rewriter.insert_op(specialized, InsertPoint.before(loop))
    rewriter.erase_op(loop)  # with the original copies, now the producer's
    versions.finalize(rewriter)
    _erase_dead_index_ops(consumer_loop.body.block)
    return specialized


def _erase_dead_index_ops(block: Block) -> None:
    """The index arithmetic only the copies used (the producer has its clones)."""
    changed = True
    while changed:
        changed = False
        for op in reversed(list(block.ops)):
            if _is_scalar(op) and all(not r.uses for r in op.results):
                Rewriter.erase_op(op)
                changed = True


@dataclass(frozen=True)
class WarpSpecialize(ModulePass):
    """Split the pipelined loop of each sm_90a kernel into a producer warpgroup (tensor
    copies into a ring of shared slots) and consumer warpgroups (the loop's compute),
    handing slots over through full/empty mbarriers; remarks say why a loop keeps its
    ``pipeline.for``.  ``tile.warp_specialize = false`` on a kernel turns it off."""

    name = "warp-specialize"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for kernel in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            if kernel.body.first_block is None:
                continue
            try:
                target = target_of(kernel)
            except UnknownTarget as err:
                raise op_error(kernel, str(err)) from None
            if not isinstance(target, CudaTarget) or target.warp_specialization is None:
                continue
            if warp_specialization_turned_off(kernel) or _hopper_path_off(kernel):
                continue
            loops = [l for l in kernel.body.walk() if isinstance(l, ForOp)]
            if len(loops) != 1:
                for loop in loops:
                    emit_remark(
                        loop,
                        "not warp-specialized: the kernel has more than one pipelined "
                        "loop (one producer warpgroup serves one ring)",
                    )
                continue
            plan = ring_plan(kernel, loops[0])
            if isinstance(plan, str):
                emit_remark(loops[0], f"not warp-specialized: {plan}")
                continue
            specialize(kernel, plan, target)


def _hopper_path_off(kernel: func.FuncOp) -> bool:
    """wgmma turned off for the kernel: its gemms stay on mma.sync, the sm_80 way,
    and so does its loop."""
    from tilepipe.passes.cuda.warpgroup_mma import wgmma_turned_off

    return wgmma_turned_off(kernel)
