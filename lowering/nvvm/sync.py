"""The scheduled-level sync ops (``dialects/pipeline_sync.py``) as NVVM ops.

* ``pipeline.barrier`` -> ``nvvm.barrier0`` (``bar.sync 0``); with ``id``/``threads``
  -> ``nvvm.barrier id, threads`` (``bar.sync id, threads``) executed only by the
  participating warps ``0 .. threads/32 - 1`` (see :class:`LowerBarrier`);
* ``pipeline.fence_proxy_async`` -> ``nvvm.fence.proxy`` with kind ``async.shared``
  and space ``cta`` (``fence.proxy.async.shared::cta``), executed by every thread that
  reaches it (each thread fences its own generic accesses);
* ``pipeline.commit_group`` / ``wait_group N`` -> ``nvvm.cp.async.commit.group`` /
  ``nvvm.cp.async.wait.group N`` (tokens are a scheduling-level notion; cp.async
  groups are per thread and implicit);
* mbarriers: the slot's shared address becomes a ``!llvm.ptr<3>``; init, arrive and
  arrive-expect-tx are performed by thread 0 (the elected thread of the semantics);
  parity waits by every thread, as ``nvvm.mbarrier.try_wait.parity`` on targets that
  have it (sm_90) and as a ``nvvm.mbarrier.test.wait`` polling loop on sm_80;
* ``pipeline.bulk_copy`` is lowered with the copies (``copy.py``).
"""

from __future__ import annotations

from xdsl.builder import ImplicitBuilder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, i1, i32
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tilepipe.dialects import nvvm
from tilepipe.dialects.pipeline_sync import (
    BarrierOp,
    CommitGroupOp,
    FenceProxyAsyncOp,
    MBarrierArriveExpectTxOp,
    MBarrierArriveOp,
    MBarrierInitOp,
    MBarrierTestWaitOp,
    MBarrierWaitParityOp,
    WaitGroupOp,
)
from tilepipe.core.diagnostics import op_error

from tilepipe.lowering.nvvm import emit
from tilepipe.lowering.nvvm.kernel import KernelContext
from tilepipe.lowering.nvvm.warp_roles import on_leader

TRY_WAIT_TICKS = 1_000_000  # suspend-time hint of mbarrier.try_wait (ns)


def _at(source: Operation, new: Operation) -> Operation:
    new.location = source.location
    return new


class LowerBarrier(RewritePattern):
    """``bar.sync id, N`` counts arriving *warps* (N/32 of them complete it), not
    thread ids (PTX ISA, "bar, barrier").  Executed by every warp of a larger block,
    the first N/32 warps to arrive would complete it among themselves, in no fixed
    grouping, and a remainder of warps would wait forever.  So a partial barrier is
    executed only by its participants, warps ``0 .. N/32 - 1``, behind a warp-uniform
    guard ``tid < N`` (N is a multiple of 32, checked by the op's verifier)."""

    def __init__(self, context: KernelContext):
        self.context = context

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BarrierOp, rewriter: PatternRewriter) -> None:
        threads = op.thread_count
        if threads is None and op.barrier_id == 0:
            rewriter.replace(op, _at(op, nvvm.Barrier0Op()))
            return

        def barrier() -> None:
            barrier_id = emit.const_i32(op.barrier_id)
            count = emit.const_i32(threads) if threads is not None else None
            nvvm.BarrierOp(barrier_id, count)

        with emit.emitting(rewriter, op):
            if threads is None or threads >= self.context.threads:
                barrier()
            else:
                emit.if_then(emit.less_than(self.context.ids.thread, threads), barrier)
        rewriter.erase(op)


class LowerCommitGroup(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CommitGroupOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, _at(op, nvvm.CpAsyncCommitGroupOp()))


class LowerFenceProxyAsync(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: FenceProxyAsyncOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, _at(op, nvvm.FenceProxyOp()))


class LowerWaitGroup(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WaitGroupOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, _at(op, nvvm.CpAsyncWaitGroupOp(op.pending_groups)))


def mbarrier_pointer(barriers: SSAValue, slot: SSAValue) -> SSAValue:
    """``!llvm.ptr<3>`` to mbarrier ``slot`` of a shared ``memref<N x i64>``."""
    return emit.element_pointer(barriers, [slot], nvvm.SHARED_ADDRESS_SPACE)


def on_thread_zero(context: KernelContext, body, op: Operation) -> None:
    """``body`` in the one thread that acts for the block at ``op``: thread 0, or in a
    warp-specialized producer the elected lane of its first warp (``warp_roles``)."""
    on_leader(lambda: context.ids.thread, op, body)


class LowerMBarrierUpdate(RewritePattern):
    """init / arrive / arrive-expect-tx, performed by thread 0 (the producer's elected
    thread in a warp-specialized kernel); an arrive with ``threads = N`` by each of
    the first N threads."""

    def __init__(self, context: KernelContext):
        self.context = context

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: MBarrierInitOp | MBarrierArriveOp | MBarrierArriveExpectTxOp,
        rewriter: PatternRewriter,
    ) -> None:
        target = self.context.target
        if isinstance(op, MBarrierArriveExpectTxOp) and not target.has_bulk_tensor_copy:
            raise op_error(
                op,
                f"mbarrier transaction counts need sm_90 (TMA); target {target.name} "
                "has no mbarrier.expect_tx",
            )
        def update() -> None:
            pointer = mbarrier_pointer(op.barriers, op.barrier_slot)
            if isinstance(op, MBarrierInitOp):
                nvvm.MBarrierInitOp(pointer, emit.const_i32(op.int_property("arrivals")))
            elif isinstance(op, MBarrierArriveOp):
                nvvm.MBarrierArriveOp(pointer)
            else:
                nvvm.MBarrierArriveExpectTxOp(
                    pointer, emit.const_i32(op.int_property("bytes"))
                )

        with emit.emitting(rewriter, op):
            arriving = op.arriving_threads if isinstance(op, MBarrierArriveOp) else None
            if arriving is None:
                on_thread_zero(self.context, update, op)
            elif arriving >= self.context.threads:
                update()  # every thread arrives (a ring's consumers: all of them)
            else:
                emit.if_then(emit.less_than(self.context.ids.thread, arriving), update)
        rewriter.erase(op)


class LowerMBarrierWait(RewritePattern):
    def __init__(self, context: KernelContext):
        self.context = context

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: MBarrierWaitParityOp | MBarrierTestWaitOp, rewriter: PatternRewriter
    ) -> None:
        with emit.emitting(rewriter, op):
            pointer = mbarrier_pointer(op.barriers, op.barrier_slot)
            parity = arith.IndexCastOp(op.parity, i32).result
            if self.context.target.has_mbarrier_try_wait_parity:
                nvvm.MBarrierTryWaitParityOp(
                    pointer, parity, emit.const_i32(TRY_WAIT_TICKS)
                )
            else:
                _test_wait_loop(pointer, parity)
        rewriter.erase(op)


def _test_wait_loop(pointer: SSAValue, parity: SSAValue) -> None:
    """``while (!mbarrier.test_wait.parity(bar, parity)) {}`` (sm_80)."""
    before = Block()
    with ImplicitBuilder(before):
        done = nvvm.MBarrierTestWaitOp(pointer, parity).res
        true = arith.ConstantOp(IntegerAttr(1, i1)).result
        scf.ConditionOp(arith.XOrIOp(done, true).result)
    after = Block()
    with ImplicitBuilder(after):
        scf.YieldOp()
    scf.WhileOp([], [], Region(before), Region(after))

