"""InsertSync's model: sync sites, the dependence edges between them with their
distances, the pruning of implied edges, and the sync points that remain.  See
docs/ascend.md, "`ascend-insert-sync`"."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from xdsl.dialects import scf
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, SSAValue

from tilepipe.core.diagnostics import op_error
from tilepipe.dialects.ascend_pipes import Core, HardEvent, Pipe, canonical_hard_event
from tilepipe.dialects.pipeline import ForOp
from tilepipe.dialects.tile import TileOp
from tilepipe.core.targets import AscendTarget, target_of

from tilepipe.passes.analysis.access_regions import RegionAccess, op_accesses, provably_disjoint
from tilepipe.passes.analysis.loop_dependences import LoopAccessAnalysis
from tilepipe.passes.ascend.buffer_ownership import EpochClock, MultiBuffer, epoch_clock
from tilepipe.passes.ascend.resolve_core import op_core, op_pipe
from tilepipe.passes.analysis.symbolic_index import enclosing_conditions
from tilepipe.passes.analysis.trip_counts import trips_at_least, trips_at_most


@dataclass(frozen=True, eq=False)
class SyncSite:
    op: TileOp
    pipe: Pipe
    core: Core
    position: int
    loop: ForOp | None
    # The statement of the loop body the op is nested in -- an scf.if (a guarded
    # epoch) or an inner scf.for that may run any number of times, even none -- and
    # the block it is in.
    guard: scf.IfOp | scf.ForOp | None = None
    branch: Block | None = None

    @property
    def item(self) -> Operation:
        """The top-level statement holding the site: its loop, or the op itself."""
        return self.loop if self.loop is not None else self.op

    @property
    def statement(self) -> Operation:
        """The loop-body statement holding the site: its guard, or the op itself."""
        return self.guard if self.guard is not None else self.op

    def same_guard(self, other: SyncSite) -> bool:
        return self.guard is other.guard and self.branch is other.branch

    @property
    def inner_loop(self) -> scf.ForOp | None:
        return self.guard if isinstance(self.guard, scf.ForOp) else None

    def excludes(self, other: SyncSite) -> bool:
        """Never both run in one iteration: the two branches of one scf.if."""
        return self.guard is not None and self.guard is other.guard and not self.same_guard(other)


@dataclass(frozen=True, eq=False)
class DepEdge:
    src: SyncSite
    dst: SyncSite
    distance: int
    buffer: SSAValue
    kind: str  # raw, war, waw
    # What the distance counts (in-loop edges): iterations, or a branch's executed
    # epochs; ring ids follow the same clock.
    clock: EpochClock | None = None

    @property
    def in_loop(self) -> bool:
        return self.src.loop is not None and self.src.loop is self.dst.loop

    @property
    def name(self) -> str:
        return f"{self.buffer.name_hint or 'buffer'}:{self.kind}"

    @property
    def is_guarded(self) -> bool:
        """Are the edge's sync ops inside a guard (both ends in one branch)?  Otherwise
        they sit at the guards' boundaries and run in every iteration."""
        return self.src.guard is not None and self.src.same_guard(self.dst)

    @property
    def set_anchor(self) -> Operation:
        """The op a set follows: the producer, its guard when the consumer is not in
        the same branch (so the set runs in every iteration), or, between top-level
        items, the producer's item."""
        if not self.in_loop:
            return self.src.item
        return self.src.op if self.src.same_guard(self.dst) else self.src.statement

    @property
    def wait_anchor(self) -> Operation:
        """The op a wait (or barrier) precedes, mirroring :attr:`set_anchor`."""
        if not self.in_loop:
            return self.dst.item
        return self.dst.op if self.src.same_guard(self.dst) else self.dst.statement


class SyncKind(Enum):
    NONE = "none"
    BARRIER = "barrier"
    FENCE = "fence"  # pipe_barrier[ALL] before the consumer (inside an inner loop)
    FLAG = "flag"
    CROSS_CORE = "cross_core"


@dataclass(frozen=True, eq=False)
class SyncPoint:
    edge: DepEdge
    kind: SyncKind
    versions: int  # event ids of the ring (1: one static id)

    @property
    def event(self) -> HardEvent:
        return canonical_hard_event(self.edge.src.pipe, self.edge.dst.pipe)

    @property
    def is_ring(self) -> bool:
        """A flag set in one iteration and waited in a later one: primed and drained."""
        return self.edge.in_loop and self.edge.distance >= 1

    @property
    def primes(self) -> int:
        """Sets before the loop (and waits after it) of a ring: one per iteration the
        consumer may lag.  A binary intra-core flag takes one id per version, so that
        is ``versions``; a cross-core flag is a counter, so a credit ring of distance
        D needs D sets of its one id."""
        if self.kind == SyncKind.CROSS_CORE:
            return self.edge.distance
        return self.versions


def sync_kind(src: SyncSite, dst: SyncSite) -> SyncKind:
    if src.core != dst.core:
        return SyncKind.CROSS_CORE
    if src.pipe == dst.pipe:
        return SyncKind.NONE if src.pipe.keeps_own_order else SyncKind.BARRIER
    return SyncKind.FLAG


# --------------------------------------------------------------------------- sites


def collect_sites(kernel: FuncOp) -> list[SyncSite]:
    """Every tile op: at the kernel's top level, in a pipelined loop's body, in a
    branch of an ``scf.if`` of that body (a guarded epoch), or in the body of an
    ``scf.for`` of it (an inner loop)."""
    sites: list[SyncSite] = []
    for op in kernel.walk():
        if not isinstance(op, TileOp):
            continue
        pipe, core = op_pipe(op), op_core(op)
        if pipe is None or core is None:
            raise op_error(op, "has no pipe; run ascend-resolve-core first")
        loop = _enclosing_loop(op)
        parent = op.parent_op()
        guard = None
        if loop is not None and isinstance(parent, scf.IfOp | scf.ForOp) and parent.parent_op() is loop:
            guard = parent
        elif loop is not None and parent is not loop:
            raise op_error(
                op, "must be a statement of its pipelined loop or of an scf.if or an "
                "scf.for in it"
            )
        if loop is None and parent is not kernel:
            raise op_error(op, "must be at the kernel's top level or in a pipelined loop")
        branch = op.parent_block() if guard is not None else None
        sites.append(SyncSite(op, pipe, core, len(sites), loop, guard, branch))
    return sites


def _enclosing_loop(op: Operation) -> ForOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, ForOp | FuncOp):
        parent = parent.parent_op()
    return parent if isinstance(parent, ForOp) else None


# --------------------------------------------------------------------------- edges


def dependence_edges(
    sites: Sequence[SyncSite], plan: dict[SSAValue, MultiBuffer]
) -> list[DepEdge]:
    edges: list[DepEdge] = []
    loops = []
    for site in sites:
        if site.loop is not None and site.loop not in loops:
            loops.append(site.loop)
    for loop in loops:
        analysis = LoopAccessAnalysis(loop)
        loop_sites = [site for site in sites if site.loop is loop]
        # Kept alive for the whole loop: the analysis caches by access identity.
        accesses = {site: op_accesses(site.op, loop) for site in loop_sites}
        for src in loop_sites:
            for dst in loop_sites:
                edges.extend(_loop_edges(analysis, src, dst, accesses, plan))
    for src in sites:
        for dst in sites:
            if src.item is dst.item or src.position > dst.position:
                continue
            for a in op_accesses(src.op):
                for b in op_accesses(dst.op):
                    kind = _kind(a, b)
                    if a.buffer is b.buffer and kind is not None and not provably_disjoint(a, b):
                        edges.append(DepEdge(src, dst, 0, a.buffer, kind))
    return _unique_edges(edges)


def _loop_edges(
    analysis: LoopAccessAnalysis,
    src: SyncSite,
    dst: SyncSite,
    accesses: dict[SyncSite, list[RegionAccess]],
    plan: dict[SSAValue, MultiBuffer],
) -> list[DepEdge]:
    """Edges src -> dst of one loop: same iteration when src comes first (and both can
    run in one iteration), else loop-carried if the regions meet at some distance
    that the loop's trip count (static, or proven) allows."""
    edges = []
    if src.inner_loop is not None and src.inner_loop is dst.inner_loop:
        return edges  # ordered by the inner loop's fences (inner_loop_fences)
    never_reached: dict[int, bool] = {}  # distance -> the loop runs at most that often
    for a in accesses[src]:
        for b in accesses[dst]:
            if a.is_opaque or b.is_opaque:
                raise op_error(src.op, "has effects ascend-insert-sync cannot see")
            kind = _kind(a, b)
            if kind is None or a.buffer is not b.buffer:
                continue
            info = plan.get(a.buffer)
            owned = info is not None and info.owner is analysis.loop
            clock = epoch_clock(info) if owned else EpochClock(analysis.loop, None)
            same_iteration = src.position < dst.position and not src.excludes(dst)
            if same_iteration and analysis.may_intersect(a, b, 0):
                edges.append(DepEdge(src, dst, 0, a.buffer, kind, clock))
            elif analysis.may_intersect(a, b, None):
                distance = info.versions if owned else 1
                if distance not in never_reached:
                    never_reached[distance] = trips_at_most(analysis.loop, distance)
                if never_reached[distance]:
                    # Iteration k + distance never runs (nor, in the counter mode, the
                    # epoch: epochs <= iterations): the ring could never fire.
                    continue
                edges.append(DepEdge(src, dst, distance, a.buffer, kind, clock))
    return edges


def _kind(a: RegionAccess, b: RegionAccess) -> str | None:
    if a.writes and b.reads:
        return "raw"
    if a.reads and b.writes:
        return "war"
    if a.writes and b.writes:
        return "waw"
    return None


def _unique_edges(edges: list[DepEdge]) -> list[DepEdge]:
    """One edge per (src, dst, distance), keeping the first kind (raw before war)."""
    seen: dict[tuple[int, int, int], DepEdge] = {}
    for edge in edges:
        key = (edge.src.position, edge.dst.position, edge.distance)
        seen.setdefault(key, edge)
    return list(seen.values())


# --------------------------------------------------------------------------- closure

INFINITY = 1 << 30


def _issue_order_distance(x: SyncSite, y: SyncSite) -> int | None:
    """Distance of the implicit edge x -> y of one pipe's issue order, if any."""
    if x.pipe != y.pipe or x.core != y.core:
        return None
    if x.item is y.item and x.loop is not None:
        return 0 if x.position < y.position else 1
    if x.position < y.position:
        return 0
    return None


def _bounds(kept: EpochClock | None, target: EpochClock | None) -> bool:
    """May a loop-carried kept edge measured by ``kept`` be part of a path implying an
    edge measured by ``target``?  Iterations bound the epochs of the same loop."""
    if kept == target:
        return True
    return (
        kept is not None and target is not None
        and kept.branch is None and kept.loop is target.loop
    )


def _runs_with(kept: DepEdge, target: DepEdge) -> bool:
    """Do the syncs of ``kept`` run whenever ``target`` must be ordered?  Syncs in a
    guard run in the iterations that take its branch: those where the target's ends
    in that branch run, or -- for a same-iteration target -- either end."""
    if not kept.is_guarded:
        return True
    in_branch = [target.src.same_guard(kept.src), target.dst.same_guard(kept.src)]
    return all(in_branch) or (target.distance == 0 and any(in_branch))


def _anchored_sites(
    anchor: Operation, end: SyncSite, sites: Sequence[SyncSite]
) -> list[SyncSite]:
    """The sites on ``end``'s pipe that ``anchor`` (an op, a guard or a loop) holds."""
    return [
        s for s in sites
        if s.pipe == end.pipe and s.core == end.core
        and (s.op is anchor or anchor.is_ancestor(s.op))
    ]


def fenced_distance(target: DepEdge, fences: Sequence[SyncPoint]) -> int:
    """The distance at which an inner loop's ``pipe_barrier[ALL]`` fence orders
    ``target`` directly (INFINITY when none does).  A fence F before site X of an
    inner loop makes every earlier instruction of its core complete before every later
    one, but runs only when its inner iteration does: it orders the target when one
    end is in that iteration -- the producer before F (F follows it) or the consumer
    at or after X (F precedes it) -- and the other end is on the far side of F: later
    in the same outer iteration (distance 0), or in another outer iteration (1)."""
    best = INFINITY
    src, dst = target.src, target.dst
    for fence in fences:
        x = fence.edge.dst
        if src.core != x.core or dst.core != x.core or src.loop is not x.loop:
            continue
        src_before = src.position < x.position
        dst_after = dst.position >= x.position
        if src.inner_loop is x.inner_loop and src_before:
            best = min(best, 0 if dst_after else 1)
        if dst.inner_loop is x.inner_loop and dst_after:
            best = min(best, 0 if src_before else 1)
    return best


def _maybe_skipped(target: DepEdge, sites: Sequence[SyncSite]) -> list[bool]:
    """By site position: may the site not run at all when both ends of ``target`` do?
    Then a path through it orders nothing.  That is a site of a pipelined loop other
    than the ends' loops, unless the loop provably runs: with zero trips, a fill before
    the loop and a copy after it meet with no loop body in between.  A trip count is
    proven where its loop is reached, so a loop under an ``scf.if`` may not run."""
    loops = (target.src.loop, target.dst.loop)
    runs: dict[ForOp, bool] = {}
    skipped = []
    for site in sites:
        loop = site.loop
        if loop is None or loop in loops:
            skipped.append(False)
            continue
        if loop not in runs:
            runs[loop] = not enclosing_conditions(loop) and trips_at_least(loop, 1)
        skipped.append(not runs[loop])
    return skipped


def implied_distance(
    target: DepEdge,
    sites: Sequence[SyncSite],
    kept: Sequence[DepEdge],
    fences: Sequence[SyncPoint] = (),
) -> int:
    """The smallest total distance of a path target.src -> target.dst that uses at
    least one kept edge (INFINITY when there is none); kept edges count only where
    their syncs run with the target and their clock bounds the target's."""
    src, dst = target.src, target.dst
    n = len(sites)
    skipped = _maybe_skipped(target, sites)
    # best[0][i]: no kept edge used yet; best[1][i]: at least one.
    best = [[INFINITY] * n, [INFINITY] * n]
    best[0][src.position] = 0
    out_edges: dict[int, list[tuple[int, int, bool]]] = {i: [] for i in range(n)}
    for x in sites:
        for y in sites:
            d = _issue_order_distance(x, y)
            if d is not None:
                out_edges[x.position].append((y.position, d, False))
    for edge in kept:
        if not _runs_with(edge, target):
            continue
        if edge.distance >= 1 and not _bounds(edge.clock, target.clock):
            continue
        # A set after a guard (or a loop) follows every site of its pipe in it; a wait
        # before one holds back every site of its pipe in it.
        for a in _anchored_sites(edge.set_anchor, edge.src, sites):
            for b in _anchored_sites(edge.wait_anchor, edge.dst, sites):
                out_edges[a.position].append((b.position, edge.distance, True))
    # Bellman-Ford: distances are non-negative and the graph is small.
    for _ in range(2 * n):
        changed = False
        for layer in (0, 1):
            for u in range(n):
                if best[layer][u] >= INFINITY:
                    continue
                for v, d, explicit in out_edges[u]:
                    if skipped[v]:
                        continue
                    reached = 1 if (layer or explicit) else 0
                    if best[layer][u] + d < best[reached][v]:
                        best[reached][v] = best[layer][u] + d
                        changed = True
        if not changed:
            break
    return min(best[1][dst.position], fenced_distance(target, fences))


def prune_redundant(
    edges: Sequence[DepEdge],
    sites: Sequence[SyncSite],
    fences: Sequence[SyncPoint] = (),
) -> list[DepEdge]:
    """The edges that need a sync, tightest first; implied ones (by kept edges, or by
    the inner loops' fences) are dropped."""
    order = sorted(edges, key=lambda e: (e.distance, -e.src.position, e.dst.position))
    kept: list[DepEdge] = []
    for edge in order:
        if sync_kind(edge.src, edge.dst) == SyncKind.NONE:
            continue
        if implied_distance(edge, sites, kept, fences) <= edge.distance:
            continue
        kept.append(edge)
    # An edge kept early can be implied by edges kept after it (a guarded edge by a
    # ring at the guard's boundary): drop those, loosest first.
    for edge in reversed(list(kept)):
        others = [e for e in kept if e is not edge]
        if implied_distance(edge, sites, others, fences) <= edge.distance:
            kept = others
    return kept


def ring_is_closed(
    ring: DepEdge,
    versions: int,
    sites: Sequence[SyncSite],
    kept: Sequence[DepEdge],
    fences: Sequence[SyncPoint] = (),
) -> bool:
    """Is every set of a loop's flag point ordered after the wait that consumed the
    previous set of its id?

    Ids are binary: the set after ``src`` of iteration k takes id k mod ``versions``,
    whose previous set (iteration k - versions) the wait before ``dst`` of iteration
    k - versions + distance consumes.  A second set before that wait is lost and a
    later wait deadlocks.  The wait runs on the consumer's pipe and the set on the
    producer's, so the wait precedes the set only through a path of kept edges from
    ``dst`` to ``src`` of distance at most ``versions - distance`` (a WAR ring is
    closed by its RAW edge).  A point without one (e.g. a fill that only a guarded
    edge orders before the copy it zeroes, so its ring runs ahead in the iterations
    that skip the branch) is replaced by a ``pipe_barrier[ALL]`` before its consumer,
    which orders every earlier instruction of the core.  A same-iteration point is not
    primed: in a loop of at most ``versions`` iterations no id is set twice."""
    return _closed(ring, versions, closing_distance(ring, sites, kept, fences))


def closing_distance(
    ring: DepEdge,
    sites: Sequence[SyncSite],
    kept: Sequence[DepEdge],
    fences: Sequence[SyncPoint] = (),
) -> int:
    """The shortest path of kept edges from ``ring``'s consumer back to its producer
    (INFINITY when there is none): the distance :func:`ring_is_closed` compares."""
    back = DepEdge(ring.dst, ring.src, 0, ring.buffer, "ring", ring.clock)
    # A guarded kept edge runs only in its branch: it closes points of that branch only.
    usable = [
        e for e in kept
        if e is not ring and (not e.is_guarded or (ring.is_guarded and e.src.same_guard(ring.src)))
    ]
    return implied_distance(back, sites, usable, fences)


def _closed(ring: DepEdge, versions: int, back_distance: int) -> bool:
    assert ring.src.loop is not None
    if ring.distance == 0 and trips_at_most(ring.src.loop, versions):
        return True  # unprimed, and no iteration reuses an id
    return back_distance <= versions - ring.distance


def inner_loop_fences(sites: Sequence[SyncSite]) -> list[SyncPoint]:
    """Sync inside an inner loop of a pipelined loop body.  Its iterations -- any
    number, none included -- reuse the same regions, and their offsets may follow the
    inner induction variable, which the pipelined loop's analysis does not model; so,
    as TileLang-Ascend does around control flow it does not analyse, conflicting sites
    of one inner loop are separated by ``pipe_barrier[ALL]`` fences: every earlier
    instruction of the core completes before any later one.  A conflict A -> X needs
    a fence after A and up to X in the loop's cyclic order (X in a later inner
    iteration when it does not follow A in the body); fences are placed before every
    conflicting X, then dropped, last first, where the others still separate every
    conflict.  Sync with sites outside the inner loop sits at its boundary (the wait
    before it, the set after it), so zero trips stay balanced."""
    conflicts: list[tuple[SyncSite, SyncSite, SSAValue]] = []
    for x in sites:
        for a in sites:
            if x.inner_loop is None or a.inner_loop is not x.inner_loop:
                continue
            buffer = _conflict(a, x)
            if buffer is None or (a.pipe == x.pipe and a.pipe.keeps_own_order and a.core == x.core):
                continue
            if a.core != x.core:
                raise op_error(
                    x.op, "depends on another core's op in the same inner loop; "
                    "cross-core sync inside an inner loop is not supported"
                )
            conflicts.append((a, x, buffer))

    def separated(a: SyncSite, x: SyncSite, fenced: list[SyncSite]) -> bool:
        if a.position < x.position:
            return any(a.position < f.position <= x.position for f in fenced)
        return any(f.position > a.position or f.position <= x.position for f in fenced)

    fenced: list[SyncSite] = []
    for _, x, _ in conflicts:
        if x not in fenced:
            fenced.append(x)
    fenced.sort(key=lambda site: site.position)
    for f in reversed(list(fenced)):
        others = [g for g in fenced if g is not f]
        if all(separated(a, x, [g for g in others if g.inner_loop is x.inner_loop])
               for a, x, _ in conflicts):
            fenced = others
    points = []
    for x in fenced:
        a, _, buffer = next(c for c in conflicts if c[1] is x)
        points.append(SyncPoint(DepEdge(a, x, 0, buffer, "fence"), SyncKind.FENCE, 1))
    return points


def _conflict(src: SyncSite, dst: SyncSite) -> SSAValue | None:
    """A buffer both sites touch, one writing (regions are not compared: the inner
    induction variable moves them)."""
    for a in op_accesses(src.op):
        for b in op_accesses(dst.op):
            if a.buffer is b.buffer and _kind(a, b) is not None:
                return a.buffer
    return None


def credit_points(points: Sequence[SyncPoint], counter_limit: int) -> list[SyncPoint]:
    """Back-pressure for cross-core flags.  A cross-core flag is a counter that holds
    ``counter_limit`` sets: when a loop hands data from one core to the other every
    iteration and nothing flows back, the producer may run arbitrarily far ahead and
    overflow it.  Each such point gets a credit ring the other way -- its consumer
    sets, its producer waits, ``counter_limit - distance`` iterations later -- so at
    most ``counter_limit`` sets are ever outstanding.  Loops whose trip count
    (static, or proven) stays within the limit, and core pairs that already have a
    flag back in the loop, need none."""
    credits = []
    for point in points:
        edge = point.edge
        if point.kind != SyncKind.CROSS_CORE or not edge.in_loop:
            continue
        if trips_at_most(edge.src.loop, counter_limit):
            continue
        flows_back = any(
            other.kind == SyncKind.CROSS_CORE and other.edge.in_loop
            and other.edge.src.loop is edge.src.loop
            and other.edge.src.core == edge.dst.core and other.edge.dst.core == edge.src.core
            for other in points
        )
        lag = counter_limit - edge.distance
        if flows_back or lag < 1:
            continue
        credit = DepEdge(edge.dst, edge.src, lag, edge.buffer, "credit", edge.clock)
        credits.append(SyncPoint(credit, SyncKind.CROSS_CORE, 1))
    return credits


def sync_points(
    kernel: FuncOp, plan: dict[SSAValue, MultiBuffer]
) -> tuple[list[SyncSite], list[DepEdge], list[SyncPoint]]:
    """Sites, all dependence edges, and the sync points the kernel needs."""
    sites = collect_sites(kernel)
    edges = dependence_edges(sites, plan)
    fences = inner_loop_fences(sites)
    points = []
    kept = prune_redundant(edges, sites, fences)
    for edge in kept:
        versions = 1
        info = plan.get(edge.buffer)
        if edge.in_loop and info is not None and info.owner is edge.src.loop:
            versions = info.versions
        kind = sync_kind(edge.src, edge.dst)
        if kind == SyncKind.FLAG and edge.in_loop:
            back = closing_distance(edge, sites, kept, fences)  # one closure per point
            if edge.distance == 0:
                # Not a ring: it needs only as many ids as keep its sets closed.
                versions = next(
                    (ids for ids in range(1, versions) if _closed(edge, ids, back)), versions
                )
            if not _closed(edge, versions, back):
                kind = SyncKind.FENCE
        points.append(SyncPoint(edge, kind, versions))
    target = target_of(kernel)
    assert isinstance(target, AscendTarget)
    points.extend(credit_points(points, target.cross_core_counter_limit))
    points.extend(fences)
    points.sort(key=lambda p: (p.edge.dst.position, p.edge.src.position))
    return sites, edges, points
