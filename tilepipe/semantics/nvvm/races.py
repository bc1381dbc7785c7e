"""Race detectors of the NVVM interpreter (``interp.py``): which thread last wrote
and which threads read each byte since the last barrier they took part in.

* :class:`SharedRaceDetector` -- the block's shared memory, every reader kept (a
  partial barrier forgets only its participants' reads);
  it also keeps the proxy of every thread's accesses (below), and the order that
  mbarriers give (:class:`Release`: an arrival releases, a completed wait acquires);
* :class:`GlobalRaceDetector` -- one kernel argument the kernel writes.  The threads of
  a block reach global memory in parallel too (a fragment stored to global memory and
  loaded back in another thread mapping races without a barrier between), but global
  buffers are large: the readers of a byte are kept as "none, thread t, or several"
  (exact for the question a write asks: did another thread read it?), and entries are
  stamped with an epoch that a barrier or a new block advances instead of clearing
  the arrays.  Atomic updates (``llvm.atomicrmw``) are kept apart, as "none,
  thread t, or several" too: they race with other threads' plain reads and writes,
  not with each other.  Races between blocks are ``grid_races``' business, not this
  one's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.ir import Block, BlockArgument, Operation

from tilepipe.core.diagnostics import op_location

SEVERAL = -2  # GlobalRaceDetector.reader: more than one thread read the byte

# How a thread's last generic-proxy access of a byte stands towards later async-proxy
# accesses (bulk copies, their mbarrier complete_tx).  PTX orders the two proxies only
# through a ``fence.proxy.async`` of the accessing thread that is itself ordered before
# the async access (by a barrier, for another thread).
PROXY_ORDERED = 0
PROXY_FENCED = 1  # fenced; ordered for the fencing thread only, until a barrier
PROXY_UNFENCED = 2


class ProxyClock:
    """The proxy state of every (byte, thread), kept as times so that a fence or a
    barrier costs one entry per thread instead of a pass over every byte.

    ``generic[byte, thread]`` is the time of the thread's last generic access of the
    byte (0: none); ``fenced[thread]`` the time of its last ``fence.proxy.async``;
    ``ordered[thread]`` the time up to which its accesses are ordered (its last fence
    that a barrier it took part in followed).  An access is then ORDERED if its time
    is at most ``ordered``, FENCED if at most ``fenced``, else UNFENCED.  Times are
    16-bit (a kernel's shared memory times its threads entries); when the clock runs
    out they are rebased onto the three states."""

    LIMIT = np.iinfo(np.uint16).max

    def __init__(self, size: int, threads: int):
        self.generic = np.zeros((size, threads), np.uint16)
        # The last generic *write*: an async-proxy read (a wgmma's operand) conflicts
        # only with writes; two reads need no ordering between the proxies.
        self.generic_writes = np.zeros((size, threads), np.uint16)
        self.fenced = np.zeros(threads, np.uint16)
        self.ordered = np.zeros(threads, np.uint16)
        self.clock = 0
        self.rebases = 0  # times kept elsewhere (``Release``) are stale after one

    def _tick(self) -> int:
        if self.clock == self.LIMIT:
            self._rebase()
        self.clock += 1
        return self.clock

    def _rebase(self) -> None:
        self.rebases += 1
        state = self.states(slice(None))
        write_state = self.states(slice(None), writes_only=True)
        self.generic[:] = state  # ORDERED 0, FENCED 1, UNFENCED 2
        self.generic_writes[:] = write_state
        self.fenced[:] = PROXY_FENCED
        self.ordered[:] = PROXY_ORDERED
        self.clock = PROXY_UNFENCED

    def access(self, byte: np.ndarray, thread: np.ndarray, write: bool) -> None:
        time = self._tick()
        self.generic[byte, thread] = time
        if write:
            self.generic_writes[byte, thread] = time

    def fence(self, threads: np.ndarray) -> None:
        self.fenced[threads] = self._tick()

    def barrier(self, threads: np.ndarray | slice) -> None:
        self.ordered[threads] = self.fenced[threads]

    def acquire(self, release: Release) -> None:
        """A wait observed ``release``'s phase: the arriving threads' fenced generic
        accesses are ordered before async-proxy accesses from now on.  Kept per
        accessed thread, not per observer (as a barrier's): only the waiting thread's
        later async accesses are ordered in PTX, so another thread's may be missed."""
        fenced = release.fenced
        if release.rebases != self.rebases:
            fenced = _fenced_before_rebase(fenced)
        np.maximum(self.ordered, fenced, out=self.ordered)

    def states(self, byte: np.ndarray | slice, writes_only: bool = False) -> np.ndarray:
        """The state of ``byte``'s rows, every thread (``PROXY_*``), as to the last
        generic access (``writes_only``: the last generic write)."""
        times = (self.generic_writes if writes_only else self.generic)[byte]
        state = np.full(times.shape, PROXY_UNFENCED, np.int8)
        state[times <= self.fenced] = PROXY_FENCED
        state[times <= self.ordered] = PROXY_ORDERED
        return state


@dataclass
class Release:
    """What the arrivals on one mbarrier phase release: ``known[t]``, the newest epoch
    of thread ``t`` whose accesses are ordered before the phase's completion, and
    ``fenced[t]``, the time (``ProxyClock``) of ``t``'s last ``fence.proxy.async``
    before its arrival; ``rebases``: the proxy clock's rebases then."""

    known: np.ndarray
    fenced: np.ndarray
    rebases: int

    def join(self, other: Release) -> Release:
        if other.rebases != self.rebases:  # the older one's times are stale
            older, newer = (self, other) if self.rebases < other.rebases else (other, self)
            older = Release(older.known, _fenced_before_rebase(older.fenced), newer.rebases)
            self, other = older, newer
        return Release(np.maximum(self.known, other.known), np.maximum(self.fenced, other.fenced), self.rebases)


def _fenced_before_rebase(fenced: np.ndarray) -> np.ndarray:
    """Fence times from before a proxy-clock rebase, as the rebased clock reads them:
    every fenced access became PROXY_FENCED."""
    return np.where(fenced > 0, PROXY_FENCED, 0).astype(fenced.dtype)


class RaceFound(Exception):
    """Raised by a detector asked to stop at its first race (``first_race_stops``)."""

    def __init__(self, report: str):
        super().__init__(report)
        self.report = report


@dataclass
class SharedRaceDetector:
    """Last writer and readers of each shared byte since the last barrier."""

    size: int
    threads: int
    races: list[str] = field(default_factory=list)
    reported: set = field(default_factory=set)
    # Stop the run at the first race (raise RaceFound): a mutation test asks only
    # whether there is one.
    first_race_stops: bool = False

    # Epochs are 16-bit (a kernel's shared memory times its threads entries); a
    # thread's epochs are renumbered when it runs out (``_renumber``).
    EPOCH_LIMIT = int(np.iinfo(np.uint16).max)

    def __post_init__(self) -> None:
        self.writer = np.full(self.size, -1, np.int32)
        self.writer_op = np.full(self.size, -1, np.int32)  # index into self.ops
        self.ops: list[Operation] = []
        # Happens-before beyond barriers, through mbarriers: each thread's accesses are
        # stamped with its epoch, which each of its releases (an mbarrier arrival, a
        # bulk copy completing bytes) advances; ``known[o, t]`` is the newest epoch of
        # thread ``t`` that thread ``o`` has acquired (by a wait that observed a phase
        # ``t`` released into).  A prior access conflicts only if its stamp is newer
        # than what the accessing thread knows; a barrier still forgets its
        # participants' accesses outright.  The readers of a byte are its readers'
        # stamps (0: none since the last barrier).
        self.readers = np.zeros((self.size, self.threads), np.uint16)
        self.writer_epoch = np.zeros(self.size, np.uint16)
        self.epoch = np.ones(self.threads, np.int64)
        self.known = np.zeros((self.threads, self.threads), np.int64)
        self.ordering = False  # some wait acquired (else ``known`` is all 0)
        # mbarrier offset -> [what its current phase's arrivals release, what its last
        # completed phase released]
        self.phases: dict[int, list[Release | None]] = {}
        # Bytes holding an initialised mbarrier: until an mbarrier.inval (which
        # tilepipe never emits: the arena keeps mbarriers live for the whole kernel)
        # no other write may reuse them (PTX ISA, "mbarrier.inval").
        self.mbarrier = np.zeros(self.size, bool)
        # Bytes a cp.async has been issued to and not yet landed (its issuing thread
        # has not waited for its group): the write is still happening, so no barrier
        # orders it, and every access to them -- the issuing thread's too -- races.
        self.in_flight = np.zeros(self.size, bool)
        # Bytes an unretired wgmma reads (its group not yet waited for): no write may
        # touch them, whatever barriers lie between.
        self.async_reads = np.zeros(self.size, bool)
        self.proxy = ProxyClock(self.size, self.threads)

    def access(
        self, op: Operation, threads: np.ndarray, starts: np.ndarray, nbytes: int,
        write: bool, proxy: str | None = "generic",
    ) -> None:
        """``threads[i]`` touches bytes ``starts[i] .. starts[i] + nbytes`` through the
        ``generic`` or ``async`` proxy (None: an mbarrier's own arrive/wait, which
        the proxies do not order)."""
        if threads.size == 0:
            return
        byte = (starts[:, None] + np.arange(nbytes)[None, :]).ravel()
        thread = np.repeat(threads, nbytes)
        if proxy == "async":
            self._check_async_proxy(op, byte, thread, write)
        elif proxy == "generic":
            self.proxy.access(byte, thread, write)
        writer = self.writer[byte]
        unordered = self.writer_epoch[byte] > self.known[thread, np.maximum(writer, 0)]
        against_write = (writer >= 0) & (((writer != thread) & unordered) | self.in_flight[byte])
        against_read = np.zeros_like(against_write)
        if write and self.async_reads[byte].any():
            i = int(np.flatnonzero(self.async_reads[byte])[0])
            self._report(
                op, int(byte[i]), None,
                f"thread {thread[i]} overwrites what a wgmma still reads "
                "(no wgmma.wait_group retired it)",
            )
        if write and op.name != "nvvm.mbarrier.init" and self.mbarrier[byte].any():
            i = int(np.flatnonzero(self.mbarrier[byte])[0])
            self._report(op, int(byte[i]), None, "overwrites a live mbarrier (no mbarrier.inval)")
        if write:
            others = self._unordered_reads(byte, thread)
            others[np.arange(byte.size), thread] = False
            against_read = others.any(axis=1)
            if (both := written_twice(byte, thread)) is not None:
                self._report(op, both, None, "two threads write it at once")
        if against_write.any():
            i = int(np.flatnonzero(against_write)[0])
            previous = self.ops[self.writer_op[byte[i]]]
            self._report(
                op, int(byte[i]), previous,
                f"thread {thread[i]} vs a write by thread {writer[i]} in '{previous.name}' "
                f"at {op_location(previous)}",
            )
        elif against_read.any():
            i = int(np.flatnonzero(against_read)[0])
            self._report(op, int(byte[i]), None, f"thread {thread[i]} writes what another thread read")
        if write:
            self.writer[byte] = thread
            self.writer_epoch[byte] = self.epoch[thread]
            self.ops.append(op)
            self.writer_op[byte] = len(self.ops) - 1
        else:
            self.readers[byte, thread] = self.epoch[thread]

    def _unordered_reads(self, byte: np.ndarray, thread: np.ndarray) -> np.ndarray:
        """``(bytes, threads)``: which threads read each byte in an access that the
        accessing thread of the byte is not ordered after."""
        stamps = self.readers[byte]
        if not self.ordering:
            return stamps != 0
        if (thread == thread[0]).all():  # one thread (a bulk copy): one row of known
            return stamps > self.known[thread[0]]
        return stamps > self.known[thread]

    def async_proxy_access(self, op: Operation, thread: int, start: int, nbytes: int) -> None:
        """``thread``'s async-proxy access (an mbarrier complete_tx) that no other
        access races with: only its order after generic accesses is checked."""
        byte = np.arange(start, start + nbytes)
        self._check_async_proxy(op, byte, np.full(byte.size, thread), True)

    def _check_async_proxy(self, op: Operation, byte: np.ndarray, thread: np.ndarray,
                           write: bool) -> None:
        """An async-proxy write must follow every generic access of its bytes through a
        fence; an async-proxy read, every generic write (reads do not conflict)."""
        state = self.proxy.states(byte, writes_only=not write)
        unfenced = state == PROXY_UNFENCED
        # Another thread's fence orders its accesses only once a barrier follows it.
        others = state == PROXY_FENCED
        others[np.arange(byte.size), thread] = False
        bad = (unfenced | others).any(axis=1)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            other = int(np.flatnonzero(unfenced[i] | others[i])[0])
            self._report(
                op, int(byte[i]), None,
                f"thread {thread[i]} accesses through the async proxy what thread {other} "
                "accessed through the generic proxy, with no fence.proxy.async of that "
                "thread (then a barrier) between them",
            )

    def proxy_fence(self, threads: np.ndarray) -> None:
        """``threads`` execute ``fence.proxy.async``."""
        self.proxy.fence(threads)

    def _report(self, op: Operation, byte: int, other: Operation | None, message: str) -> None:
        key = (
            str(op_location(op)),
            op.name,
            str(op_location(other)) if other is not None else message.split(" ", 2)[-1],
        )
        if key in self.reported:
            return  # one report per pair of source ops
        self.reported.add(key)
        self.races.append(
            f"{op_location(op) or '<unknown>'}: race on shared byte {byte} in '{op.name}': {message}"
        )
        if self.first_race_stops:
            raise RaceFound(self.races[-1])

    # ------------------------------------------------------------------ mbarriers

    def init_mbarrier(self, offset: int) -> None:
        """An (re-)initialised mbarrier releases nothing yet."""
        self.phases[offset] = [None, None]

    def release(self, offset: int, threads: np.ndarray) -> None:
        """``threads`` arrive on the current phase of the mbarrier at ``offset`` (or
        complete bytes on it): their accesses so far, and all they know of other
        threads', are ordered before the waits that observe the phase complete."""
        threads = np.unique(threads)
        known = self.known[threads].max(axis=0)
        known[threads] = self.epoch[threads]
        fenced = np.zeros(self.threads, np.uint16)
        fenced[threads] = self.proxy.fenced[threads]
        release = Release(known, fenced, self.proxy.rebases)
        phases = self.phases.setdefault(offset, [None, None])
        phases[0] = release if phases[0] is None else phases[0].join(release)
        self.epoch[threads] += 1
        for thread in threads[self.epoch[threads] >= self.EPOCH_LIMIT]:
            self._renumber(int(thread))

    def phase_completed(self, offset: int) -> None:
        phases = self.phases.setdefault(offset, [None, None])
        phases[1], phases[0] = phases[0], None

    def acquire(self, offset: int, threads: np.ndarray) -> None:
        """``threads``' wait observed the last completed phase of the mbarrier at
        ``offset``: what its arrivals released is ordered before their later accesses."""
        release = self.phases.get(offset, [None, None])[1]
        if release is None or threads.size == 0:
            return
        self.known[threads] = np.maximum(self.known[threads], release.known)
        self.proxy.acquire(release)
        self.ordering = True

    def retire_async_read(self, threads: np.ndarray, starts: np.ndarray) -> None:
        """A wgmma of ``threads`` read the 2-byte elements at ``starts`` until it was
        retired, now: a release between its issue and now does not order the reads."""
        byte = np.concatenate([starts, starts + 1])
        self.readers[np.ix_(byte, threads)] = self.epoch[threads].astype(np.uint16)

    def _renumber(self, thread: int) -> None:
        """``thread``'s epoch reached the limit: renumber its stamps by their rank among
        the epochs of it that anyone knows (all a stamp is compared with)."""
        held = [self.known[:, thread], self.epoch[thread : thread + 1], np.zeros(1, np.int64)]
        releases = [r for pair in self.phases.values() for r in pair if r is not None]
        held += [r.known[thread : thread + 1] for r in releases]
        ranks = np.unique(np.concatenate(held))

        def rank(values: np.ndarray) -> np.ndarray:
            return np.searchsorted(ranks, values, "left")

        self.readers[:, thread] = rank(self.readers[:, thread])
        mine = self.writer == thread
        self.writer_epoch[mine] = rank(self.writer_epoch[mine])
        self.known[:, thread] = rank(self.known[:, thread])
        for release in releases:
            release.known[thread] = rank(release.known[thread])
        self.epoch[thread] = rank(self.epoch[thread])

    def async_write(self, starts: np.ndarray, nbytes: int, in_flight: bool) -> None:
        """A cp.async to ``starts[i] .. + nbytes`` is issued (True) or lands (False)."""
        self.in_flight[(starts.reshape(-1, 1) + np.arange(nbytes)).ravel()] = in_flight

    def async_read(self, starts: np.ndarray, in_flight: bool) -> None:
        """A wgmma reads the 2-byte elements at ``starts`` from now on (True) or has
        been retired (False)."""
        self.async_reads[starts] = in_flight
        self.async_reads[starts + 1] = in_flight

    def barrier(self, threads: np.ndarray | None) -> None:
        done = ~self.in_flight
        if threads is None:
            self.writer[done] = -1
            self.readers[:] = 0
            self.proxy.barrier(slice(None))
            if self.ordering:
                self.known[:] = self.known.max(axis=0)
            return
        self.proxy.barrier(threads)
        self.writer[np.isin(self.writer, threads) & done] = -1
        self.readers[:, threads] = 0
        # What one participant acquired through an mbarrier, all of them know now.
        if self.ordering:
            self.known[threads] = self.known[threads].max(axis=0)


class GlobalRaceDetector:
    """Last writer and reader(s) of each byte of one global argument in the current
    barrier interval of the current block."""

    def __init__(self, name: str, size: int, first_race_stops: bool = False):
        self.name = name
        self.first_race_stops = first_race_stops
        self.epoch = 1
        self.writer = np.full(size, -1, np.int32)
        self.writer_op = np.full(size, -1, np.int32)
        self.writer_epoch = np.zeros(size, np.int32)
        self.reader = np.full(size, -1, np.int32)
        self.reader_epoch = np.zeros(size, np.int32)
        self.updater = np.full(size, -1, np.int32)  # atomic updates: a thread or SEVERAL
        self.updater_epoch = np.zeros(size, np.int32)
        self.ops: list[Operation] = []
        self.races: list[str] = []
        self.reported: set = set()

    def begin_block(self) -> None:
        """A new block: nothing it does is ordered against its predecessor's accesses
        here (that is ``grid_races``' question)."""
        self.epoch += 1

    def barrier(self, threads: np.ndarray | None) -> None:
        if threads is None:
            self.epoch += 1
            return
        # A partial barrier: forget its participants' accesses (several readers are
        # forgotten too -- this can only miss races, as for shared memory).
        live = self.writer_epoch == self.epoch
        self.writer_epoch[live & np.isin(self.writer, threads)] = 0
        live = self.reader_epoch == self.epoch
        self.reader_epoch[live & (np.isin(self.reader, threads) | (self.reader == SEVERAL))] = 0
        live = self.updater_epoch == self.epoch
        self.updater_epoch[live & (np.isin(self.updater, threads) | (self.updater == SEVERAL))] = 0

    def access(
        self, op: Operation, threads: np.ndarray, starts: np.ndarray, nbytes: int,
        write: bool, atomic: bool = False,
    ) -> None:
        """``threads[i]`` touches bytes ``starts[i] .. starts[i] + nbytes`` (``atomic``:
        an atomic read-modify-write, ``write`` ignored)."""
        if threads.size == 0:
            return
        byte = (starts[:, None] + np.arange(nbytes)[None, :]).ravel()
        thread = np.repeat(threads, nbytes)
        writer = np.where(self.writer_epoch[byte] == self.epoch, self.writer[byte], -1)
        reader = np.where(self.reader_epoch[byte] == self.epoch, self.reader[byte], -1)
        if atomic:
            return self._atomic_update(op, byte, thread, writer, reader)
        updater = np.where(self.updater_epoch[byte] == self.epoch, self.updater[byte], -1)
        against_update = _by_another(updater, thread)
        if against_update.any():
            i = int(np.flatnonzero(against_update)[0])
            self._report(op, int(byte[i]), f"thread {thread[i]} vs an atomic update by "
                         f"{_threads_name(int(updater[i]))}")
        against_write = (writer >= 0) & (writer != thread)
        if against_write.any():
            i = int(np.flatnonzero(against_write)[0])
            previous = self.ops[self.writer_op[byte[i]]]
            self._report(op, int(byte[i]), f"thread {thread[i]} vs a write by thread "
                         f"{writer[i]} in '{previous.name}' at {op_location(previous)}")
        elif write and (against := _by_another(reader, thread)).any():
            i = int(np.flatnonzero(against)[0])
            self._report(op, int(byte[i]), f"thread {thread[i]} writes what another thread read")
        if write:
            if (both := written_twice(byte, thread)) is not None:
                self._report(op, both, "two threads write it at once")
            self.ops.append(op)
            self.writer[byte] = thread
            self.writer_op[byte] = len(self.ops) - 1
            self.writer_epoch[byte] = self.epoch
            self.updater_epoch[byte] = 0  # (ordered after them, or reported)
            return
        self._merge_threads(self.reader, self.reader_epoch, byte, thread, reader)

    def _atomic_update(self, op, byte, thread, writer, reader) -> None:
        """Atomic updates race with another thread's plain write or read, not with
        each other (nor with one another in one access)."""
        against_write = (writer >= 0) & (writer != thread)
        against_read = _by_another(reader, thread)
        if against_write.any():
            i = int(np.flatnonzero(against_write)[0])
            previous = self.ops[self.writer_op[byte[i]]]
            self._report(op, int(byte[i]), f"atomic update by thread {thread[i]} vs a write "
                         f"by thread {writer[i]} in '{previous.name}' at {op_location(previous)}")
        elif against_read.any():
            i = int(np.flatnonzero(against_read)[0])
            self._report(op, int(byte[i]), f"thread {thread[i]} atomically updates what "
                         "another thread read")
        updater = np.where(self.updater_epoch[byte] == self.epoch, self.updater[byte], -1)
        self._merge_threads(self.updater, self.updater_epoch, byte, thread, updater)

    def _merge_threads(self, who, epochs, byte, thread, current) -> None:
        """Record ``thread[i]`` in ``who[byte[i]]`` (readers, atomic updaters): one
        thread, or SEVERAL once a second thread touches the byte (also within this
        access: the bytes are sorted so that repeats are adjacent)."""
        order = np.argsort(byte, kind="stable")
        byte, thread, current = byte[order], thread[order], current[order]
        merged = np.where((current == -1) | (current == thread), thread, SEVERAL)
        first = np.ones(byte.size, bool)
        first[1:] = byte[1:] != byte[:-1]
        group = np.cumsum(first) - 1
        distinct = np.zeros(group[-1] + 1, bool)
        np.logical_or.at(distinct, group, merged != merged[first][group])
        result = np.where(distinct[group], SEVERAL, merged)
        who[byte[first]] = result[first]
        epochs[byte[first]] = self.epoch

    def _report(self, op: Operation, byte: int, message: str) -> None:
        key = (str(op_location(op)), op.name, message.split(" ", 2)[-1])
        if key in self.reported:
            return  # one report per pair of source ops
        self.reported.add(key)
        self.races.append(
            f"{op_location(op) or '<unknown>'}: race on global byte {byte} of {self.name} "
            f"in '{op.name}': {message}"
        )
        if self.first_race_stops:
            raise RaceFound(self.races[-1])


def _by_another(who: np.ndarray, thread: np.ndarray) -> np.ndarray:
    """Which recorded accessors (a thread, SEVERAL or -1: none) include a thread
    other than ``thread``."""
    return (who == SEVERAL) | ((who >= 0) & (who != thread))


def _threads_name(who: int) -> str:
    return "several threads" if who == SEVERAL else f"thread {who}"


def written_twice(byte: np.ndarray, thread: np.ndarray) -> int | None:
    """A byte two different threads write in one access, if any."""
    order = np.argsort(byte, kind="stable")
    same = (np.diff(byte[order]) == 0) & (np.diff(thread[order]) != 0)
    return int(byte[order][1:][same][0]) if same.any() else None


# Ops that write global memory, with the operand that leads to the written argument
# (a memref, or an atomic update's pointer, through casts and views).
STORE_OPS = {"memref.store": 1, "vector.store": 1, "llvm.atomicrmw": 0}


def written_arguments(kernel: Operation) -> list[int]:
    """Indices of the kernel arguments some store writes (through casts and views):
    only those can take part in a global-memory race."""
    entry: Block = kernel.regions[0].block
    arguments = len(kernel.properties["function_type"].inputs.data)  # then workgroup memory
    written: list[int] = []
    for op in kernel.walk():
        if op.name not in STORE_OPS:
            continue
        value = op.operands[STORE_OPS[op.name]]
        while not isinstance(value, BlockArgument) and value.owner.operands:
            value = value.owner.operands[0]
        if (
            isinstance(value, BlockArgument)
            and value.block is entry
            and value.index < arguments
            and value.index not in written
        ):
            written.append(value.index)
    return sorted(written)
