"""The state of one running block: its threads, loop iterations, the async copy engine
(commit groups), the mbarriers, and the optional race tracker.

The interpreter runs a block's threads in lock step (every op is executed by the whole
block, as the tile-level IR means it); what the threads may observe of each other and
of the copy engine is decided here:

* an async copy reads its source when issued and lands its data when a
  ``wait_group`` retires its group, so a read before the wait sees the old contents;
* a bulk copy lands when a wait on its mbarrier needs its bytes to complete a phase;
* an mbarrier phase completes when its pending arrivals and transaction bytes reach 0.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np
from xdsl.ir import Operation

from tilepipe.semantics.errors import KernelError
from tilepipe.semantics.memory import Buffer, Region
from tilepipe.semantics.tile.races import Agents, RaceTracker, cooperative_threads


@dataclass(eq=False)
class PendingCopy:
    """An issued copy whose data has not landed yet."""

    op: Operation
    dst: Buffer
    region: Region
    stored: np.ndarray  # the source's bit patterns, read at issue
    event: int
    issuers: np.ndarray  # the thread of every element (race tracking)


@dataclass(eq=False)
class Token:
    """The value of ``!pipeline.token``: one async copy, committed at most once."""

    copy: PendingCopy
    committed_by: Operation | None = None


@dataclass(eq=False)
class MBarrier:
    """One mbarrier slot."""

    init_op: Operation
    arrivals: int
    pending_arrivals: int
    pending_bytes: int = 0
    phase: int = 0
    arrived_clock: np.ndarray | None = None  # join of this phase's arrivals
    completed_clock: dict[int, np.ndarray] = field(default_factory=dict)  # by parity
    bulk_copies: deque[tuple[PendingCopy, int]] = field(default_factory=deque)


@dataclass
class BlockMachine:
    threads: int
    block_id: tuple[int, ...]
    tracker: RaceTracker | None = None
    iteration: list[tuple[str, int]] = field(default_factory=list)
    uncommitted: list[PendingCopy] = field(default_factory=list)
    groups: deque[list[PendingCopy]] = field(default_factory=deque)
    mbarriers: dict[tuple[int, int], MBarrier] = field(default_factory=dict)

    # -- race tracking hooks (no-ops without a tracker)

    def begin(self, op: Operation, threads=None) -> int:
        if self.tracker is None:
            return 0
        return self.tracker.begin_event(op, tuple(self.iteration), threads)

    def track(
        self, event: int, buffer: Buffer, region: Region, reads: bool, writes: bool,
        agents: Agents,
    ) -> None:
        if self.tracker is not None:
            self.tracker.access(
                event, buffer, region, reads=reads, writes=writes, agents=agents
            )

    def cooperative(self, region: Region, engine: bool = False, chunk: int = 1) -> Agents:
        return Agents(cooperative_threads(region.sizes, self.threads, chunk), engine)

    def barrier(self, threads: int | None, op: Operation | None = None) -> None:
        if self.tracker is not None:
            self.tracker.barrier(threads)

    # -- async copies

    def issue_copy(
        self, op: Operation, event: int, dst: Buffer, region: Region, stored: np.ndarray
    ) -> Token:
        copy = PendingCopy(
            op, dst, region, stored, event,
            cooperative_threads(region.sizes, self.threads, op.cooperative_chunk()),
        )
        self.uncommitted.append(copy)
        return Token(copy)

    def commit(self, op: Operation, tokens: tuple[Token, ...]) -> None:
        for token in tokens:
            if token.committed_by is not None:
                raise KernelError(
                    op,
                    "commits a token that was already committed by the "
                    f"'{token.committed_by.name}' op at "
                    f"{_where(token.committed_by)} (a token is consumed once)",
                )
            if token.copy not in self.uncommitted:
                raise KernelError(op, "commits a token whose copy was already committed")
            token.committed_by = op
        self.groups.append(self.uncommitted)
        self.uncommitted = []

    def wait_groups(self, pending: int, op: Operation | None = None) -> None:
        while len(self.groups) > pending:
            for copy in self.groups.popleft():
                self._land(copy)
                if self.tracker is not None:
                    self.tracker.engine_completed(copy.issuers.reshape(-1), copy.event)
                    self.tracker.async_landed(copy.dst, copy.region, copy.event)

    def _land(self, copy: PendingCopy) -> None:
        copy.dst.write_stored(copy.region, copy.stored)

    def finish(self, exit_op: Operation | None = None) -> None:
        """Block exit: every outstanding copy completes.  A ``cp.async`` still in
        flight at the exit is a race with the exit itself (the hardware wants it
        landed before its thread exits: the block's shared memory is released), so
        the tracker reports each such copy as racing with ``exit_op``, a write of the
        bytes it is still copying by the thread that issued it."""
        if self.tracker is not None and exit_op is not None:
            for copy in [*self.uncommitted, *(c for group in self.groups for c in group)]:
                self.tracker.exit_with_copy_in_flight(
                    exit_op, copy.event, copy.dst, copy.region,
                    int(copy.issuers.reshape(-1)[0]),
                )
        for copy in self.uncommitted:
            self._land(copy)
        self.uncommitted = []
        self.wait_groups(0)
        for slot in self.mbarriers.values():
            while slot.bulk_copies:
                self._land(slot.bulk_copies.popleft()[0])

    # -- mbarriers

    def mbarrier_init(self, op: Operation, key: tuple[int, int], arrivals: int) -> None:
        self.mbarriers[key] = MBarrier(op, arrivals, arrivals)

    def mbarrier(self, op: Operation, key: tuple[int, int], name: str) -> MBarrier:
        slot = self.mbarriers.get(key)
        if slot is None:
            raise KernelError(op, f"uses mbarrier {name}, which was never initialized")
        return slot

    def arrive(self, slot: MBarrier, expect_bytes: int = 0, threads=(0,)) -> None:
        """Each of ``threads`` arrives once (publishing what it has done so far)."""
        slot.pending_bytes += expect_bytes
        slot.pending_arrivals -= len(threads)
        if self.tracker is not None:
            for thread in threads:
                self._publish(slot, self.tracker.thread_clock(thread))
        self._maybe_complete(slot)

    def issue_bulk_copy(
        self, slot: MBarrier, op: Operation, event: int, dst: Buffer, region: Region,
        stored: np.ndarray,
    ) -> None:
        copy = PendingCopy(
            op, dst, region, stored, event, np.zeros(region.sizes, dtype=np.int64)
        )
        slot.bulk_copies.append((copy, stored.nbytes))

    def wait_parity(self, op: Operation, slot: MBarrier, parity: int, name: str) -> None:
        if parity not in (0, 1):
            raise KernelError(op, f"parity must be 0 or 1, got {parity}")
        # The phase with this parity is complete once the current phase has the
        # other parity; land bulk copies until then.
        while slot.phase % 2 == parity and slot.bulk_copies:
            copy, nbytes = slot.bulk_copies.popleft()
            self._land(copy)
            slot.pending_bytes -= nbytes
            if self.tracker is not None:
                self._publish(slot, self.tracker.engine_lane_clock(0, copy.event))
            self._maybe_complete(slot)
        if slot.phase % 2 == parity:
            raise KernelError(
                op,
                f"waits for phase {slot.phase} (parity {parity}) of mbarrier {name}, "
                f"which can never complete: {slot.pending_arrivals} arrival(s) and "
                f"{slot.pending_bytes} transaction byte(s) missing (deadlock)",
            )
        completed = slot.completed_clock.get(parity)
        if self.tracker is not None and completed is not None:
            self.tracker.acquire(completed)

    def _publish(self, slot: MBarrier, clock: np.ndarray) -> None:
        slot.arrived_clock = (
            clock if slot.arrived_clock is None else np.maximum(slot.arrived_clock, clock)
        )

    def _maybe_complete(self, slot: MBarrier) -> None:
        if slot.pending_arrivals > 0 or slot.pending_bytes > 0:
            return
        if slot.arrived_clock is not None:
            slot.completed_clock[slot.phase % 2] = slot.arrived_clock
        slot.arrived_clock = None
        slot.phase += 1
        slot.pending_arrivals = slot.arrivals
        slot.pending_bytes = 0


def _where(op: Operation) -> str:
    from tilepipe.core.diagnostics import op_location

    location = op_location(op)
    return str(location) if location else "<unknown location>"
