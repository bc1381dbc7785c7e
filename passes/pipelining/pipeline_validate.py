"""``pipeline-validate``: check that a loop's stage/order schedule is legal.

The rules (docs/pipelining.md, made exact for the transformation tilepipe performs):

* the step is a positive constant, and no pipelined loop is nested in another;
* orders are unique;
* every dependence src -> dst (same iteration) has stage(src) <= stage(dst), and
  order(src) < order(dst) when the stages are equal (two mbarrier arrivals on one slot
  commute: they are no dependence, so tma-copy's bulk copies keep the copies' orders);
* a loop-carried dependence between two accesses that land in the same buffer version
  (their distance is a multiple of the buffer's version count) is not inverted by the
  skew: src of iteration k still runs before dst of iteration k + d;
* a value produced by a statement is only used in its stage, by later statements;
* a multi-buffered buffer is a ``memref.alloc`` touched only by analyzable accesses of
  the loop, and every read of it is covered by a write earlier in the same iteration
  (its versions carry nothing from one iteration to the next).

These are exactly the conditions under which ``inject-software-pipeline`` preserves the
sequential semantics, so the transformation validates before it rewrites.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from tilepipe.dialects.pipeline import ForOp
from tilepipe.dialects.tile import TileOp, constant_index
from tilepipe.core.diagnostics import op_error
from tilepipe.passes.analysis.access_regions import RegionAccess
from tilepipe.passes.analysis.loop_dependences import LoopAccessAnalysis
from tilepipe.passes.pipelining.barrier_expansion import is_mbarrier_array
from tilepipe.passes.pipelining.buffer_versions import BufferVersions, compute_buffer_versions
from tilepipe.passes.analysis.pipeline_schedule import LoopSchedule, read_schedule


@dataclass(frozen=True)
class Violation:
    """One broken rule: where and what to report, and the statements whose stage and
    order break it (what ``pipeline-planning`` may re-plan)."""

    op: Operation
    message: str
    statements: tuple[Operation, ...]


@dataclass
class ValidatedLoop:
    """What validation computed, handed on to the transformation and the report."""

    schedule: LoopSchedule
    analysis: LoopAccessAnalysis
    versions: list[BufferVersions]


def check_step(loop: ForOp) -> int:
    step = constant_index(loop.step)
    if step is None or step < 1:
        what = "a value known only at run time" if step is None else str(step)
        raise op_error(
            loop, f"step must be a positive constant to pipeline the loop, got {what}"
        )
    return step


def validate_pipeline_loop(loop: ForOp) -> ValidatedLoop | None:
    """Raise an op error for the first violated rule; None when the loop carries no
    stage/order schedule yet (only ``num_stages``)."""
    schedule = read_schedule(loop)
    if schedule is None:
        if (loop.int_annotation("num_stages") or 0) >= 1:
            check_step(loop)
        return None
    check_step(loop)
    _check_unique_orders(schedule)
    analysis = LoopAccessAnalysis(loop)
    versions = compute_buffer_versions(schedule, analysis)
    violation = next(schedule_violations(schedule, analysis, versions), None)
    if violation is not None:
        raise op_error(violation.op, violation.message)
    return ValidatedLoop(schedule, analysis, versions)


def schedule_violations(
    schedule: LoopSchedule, analysis: LoopAccessAnalysis, versions: list[BufferVersions]
) -> Iterator[Violation]:
    """Every rule ``schedule`` breaks (orders assumed unique), in a fixed order: value
    uses, multi-buffered buffers, then dependences in program order."""
    yield from _value_use_violations(schedule)
    for info in versions:
        if info.is_multi_buffered:
            yield from _multi_buffer_violations(schedule, analysis, info)
    slots = {v.buffer: v.versions for v in versions}
    for access in analysis.all_accesses():
        array = access.buffer
        if array is not None and array not in slots and is_mbarrier_array(array, schedule.loop):
            slots[array] = schedule.depth
    yield from _dependence_violations(schedule, analysis, slots)


def _check_unique_orders(schedule: LoopSchedule) -> None:
    seen: dict[int, Operation] = {}
    for op in schedule.statements:
        order = schedule.order(op)
        if order in seen:
            raise op_error(
                schedule.loop,
                f"two statements have the same order ({order}): "
                f"'{seen[order].name}' and '{op.name}'",
            )
        seen[order] = op


def _statement_of(op: Operation, loop: ForOp) -> Operation:
    """The direct child of the loop body that contains ``op``."""
    while op.parent_op() is not loop:
        parent = op.parent_op()
        assert parent is not None
        op = parent
    return op


def _statement_users(value: SSAValue, loop: ForOp, statements: set[Operation]):
    """Statements using ``value``, looking through the pure ops of the body."""
    for use in value.uses:
        user = _statement_of(use.operation, loop)
        if user in statements:
            yield user
        else:
            for result in user.results:
                yield from _statement_users(result, loop, statements)


def _value_use_violations(schedule: LoopSchedule) -> Iterator[Violation]:
    statements = set(schedule.statements)
    for producer in schedule.statements:
        for result in producer.results:
            for user in _statement_users(result, schedule.loop, statements):
                pair = (producer, user)
                if schedule.stage(user) != schedule.stage(producer):
                    yield Violation(
                        user,
                        f"{schedule.describe(user)} uses a value produced by "
                        f"{schedule.describe(producer)}; values cannot cross stages",
                        pair,
                    )
                elif schedule.order(user) < schedule.order(producer):
                    yield Violation(
                        user,
                        f"{schedule.describe(user)} uses a value produced by "
                        f"{schedule.describe(producer)}, which is ordered after it",
                        pair,
                    )


def _multi_buffer_violations(
    schedule: LoopSchedule, analysis: LoopAccessAnalysis, info: BufferVersions
) -> Iterator[Violation]:
    """A buffer needing versions that cannot be versioned; the statements to blame are
    all that touch it (their stages are what made it multi-buffered)."""
    buffer, loop = info.buffer, schedule.loop
    what = (
        f"{_name(buffer)}, which needs {info.versions} versions (written in stage "
        f"{info.def_stage}, read in stage {info.use_stage}),"
    )
    accesses = analysis.accesses_of(buffer)
    blamed = tuple(dict.fromkeys(_statement_of(a.op, loop) for a in accesses))
    if not isinstance(buffer.owner, memref.AllocOp):
        yield Violation(
            accesses[0].op,
            f"writes {what} but it is not a memref.alloc, so it cannot be multi-buffered",
            blamed,
        )
    for use in buffer.uses:
        user = use.operation
        if not loop.is_ancestor(user):
            if not isinstance(user, memref.DeallocOp):
                yield Violation(
                    user,
                    f"uses {what} outside the pipelined loop; multi-buffering keeps "
                    "one version per in-flight iteration only",
                    blamed,
                )
        elif user.parent_op() is not loop or not isinstance(
            user, TileOp | memref.LoadOp | memref.StoreOp
        ):
            yield Violation(user, f"touches {what} in a way the pipeliner cannot version", blamed)
    for read in (a for a in accesses if a.reads):
        if not any(
            w.writes
            and w.op is not read.op
            and analysis.program_order_precedes(w.op, read.op)
            and analysis.covers(w, read)
            for w in accesses
        ):
            yield Violation(
                read.op,
                f"reads {what} before the iteration fully wrote it; its versions "
                "cannot carry values between iterations",
                blamed,
            )


def _name(buffer: SSAValue) -> str:
    return f"%{buffer.name_hint}" if buffer.name_hint else "a buffer"


def _dependence_violations(
    schedule: LoopSchedule, analysis: LoopAccessAnalysis, slots: dict[SSAValue, int]
) -> Iterator[Violation]:
    for source in schedule.statements:
        for target in schedule.statements:
            for a in analysis.accesses(source):
                for b in analysis.accesses(target):
                    if a.conflicts_with(b):
                        violation = _pair_violation(schedule, analysis, slots, a, b)
                        if violation is not None:
                            yield violation


def _pair_violation(
    schedule: LoopSchedule,
    analysis: LoopAccessAnalysis,
    slots: dict[SSAValue, int],
    a: RegionAccess,
    b: RegionAccess,
) -> Violation | None:
    """``a`` of iteration k precedes ``b`` of iteration k + d sequentially; in the
    pipelined loop they run in time slots k + stage(a) and k + d + stage(b)."""
    if a.buffer is not b.buffer and not (a.is_opaque or b.is_opaque):
        return None
    source, target = a.op, b.op
    pair = (source, target)
    stage_a, order_a = schedule.stage(source), schedule.order(source)
    stage_b, order_b = schedule.stage(target), schedule.order(target)
    through = _through(a, b)
    if source is not target and analysis.program_order_precedes(source, target):
        if analysis.may_intersect(a, b, 0):
            if stage_a > stage_b:
                return Violation(
                    target,
                    f"{schedule.describe(target)} depends on "
                    f"{schedule.describe(source)} in a later stage ({through})",
                    pair,
                )
            if stage_a == stage_b and order_a > order_b:
                return Violation(
                    target,
                    f"{schedule.describe(target)} depends on "
                    f"{schedule.describe(source)} in the same stage but is ordered "
                    f"before it ({through})",
                    pair,
                )
    period = 1 if a.is_opaque or b.is_opaque else slots.get(a.buffer, 1)
    for distance in range(period, stage_a - stage_b + 1, period):
        inverted = distance + stage_b < stage_a or order_b < order_a
        if inverted and analysis.may_intersect(a, b, distance):
            return Violation(
                target,
                f"{schedule.describe(target)} of iteration k+{distance} would run "
                f"before {schedule.describe(source)} of iteration k, which it depends "
                f"on ({through}, loop-carried)",
                pair,
            )
    return None


def _through(a: RegionAccess, b: RegionAccess) -> str:
    if a.is_opaque or b.is_opaque:
        return "through memory effects the analysis cannot see"
    kind = "write-after-write"
    if a.writes and b.reads and not b.writes:
        kind = "read-after-write"
    elif a.reads and not a.writes:
        kind = "write-after-read"
    assert a.buffer is not None
    return f"{kind} on {_name(a.buffer)}"


@dataclass(frozen=True)
class PipelineValidate(ModulePass):
    """Check stage/order annotations of pipelined loops against their dependences."""

    name = "pipeline-validate"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for loop in [o for o in op.walk() if isinstance(o, ForOp)]:
            validate_pipeline_loop(loop)
