"""Choosing the fewest sync points that cover every hazard: barriers as a weighted
interval point cover (Z3's optimizer, greedy for very large kernels), the
``wait_group`` that lands each ``cp.async`` before its consumer, and the proxy fences
bulk copies need.  See docs/sync.md, "`thread-sync`" (items 4-6) and "How deep a
wait is"."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import z3
from xdsl.ir import Operation

from tilepipe.dialects.pipeline_sync import CommitGroupOp

from tilepipe.passes.cuda.hazards import Hazard, HazardAnalysis
from tilepipe.passes.cuda.later_iterations import loops_run_whole
from tilepipe.passes.analysis.program_points import (
    Point,
    block_points,
    Relation,
    count_on_path,
    covering_points,
    linear_order,
    point_chain,
    point_weight,
)
from tilepipe.passes.analysis.symbolic_index import LoopOp, enclosing_loops, static_trip_count

EXACT_LIMIT = 400  # candidate points beyond which the greedy cover is used
# z3 resource units (deterministic, unlike a timeout) for one cover problem; beyond
# them the cheapest cover without the preference for late points is used.
TIE_BREAK_RESOURCES = 500_000


def _any_of(literals: list[z3.BoolRef], context: z3.Context) -> z3.BoolRef:
    """``z3.Or(literals)`` without its per-argument coercion (the literals are Bool
    constants of ``context`` already): about a fifth of thread-sync's time on
    flash attention went into ``z3.Or``'s argument checks.  Same clause, same order."""
    array = (z3.Ast * len(literals))(*(literal.as_ast() for literal in literals))
    return z3.BoolRef(z3.Z3_mk_or(context.ref(), len(literals), array), context)


def is_commit(op: Operation) -> bool:
    return isinstance(op, CommitGroupOp)


@dataclass
class SyncPlan:
    """Where to put barriers and waits, and which hazards each covers."""

    barriers: dict[Point, list[Hazard]] = field(default_factory=dict)
    waits: dict[Point, list[Hazard]] = field(default_factory=dict)
    wait_counts: dict[Point, int] = field(default_factory=dict)
    barrier_threads: dict[Point, int] = field(default_factory=dict)
    fences: dict[Point, list[Hazard]] = field(default_factory=dict)
    """Proxy fences (``fence.proxy.async``), each right before the point's barrier."""
    uncovered: list[Hazard] = field(default_factory=list)
    """Hazards no allowed point separates: the pass stops on them."""
    exact: bool = True


class SyncPlanner:
    def __init__(
        self,
        analysis: HazardAnalysis,
        hazards: list[Hazard],
        allowed_point: Callable[[Point], bool],
        existing_barriers: set[Point],
        existing_waits: dict[Point, int],
        existing_fences: set[Point],
    ):
        self.analysis = analysis
        self.hazards = hazards
        self.allowed_point = allowed_point
        self.existing_barriers = existing_barriers
        self.existing_waits = existing_waits
        self.existing_fences = existing_fences
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
                # A wait lands the copy only where its group is committed on every
                # path (also at points nested in statements before the commit).
                points = {p for p in points if self.wait_allowance(hazard, p) >= 0}
            self._sets[hazard] = points
        return self._sets[hazard]

    def wait_allowance(self, hazard: Hazard, point: Point) -> int:
        """Largest pending count a wait at ``point`` may have to land the hazard's
        copy: the groups committed after the copy's own group on every path (-1 when
        that group is not committed on every path to the point: no wait lands it)."""
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

    def _relation_to_point(self, hazard: Hazard, point: Point) -> Relation:
        """The relation of the last guaranteed run of ``point`` before the target."""
        relation = hazard.relation
        loop = relation.carried_loop
        if loop is None:
            return self._exit_relation(hazard, point)
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

    def _exit_relation(self, hazard: Hazard, point: Point) -> Relation:
        """A point in the body of a loop the path leaves (it holds the source, not
        the target) runs last in the loop's last iteration, not in the source's: a
        wait there has the groups of the iterations in between in flight too.  (A
        point nested in the source's statement runs in the source's iteration only.)
        Only that last run counts, since a wait lands every group but the newest
        ones; an mbarrier wait instead searches the next iterations for one on the
        copy's slot (``later_iterations``)."""
        loop = point[0].parent_op()
        if (
            not isinstance(loop, LoopOp)
            or loop not in enclosing_loops(hazard.source.op)
            or loop in enclosing_loops(hazard.target.op)
        ):
            return hazard.relation
        distance = self.analysis.iterations_from_end(hazard, loop)
        return Relation(loop, distance) if distance >= 1 else hazard.relation

    # -- planning

    def plan(self) -> SyncPlan:
        plan = SyncPlan()
        plan.uncovered.extend(h for h in self.hazards if h.needs_mbarrier_wait)
        # A barrier already in the program (e.g. the one publishing mbarrier inits)
        # orders every hazard it separates; one that also needs a wait gets it placed
        # right before that barrier instead of a barrier of its own.
        barrier_hazards = [
            h for h in self.hazards
            if h.needs_barrier and not self.points(h) & self.existing_barriers
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
        barriers = chosen | self.existing_barriers
        self._place_waits(plan, barriers)
        self._relax_waits(plan, barriers)
        self._place_fences(plan, barriers)
        return plan

    def _place_fences(self, plan: SyncPlan, barriers: set[Point]) -> None:
        """A proxy fence for every generic -> bulk copy hazard not already fenced,
        reusing a fence placed for another hazard where it also separates this one."""
        for hazard in self.hazards:
            if not hazard.needs_proxy_fence:
                continue
            points = self.points(hazard)
            # A cp.async's write is performed for its thread when a wait lands it:
            # only a fence after that wait (at its point: the wait comes first)
            # orders it.
            landed_from = self._landing_rank(plan, hazard, points)
            points = {p for p in points if self.rank[p] >= landed_from}
            if hazard.needs_barrier:
                # The fence must come before a barrier that orders the accessing
                # threads before the issuing thread, both between the two accesses.
                def ordered(fence: Point) -> bool:
                    return any(
                        b in points and self.rank[b] >= self.rank[fence] for b in barriers
                    )
                candidates = [p for p in barriers if p in points]
            else:
                def ordered(fence: Point) -> bool:
                    return True
                candidates = list(points)
            if any(f in points and ordered(f) for f in self.existing_fences):
                continue
            if not candidates:
                continue  # no barrier separates them: already uncovered
            planned = [p for p in candidates if p in plan.fences]
            point = max(planned or candidates, key=self.rank.__getitem__)
            plan.fences.setdefault(point, []).append(hazard)

    def _landing_rank(self, plan: SyncPlan, hazard: Hazard, points: set[Point]) -> int:
        """The rank from which the source of ``hazard`` has landed for its thread:
        the earliest wait serving it (planned, or in place with a count that lands
        it) for a cp.async, any point for a thread's own access."""
        if not hazard.source.is_async:
            return -1
        waits = [p for p, served in plan.waits.items() if hazard in served]
        waits += [
            p for p in points
            if p in self.existing_waits
            and self.existing_waits[p] <= self.wait_allowance(hazard, p)
        ]
        return min((self.rank[p] for p in waits), default=-1)

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
        # A context of its own, so that whether z3 finishes within the resource limit
        # does not depend on what earlier queries left in the main context (see
        # symbolic_index.satisfiable).
        context = z3.Context()
        chosen = z3.Optimize(ctx=context)
        chosen.set(rlimit=TIE_BREAK_RESOURCES)
        var = {p: z3.Bool(f"p{i}", ctx=context) for i, p in enumerate(candidates)}
        # Clauses list points in program order: z3's answer (and whether it fits the
        # resource limit) depends on the order, and a set of points has none.
        for h in hazards:
            points = self.points(h)
            chosen.add(_any_of([var[p] for p in candidates if p in points], context))
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
            # Barrier points in loops run whole between the two count too: in the
            # steady state a wait lands what the prologue committed for the first
            # iterations with the groups of the iterations before in flight.
            points = self.reach(hazard)
            if self._served_by_planned_wait(plan, hazard, points, barriers):
                continue
            if hazard.needs_barrier:
                candidates = [p for p in barriers if p in points]
            else:
                candidates = sorted(self.points(hazard), key=self.rank.__getitem__)[-1:]
            if not candidates:
                # No point after the copy's commit (or, with a barrier, none where
                # one is placed): nothing can land the copy before its reader.
                if hazard not in plan.uncovered:
                    plan.uncovered.append(hazard)
                continue
            allowance = self.any_allowance
            point = max(candidates, key=lambda p: (allowance(hazard, p), self.rank[p]))
            plan.waits.setdefault(point, []).append(hazard)
            count = allowance(hazard, point)
            plan.wait_counts[point] = min(plan.wait_counts.get(point, count), count)

    # -- relaxing waits: let a wait that already lands a copy serve it

    def _relax_waits(self, plan: SyncPlan, barriers: set[Point]) -> None:
        """Move hazards between waits so that each wait's count is as large as the
        hazards it alone serves allow, and drop waits left serving nothing.

        A hazard may be served by any wait on every path between the copy and its
        reader -- including waits in a loop the path leaves (or enters) after whole
        iterations, which placement does not consider -- whose count lands the copy
        at the wait's last run before the reader (with a chosen barrier after it when
        other threads read).  Moving the hazards that bind a wait's count to another
        wait raises the count (more copies stay in flight); a wait serving nothing
        is removed."""
        changed = True
        while changed:
            changed = False
            for wait in sorted(plan.waits, key=self.rank.__getitem__):
                hazards = plan.waits[wait]
                count = plan.wait_counts[wait]
                binding = [h for h in hazards if self.any_allowance(h, wait) <= count]
                moves = [(h, self._other_server(plan, h, wait, barriers)) for h in binding]
                if any(other is None for _, other in moves):
                    continue
                for hazard, other in moves:
                    hazards.remove(hazard)
                    plan.waits[other].append(hazard)
                if hazards:
                    plan.wait_counts[wait] = min(self.any_allowance(h, wait) for h in hazards)
                else:
                    del plan.waits[wait], plan.wait_counts[wait]
                changed = True
                break

    def _other_server(
        self, plan: SyncPlan, hazard: Hazard, excluded: Point, barriers: set[Point]
    ) -> Point | None:
        reach = self.reach(hazard)
        for wait in plan.waits:
            if wait == excluded or wait not in reach:
                continue
            if plan.wait_counts[wait] > self.any_allowance(hazard, wait):
                continue
            if hazard.needs_barrier and not any(
                b in reach and self.rank[b] >= self.rank[wait] for b in barriers
            ):
                continue
            return wait
        return None

    def reach(self, hazard: Hazard) -> set[Point]:
        """Like :meth:`points`, plus the points of loops run whole between the two
        (``later_iterations.loops_run_whole``, shared with the bulk copies' waits)."""
        key = ("reach", hazard)
        if key not in self._sets:
            points = covering_points(
                list(hazard.source.levels),
                list(hazard.target.levels),
                hazard.relation,
                loops_run_whole(self.analysis, hazard),
            )
            points |= self._points_of_loops_between(hazard)
            if hazard.needs_wait:
                points = {p for p in points if self.any_allowance(hazard, p) >= 0}
            self._sets[key] = points  # type: ignore[index]
        return self._sets[key]  # type: ignore[index]

    def _points_of_loops_between(self, hazard: Hazard) -> set[Point]:
        """Body points of loops with a static trip count >= 1 that lie between the
        two accesses in their common block (such a loop always runs)."""
        if hazard.relation.carried_loop is not None:
            return set()
        source, target = hazard.source.levels, hazard.target.levels
        depth = 0
        while (
            depth < min(len(source), len(target)) - 1
            and source[depth].block is target[depth].block
            and source[depth].position == target[depth].position
        ):
            depth += 1
        block = source[depth].block
        points: set[Point] = set()
        ops = list(block.ops)
        for op in ops[source[depth].position + 1 : target[depth].position]:
            if isinstance(op, LoopOp) and static_trip_count(op):
                body = op.regions[0].blocks[0]
                points.update((body, j) for j in block_points(body))
        return points

    def any_allowance(self, hazard: Hazard, point: Point) -> int:
        """:meth:`wait_allowance` for points of :meth:`points`; for the extra points
        of :meth:`reach`, counted to the point's last run before the reader."""
        if point in self.points(hazard):
            return self.wait_allowance(hazard, point)
        key = ("reach", hazard, point)
        if key not in self._counts:
            self._counts[key] = self._reach_allowance(hazard, point)  # type: ignore[index]
        return self._counts[key]  # type: ignore[index]

    def _reach_allowance(self, hazard: Hazard, point: Point) -> int:
        source = list(hazard.source.levels)
        target = point_chain(point)
        around_point = set(_loops_around_point(point))
        relation = Relation()
        exits: dict[Operation, int] = {}
        entries: dict[Operation, int] = {}
        for loop in enclosing_loops(hazard.source.op):
            if loop in around_point and loop not in enclosing_loops(hazard.target.op):
                # A loop the path leaves, holding the point: its last run is in the
                # loop's last iteration, this many iterations after the copy's.
                relation = Relation(loop, self.analysis.iterations_from_end(hazard, loop))
            elif loop not in around_point:
                exits[loop] = self.analysis.iterations_from_end(hazard, loop)
        source_loops = enclosing_loops(hazard.source.op)
        for loop in [inner for inner in _loops_around_point(point) if inner not in source_loops]:
            if loop not in enclosing_loops(hazard.target.op):
                # A loop between the two that always runs: its last iteration.
                entries[loop] = (static_trip_count(loop) or 1) - 1
                continue
            # A loop the path enters: the point's run before the reader's first
            # conflicting iteration (one earlier when it follows the reader's statement).
            first = self.analysis.iterations_from_start(hazard, loop)
            body = loop.regions[0].blocks[0]
            depth = _depth_in(hazard.target.levels, body)
            after_reader = (
                depth is not None
                and len(target) > depth
                and target[depth].block is body
                and target[depth].position > hazard.target.levels[depth].position
            )
            entries[loop] = max(first - 1, 0) if after_reader else first
        if relation.carried_loop is not None and relation.distance == 0:
            relation = Relation()
        return count_on_path(source, target, relation, is_commit, exits, entries) - 1

    def _served_by_planned_wait(
        self, plan: SyncPlan, hazard: Hazard, points: set[Point], barriers: set[Point]
    ) -> bool:
        for wait in plan.waits:
            if wait not in points:
                continue
            if plan.wait_counts[wait] > self.any_allowance(hazard, wait):
                continue
            if hazard.needs_barrier and not any(
                b in points and self.rank[b] >= self.rank[wait] for b in barriers
            ):
                continue
            plan.waits[wait].append(hazard)
            return True
        return False


def _depth_in(levels, block) -> int | None:
    return next((i for i, level in enumerate(levels) if level.block is block), None)


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
