"""``ascend-insert-sync``: the completion protocol between the pipes (docs/ascend.md).

Sync points come from :mod:`passes.ascend_sync_analysis`; each materializes as

* same pipe S/V/M: nothing (the pipe keeps its own order);
* same MTE/FIX pipe: ``pipe_barrier[P]`` before the consumer;
* inside an inner ``scf.for`` of the loop body: ``pipe_barrier[ALL]`` before a site
  that conflicts with a site of the same inner loop (see ``inner_loop_fences``);
* different cores: ``cross_core_set_flag[2, P]`` after the producer and
  ``cross_core_wait_flag[2, C]`` before the consumer;
* otherwise ``set_flag[P, C]`` after the producer and ``wait_flag[P, C]`` before the
  consumer, on the canonical hard event (MTE2_M -> MTE2_MTE1, ...).

Inside a loop the event id is ``epoch mod versions + base`` (one id per version of
the ring; ``base`` numbers the sync points of a hard event consecutively); the epoch
is the iteration, or for ``counter``-mode storage the count of executed epochs of its
guarded branch -- the same clock that picks the storage's slot.  A
loop-carried sync point is a ring: it is primed before its loop (``versions`` sets, so
the first iterations do not wait for iterations that never ran) and drained after it
(``versions`` waits, so no flag is left set -- this also keeps zero-trip loops
balanced); a cross-core ring is a counter, primed once per iteration of its distance.
A cross-core hand-over in a loop with no flag back gets a credit ring the other way,
so the producer never runs more than the target's ``cross_core_counter_limit`` sets
ahead of the consumer (see ``credit_points``).  Between top-level items (a loop and the code around it) the set goes right
after the producer's item and the wait right before the consumer's.

Guarded epochs: when both ends of a sync point are in one branch of an ``scf.if`` of the
loop body, its set and wait stay in that branch (skipped together, the ring stays
balanced; the slot follows the iteration).  Otherwise an end inside a guard moves to the
guard's boundary -- the set after the ``scf.if``, the wait before it -- so it runs in
every iteration whether or not the branch did.  Sync ops on a pipe both cores have
(MTE2) carry ``ascend.core``.

Ids are emitted as ``index`` values; ``ascend-flag-budget`` proves their ranges, fits
each hard event into its 8 ids and folds constant ids into static ones.  Every sync op
carries ``ascend.sync_point = "<buffer>:<raw|war|waw>"``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tilepipe.dialects.ascend_pipes import Core, Pipe
from tilepipe.dialects.ascend_sync import (
    CORE_ATTR,
    CrossCoreSetFlagOp,
    CrossCoreWaitFlagOp,
    PipeBarrierOp,
    SetFlagOp,
    WaitFlagOp,
    sync_op_core,
)

from tilepipe.passes.ascend.flag_blocks import SYNC_POINT_ATTR
from tilepipe.passes.ascend.buffer_ownership import EpochSlots, read_plan
from tilepipe.passes.ascend.resolve_core import is_ascend_kernel
from tilepipe.passes.ascend.sync_analysis import SyncKind, SyncPoint, sync_points
from tilepipe.passes.rewrite.index_arith import Index, IndexBuilder

CROSS_CORE_MODE = 2  # AIC <-> both AIVs


def _annotated(op: Operation, point: SyncPoint, core: Core) -> Operation:
    """``op`` tagged with its sync point, and with its core where its pipes leave the
    core open (MTE2, e.g. a cross-core wait before a vector core's copy-in)."""
    op.attributes[SYNC_POINT_ATTR] = StringAttr(point.edge.name)
    if sync_op_core(op) != core:
        op.attributes[CORE_ATTR] = StringAttr(core.value)
    return op


class SyncMaterializer:
    """Inserts the ops of each sync point; hands out base ids per hard event."""

    def __init__(self, kernel: FuncOp):
        self.kernel = kernel
        self.next_base: dict[str, int] = {}
        self.slots = EpochSlots()
        # Static ids join the kernel's leading constants.
        block = kernel.body.block
        first = next((o for o in block.ops if not isinstance(o, arith.ConstantOp)), None)
        where = InsertPoint.before(first) if first is not None else InsertPoint.at_end(block)
        self.kernel_builder = IndexBuilder(where)

    def _base(self, namespace: str, versions: int) -> int:
        base = self.next_base.get(namespace, 0)
        self.next_base[namespace] = base + versions
        return base

    def _ring_id(self, point: SyncPoint, base: int) -> Index:
        assert point.edge.clock is not None
        return self.slots.slot(point.edge.clock, point.versions, base)

    def _static_id(self, value: int) -> Index:
        return self.kernel_builder.value(value)

    def _make(self, point: SyncPoint, is_set: bool, id: Index) -> Operation:
        edge = point.edge
        if point.kind == SyncKind.CROSS_CORE:
            cls = CrossCoreSetFlagOp if is_set else CrossCoreWaitFlagOp
            pipe = edge.src.pipe if is_set else edge.dst.pipe
            op = cls(CROSS_CORE_MODE, pipe, id)
        else:
            op = (SetFlagOp if is_set else WaitFlagOp)(point.event, id)
        return _annotated(op, point, edge.src.core if is_set else edge.dst.core)

    def materialize(self, point: SyncPoint) -> None:
        edge = point.edge
        if point.kind == SyncKind.NONE:
            return
        if point.kind in (SyncKind.BARRIER, SyncKind.FENCE):
            pipe = Pipe.ALL if point.kind == SyncKind.FENCE else edge.src.pipe
            barrier = _annotated(PipeBarrierOp(pipe), point, edge.dst.core)
            Rewriter.insert_op(barrier, InsertPoint.before(edge.wait_anchor))
            return
        namespace = "cross_core" if point.kind == SyncKind.CROSS_CORE else str(point.event)
        base = self._base(namespace, point.versions)
        id = self._ring_id(point, base) if edge.in_loop else self._static_id(base)
        Rewriter.insert_op(self._make(point, True, id), InsertPoint.after(edge.set_anchor))
        Rewriter.insert_op(self._make(point, False, id), InsertPoint.before(edge.wait_anchor))
        if point.is_ring:
            loop = edge.src.loop
            assert loop is not None
            for prime in range(point.primes):
                version = prime % point.versions
                op = self._make(point, True, self._static_id(base + version))
                Rewriter.insert_op(op, InsertPoint.before(loop))
            for drain in reversed(range(point.primes)):
                version = drain % point.versions
                op = self._make(point, False, self._static_id(base + version))
                Rewriter.insert_op(op, InsertPoint.after(loop))


@dataclass(frozen=True)
class AscendInsertSync(ModulePass):
    """Insert flags, barriers and cross-core flags for every pipe dependence."""

    name = "ascend-insert-sync"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in op.walk():
            if isinstance(kernel, FuncOp) and is_ascend_kernel(kernel):
                _, _, points = sync_points(kernel, read_plan(kernel))
                materializer = SyncMaterializer(kernel)
                for point in points:
                    materializer.materialize(point)
