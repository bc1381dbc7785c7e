"""``thread-sync``: the fewest barriers, ``cp.async`` waits, proxy fences and partial
barriers that cover every hazard of shared and global memory (the steps are the
modules beside it: access entries, hazards, program points, sync placement).  See
docs/sync.md, "`thread-sync`"."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, memref, scf
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tilepipe.core.diagnostics import OpDiagnosticError, emit_remark, op_error
from tilepipe.dialects.pipeline_sync import (
    NAMED_BARRIERS,
    AsyncCopyOp,
    BarrierOp,
    BulkCopyOp,
    CommitGroupOp,
    FenceProxyAsyncOp,
    WaitGroupOp,
)
from tilepipe.dialects.tile import BlockIdOp, GemmOp, TileOp
from tilepipe.core.targets import CudaTarget, target_of

from tilepipe.passes.cuda.exit_drain import needs_exit_drain
from tilepipe.passes.cuda.guard_split import can_split, split_guard
from tilepipe.passes.cuda.access_entries import AccessEntry, Agent
from tilepipe.passes.cuda.hazards import Hazard, HazardAnalysis, HazardKind, consumer_role
from tilepipe.passes.analysis.program_points import (
    Point, Relation, chain, clear_position_cache, position,
)
from tilepipe.passes.cuda.sync_placement import SyncPlan, SyncPlanner
from tilepipe.passes.pipelining.pipeline_report import REPORT_FORMATS
from tilepipe.passes.cuda.sync_report import SyncPoint, SyncReport


@dataclass(frozen=True)
class ThreadSync(ModulePass):
    """Insert the fewest barriers and cp.async waits that cover every block-level hazard."""

    name = "thread-sync"

    report: str = "none"
    """``text`` or ``json``: print the sync report (to ``report-file`` or stderr)."""

    report_file: str | None = None

    def __post_init__(self) -> None:
        # Checked when the pipeline is built, so a bad value is a usage error (any
        # value but json used to print text).
        if self.report not in REPORT_FORMATS:
            raise ValueError(
                f"report must be one of {', '.join(REPORT_FORMATS)}, got '{self.report}'"
            )

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        reports: list[SyncReport] = []
        for function in list(op.walk()):
            if not isinstance(function, func.FuncOp) or function.body.first_block is None:
                continue
            if not isinstance(target_of(function), CudaTarget):
                continue
            reports.append(synchronize(function))
        if self.report != "none":
            text = "\n".join(
                r.to_json() if self.report == "json" else r.to_text() for r in reports
            )
            if self.report_file:
                with open(self.report_file, "w") as f:
                    f.write(text + "\n")
            else:
                print(text, file=sys.stderr)


def synchronize(function: func.FuncOp) -> SyncReport:
    report = _plan_and_insert(function, exit_only=False)
    if needs_exit_drain(function):
        # No wait the readers asked for lands every group before the return (a copy
        # nobody reads, the last groups of a loop): plan the exit alone, as a write
        # of every cp.async's bytes, for one wait before the return with its count.
        drain = _plan_and_insert(function, exit_only=True)
        report.points += drain.points
        report.hazards += drain.hazards
    _drop_subsumed_fences(function)
    return report


# Ops a proxy fence may be moved past: they neither access memory through the async
# proxy nor order threads (cp.async is a generic-proxy write, landed by its wait).
_FENCE_TRANSPARENT = (WaitGroupOp, CommitGroupOp, AsyncCopyOp)


def _fence_transparent(op: Operation) -> bool:
    if op.regions or isinstance(op, BulkCopyOp | GemmOp):
        return False
    if isinstance(op, (*_FENCE_TRANSPARENT, TileOp)):
        return True
    return op.dialect_name() not in ("pipeline", "tile")


def _drop_subsumed_fences(function: func.FuncOp) -> None:
    """Erase a proxy fence that another one follows in the same block with nothing
    between them but generic accesses and cp.async bookkeeping: the later fence
    orders every generic access the earlier one did, before the same barrier and
    async accesses (a placed fence after a tma-copy mbarrier-init fence, with the
    wait that lands a cp.async between them)."""
    for fence in [op for op in function.body.walk() if isinstance(op, FenceProxyAsyncOp)]:
        op = fence.next_op
        while op is not None and not isinstance(op, FenceProxyAsyncOp):
            if not _fence_transparent(op):
                break
            op = op.next_op
        if isinstance(op, FenceProxyAsyncOp):
            Rewriter.erase_op(fence)


def _plan_and_insert(function: func.FuncOp, exit_only: bool) -> SyncReport:
    while True:
        clear_position_cache()
        analysis = HazardAnalysis(function)
        hazards = exit_hazards(analysis) if exit_only else analysis.hazards()
        existing_barriers = {
            (op.parent_block(), position(op))
            for op in function.body.walk()
            if isinstance(op, BarrierOp)
        }
        existing_fences = {
            (op.parent_block(), position(op))
            for op in function.body.walk()
            if isinstance(op, FenceProxyAsyncOp)
        }
        existing_waits = {
            (op.parent_block(), position(op)): op.pending_groups
            for op in function.body.walk()
            if isinstance(op, WaitGroupOp)
        }
        planner = SyncPlanner(
            analysis, hazards, _is_uniform_point, existing_barriers, existing_waits,
            existing_fences,
        )
        plan = planner.plan()
        if not plan.uncovered:
            break
        # A kernel with a hazard no sync orders is wrong; never hand it on.  Split a
        # non-uniform guard holding both accesses (the barrier goes between the
        # halves, which every thread reaches) and plan again, or stop.
        if not any(_split_guard_between(h, planner) for h in plan.uncovered):
            raise _uncovered_error(plan.uncovered[0], planner)
    report = SyncReport(function.sym_name.data, analysis, hazards, plan.exact)
    _insert(plan, analysis.threads, report, planner.rank)
    clear_position_cache()
    return report


def exit_hazards(analysis: HazardAnalysis) -> list[Hazard]:
    """The block's exit as a write, by every thread, of each ``cp.async``'s bytes:
    as a WAW hazard between the copy and the return, the exit gets the wait it needs
    from the same placement (and the same tight count) as every reader."""
    exits = [
        block.last_op for block in analysis.function.body.blocks
        if isinstance(block.last_op, func.ReturnOp)
    ]
    hazards: list[Hazard] = []
    for copy in analysis.entries:
        if not (copy.is_async and copy.writes):
            continue
        shape = tuple(copy.buffer.type.get_shape())
        for exit_op in exits:
            release = AccessEntry(
                exit_op, copy.buffer, (), shape, shape, reads=False, writes=True,
                agent=Agent.ALL_THREADS, levels=tuple(chain(exit_op)),
            )
            hazards.append(Hazard(
                HazardKind.WAW, copy, release, Relation(), needs_barrier=False,
                needs_wait=True, threads=copy.participating_threads(analysis.threads),
            ))
    return hazards


def _split_guard_between(hazard: Hazard, planner: SyncPlanner) -> bool:
    """Split the non-uniform ``scf.if`` whose block holds both statements of a hazard
    that only a barrier inside it could separate, right before the later one; say so
    with a remark.  False when the hazard is of another kind or the guard cannot be
    split (results, an else branch, a value with effects crossing)."""
    if hazard.needs_mbarrier_wait or not planner.points(hazard):
        return False
    if hazard.relation.carried_loop is not None:
        return False  # the back edge leaves the guard: never only non-uniform points
    source, target = hazard.source.levels, hazard.target.levels
    depth = 0
    while source[depth].position == target[depth].position:
        depth += 1  # both chains are longer: the ops differ
    guard = source[depth].block.parent_op()
    index = target[depth].position
    if not isinstance(guard, scf.IfOp) or is_uniform(guard.cond):
        return False
    if not can_split(guard, index):
        return False
    emit_remark(
        guard,
        "split to place a barrier outside this non-uniform condition (one inside could "
        f"deadlock) that separates {hazard.describe()}",
    )
    split_guard(guard, index)
    return True


def _uncovered_error(hazard: Hazard, planner: SyncPlanner) -> OpDiagnosticError:
    """The located error for a hazard no allowed sync point separates."""
    if hazard.needs_mbarrier_wait:
        reason = (
            "touches bytes of a bulk copy that no mbarrier wait lands on every path "
            f"({hazard.describe()}); wait on the copy's mbarrier phase first"
        )
    elif not planner.points(hazard):
        reason = (
            "touches bytes an async copy writes before that copy's group is committed "
            f"on every path ({hazard.describe()}); no wait_group can land the copy"
        )
    else:
        reason = (
            "needs a barrier that would have to be hoisted out of a non-uniform "
            f"condition (a barrier there could deadlock) to separate {hazard.describe()}"
        )
    return op_error(hazard.target.op, reason)


def _insert(
    plan: SyncPlan, block_threads: int, report: SyncReport, rank: dict[Point, int]
) -> None:
    """Materialize the plan, in program order: at each point a wait, a proxy fence,
    then a barrier (the fence precedes the barrier that publishes it)."""
    anchors = {
        p: _anchor(p) for p in set(plan.barriers) | set(plan.waits) | set(plan.fences)
    }
    partial_ids: dict[int, int] = {}
    for point in sorted(anchors, key=rank.__getitem__):
        anchor = anchors[point]
        new_ops: list[Operation] = []
        if point in plan.waits:
            count = plan.wait_counts[point]
            # Placement only uses points where the copy's group is committed.
            assert count >= 0, f"negative wait_group count {count}"
            new_ops.append(WaitGroupOp(count))
            report.points.append(SyncPoint("wait_group", anchor, plan.waits[point], count=count))
        if point in plan.fences:
            new_ops.append(FenceProxyAsyncOp())
            report.points.append(SyncPoint("fence_proxy_async", anchor, plan.fences[point]))
        if point in plan.barriers:
            threads = -(-plan.barrier_threads[point] // 32) * 32
            # Inside a warp-specialized consumer region the block is the consumers:
            # the producers never reach a barrier there, so it is a named one.
            in_role = consumer_role(anchor) is not None
            barrier = _barrier(threads, block_threads, partial_ids, in_role)
            new_ops.append(barrier)
            report.points.append(
                SyncPoint("barrier", anchor, plan.barriers[point],
                          barrier_id=barrier.barrier_id, threads=barrier.thread_count)
            )
        for op in new_ops:
            # Located at the op they are placed before, so that the lowered sync
            # (--mlir-print-debuginfo, upstream's diagnostics) points at user code.
            op.location = anchor.location
        Rewriter.insert_op(new_ops, InsertPoint.before(anchor))


def _barrier(
    threads: int, block_threads: int, partial_ids: dict[int, int], in_role: bool = False
) -> BarrierOp:
    if threads >= block_threads and not in_role:
        return BarrierOp()
    threads = min(threads, block_threads)
    if threads not in partial_ids:
        if len(partial_ids) + 1 >= NAMED_BARRIERS:
            if in_role:  # the consumers' own barrier always has an id: take the first
                threads = block_threads
                partial_ids.setdefault(threads, 1)
                return BarrierOp(id=partial_ids[threads], threads=threads)
            return BarrierOp()  # ids exhausted: a full barrier is always correct
        partial_ids[threads] = len(partial_ids) + 1
    return BarrierOp(id=partial_ids[threads], threads=threads)


def _anchor(point: Point) -> Operation:
    block, index = point
    return list(block.ops)[index]


# --------------------------------------------------------------------------- uniformity


def _is_uniform_point(point: Point) -> bool:
    """No enclosing ``scf.if`` has a condition that may differ between threads."""
    block = point[0]
    while (owner := block.parent_op()) is not None and not isinstance(owner, func.FuncOp):
        if isinstance(owner, scf.IfOp) and not is_uniform(owner.cond):
            return False
        block = owner.parent_block()
    return True


def is_uniform(value: SSAValue, depth: int = 0) -> bool:
    """Every thread of the block computes the same value: built from constants,
    kernel arguments, block ids, loop induction variables and buffer sizes
    (``memref.dim``) by ``arith`` ops."""
    if depth > 64:
        return False
    if isinstance(value, BlockArgument):
        return True  # kernel arguments and induction variables
    owner = value.owner
    if isinstance(owner, BlockIdOp):
        return True
    if isinstance(owner, memref.DimOp):  # sizes are the same for the whole block
        return is_uniform(owner.index, depth + 1)
    if owner.dialect_name() == "arith" and not owner.regions:
        return all(is_uniform(v, depth + 1) for v in owner.operands) or isinstance(
            owner, arith.ConstantOp
        )
    return False
