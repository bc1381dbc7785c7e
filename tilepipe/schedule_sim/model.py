"""The cycle model of a scheduled-level CUDA kernel (a greedy list schedule, docs/schedule_sim.md).

Units (the lanes of :class:`~tilepipe.semantics.lane_engine.LaneEngine`), with the
target record's :class:`~tilepipe.core.targets.Latency` of each op (``fixed + work /
rate``, the work in bytes or FLOPs, :func:`~tilepipe.semantics.op_work.op_work`):

* ``copy``: the copy engine.  An async or bulk copy occupies it for ``issue`` (its
  bytes streamed at the copy bandwidth) and its data lands ``global_copy`` after it
  started; a synchronous ``tile.copy`` to or from global memory occupies it for
  ``global_copy``.
* ``compute``: every other tile op, ``gemm`` for a matmul, ``compute`` otherwise.
* a block barrier joins both units for ``barrier`` cycles: it starts when both have
  reached it in program order and holds both back until it ends.

Each unit runs its ops in program order; across units only the syncs order them, as
in the race detector: a ``wait_group`` waits for the copies it retires (free: the
waiting threads issued them), an mbarrier wait for the arrivals and bulk copies of the
phase it observes, plus ``barrier`` cycles.  A wait sits on the unit of the data op
that follows it (the one it holds back), a commit or arrive on the unit of the data
op before it (the progress it publishes).  Two synchronous data ops of different units
that touch the same bytes (one writing) keep their program order, as the issuing
threads would.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import scf
from xdsl.ir import Operation

from tilepipe.dialects.tile_forms import MatmulForm
from tilepipe.semantics.lane_engine import LaneEngine, Span, steady_step
from tilepipe.semantics.op_work import op_work
from tilepipe.core.targets import CudaTarget

from tilepipe.schedule_sim.trace import Need, Step, StepKind

COPY = "copy"
COMPUTE = "compute"
BARRIER = "barrier"
UNITS = (COPY, COMPUTE)


@dataclass
class ScheduleReport:
    """What the simulator reports for one block of a kernel."""

    total_cycles: int
    steady_step: float  # cycles per iteration in the second half of the main loop
    occupancy: dict[str, float]  # busy cycles / total cycles, per unit
    timeline: list[Span[Step, str]] = field(default_factory=list)
    phases: dict[int, str] = field(default_factory=dict)  # step index -> phase
    landed: dict[int, int] = field(default_factory=dict)  # step index -> data in place
    deadlock: list[str] = field(default_factory=list)
    # Per unit, the cycles of its throughput the block uses (each op's work / rate, no
    # fixed latency): what blocks resident on one SM share (the machine model).
    demand: dict[str, int] = field(default_factory=dict)

    def order_violations(self) -> list[str]:
        """Pairs of conflicting accesses (one a write) that the simulated schedule runs
        against program order: the later one starts before the earlier one's data is in
        place.  Empty for a race-free kernel (its syncs order every such pair), which
        is what makes the simulated order one the race detector accepts."""
        start = {span.item.index: span.start for span in self.timeline}
        seen: dict[int, list[Step]] = {}  # allocation id -> steps touching it
        problems: list[str] = []
        for span in sorted(self.timeline, key=lambda s: s.item.index):
            step = span.item
            for other in _conflicting(step, seen):
                if self.landed[other.index] > start[step.index]:
                    problems.append(
                        f"'{step.op.name}' #{step.index} starts at {start[step.index]}, "
                        f"before '{other.op.name}' #{other.index} is done at "
                        f"{self.landed[other.index]}"
                    )
            for access in step.accesses:
                bucket = seen.setdefault(access.allocation, [])
                if not bucket or bucket[-1] is not step:
                    bucket.append(step)
        return problems

    def summary(self) -> str:
        busy = ", ".join(f"{u} {o:.0%}" for u, o in self.occupancy.items())
        return (
            f"{self.total_cycles} cycles, steady state {self.steady_step:.1f} "
            f"cycles/iteration ({busy})"
        )


class ScheduleModel:
    def __init__(self, steps: list[Step], target: CudaTarget):
        self.steps = steps
        self.latency = target.latencies
        self.units = self._assign_units()
        self._memory_order()
        self.end: dict[int, int] = {}
        self.landed: dict[int, int] = {}  # when a step's data is in place

    # -- static part: units and same-thread memory order

    def _data_unit(self, step: Step) -> str:
        if step.kind == StepKind.ASYNC_COPY:
            return COPY
        return COPY if step.touches_global else COMPUTE

    def _assign_units(self) -> dict[int, tuple[str, ...]]:
        data = [s for s in self.steps if s.kind in (StepKind.ASYNC_COPY, StepKind.DATA)]
        units: dict[int, tuple[str, ...]] = {}
        previous: str | None = None
        following = iter(data)
        upcoming = next(following, None)
        for step in self.steps:
            if upcoming is step:
                upcoming = next(following, None)
            if step.kind == StepKind.BARRIER:
                units[step.index] = UNITS
            elif step.kind in (StepKind.ASYNC_COPY, StepKind.DATA):
                previous = self._data_unit(step)
                units[step.index] = (previous,)
            elif step.kind == StepKind.WAIT:
                ahead = self._data_unit(upcoming) if upcoming is not None else previous
                units[step.index] = (ahead or COMPUTE,)
            else:
                units[step.index] = (previous or COMPUTE,)
        return units

    def _memory_order(self) -> None:
        """A synchronous data op waits for the earlier synchronous data ops of the other
        unit that it conflicts with (the issuing threads execute them in order)."""
        seen: dict[int, list[Step]] = {}  # allocation id -> data steps touching it
        for step in self.steps:
            if step.kind != StepKind.DATA:
                continue
            mine = self.units[step.index]
            step.needs.extend(
                (other, Need.MEMORY)
                for other in _conflicting(step, seen)
                if other.kind == StepKind.DATA and self.units[other.index] != mine
            )
            for access in step.accesses:
                bucket = seen.setdefault(access.allocation, [])
                if not bucket or bucket[-1] is not step:
                    bucket.append(step)

    # -- the run

    def _latency_key(self, step: Step) -> str | None:
        """The latency a data op occupies its unit for (None: not a data op)."""
        if step.kind == StepKind.ASYNC_COPY:
            return "issue"
        if step.kind == StepKind.DATA:
            if self.units[step.index][0] == COPY:
                return "global_copy"
            return "gemm" if isinstance(step.op, MatmulForm) else "compute"
        return None

    def _duration(self, step: Step) -> int:
        key = self._latency_key(step)
        if key is not None:
            return self.latency[key].cycles(op_work(step.op))
        if step.kind == StepKind.BARRIER:
            return self.latency["barrier"].fixed
        return 0

    def _demand(self) -> dict[str, int]:
        """Per unit, the work / rate part of its ops' durations."""
        demand = dict.fromkeys(UNITS, 0)
        for step in self.steps:
            key = self._latency_key(step)
            if key is not None:
                latency = self.latency[key]
                demand[self.units[step.index][0]] += latency.cycles(op_work(step.op)) - latency.fixed
        return demand

    def _ready(self, step: Step) -> int | None:
        start = 0
        for need, why in step.needs:
            if need.index not in self.landed:
                return None
            delay = self.latency["barrier"].fixed if why == Need.MBARRIER else 0
            start = max(start, self.landed[need.index] + delay)
        return start

    def _execute(self, step: Step, start: int) -> int:
        end = start + self._duration(step)
        self.end[step.index] = end
        if step.kind == StepKind.ASYNC_COPY:
            self.landed[step.index] = start + self.latency["global_copy"].cycles(op_work(step.op))
        else:
            self.landed[step.index] = end
        return end

    def _compute_work(self, step: Step) -> str | None:
        """What the steady-state step counts: the data ops of the compute unit."""
        is_compute = step.kind == StepKind.DATA and self.units[step.index] == (COMPUTE,)
        return step.op.name if is_compute else None

    def run(self) -> ScheduleReport:
        engine: LaneEngine[Step, str] = LaneEngine(
            self.steps, lambda s: self.units[s.index], lambda s: s.index
        )
        finished = engine.run(self._ready, self._execute)
        total = max([engine.makespan, *self.landed.values()], default=0)
        busy = {unit: 0 for unit in (*UNITS, BARRIER)}
        for span in engine.timeline:
            unit = BARRIER if span.item.kind == StepKind.BARRIER else span.lanes[0]
            busy[unit] += span.end - span.start
        report = ScheduleReport(
            total,
            steady_step(engine.timeline, self._compute_work),
            {u: (b / total if total else 0.0) for u, b in busy.items()},
            engine.timeline,
            phases(self.steps),
            dict(self.landed),
            demand=self._demand(),
        )
        if not finished:
            report.deadlock = [
                f"{unit} is stuck at '{queue[0].op.name}'"
                for unit, queue in engine.queues.items() if queue
            ]
        return report


def _conflicting(step: Step, seen: dict[int, list[Step]]) -> list[Step]:
    """The steps in ``seen`` (by allocation, in program order) that conflict with
    ``step``, in program order."""
    found: list[Step] = []
    for access in step.accesses:
        for other in seen.get(access.allocation, []):
            if other not in found and any(access.conflicts(a) for a in other.accesses):
                found.append(other)
    return sorted(found, key=lambda s: s.index)


def _in_loop(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.ForOp):
            return True
        parent = parent.parent_op()
    return False


def phases(steps: list[Step]) -> dict[int, str]:
    """prologue / steady / epilogue of every step: before, inside and after the loop."""
    looped = [s.index for s in steps if _in_loop(s.op)]
    if not looped:
        return {s.index: "steady" for s in steps}
    first, last = looped[0], looped[-1]
    return {
        s.index: "prologue" if s.index < first else "epilogue" if s.index > last else "steady"
        for s in steps
    }
