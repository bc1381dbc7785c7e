"""``ascend-insert-sync``: materializes the sync points of ``sync_analysis`` as
``pipe_barrier``, ``set_flag``/``wait_flag`` pairs or cross-core flags, with ring
event ids (``epoch mod versions + base``), priming and draining, credit rings and
guard placement.  See docs/ascend.md, "`ascend-insert-sync`"."""

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
