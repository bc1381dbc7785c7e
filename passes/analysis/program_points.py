"""Program points of a structured kernel and the paths between them.

A *program point* ``(block, i)`` is the place right before ``block.ops[i]`` (``i`` may be
the terminator's index: the end of the block).  A barrier inserted at a point executes
whenever control passes it.  For a hazard between an earlier access ``a`` and a later
access ``b`` the sync pass needs the points that **every** execution path from ``a`` to
``b`` passes -- a barrier at any of them separates the two accesses.  In structured
code (``scf.for``, ``scf.if``, straight-line blocks) these are:

* *exit*: in each block between ``a`` and the deepest block holding both, the points
  after ``a``'s enclosing statement (the rest of the block always runs);
* *between*: in that common block, the points after ``a``'s statement up to ``b``'s;
* *entry*: in each block from there down to ``b``, the points before ``b``'s enclosing
  statement (a loop starts at the top of its body; a branch that runs ``b`` runs from
  its start);
* for a loop-carried pair (``b`` runs ``d >= 1`` iterations of loop ``L`` after ``a``)
  the *between* part is an arc of ``L``'s body around the back edge -- all of it when
  ``d >= 2``.

Points inside statements that lie between ``a`` and ``b`` are not on every path (a loop
may run zero times, a branch may not be taken) and are never counted.  The same path
structure counts the ``commit_group`` ops executed between an async copy and a wait.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from xdsl.dialects import func
from xdsl.ir import Block, Operation
from xdsl.traits import IsTerminator

from tilepipe.passes.analysis.symbolic_index import LoopOp, enclosing_loops, static_trip_count

Point = tuple[Block, int]
DEFAULT_TRIP_WEIGHT = 64  # assumed iterations of a loop whose trip count is dynamic


@dataclass(frozen=True)
class Level:
    """One step of an op's ancestry: the statement at ``position`` of ``block``."""

    block: Block
    position: int


@lru_cache(maxsize=None)
def _positions(block: Block) -> dict[Operation, int]:
    return {op: i for i, op in enumerate(block.ops)}


def clear_position_cache() -> None:
    """Forget cached positions and counts (call after the IR changed)."""
    _positions.cache_clear()
    _prefix_counts.cache_clear()
    enclosing_loops.cache_clear()


def block_length(block: Block) -> int:
    return len(_positions(block))


def position(op: Operation) -> int:
    block = op.parent_block()
    assert block is not None
    return _positions(block)[op]


def chain(op: Operation) -> list[Level]:
    """The ancestry of ``op`` from the function body down to ``op`` itself."""
    levels: list[Level] = []
    current: Operation | None = op
    while current is not None and not isinstance(current, func.FuncOp):
        block = current.parent_block()
        if block is None:
            break
        levels.append(Level(block, position(current)))
        current = block.parent_op()
    return levels[::-1]


def precedes(a: Sequence[Level], b: Sequence[Level]) -> bool:
    """Whether the op with ancestry ``a`` comes before the one with ``b`` in program
    order (false when one holds the other, or they sit in different branches)."""
    for la, lb in zip(a, b):
        if la.block is not lb.block:
            return False
        if la.position != lb.position:
            return la.position < lb.position
    return False


def point_chain(point: Point) -> list[Level]:
    """The ancestry of a point, its own block last (position = the point's index)."""
    block, index = point
    owner = block.parent_op()
    outer = chain(owner) if owner is not None and not isinstance(owner, func.FuncOp) else []
    return outer + [Level(block, index)]


def end_index(block: Block) -> int:
    last = block.last_op
    if last is not None and last.has_trait(IsTerminator):
        return block_length(block) - 1
    return block_length(block)


def block_points(block: Block) -> range:
    return range(0, end_index(block) + 1)


def is_loop_body(block: Block) -> bool:
    return isinstance(block.parent_op(), LoopOp)


@dataclass(frozen=True)
class Relation:
    """How the target of a path is reached from its source.

    ``carried_loop``/``distance``: the target runs ``distance`` iterations of that loop
    after the source (``None``/0: the same iteration of every common loop)."""

    carried_loop: Operation | None = None
    distance: int = 0


def _split(source: list[Level], target: list[Level], relation: Relation) -> int:
    """Index of the level where the two chains part (the common block)."""
    if relation.carried_loop is not None:
        body = relation.carried_loop.regions[0].blocks[0]
        for i, level in enumerate(source):
            if level.block is body:
                return i
        raise ValueError("carried loop does not enclose the source")
    i = 0
    while (
        i < len(source) - 1
        and i < len(target) - 1
        and source[i].block is target[i].block
        and source[i].position == target[i].position
    ):
        i += 1
    return i


def covering_points(
    source: list[Level],
    target: list[Level],
    relation: Relation,
    full_iterations: set[Operation] = frozenset(),  # type: ignore[assignment]
) -> set[Point]:
    """The points on every path from the source to the target (see module doc).

    ``full_iterations``: loops the path leaves or enters that are known to run at
    least one whole iteration between the two (the source is not in the last
    iteration, or the target not in the first): all their body's points are on it."""
    split = _split(source, target, relation)
    points: set[Point] = set()
    for level in source[split + 1 :]:  # exit
        points.update((level.block, j) for j in range(level.position + 1, end_index(level.block) + 1))
        if level.block.parent_op() in full_iterations:
            points.update((level.block, j) for j in block_points(level.block))
    for level in target[split + 1 :]:  # entry
        points.update((level.block, j) for j in range(0, level.position + 1))
        if level.block.parent_op() in full_iterations:
            points.update((level.block, j) for j in block_points(level.block))
    block = source[split].block
    a, b = source[split].position, target[split].position
    if relation.carried_loop is None:
        points.update((block, j) for j in range(a + 1, b + 1))
    elif relation.distance >= 2:
        points.update((block, j) for j in block_points(block))
    else:
        points.update((block, j) for j in block_points(block) if j > a or j <= b)
    return points


# --------------------------------------------------------------------------- counting


def count_ops(
    block: Block, start: int, stop: int, is_counted: Callable[[Operation], bool]
) -> int:
    """Counted ops guaranteed to run among ``block.ops[start:stop]``: top-level ones,
    plus those inside loops with a static trip count >= 1 (scaled by it)."""
    prefix = _prefix_counts(block, is_counted)
    stop = min(stop, len(prefix) - 1)
    start = max(start, 0)
    return prefix[stop] - prefix[start] if stop > start else 0


@lru_cache(maxsize=None)
def _prefix_counts(block: Block, is_counted: Callable[[Operation], bool]) -> tuple[int, ...]:
    prefix = [0]
    for op in block.ops:
        prefix.append(prefix[-1] + _guaranteed_count(op, is_counted))
    return tuple(prefix)


def _guaranteed_count(op: Operation, is_counted: Callable[[Operation], bool]) -> int:
    if is_counted(op):
        return 1
    if isinstance(op, LoopOp):
        trips = static_trip_count(op)
        if trips:
            body = op.regions[0].blocks[0]
            return trips * count_ops(body, 0, block_length(body), is_counted)
    return 0


def count_on_path(
    source: list[Level],
    target: list[Level],
    relation: Relation,
    is_counted: Callable[[Operation], bool],
    exit_iterations: dict[Operation, int] | None = None,
    entry_iterations: dict[Operation, int] | None = None,
) -> int:
    """Counted ops executed strictly after the source and strictly before the target
    on every path (the minimum over paths).

    ``exit_iterations[L] = j``: the source runs ``j`` iterations before the last one of
    loop ``L`` that the path leaves; ``entry_iterations[L] = j``: the target runs in
    iteration ``j`` (0-based) of a loop ``L`` the path enters.  Those full iterations
    add their counted ops."""
    exit_iterations = exit_iterations or {}
    entry_iterations = entry_iterations or {}
    split = _split(source, target, relation)
    total = 0
    for level in source[split + 1 :]:
        total += count_ops(level.block, level.position + 1, block_length(level.block), is_counted)
        loop = level.block.parent_op()
        if isinstance(loop, LoopOp):
            total += exit_iterations.get(loop, 0) * _per_iteration(level.block, is_counted)
    for level in target[split + 1 :]:
        total += count_ops(level.block, 0, level.position, is_counted)
        loop = level.block.parent_op()
        if isinstance(loop, LoopOp):
            total += entry_iterations.get(loop, 0) * _per_iteration(level.block, is_counted)
    block = source[split].block
    a, b = source[split].position, target[split].position
    if relation.carried_loop is None:
        total += count_ops(block, a + 1, b, is_counted)
    else:
        per_iteration = _per_iteration(block, is_counted)
        total += count_ops(block, a + 1, block_length(block), is_counted)
        total += (relation.distance - 1) * per_iteration
        total += count_ops(block, 0, b, is_counted)
    return total


def _per_iteration(body: Block, is_counted: Callable[[Operation], bool]) -> int:
    return count_ops(body, 0, block_length(body), is_counted)


def point_weight(point: Point) -> int:
    """How often a barrier at the point runs: the product of the enclosing loops'
    trip counts (dynamic ones assumed ``DEFAULT_TRIP_WEIGHT``)."""
    weight = 1
    block: Block | None = point[0]
    while block is not None:
        owner = block.parent_op()
        if owner is None or isinstance(owner, func.FuncOp):
            break
        if isinstance(owner, LoopOp):
            trips = static_trip_count(owner)
            weight *= trips if trips is not None else DEFAULT_TRIP_WEIGHT
        block = owner.parent_block()
    return weight


def linear_order(body: Block) -> Iterator[Point]:
    """Every point of the function body in program (pre-)order."""
    for index in block_points(body):
        yield (body, index)
        if index < len(body.ops):
            op = list(body.ops)[index]
            for region in op.regions:
                for block in region.blocks:
                    yield from linear_order(block)
