"""Block-level memory hazards of a CUDA kernel at the scheduled level (docs/sync.md).

Two access entries (:mod:`access_entries`) conflict when they may touch the same
bytes and at least one writes, except (the chapter's exemptions):

* two async writes need no *barrier* between them (a barrier does not order the copy
  engine) -- but unlike TileLang, which skips such pairs, when two in-flight copies
  may hit the same bytes the first is landed by a ``wait_group`` before the second
  issues (and a barrier follows when other threads issued it): otherwise the final
  contents depend on timing, and the race detector says so;
* two atomic updates (``tile.atomic_add``'s destination): each element's
  read-modify-write is atomic, so the two need no order (an atomic update and a
  plain access of the same bytes do);
* different buffers -- after arena packing, different *byte ranges* of the arena;
* the same threads touching the same elements in the same order.  Ops touching
  register fragments follow the fragments' layouts, which the lowering chooses (mma
  accumulator layouts), so they are never exempt.

Each conflict becomes a :class:`Hazard` between an earlier and a later access: in
program order within one iteration, or loop-carried (the later one ``d`` iterations of
a common loop later).  Whether two accesses intersect and whether the same threads
touch them are :mod:`access_relations`' questions.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum

from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue

from tilepipe.core.diagnostics import op_location
from tilepipe.dialects.kernel_attrs import kernel_launch_shape
from tilepipe.dialects.pipeline_sync import BulkCopyOp
from tilepipe.dialects.pipeline_ws import WarpSpecializeOp

from tilepipe.passes.memory.arena_aliasing import underlying_buffer
from tilepipe.passes.cuda.access_entries import AccessEntry, access_entries
from tilepipe.passes.cuda.access_relations import MAX_DISTANCE, AccessRelations, common_loops
from tilepipe.passes.cuda.bulk_coverage import bulk_copy_waited
from tilepipe.passes.cuda.later_iterations import loops_run_whole
from tilepipe.passes.analysis.program_points import Relation, covering_points, precedes


class HazardKind(Enum):
    RAW = "RAW"
    WAR = "WAR"
    WAW = "WAW"


@dataclass(frozen=True, eq=False)
class Hazard:
    """``target`` may touch bytes ``source`` touched earlier; one of them writes."""

    kind: HazardKind
    source: AccessEntry
    target: AccessEntry
    relation: Relation
    needs_barrier: bool  # different threads: a block barrier must separate them
    needs_wait: bool  # the async engine performs the source: a wait_group must land it first
    threads: int  # leading threads taking part (for partial barriers)
    # A bulk (TMA) copy's data is read with no mbarrier wait on every path: only the
    # copy's mbarrier can order it (thread-sync reports it, it cannot fix it).
    needs_mbarrier_wait: bool = False

    @property
    def needs_proxy_fence(self) -> bool:
        """A generic-proxy access (a thread's, or a cp.async it issued), then an
        async-proxy access of the same bytes (a bulk copy overwriting them, a wgmma
        reading them): the source's threads must execute ``fence.proxy.async``
        between them (before the barrier that orders them before the other threads'
        access)."""
        return self.target.is_async_proxy and not self.source.is_async_proxy

    def describe(self) -> str:
        distance = (
            f", {self.relation.distance} iteration(s) later"
            if self.relation.carried_loop is not None
            else ""
        )
        return (
            f"{self.kind.value} {_op_at(self.source.op)} -> {_op_at(self.target.op)} "
            f"on {buffer_name(self.source.buffer)}{distance}"
        )


def _op_at(op: Operation) -> str:
    location = op_location(op)
    return f"{op.name} (line {location.line})" if location else op.name


def buffer_name(value: SSAValue) -> str:
    for candidate in (value, underlying_buffer(value)):
        if candidate.name_hint:
            return f"%{candidate.name_hint}"
    return "<buffer>"


# --------------------------------------------------------------------------- analysis


def thread_sync_scope(function: func.FuncOp) -> Iterator[Operation]:
    """The function's ops thread-sync analyses: all but a warp-specialized producer's
    (its copies and the ring's mbarriers belong to ``warp-specialize``, the chapter's
    §8.3 "who owns the barrier").  The consumer region is code of the kernel's own
    threads like any other; its accesses of the ring's slots are left out too
    (:func:`ring_buffers`): the ring orders them against the producer's."""
    work = list(reversed(list(function.body.ops)))
    while work:
        op = work.pop()
        yield op
        regions = op.regions
        if isinstance(op, WarpSpecializeOp):
            regions = [op.consumer]
        for region in reversed(regions):
            for block in reversed(region.blocks):
                work.extend(reversed(list(block.ops)))


def ring_buffers(function: func.FuncOp) -> set[SSAValue]:
    """The shared buffers a warp-specialized producer fills: the ring's slots."""
    return {
        op.dst  # the slot's own buffer (a view of the arena, once it is packed)
        for ws in function.body.ops if isinstance(ws, WarpSpecializeOp)
        for op in ws.producer.walk() if isinstance(op, BulkCopyOp)
    }


def consumer_role(op: Operation) -> WarpSpecializeOp | None:
    """The warp-specialized op whose consumer region holds ``op``, if any."""
    child, parent = op, op.parent_op()
    while parent is not None:
        if isinstance(parent, WarpSpecializeOp):
            return parent if parent.consumer.is_ancestor(child) else None
        child, parent = parent, parent.parent_op()
    return None


class HazardAnalysis(AccessRelations):
    """All block-level (shared- and global-memory) hazards of one kernel function."""

    def __init__(self, function: func.FuncOp):
        self.function = function
        _, threads = kernel_launch_shape(function)
        super().__init__(threads)
        ring = ring_buffers(function)
        self.entries = [
            e for op in thread_sync_scope(function) for e in access_entries(op)
            if e.buffer not in ring
        ]

    # -- pairs

    def hazards(self) -> list[Hazard]:
        found: list[Hazard] = []
        for i, x in enumerate(self.entries):
            for y in self.entries[i:]:
                if not self._may_conflict_statically(x, y):
                    continue
                for first, second in ((x, y), (y, x)) if x is not y else ((x, x),):
                    found.extend(self._pair_hazards(first, second))
        return found

    def _pair_hazards(self, x: AccessEntry, y: AccessEntry) -> list[Hazard]:
        hazards: list[Hazard] = []
        if x is not y and precedes(x.levels, y.levels):
            if (h := self._hazard(x, y, Relation())) is not None:
                hazards.append(h)
        for loop in common_loops(x.op, y.op):
            for distance in range(1, MAX_DISTANCE + 2):
                relation = Relation(loop, distance)
                if (h := self._hazard(x, y, relation)) is not None:
                    hazards.append(h)
                    break
        return hazards

    def _hazard(self, x: AccessEntry, y: AccessEntry, relation: Relation) -> Hazard | None:
        kind = _kind(x, y)
        if kind is None:
            return None
        if not self.intersect(x, y, relation):
            return None
        if x.is_bulk_write and kind is not HazardKind.WAR:
            # The data is landed by the copy's mbarrier phase; every thread that
            # waits on it sees it, so no block barrier is needed.
            waited = self._mbarrier_waited(x, y, relation)
            return None if waited else Hazard(
                kind, x, y, relation, False, False, self.threads, needs_mbarrier_wait=True
            )
        same_threads = self.same_threads(x, y, relation)
        needs_wait = x.is_async
        if same_threads and not needs_wait and not y.is_async_proxy:
            return None  # (a proxy fence is needed even within one thread)
        threads = max(x.participating_threads(self.threads), y.participating_threads(self.threads))
        return Hazard(kind, x, y, relation, not same_threads, needs_wait, threads)

    def _mbarrier_waited(self, x: AccessEntry, y: AccessEntry, relation: Relation) -> bool:
        """Is there a wait on the bulk copy's mbarrier array on every path x -> y?"""
        assert isinstance(x.op, BulkCopyOp)
        probe = Hazard(HazardKind.RAW, x, y, relation, False, False, 1)
        full = loops_run_whole(self, probe)
        points = covering_points(list(x.levels), list(y.levels), relation, full)
        pairs = self.instance_pairs(x, y, relation)
        conflicting = None if pairs is None else self.conflicting_pairs(x, y, pairs)
        return bulk_copy_waited(
            x.op, y.op, relation, points,
            lambda encoder: self.conflict(encoder, x, y, relation), conflicting,
            reach=lambda encoder: self._constraints(encoder, x, y, relation),
        )

    def _may_conflict_statically(self, x: AccessEntry, y: AccessEntry) -> bool:
        if not (x.writes or y.writes) or (x.atomic and y.atomic):
            return False
        if self.same_storage(x.buffer, y.buffer):
            return True
        slice_x, slice_y = self.slice_of(x.buffer), self.slice_of(y.buffer)
        if slice_x is not None and slice_y is not None:
            return slice_x.overlaps(slice_y)
        return underlying_buffer(x.buffer) == underlying_buffer(y.buffer)


def _kind(x: AccessEntry, y: AccessEntry) -> HazardKind | None:
    if x.writes and y.reads:
        return HazardKind.RAW
    if x.reads and y.writes:
        return HazardKind.WAR
    if x.writes and y.writes:
        return HazardKind.WAW
    return None

