"""Interpreter functions for the scheduled-level async/sync ops of ``pipeline``.

The timing model is in :mod:`tilepipe.semantics.tile.block_machine`; these functions decode the
operands, check them (bounds, initialization) and tell the machine and the race
tracker what happened.
"""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, impl, register_impls

from tilepipe.dialects import pipeline_sync as sync

from tilepipe.semantics.errors import KernelError
from tilepipe.semantics.tile.block_machine import MBarrier
from tilepipe.semantics.tile.races import Agents
from tilepipe.semantics.tile.interpreter_base import RuntimeFunctions
from tilepipe.semantics.tile.tile_ops import TileOperands


@register_impls
class SyncFunctions(RuntimeFunctions):
    # -- async copies and groups

    @impl(sync.AsyncCopyOp)
    def run_async_copy(self, interpreter: Interpreter, op: sync.AsyncCopyOp, args):
        operands = TileOperands(self, interpreter, op)
        src, src_region = operands.regions["src"]
        dst, dst_region = operands.regions["dst"]
        event = self.machine.begin(op)
        # Performed by the issuing threads' copy engines, unordered with what the
        # threads do next until a wait_group covers the copy.
        chunk = op.cooperative_chunk()
        for buffer, region, reads in ((src, src_region, True), (dst, dst_region, False)):
            agents = self.machine.cooperative(region, True, chunk)
            self.machine.track(event, buffer, region, reads, not reads, agents)
        stored = self.read_stored(op, src, src_region)
        return (self.machine.issue_copy(op, event, dst, dst_region, stored),)

    @impl(sync.CommitGroupOp)
    def run_commit_group(self, interpreter, op: sync.CommitGroupOp, args):
        self.machine.commit(op, args)
        return ()

    @impl(sync.WaitGroupOp)
    def run_wait_group(self, interpreter, op: sync.WaitGroupOp, args):
        self.machine.wait_groups(op.pending_groups, op)
        return ()

    @impl(sync.BarrierOp)
    def run_barrier(self, interpreter, op: sync.BarrierOp, args):
        threads = op.thread_count
        if threads is not None and threads > self.machine.threads:
            raise KernelError(
                op,
                f"a partial barrier over {threads} threads in a block of "
                f"{self.machine.threads} threads",
            )
        self.machine.barrier(threads, op)
        return ()

    @impl(sync.FenceProxyAsyncOp)
    def run_fence_proxy_async(self, interpreter, op: sync.FenceProxyAsyncOp, args):
        event = self.machine.begin(op)
        if self.machine.tracker is not None:
            self.machine.tracker.proxy_fence(event)
        return ()

    # -- mbarriers

    def _slot_key(self, op, bars, index) -> tuple[tuple[int, int], str]:
        region = self.scalar_region(op, bars, (index,))
        offset = int(bars.byte_offsets(region).reshape(-1)[0])
        return (bars.allocation.id, offset), f"{bars.name}[{index}]"

    def _slot(self, op, bars, index) -> tuple[MBarrier, str]:
        key, name = self._slot_key(op, bars, index)
        return self.machine.mbarrier(op, key, name), name

    @impl(sync.MBarrierInitOp)
    def run_mbarrier_init(self, interpreter, op: sync.MBarrierInitOp, args):
        bars, index = args
        key, _ = self._slot_key(op, bars, index)
        self.machine.mbarrier_init(op, key, op.int_property("arrivals"))
        # Initialization is a plain write of the barrier word by thread 0: the other
        # threads may use the barrier only once a block barrier has published it.
        region = self.scalar_region(op, bars, (index,))
        event = self.machine.begin(op, threads=[0])
        thread_zero = Agents(np.zeros(region.sizes, dtype=np.int64))
        self.machine.track(event, bars, region, False, True, thread_zero)
        return ()

    @impl(sync.MBarrierArriveOp)
    def run_mbarrier_arrive(self, interpreter, op: sync.MBarrierArriveOp, args):
        slot, _ = self._slot(op, *args)
        arriving = op.arriving_threads
        if arriving is not None and arriving > self.machine.threads:
            raise KernelError(
                op, f"arrives with {arriving} threads in a block of {self.machine.threads}"
            )
        threads = [0] if arriving is None else list(range(arriving))
        self.machine.begin(op, threads=threads)
        self.machine.arrive(slot, threads=threads)
        return ()

    @impl(sync.MBarrierArriveExpectTxOp)
    def run_mbarrier_arrive_expect_tx(
        self, interpreter, op: sync.MBarrierArriveExpectTxOp, args
    ):
        slot, _ = self._slot(op, *args)
        self.machine.begin(op, threads=[0])
        self.machine.arrive(slot, op.int_property("bytes"))
        return ()

    def _wait(self, op: sync.MBarrierWaitOp, args) -> tuple:
        bars, index, parity = args
        slot, name = self._slot(op, bars, index)
        # Every thread reads the (initialized) barrier word.
        event = self.machine.begin(op)
        region = self.scalar_region(op, bars, (index,))
        self.machine.track(event, bars, region, True, False, Agents(None))
        self.machine.wait_parity(op, slot, parity, name)
        return ()

    @impl(sync.MBarrierWaitParityOp)
    def run_mbarrier_wait_parity(self, interpreter, op, args):
        return self._wait(op, args)

    @impl(sync.MBarrierTestWaitOp)
    def run_mbarrier_test_wait(self, interpreter, op, args):
        return self._wait(op, args)

    @impl(sync.BulkCopyOp)
    def run_bulk_copy(self, interpreter: Interpreter, op: sync.BulkCopyOp, args):
        operands = TileOperands(self, interpreter, op)
        src, src_region = operands.regions["src"]
        dst, dst_region = operands.regions["dst"]
        (bars, index) = interpreter.get_values((op.barriers, op.barrier_slot))
        slot, _ = self._slot(op, bars, index)
        event = self.machine.begin(op, threads=[0])
        for buffer, region, reads in ((src, src_region, True), (dst, dst_region, False)):
            # The destination is written through the async proxy.
            engine_of_thread_zero = Agents(
                np.zeros(region.sizes, dtype=np.int64), True, async_proxy=not reads
            )
            self.machine.track(event, buffer, region, reads, not reads, engine_of_thread_zero)
        # Its complete_tx updates the mbarrier through the async proxy too: the
        # (generic) init must be fenced before thread 0 issues the copy.
        bar_region = self.scalar_region(op, bars, (index,))
        thread_zero = Agents(np.zeros(bar_region.sizes, dtype=np.int64), async_proxy=True)
        self.machine.track(event, bars, bar_region, True, False, thread_zero)
        stored = self.read_stored(op, src, src_region)
        self.machine.issue_bulk_copy(slot, op, event, dst, dst_region, stored)
        return ()
