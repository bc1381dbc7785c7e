"""``ascend-insert-sync``: the completion protocol between the pipes (§4.4).

Sync points come from :mod:`passes.ascend_sync_analysis`; each materializes as

* same pipe S/V/M: nothing (the pipe keeps its own order);
* same MTE/FIX pipe: ``pipe_barrier[P]`` before the consumer;
* different cores: ``cross_core_set_flag[2, P]`` after the producer and
  ``cross_core_wait_flag[2, C]`` before the consumer;
* otherwise ``set_flag[P, C]`` after the producer and ``wait_flag[P, C]`` before the
  consumer, on the canonical hard event (MTE2_M -> MTE2_MTE1, ...).

Inside a loop the event id is ``iteration mod versions + base`` (one id per version
of the ring; ``base`` numbers the sync points of a hard event consecutively).  A
loop-carried sync point is a ring: it is primed before its loop (``versions`` sets, so
the first iterations do not wait for iterations that never ran) and drained after it
(``versions`` waits, so no flag is left set -- this also keeps zero-trip loops
balanced).  Between top-level items (a loop and the code around it) the set goes right
after the producer's item and the wait right before the consumer's.

Guarded epochs: when both ends of a sync point are in one branch of an ``scf.if`` of the
loop body, its set and wait stay in that branch (skipped together, the ring stays
balanced; the slot follows the iteration).  Otherwise an end inside a guard moves to the
guard's boundary -- the set after the ``scf.if``, the wait before it -- so it runs in
every iteration whether or not the branch did.

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

from tilepipe.dialects.ascend_sync import (
    CrossCoreSetFlagOp,
    CrossCoreWaitFlagOp,
    PipeBarrierOp,
    SetFlagOp,
    WaitFlagOp,
)
from tilepipe.dialects.pipeline import ForOp

from .ascend_flag_blocks import SYNC_POINT_ATTR
from .ascend_multi_buffer import iteration_slot, loop_top_builder, read_plan
from .ascend_resolve_core import is_ascend_kernel
from .ascend_sync_analysis import SyncKind, SyncPoint, sync_points
from .index_arith import Index, IndexBuilder

CROSS_CORE_MODE = 2  # AIC <-> both AIVs


def _set_anchor(point: SyncPoint) -> Operation:
    """The op the set follows: the producer, its guard when the consumer is not in the
    same branch (so the set runs in every iteration), or its top-level item."""
    edge = point.edge
    if not edge.in_loop:
        return edge.src.item
    return edge.src.op if edge.src.same_guard(edge.dst) else edge.src.statement


def _wait_anchor(point: SyncPoint) -> Operation:
    """The op the wait (or barrier) precedes, mirroring :func:`_set_anchor`."""
    edge = point.edge
    if not edge.in_loop:
        return edge.dst.item
    return edge.dst.op if edge.src.same_guard(edge.dst) else edge.dst.statement


class SyncMaterializer:
    """Inserts the ops of each sync point; hands out base ids per hard event."""

    def __init__(self, kernel: FuncOp):
        self.kernel = kernel
        self.next_base: dict[str, int] = {}
        self.loop_builders: dict[ForOp, IndexBuilder] = {}
        # Static ids join the kernel's leading constants.
        block = kernel.body.block
        first = next((o for o in block.ops if not isinstance(o, arith.ConstantOp)), None)
        where = InsertPoint.before(first) if first is not None else InsertPoint.at_end(block)
        self.kernel_builder = IndexBuilder(where)

    def _base(self, namespace: str, versions: int) -> int:
        base = self.next_base.get(namespace, 0)
        self.next_base[namespace] = base + versions
        return base

    def _ring_id(self, loop: ForOp, versions: int, base: int) -> Index:
        if loop not in self.loop_builders:
            self.loop_builders[loop] = loop_top_builder(loop)
        builder = self.loop_builders[loop]
        return builder.value(builder.add(iteration_slot(builder, loop, versions), base))

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
        op.attributes[SYNC_POINT_ATTR] = StringAttr(edge.name)
        return op

    def materialize(self, point: SyncPoint) -> None:
        edge = point.edge
        if point.kind == SyncKind.NONE:
            return
        if point.kind == SyncKind.BARRIER:
            barrier = PipeBarrierOp(edge.src.pipe)
            barrier.attributes[SYNC_POINT_ATTR] = StringAttr(edge.name)
            Rewriter.insert_op(barrier, InsertPoint.before(_wait_anchor(point)))
            return
        namespace = "cross_core" if point.kind == SyncKind.CROSS_CORE else str(point.event)
        base = self._base(namespace, point.versions)
        if not edge.in_loop:
            id = self._static_id(base)
            Rewriter.insert_op(self._make(point, True, id), InsertPoint.after(edge.src.item))
            Rewriter.insert_op(self._make(point, False, id), InsertPoint.before(edge.dst.item))
            return
        loop = edge.src.loop
        assert loop is not None
        id = self._ring_id(loop, point.versions, base)
        Rewriter.insert_op(self._make(point, True, id), InsertPoint.after(_set_anchor(point)))
        Rewriter.insert_op(self._make(point, False, id), InsertPoint.before(_wait_anchor(point)))
        if point.is_ring:
            for version in range(point.versions):
                prime = self._make(point, True, self._static_id(base + version))
                Rewriter.insert_op(prime, InsertPoint.before(loop))
            for version in reversed(range(point.versions)):
                drain = self._make(point, False, self._static_id(base + version))
                Rewriter.insert_op(drain, InsertPoint.after(loop))


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
