"""The program-order trace of one block, recorded while the interpreter runs it.

:class:`TracingMachine` is the interpreter's :class:`BlockMachine` with a recorder on
its hooks, so the trace sees exactly what the race detector sees: which copies a
``wait_group`` retires, which arrivals and bulk copies complete the mbarrier phase a
wait needs, where the block barriers are.  Each op instance becomes a :class:`Step`
whose ``needs`` are the steps it may not start before (with the sync's latency); the
cycle model (:mod:`tilepipe.schedule_sim.model`) only adds units and durations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from xdsl.ir import Operation

from tilepipe.dialects import pipeline_sync as sync
from tilepipe.dialects.memory_space import MemorySpace
from tilepipe.dialects.tile_base import TileOp
from tilepipe.semantics.tile.block_machine import BlockMachine, MBarrier, PendingCopy, Token
from tilepipe.semantics.memory import Buffer, Region


class StepKind(Enum):
    ASYNC_COPY = "async_copy"  # issue occupies the copy engine; data lands later
    DATA = "data"  # a synchronous tile op (copy or compute)
    WAIT = "wait"  # wait_group, mbarrier wait: holds back the unit of what follows
    SIGNAL = "signal"  # commit, arrive, init: marks progress of the unit before it
    BARRIER = "barrier"  # block barrier: joins every unit


class Need(Enum):
    """Which sync an ordering comes from (its latency is the target's)."""

    GROUP = "wait_group"  # a retired commit group: free for the waiting thread
    MBARRIER = "mbarrier"  # a completed phase, observed by a parity wait
    MEMORY = "memory"  # same-thread order of two conflicting synchronous accesses


@dataclass(frozen=True)
class Access:
    allocation: int  # Allocation.id
    space: MemorySpace
    low: int  # byte range [low, high)
    high: int
    writes: bool

    def conflicts(self, other: Access) -> bool:
        return (
            self.allocation == other.allocation
            and (self.writes or other.writes)
            and self.low < other.high
            and other.low < self.high
        )


@dataclass(eq=False)
class Step:
    index: int
    op: Operation
    kind: StepKind
    iteration: tuple[tuple[str, int], ...]
    needs: list[tuple[Step, Need]] = field(default_factory=list)
    accesses: list[Access] = field(default_factory=list)

    @property
    def touches_global(self) -> bool:
        return any(a.space == MemorySpace.GLOBAL for a in self.accesses)


def _kind(op: Operation) -> StepKind:
    if isinstance(op, sync.AsyncCopyOp | sync.BulkCopyOp):
        return StepKind.ASYNC_COPY
    if isinstance(op, TileOp):
        return StepKind.DATA
    if isinstance(op, sync.MBarrierWaitOp):
        return StepKind.WAIT
    return StepKind.SIGNAL


class TracingMachine(BlockMachine):
    """A :class:`BlockMachine` that records the trace of the block it runs."""

    def __init__(self, threads: int, block_id: tuple[int, ...], tracker=None):
        super().__init__(threads, block_id, tracker)
        self.steps: list[Step] = []
        self._copy_step: dict[int, Step] = {}  # id(PendingCopy) -> its step
        self._phase: dict[int, list[Step]] = {}  # id(MBarrier) -> current phase's steps
        self._completed: dict[tuple[int, int], list[Step]] = {}  # (slot, parity)
        self._finishing = False

    def _record(self, op: Operation, kind: StepKind) -> Step:
        step = Step(len(self.steps), op, kind, tuple(self.iteration))
        self.steps.append(step)
        return step

    # -- hooks of BlockMachine

    def begin(self, op: Operation, threads=None) -> int:
        self._record(op, _kind(op))
        return super().begin(op, threads)

    def track(self, event, buffer: Buffer, region: Region, reads, writes, agents) -> None:
        offsets = buffer.byte_offsets(region)
        if offsets.size:
            low = int(offsets.min())
            access = Access(
                buffer.allocation.id, buffer.space, low,
                int(offsets.max()) + buffer.element.itemsize, bool(writes),
            )
            self.steps[-1].accesses.append(access)
        super().track(event, buffer, region, reads, writes, agents)

    def barrier(self, threads: int | None, op: Operation | None = None) -> None:
        if op is not None:
            self._record(op, StepKind.BARRIER)
        super().barrier(threads, op)

    def issue_copy(self, op, event, dst, region, stored) -> Token:
        token = super().issue_copy(op, event, dst, region, stored)
        self._copy_step[id(token.copy)] = self.steps[-1]
        return token

    def commit(self, op: Operation, tokens) -> None:
        self._record(op, StepKind.SIGNAL)
        super().commit(op, tokens)

    def wait_groups(self, pending: int, op: Operation | None = None) -> None:
        retired: list[PendingCopy] = [
            copy for group in list(self.groups)[: max(0, len(self.groups) - pending)]
            for copy in group
        ]
        if op is not None and not self._finishing:
            step = self._record(op, StepKind.WAIT)
            step.needs.extend((self._copy_step[id(c)], Need.GROUP) for c in retired)
        super().wait_groups(pending, op)

    def finish(self, exit_op: Operation | None = None) -> None:
        self._finishing = True
        super().finish(exit_op)

    def arrive(self, slot: MBarrier, expect_bytes: int = 0, threads=(0,)) -> None:
        self._phase.setdefault(id(slot), []).append(self.steps[-1])
        self._advance(slot, super().arrive, slot, expect_bytes, threads)

    def issue_bulk_copy(self, slot: MBarrier, op, event, dst, region, stored) -> None:
        # The copy's bytes count towards the phase that is open when it is issued.
        self._phase.setdefault(id(slot), []).append(self.steps[-1])
        super().issue_bulk_copy(slot, op, event, dst, region, stored)

    def wait_parity(self, op: Operation, slot: MBarrier, parity: int, name: str) -> None:
        self._advance(slot, super().wait_parity, op, slot, parity, name)
        step = self.steps[-1]
        step.needs.extend(
            (s, Need.MBARRIER) for s in self._completed.get((id(slot), parity), [])
        )

    def _advance(self, slot: MBarrier, call, *args) -> None:
        """Run ``call``; if it completed the slot's phase, the steps of that phase are
        what a wait on its parity needs."""
        before = slot.phase
        call(*args)
        if slot.phase != before:
            self._completed[(id(slot), before % 2)] = self._phase.pop(id(slot), [])
