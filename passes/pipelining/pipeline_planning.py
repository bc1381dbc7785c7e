"""``pipeline-planning``: give every statement of a pipelined loop its stage and order
-- TileLang's ``PipelinePlanning`` from ``num_stages``, or explicit arrays passed
through -- and write the canonical form (per-op attributes, ``depth`` on the loop).
See docs/pipelining.md, "Planning (`pipeline-planning`)"."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import is_side_effect_free
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from tilepipe.dialects.memory_space import MemorySpace
from tilepipe.dialects.pipeline import (
    ORDER_ATTR,
    STAGE_ATTR,
    ForOp,
    YieldOp,
    set_stage_order,
)
from tilepipe.dialects.pipeline_sync import AsyncTileCopy
from tilepipe.dialects.tile import CopyOp
from tilepipe.core.diagnostics import op_error
from tilepipe.passes.analysis.loop_dependences import LoopAccessAnalysis
from tilepipe.passes.pipelining.buffer_versions import compute_buffer_versions
from tilepipe.passes.analysis.pipeline_schedule import LoopSchedule, pipeline_depth, read_schedule
from tilepipe.passes.pipelining.pipeline_validate import schedule_violations

OFF_CHIP = frozenset({MemorySpace.GLOBAL, MemorySpace.GM})
STAGING = frozenset({MemorySpace.SHARED, MemorySpace.L1, MemorySpace.UB})


def is_staging_copy(op: Operation) -> bool:
    """A copy from global memory into a staging memory (TileLang's "copy stage")."""
    if not isinstance(op, CopyOp | AsyncTileCopy):
        return False
    accesses = {a.operand_name: a.space for a in op.buffer_accesses()}
    return accesses.get("src") in OFF_CHIP and accesses.get("dst") in STAGING


def _feeds(analysis: LoopAccessAnalysis, producer: Operation, consumer: Operation) -> bool:
    """Does ``consumer`` read, in the same iteration, what ``producer`` wrote or
    computed (through memory or through SSA values)?"""
    if not analysis.program_order_precedes(producer, consumer):
        return False
    if any(_uses_transitively(consumer, result) for result in producer.results):
        return True
    return any(
        w.writes and r.reads and analysis.may_intersect(w, r, 0)
        for w in analysis.accesses(producer)
        for r in analysis.accesses(consumer)
    )


def _uses_transitively(consumer: Operation, value: SSAValue) -> bool:
    """Does ``consumer`` use ``value``, directly or through pure ops?"""
    for use in value.uses:
        user = use.operation
        if consumer.is_ancestor(user):
            return True
        if is_side_effect_free(user) and any(
            _uses_transitively(consumer, r) for r in user.results
        ):
            return True
    return False


def plan_from_num_stages(
    analysis: LoopAccessAnalysis, num_stages: int
) -> tuple[list[int], list[int]]:
    """TileLang's stage/order plan for the loop's statements, legal by construction.

    Hoisting a copy to stage 0 is only sound when its dependences allow it: a copy
    into a buffer that an earlier statement of the iteration still reads or writes
    (write-after-read/-write), or that a later statement overwrites before the next
    iteration's copy (loop-carried write-after-write), cannot run ahead of them.  Such
    a copy (with what was hoisted only to feed it) is planned as an ordinary statement
    instead, until the plan breaks no rule of pipeline-validate.  With nothing
    hoisted, every statement is in one stage in source order, which is always legal.
    """
    statements = analysis.statements
    pinned: set[Operation] = set()  # statements that may not be hoisted
    while True:
        stages, orders, hoisted = _plan(analysis, num_stages, pinned)
        schedule = LoopSchedule(
            analysis.loop, statements, stages, orders, pipeline_depth(analysis.loop, stages)
        )
        versions = compute_buffer_versions(schedule, analysis)
        violation = next(schedule_violations(schedule, analysis, versions), None)
        if violation is None:
            return stages, orders
        blamed = [op for op in violation.statements if hoisted[statements.index(op)]]
        if not blamed:
            raise AssertionError(
                f"pipeline-planning made a plan it cannot repair: {violation.message}"
            )
        pinned.update(blamed)


def _plan(
    analysis: LoopAccessAnalysis, num_stages: int, pinned: set[Operation]
) -> tuple[list[int], list[int], list[bool]]:
    """TileLang's plan, with the ``pinned`` statements never copy stages: stages,
    orders, and which statements were hoisted as copy stages."""
    statements = analysis.statements
    n = len(statements)
    copy_like = [is_staging_copy(op) and op not in pinned for op in statements]
    # Earlier producers of what a copy reads are planned with the copies.
    changed = True
    while changed:
        changed = False
        for j, consumer in enumerate(statements):
            if not copy_like[j]:
                continue
            for i in range(j):
                if (
                    not copy_like[i]
                    and statements[i] not in pinned
                    and _feeds(analysis, statements[i], consumer)
                ):
                    copy_like[i] = changed = True
    # The last non-copy statement consuming a copy's data (directly or via copies).
    last_use = [-1] * n
    for i in reversed(range(n)):
        if not copy_like[i]:
            continue
        for j in range(i + 1, n):
            if _feeds(analysis, statements[i], statements[j]):
                last_use[i] = max(last_use[i], j if not copy_like[j] else last_use[j])
    stages, orders = [0] * n, [-1] * n
    next_order = 0

    def place_copies(consumer: int) -> None:
        nonlocal next_order
        for i in range(n):
            if copy_like[i] and last_use[i] == consumer and orders[i] < 0:
                orders[i], stages[i] = next_order, 0
                next_order += 1

    for j in range(n):
        if not copy_like[j]:
            orders[j], stages[j] = next_order, num_stages
            next_order += 1
            place_copies(j)
    place_copies(-1)  # copies nothing in the loop reads stay at the end
    copies = [i for i in range(n) if copy_like[i]]
    others = [i for i in range(n) if not copy_like[i]]
    copies_last = all(orders[c] > orders[o] for c in copies for o in others)
    if num_stages >= 2 and copies_last:
        orders = [(order + len(copies)) % n for order in orders]
        for o in others:
            stages[o] -= 1
    return stages, orders, copy_like


def to_plain_loop(loop: ForOp, rewriter: PatternRewriter) -> None:
    """Replace ``loop`` by an ``scf.for`` running its body unchanged."""
    body = loop.body.block
    for op in body.ops:
        op.attributes.pop(STAGE_ATTR, None)
        op.attributes.pop(ORDER_ATTR, None)
    terminator = body.last_op
    assert isinstance(terminator, YieldOp)
    rewriter.replace(terminator, scf.YieldOp())
    body_region = rewriter.move_region_contents_to_new_regions(loop.body)
    new_loop = scf.ForOp(loop.lb, loop.ub, loop.step, [], body_region)
    rewriter.replace(loop, new_loop)


class PlanPipelinedLoop(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, loop: ForOp, rewriter: PatternRewriter) -> None:
        num_stages = loop.int_annotation("num_stages")
        schedule = read_schedule(loop)
        if schedule is None and num_stages is None:
            if loop.depth is None:
                raise op_error(
                    loop, "pipelined loop needs num_stages or stage/order annotations"
                )
            return
        if schedule is None and num_stages == 0:
            to_plain_loop(loop, rewriter)
            return
        if schedule is not None:
            stages, orders = schedule.stages, schedule.orders
        else:
            assert num_stages is not None
            stages, orders = plan_from_num_stages(LoopAccessAnalysis(loop), num_stages)
        depth = pipeline_depth(loop, stages)
        if (
            schedule is not None
            and loop.stage is None
            and loop.num_stages is None
            and loop.int_annotation("depth") == depth
        ):
            return  # already canonical
        for op, stage, order in zip(loop.statements(), stages, orders):
            set_stage_order(op, stage, order)
        loop.properties.pop("stage", None)
        loop.properties.pop("order", None)
        loop.properties.pop("num_stages", None)
        loop.properties["depth"] = IntegerAttr(depth, i64)
        rewriter.notify_op_modified(loop)


@dataclass(frozen=True)
class PipelinePlanning(ModulePass):
    """Plan stage/order of pipelined loops (TileLang's rules) into canonical form."""

    name = "pipeline-planning"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(PlanPipelinedLoop(), apply_recursively=False).rewrite_module(op)
