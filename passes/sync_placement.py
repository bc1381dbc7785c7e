"""Choosing the fewest sync points that cover every hazard (§4.2, §5.3).

Each hazard that needs a barrier can be separated by a barrier at any program point on
every path between its two accesses (:func:`program_points.covering_points`).  The
barriers are the smallest-cost set of points hitting every such set -- an interval
point cover on straight-line code and on a loop's cycle, weighted by how often a
point runs (a barrier in the steady-state loop costs a barrier per iteration).  The
cover is solved exactly with Z3's optimizer (0/1 variables per candidate point), with
a greedy cover as the fallback for very large kernels.

Async hazards (a ``cp.async`` copy whose data a later access needs) also need a
``wait_group`` that lands the copy first: at the chosen barrier point (right before the
barrier) when threads differ, or at the latest point before the consumer otherwise.
A wait at point ``p`` covers the hazard when its pending count is at most the number
of groups committed after the copy's own group on every path to ``p``; the wait gets
the smallest such count over the hazards it serves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import z3
from xdsl.ir import Operation

from tilepipe.dialects.pipeline_sync import CommitGroupOp

from .hazards import Hazard, HazardAnalysis
from .program_points import (
    Point,
    chain,
    end_index,
    Relation,
    count_on_path,
    covering_points,
    linear_order,
    point_chain,
    point_weight,
)
from .symbolic_index import LoopOp, enclosing_loops

EXACT_LIMIT = 400  # candidate points beyond which the greedy cover is used
# z3 resource units (deterministic, unlike a timeout) for one cover problem; beyond
# them the cheapest cover without the preference for late points is used.
TIE_BREAK_RESOURCES = 500_000


def is_commit(op: Operation) -> bool:
    return isinstance(op, CommitGroupOp)


@dataclass
class SyncPlan:
    """Where to put barriers and waits, and which hazards each covers."""

    barriers: dict[Point, list[Hazard]] = field(default_factory=dict)
    waits: dict[Point, list[Hazard]] = field(default_factory=dict)
    wait_counts: dict[Point, int] = field(default_factory=dict)
    barrier_threads: dict[Point, int] = field(default_factory=dict)
    uncovered: list[Hazard] = field(default_factory=list)
    exact: bool = True


class SyncPlanner:
    def __init__(
        self,
        analysis: HazardAnalysis,
        hazards: list[Hazard],
        allowed_point: Callable[[Point], bool],
        existing_barriers: set[Point],
        existing_waits: dict[Point, int],
    ):
        self.analysis = analysis
        self.hazards = hazards
        self.allowed_point = allowed_point
        self.existing_barriers = existing_barriers
        self.existing_waits = existing_waits
        body = analysis.function.body.block
        self.rank = {p: i for i, p in enumerate(linear_order(body))}
        self._sets: dict[Hazard, set[Point]] = {}
        self._counts: dict[tuple[Hazard, Point], int] = {}

    # -- hazard geometry

    def points(self, hazard: Hazard) -> set[Point]:
        if hazard not in self._sets:
            points = covering_points(
                list(hazard.source.levels), list(hazard.target.levels), hazard.relation
            )
            if hazard.needs_wait:
                points -= self._before_commit(hazard.source.op)
            self._sets[hazard] = points
        return self._sets[hazard]

    def _before_commit(self, copy: Operation) -> set[Point]:
        """Points after an async copy but before the commit that closes its group (a
        wait there cannot land it)."""
        excluded: set[Point] = set()
        levels = chain(copy)
        for depth in range(len(levels) - 1, -1, -1):
            block, start = levels[depth].block, levels[depth].position
            ops = list(block.ops)
            commit = next(
                (i for i in range(start + 1, len(ops)) if is_commit(ops[i])), None
            )
            stop = commit if commit is not None else end_index(block)
            excluded.update((block, j) for j in range(start + 1, stop + 1))
            if commit is not None:
                break
        return excluded

    def wait_allowance(self, hazard: Hazard, point: Point) -> int:
        """Largest pending count a wait at ``point`` may have to land the hazard's
        copy: groups committed after the copy's group on every path, minus nothing
        (-1 when the copy's own group is not committed yet at the point)."""
        key = (hazard, point)
        if key not in self._counts:
            source = list(hazard.source.levels)
            target = point_chain(point)
            relation = self._relation_to_point(hazard, point)
            exits = {
                loop: self.analysis.iterations_from_end(hazard, loop)
                for loop in _loops_left(hazard.source.op, point)
            }
            entries = {
                loop: self.analysis.iterations_from_start(hazard, loop)
                for loop in _loops_entered(hazard.source.op, point)
            }
            commits = count_on_path(source, target, relation, is_commit, exits, entries)
            self._counts[key] = commits - 1
        return self._counts[key]

    @staticmethod
    def _relation_to_point(hazard: Hazard, point: Point) -> Relation:
        """The relation of the last guaranteed run of ``point`` before the target."""
        relation = hazard.relation
        loop = relation.carried_loop
        if loop is None:
            return relation
        body = loop.regions[0].blocks[0]
        source_levels = hazard.source.levels
        target_levels = hazard.target.levels
        depth = next(i for i, level in enumerate(source_levels) if level.block is body)
        point_levels = point_chain(point)
        if len(point_levels) <= depth or point_levels[depth].block is not body:
            return relation
        pa = source_levels[depth].position
        pb = target_levels[depth].position
        pp = point_levels[depth].position
        if len(point_levels) > depth + 1 and pp == pa and pp != pb:
            return Relation()  # inside the source's statement, after it
        if pp <= pb:
            return relation  # runs in the target's iteration, before it
        # After the target's position: its last run is one iteration earlier.
        if relation.distance >= 2:
            return Relation(loop, relation.distance - 1)
        return Relation()  # the source's own iteration, after the source

    # -- planning

    def plan(self) -> SyncPlan:
        plan = SyncPlan()
        plan.uncovered.extend(h for h in self.hazards if h.needs_mbarrier_wait)
        barrier_hazards = [
            h for h in self.hazards if h.needs_barrier and not self._covered_by_existing(h)
        ]
        for hazard in barrier_hazards:
            if not {p for p in self.points(hazard) if self.allowed_point(p)}:
                plan.uncovered.append(hazard)
        coverable = [h for h in barrier_hazards if h not in plan.uncovered]
        chosen, plan.exact = self._cover(coverable)
        for point in sorted(chosen, key=self.rank.__getitem__):
            covered = [h for h in coverable if point in self.points(h)]
            plan.barriers[point] = covered
            plan.barrier_threads[point] = max(h.threads for h in covered)
        self._place_waits(plan, chosen)
        return plan

    def _covered_by_existing(self, hazard: Hazard) -> bool:
        points = self.points(hazard)
        if not points & self.existing_barriers:
            return False
        if not hazard.needs_wait:
            return True
        return any(
            p in self.existing_waits and self.existing_waits[p] <= self.wait_allowance(hazard, p)
            and any(b in points and self.rank[b] >= self.rank[p] for b in self.existing_barriers)
            for p in points
        )

    def _cover(self, hazards: list[Hazard]) -> tuple[set[Point], bool]:
        if not hazards:
            return set(), True
        candidates = sorted(
            {p for h in hazards for p in self.points(h) if self.allowed_point(p)},
            key=self.rank.__getitem__,
        )
        if len(candidates) > EXACT_LIMIT:
            return self._greedy_cover(hazards), False
        # Among equally cheap covers prefer points late in the program (right before
        # the consumers, so producers overlap as long as possible) ...
        found = self._solve_cover(candidates, hazards, prefer_late=True)
        if found is None:
            # ... unless that tie-break is too hard for z3 (weighted MaxSAT alone is
            # quick where the lexicographic problem can take minutes).
            found = self._solve_cover(candidates, hazards, prefer_late=False)
        if found is None:
            return self._greedy_cover(hazards), False
        return found, True

    def _solve_cover(
        self, candidates: list[Point], hazards: list[Hazard], prefer_late: bool
    ) -> set[Point] | None:
        """The cheapest set of candidate points hitting every hazard, or None when z3
        gives up within TIE_BREAK_RESOURCES."""
        chosen = z3.Optimize()
        chosen.set(rlimit=TIE_BREAK_RESOURCES)
        var = {p: z3.Bool(f"p{i}") for i, p in enumerate(candidates)}
        for h in hazards:
            chosen.add(z3.Or([var[p] for p in self.points(h) if p in var]))
        for p in candidates:
            chosen.add_soft(z3.Not(var[p]), point_weight(p), id="cost")
        if prefer_late:
            lateness = z3.Sum([z3.If(var[p], self.rank[p], 0) for p in candidates])
            chosen.maximize(lateness)
        if chosen.check() != z3.sat:
            return None
        model = chosen.model()
        return {p for p in candidates if z3.is_true(model[var[p]])}

    def _greedy_cover(self, hazards: list[Hazard]) -> set[Point]:
        """Earliest-ending first, each hit at its latest point (optimal on a line)."""
        chosen: set[Point] = set()
        end = {h: self.rank[h.target.levels[-1].block, h.target.levels[-1].position] for h in hazards}
        for h in sorted(hazards, key=end.__getitem__):
            points = [p for p in self.points(h) if self.allowed_point(p)]
            if not chosen & set(points):
                chosen.add(max(points, key=self.rank.__getitem__))
        return chosen

    def _place_waits(self, plan: SyncPlan, barriers: set[Point]) -> None:
        """Give every async hazard a wait, in program order of the consumers, reusing
        a wait already placed when its count still lands the copy."""
        # Waits that must sit at a barrier point first; waits of their own only when
        # no wait placed so far already lands the copy.
        wait_hazards = sorted(
            (h for h in self.hazards if h.needs_wait and not self._covered_by_existing(h)),
            key=lambda h: (
                not h.needs_barrier,
                self.rank[h.target.levels[-1].block, h.target.levels[-1].position],
            ),
        )
        for hazard in wait_hazards:
            points = self.points(hazard)
            if self._served_by_planned_wait(plan, hazard, points, barriers):
                continue
            if hazard.needs_barrier:
                candidates = [p for p in barriers if p in points]
            else:
                candidates = sorted(points, key=self.rank.__getitem__)[-1:]
            if not candidates:
                continue  # reported through plan.uncovered
            point = max(candidates, key=lambda p: (self.wait_allowance(hazard, p), self.rank[p]))
            plan.waits.setdefault(point, []).append(hazard)
            count = self.wait_allowance(hazard, point)
            plan.wait_counts[point] = min(plan.wait_counts.get(point, count), count)

    def _served_by_planned_wait(
        self, plan: SyncPlan, hazard: Hazard, points: set[Point], barriers: set[Point]
    ) -> bool:
        for wait in plan.waits:
            if wait not in points:
                continue
            if plan.wait_counts[wait] > self.wait_allowance(hazard, wait):
                continue
            if hazard.needs_barrier and not any(
                b in points and self.rank[b] >= self.rank[wait] for b in barriers
            ):
                continue
            plan.waits[wait].append(hazard)
            return True
        return False


def _loops_left(op: Operation, point: Point) -> list[Operation]:
    """Loops around ``op`` that the path to ``point`` leaves."""
    inside = set(_loops_around_point(point))
    return [loop for loop in enclosing_loops(op) if loop not in inside]


def _loops_entered(op: Operation, point: Point) -> list[Operation]:
    around = set(enclosing_loops(op))
    return [loop for loop in _loops_around_point(point) if loop not in around]


def _loops_around_point(point: Point) -> list[Operation]:
    owner = point[0].parent_op()
    loops = list(enclosing_loops(owner)) if owner is not None else []
    if isinstance(owner, LoopOp):
        loops.append(owner)
    return loops
