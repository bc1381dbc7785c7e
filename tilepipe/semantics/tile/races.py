"""Happens-before race detection for one block of a running tile-level kernel:
agents (threads and their copy-engine lanes), vector clocks with a proxy-fence entry
per thread, and shadow memory per granule.  See docs/semantics.md, "The race
detector" and "What the hardware guarantees"."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
from xdsl.ir import Operation

from tilepipe.core.diagnostics import SourceLocation, op_location

from tilepipe.semantics.memory import Buffer, Region

WARP = 32
NEVER = np.iinfo(np.int32).max  # an event no fence reaches


@dataclass(frozen=True)
class AccessSite:
    """One side of a race: an op instance, the agent and how it touched memory."""

    op: Operation
    location: SourceLocation | None
    iteration: tuple[tuple[str, int], ...]
    agent: str
    mode: str  # "read" | "write" | "atomic add"

    def __str__(self) -> str:
        where = f"{self.location}" if self.location else "<unknown location>"
        text = f"{self.mode} by {self.agent} in '{self.op.name}' at {where}"
        if self.iteration:
            text += " (" + ", ".join(f"{n} = {v}" for n, v in self.iteration) + ")"
        return text


@dataclass(frozen=True)
class Race:
    """Two accesses to the same bytes, at least one a write, unordered by
    happens-before.  ``first`` is the earlier one in the interpreter's run."""

    kind: str  # "RAW" | "WAR" | "WAW" (named after the second access)
    buffer: str
    element: tuple[int, ...]  # of the second access's buffer
    block: tuple[int, ...]
    first: AccessSite
    second: AccessSite
    between_blocks: bool = False  # first and second ran in different blocks
    across_proxies: bool = False  # ordered, but no proxy fence between the two

    def __str__(self) -> str:
        index = ", ".join(str(i) for i in self.element)
        block = ", ".join(str(b) for b in self.block)
        if self.between_blocks:
            reason = "blocks never synchronize"
        elif self.across_proxies:
            reason = (
                "a generic-proxy access, then an async-proxy one: no fence.proxy.async "
                "of the first's thread orders them"
            )
        else:
            reason = "no barrier, wait or mbarrier phase orders them"
        return (
            f"race ({self.kind}) on {self.buffer}[{index}] in block ({block}):\n"
            f"  first:  {self.first}\n"
            f"  second: {self.second}\n"
            f"  {reason}"
        )


@dataclass(frozen=True)
class Agents:
    """Who performs each element of one access.

    ``threads``: the thread of each element (shape = region), or None for "every
    thread" (gemm operands).  ``engine``: performed by those threads' copy engines.
    """

    threads: np.ndarray | None
    engine: bool = False
    async_proxy: bool = False  # a bulk copy's write of shared memory
    # An atomic read-modify-write of each element (tile.atomic_add's destination):
    # unordered against other atomic updates, it does not race with them.
    atomic: bool = False


@dataclass
class _Event:
    op: Operation
    iteration: tuple[tuple[str, int], ...]


class _Shadow:
    """Per-granule access history of one allocation."""

    def __init__(self, granules: int, granule: int, threads: int, dense_reads: bool):
        self.granule = granule
        self.write_agent = np.full(granules, -1, dtype=np.int32)
        self.write_event = np.zeros(granules, dtype=np.int32)
        self.write_async = np.zeros(granules, dtype=bool)  # by the async proxy
        # The first event at which a proxy fence of the writer's thread orders the
        # write: the write itself, or for a cp.async the wait that lands it (the copy
        # is performed for its thread only then; a fence before the wait does not
        # order it).  Never landed: no fence orders it.
        self.fence_after = np.zeros(granules, dtype=np.int32)
        self.dense_reads = dense_reads
        # The last atomic update since the last plain write, kept apart from the
        # plain writes: atomic updates do not conflict with each other, so they must
        # not hide a plain write from a later atomic one (only the last is kept, as
        # for plain writes).
        self.atomic_agent = np.full(granules, -1, dtype=np.int32)
        self.atomic_event = np.zeros(granules, dtype=np.int32)
        # The latest read was through the async proxy (a wgmma's operand read): an
        # async-proxy write after it needs no proxy fence, only the ordering.
        self.read_async = np.zeros(granules, dtype=bool)
        if dense_reads:
            # On-chip memory is only read by threads (async and bulk copies read
            # off-chip sources): one column per thread, plus the latest read of any
            # thread as a fast filter.
            self.read_event = np.zeros((granules, threads), dtype=np.int32)
            self.latest_read = np.zeros(granules, dtype=np.int32)
        else:
            self.last_reader = np.full(granules, -1, dtype=np.int32)
            self.last_read_event = np.zeros(granules, dtype=np.int32)

    def refine(self, factor: int) -> None:
        """Split every granule in ``factor`` (a view with a smaller element appeared)."""
        for name in (
            "write_agent", "write_event", "write_async", "fence_after", "read_event", "latest_read",
            "read_async",
            "last_reader", "last_read_event", "atomic_agent", "atomic_event",
        ):
            if hasattr(self, name):
                setattr(self, name, np.repeat(getattr(self, name), factor, axis=0))
        self.granule //= factor


@dataclass
class RaceTracker:
    threads: int
    block: tuple[int, ...] = ()
    races: list[Race] = field(default_factory=list)

    def __post_init__(self) -> None:
        # Threads, their copy engine lanes, their proxy fences.
        self.agents = 3 * self.threads
        # clocks[t, a]: the last event of agent a that thread t has synchronized with.
        self.clocks = np.zeros((self.threads, self.agents), dtype=np.int32)
        self.events: list[_Event | None] = [None]
        self._reported: set[tuple[str, int, int, int, bool]] = set()

    # -- events and synchronization

    def begin_event(
        self, op: Operation, iteration: tuple[tuple[str, int], ...], threads=None
    ) -> int:
        """A new op instance executed by ``threads`` (default: all); its number."""
        event = len(self.events)
        self.events.append(_Event(op, iteration))
        rows = np.arange(self.threads) if threads is None else np.asarray(threads)
        self.clocks[rows, rows] = event
        return event

    def proxy_fence(self, event: int, threads=None) -> None:
        """``threads`` (default: all) execute ``fence.proxy.async`` as ``event``."""
        rows = np.arange(self.threads) if threads is None else np.asarray(threads)
        self.clocks[rows, 2 * self.threads + rows] = event

    def barrier(self, threads: int | None = None) -> None:
        """Threads ``0 .. threads-1`` (default all) wait for each other."""
        rows = slice(0, self.threads if threads is None else threads)
        self.clocks[rows] = self.clocks[rows].max(axis=0)

    def thread_clock(self, thread: int) -> np.ndarray:
        return self.clocks[thread].copy()

    def acquire(self, clock: np.ndarray, threads=None) -> None:
        """Every thread (or ``threads``) learns everything ``clock`` knows."""
        rows = slice(None) if threads is None else threads
        np.maximum(self.clocks[rows], clock, out=self.clocks[rows])

    def engine_completed(self, threads: np.ndarray, event: int) -> None:
        """The copies of ``event`` issued by ``threads`` are complete for them."""
        threads = np.unique(threads)
        lanes = self.threads + threads
        self.clocks[threads, lanes] = np.maximum(self.clocks[threads, lanes], event)

    def engine_lane_clock(self, thread: int, event: int) -> np.ndarray:
        """The clock that completing ``event`` on ``thread``'s engine lane publishes."""
        clock = np.zeros(self.agents, dtype=np.int32)
        clock[self.threads + thread] = event
        return clock

    # -- accesses

    def access(
        self,
        event: int,
        buffer: Buffer,
        region: Region,
        *,
        reads: bool,
        writes: bool,
        agents: Agents,
    ) -> None:
        if buffer.space.is_thread_private:
            return
        if region.clipped:  # a boundary tile: only its in-bounds elements are accessed
            inside = region.tile_slices()
            if agents.threads is not None:
                agents = replace(agents, threads=agents.threads[inside])
            region = region.inside()
        shadow = self._shadow(buffer)
        per_element, granules = self._granules(shadow, buffer, region)
        if agents.threads is None:
            rows = None
            recorded = None
        else:
            rows = np.repeat(agents.threads.reshape(-1), per_element)
            recorded = rows + self.threads if agents.engine else rows
        position = np.arange(granules.size) // per_element  # element of each granule
        proxy = agents.async_proxy
        if agents.atomic:
            self._atomic_update(
                event, buffer, region, shadow, granules, rows, position, recorded, agents
            )
            return
        self._check_atomic_updates(
            event, buffer, region, shadow, granules, rows, position, writes
        )
        self._check_writes(
            event, buffer, region, shadow, granules, rows, position, writes, agents.engine,
            proxy,
        )
        if writes:
            self._check_reads(
                event, buffer, region, shadow, granules, rows, position, agents.engine,
                proxy,
            )
            shadow.write_agent[granules] = recorded if recorded is not None else 0
            shadow.write_event[granules] = event
            shadow.write_async[granules] = agents.async_proxy
            shadow.fence_after[granules] = NEVER if agents.engine else event
            shadow.atomic_agent[granules] = -1
            if shadow.dense_reads:
                shadow.read_event[granules] = 0
                shadow.latest_read[granules] = 0
            else:
                shadow.last_reader[granules] = -1
        elif reads:
            shadow.read_async[granules] = agents.async_proxy
            if shadow.dense_reads:
                if agents.engine:
                    raise NotImplementedError(
                        "an async copy reading on-chip memory is not modeled"
                    )
                if recorded is None:
                    shadow.read_event[granules] = event
                else:
                    shadow.read_event[granules, recorded] = event
                shadow.latest_read[granules] = event
            else:
                shadow.last_reader[granules] = recorded if recorded is not None else 0
                shadow.last_read_event[granules] = event

    def _atomic_update(
        self, event, buffer, region, shadow, granules, rows, position, recorded, agents
    ) -> None:
        """An atomic read-modify-write of every element: it races with unordered
        plain writes and reads, not with other atomic updates, and it leaves the
        plain accesses' history as it is (a later atomic update from another thread
        must still be ordered after them)."""
        self._check_writes(
            event, buffer, region, shadow, granules, rows, position, True, agents.engine,
            False, mode="atomic add",
        )
        self._check_reads(
            event, buffer, region, shadow, granules, rows, position, agents.engine, False,
            mode="atomic add",
        )
        shadow.atomic_agent[granules] = recorded if recorded is not None else 0
        shadow.atomic_event[granules] = event

    def _check_atomic_updates(
        self, event, buffer, region, shadow, granules, rows, position, writes
    ) -> None:
        """A plain access against the last atomic update of its granules."""
        updater = shadow.atomic_agent[granules]
        updated = updater >= 0
        if not updated.any():
            return
        update_event = shadow.atomic_event[granules]
        unordered = updated & (self._known(rows, np.maximum(updater, 0)) < update_event)
        if unordered.any():
            self._report(
                "WAW" if writes else "RAW", event, buffer, region, unordered, updater,
                update_event, rows, position, "atomic add",
                "write" if writes else "read", False,
            )

    def exit_with_copy_in_flight(
        self, exit_op: Operation, copy_event: int, buffer: Buffer, region: Region,
        thread: int,
    ) -> None:
        """The block exits while the cp.async of ``copy_event`` (issued by ``thread``,
        among others) is still in flight: the exit releases the bytes it writes, so
        the two race (WAW; no wait landed the copy, or it would not be in flight)."""
        issue = self.events[copy_event]
        assert issue is not None
        self.races.append(
            Race(
                "WAW", buffer.name, tuple(region.starts), self.block,
                AccessSite(issue.op, op_location(issue.op), issue.iteration,
                           self._agent_name(self.threads + thread), "write"),
                AccessSite(exit_op, op_location(exit_op), (), f"thread {thread} (exit)",
                           "write"),
            )
        )

    def async_landed(self, buffer: Buffer, region: Region, copy_event: int) -> None:
        """A cp.async of ``copy_event`` lands now (its group was waited for): from the
        next event on, a proxy fence of its thread orders its write."""
        if region.clipped:
            region = region.inside()
        shadow = self._shadow(buffer)
        _, granules = self._granules(shadow, buffer, region)
        mine = granules[shadow.write_event[granules] == copy_event]
        shadow.fence_after[mine] = len(self.events)

    @staticmethod
    def _granules(shadow: _Shadow, buffer: Buffer, region: Region) -> tuple[int, np.ndarray]:
        g = shadow.granule
        per_element = buffer.element.itemsize // g
        granules = (
            buffer.byte_offsets(region).reshape(-1, 1) // g + np.arange(per_element)
        ).reshape(-1)
        return per_element, granules

    def _shadow(self, buffer: Buffer) -> _Shadow:
        allocation = buffer.allocation
        granule = math.gcd(allocation.granule, buffer.element.itemsize, buffer.byte_offset)
        allocation.granule = granule
        shadow = allocation.shadow
        if not isinstance(shadow, _Shadow):
            shadow = _Shadow(
                allocation.nbytes // granule,
                granule,
                self.threads,
                dense_reads=not allocation.space.is_off_chip,
            )
            allocation.shadow = shadow
        elif shadow.granule != granule:
            shadow.refine(shadow.granule // granule)
        return shadow

    def _known(self, rows: np.ndarray | None, agents: np.ndarray) -> np.ndarray:
        """What the accessing thread(s) know of ``agents``' clocks (all threads: the
        least any of them knows)."""
        if rows is None:
            return self.clocks.min(axis=0)[agents]
        return self.clocks[rows, agents]

    def _check_writes(
        self, event, buffer, region, shadow, granules, rows, position, writes, engine,
        proxy, mode: str | None = None,
    ):
        writer = shadow.write_agent[granules]
        written = writer >= 0
        if not written.any():
            return
        agent = np.maximum(writer, 0)
        write_event = shadow.write_event[granules]
        unordered = written & (self._known(rows, agent) < write_event)
        unfenced = None
        if proxy:
            # A generic write (a thread's, or a cp.async its engine lane performed)
            # needs a later fence of that thread (entry 2T + t).
            by_thread = written & (writer < 2 * self.threads) & ~shadow.write_async[granules]
            fence = np.where(by_thread, agent % self.threads + 2 * self.threads, agent)
            fence_after = shadow.fence_after[granules]
            unfenced = by_thread & ~unordered & (self._known(rows, fence) < fence_after)
            unordered |= unfenced
        if unordered.any():
            kind = "WAW" if writes else "RAW"
            self._report(
                kind, event, buffer, region, unordered, writer,
                write_event, rows, position, "write",
                mode or ("write" if writes else "read"), engine, unfenced,
            )

    def _check_reads(
        self, event, buffer, region, shadow, granules, rows, position, engine, proxy,
        mode: str = "write",
    ):
        unfenced = None
        if shadow.dense_reads:
            # Only granules read after the accessing thread's last synchronization
            # with every thread (with its last proxy fence, for an async-proxy write)
            # can hold an unordered read.
            first = 2 * self.threads if proxy else 0
            thread_clocks = self.clocks[:, first : first + self.threads]
            floor = thread_clocks.min(axis=1)
            floor = floor.min() if rows is None else floor[rows]
            candidates = np.flatnonzero(shadow.latest_read[granules] > floor)
            if not candidates.size:
                return
            read_events = shadow.read_event[granules[candidates]]
            known = (
                thread_clocks.min(axis=0)[None, :]
                if rows is None
                else thread_clocks[rows[candidates]]
            )
            late = read_events > known
            unordered = np.zeros(granules.size, dtype=bool)
            unordered[candidates] = late.any(axis=1)
            if not unordered.any():
                return
            if proxy:  # which of them a barrier orders: races across proxies only
                plain = self.clocks[:, : self.threads]
                plain_known = plain.min(axis=0)[None, :] if rows is None else plain[rows[candidates]]
                unfenced = np.zeros(granules.size, dtype=bool)
                unfenced[candidates] = ~(read_events > plain_known).any(axis=1)
                # Async-proxy reads (wgmma's) need no fence before an async write.
                unordered &= ~(unfenced & shadow.read_async[granules])
                unfenced &= unordered
                if not unordered.any():
                    return
            reader = np.zeros(granules.size, dtype=np.int64)
            reader[candidates] = late.argmax(axis=1)
            first_event = np.zeros(granules.size, dtype=np.int32)
            first_event[candidates] = read_events[np.arange(candidates.size), reader[candidates]]
        else:
            reader = shadow.last_reader[granules]
            first_event = shadow.last_read_event[granules]
            unordered = (reader >= 0) & (
                self._known(rows, np.maximum(reader, 0)) < first_event
            )
            if not unordered.any():
                return
        self._report(
            "WAR", event, buffer, region, unordered, reader, first_event, rows,
            position, "read", mode, engine, unfenced,
        )

    # -- reports

    def _agent_name(self, agent: int) -> str:
        if agent >= self.threads:
            return f"the async copy engine (thread {agent - self.threads})"
        return f"thread {agent}"

    def _report(
        self, kind, event, buffer, region, unordered, first_agent, first_event, rows,
        position, first_mode, second_mode, engine, unfenced=None,
    ) -> None:
        hits = np.flatnonzero(unordered)
        _, first_hits = np.unique(first_event[hits], return_index=True)
        for h in hits[first_hits]:
            across_proxies = unfenced is not None and bool(unfenced[h])
            key = (kind, int(first_event[h]), event, buffer.allocation.id, across_proxies)
            if key in self._reported:
                continue
            self._reported.add(key)
            element = np.unravel_index(position[h], region.sizes)
            index = tuple(int(s + e) for s, e in zip(region.starts, element))
            if rows is None:  # name a thread that does not know the first access
                unaware = int(self.clocks[:, first_agent[h]].argmin())
                second_agent = self._agent_name(unaware)
            else:
                second_agent = self._agent_name(int(rows[h]) + (self.threads if engine else 0))
            first = self.events[int(first_event[h])]
            second = self.events[event]
            assert first is not None and second is not None
            self.races.append(
                Race(
                    kind,
                    buffer.name,
                    index,
                    self.block,
                    AccessSite(
                        first.op, op_location(first.op), first.iteration,
                        self._agent_name(int(first_agent[h])), first_mode,
                    ),
                    AccessSite(
                        second.op, op_location(second.op), second.iteration,
                        second_agent, second_mode,
                    ),
                    across_proxies=across_proxies,
                )
            )


def cooperative_threads(sizes: tuple[int, ...], threads: int, chunk: int = 1) -> np.ndarray:
    """Chunk ``c`` of ``chunk`` consecutive elements (row-major) of a tile goes to
    thread ``c mod threads`` (the tile dialect's COOPERATIVE mapping)."""
    return ((np.arange(int(np.prod(sizes))) // chunk) % threads).reshape(sizes)


def fragment_threads(shape: tuple[int, ...], threads: int) -> np.ndarray:
    """Owner of each element of a register-fragment tile: the accumulator layout for
    matrices (as a gemm's C), elements dealt to threads otherwise."""
    if len(shape) == 2:
        return warp_tiled_threads(shape[0], shape[1], threads)
    return cooperative_threads(shape, threads)


def warp_tiled_threads(m: int, n: int, threads: int) -> np.ndarray:
    """The owning thread of each element of an ``m x n`` accumulator (row blocks per
    warp, lanes dealt row-major within the block)."""
    warps = max(threads // WARP, 1)
    rows = np.arange(m)
    warp = rows * warps // m
    local_row = rows - (warp * m + warps - 1) // warps
    lane = (local_row[:, None] * n + np.arange(n)[None, :]) % WARP
    return warp[:, None] * WARP + lane
