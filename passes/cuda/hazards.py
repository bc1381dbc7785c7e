"""Block-level memory hazards of a CUDA kernel at the scheduled level (docs/sync.md).

An *access entry* is one region of one shared or global buffer touched by one op, with
who touches it.  Global memory counts as well as shared: the threads of one block run
a tile op's elements in parallel, so a fragment stored to global memory and loaded
back by an op with another thread mapping is a race inside the block although the
tile program is sequential, and a block barrier orders global accesses of the block
like shared ones.  (Blocks never synchronize with each other; distinct kernel
arguments are assumed not to alias.)  Who touches an entry: the threads of a
cooperative tile op (element ``e`` of the tile, row-major, by thread ``e mod T``),
every thread (the operands of a warp-tiled ``tile.gemm``, a ``tile.broadcast``'s
source: ``TileOp.ROLES_READ_BY_ALL_THREADS``), thread 0 (scalar
``memref.load``/``store``), or the async copy engine on behalf of the issuing threads
(``pipeline.async_copy``, which reads its global source as late as it writes its
shared destination: only a ``wait_group`` orders either).

Two entries conflict when they may touch the same bytes and at least one writes,
except (the chapter's exemptions):

* two async writes need no *barrier* between them (a barrier does not order the copy
  engine) -- but unlike TileLang, which skips such pairs, when two in-flight copies
  may hit the same bytes the first is landed by a ``wait_group`` before the second
  issues (and a barrier follows when other threads issued it): otherwise the final
  contents depend on timing, and the race detector says so;
* different buffers -- after arena packing, different *byte ranges* of the arena;
* the same threads touching the same elements in the same order (proved with Z3:
  no element of the common region has different owning threads under the tile
  dialect's cooperative chunk mapping, ``ElementMapping``).  Ops touching register
  fragments follow the fragments' layouts, which the lowering chooses (mma
  accumulator layouts), so they are never exempt.

Each conflict becomes a :class:`Hazard` between an earlier and a later access: in
program order within one iteration, or loop-carried (the later one ``d`` iterations of
a common loop later, found by comparing iteration k with k + d·step).  Intersection
and "same threads" are Z3 queries over the symbolic indices (loop bounds and the
conditions of enclosing ``scf.if`` ops as constraints); unknown answers are treated as
conflicts.  Results are cached per pair.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

import numpy as np
import z3
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

from tilepipe.diagnostics import op_location
from tilepipe.dialects.kernel_attrs import kernel_launch_shape
from tilepipe.dialects.memory_space import MemorySpace, memory_space
from tilepipe.dialects.pipeline_sync import AsyncTileCopy, BulkCopyOp
from tilepipe.dialects.tile import ElementMapping, TileOp

from tilepipe.passes.memory.arena_aliasing import arena_slice, underlying_buffer
from tilepipe.passes.cuda.bulk_coverage import bulk_copy_waited
from tilepipe.passes.analysis.concrete_index import (
    MAX_INSTANCES,
    Env,
    evaluate,
    executes,
    instances,
    loop_range,
)
from tilepipe.passes.analysis.program_points import (
    Level,
    Relation,
    chain,
    covering_points,
    precedes,
)
from tilepipe.passes.analysis.symbolic_index import (
    IndexEncoder,
    Instance,
    enclosing_loops,
    satisfiable,
    static_step,
)

MAX_DISTANCE = 8  # loop-carried distances searched exactly; beyond, "d > MAX_DISTANCE"


class Agent(Enum):
    COOPERATIVE = "cooperative"  # element e of the tile -> thread e mod T
    ALL_THREADS = "all threads"  # every thread touches the whole region
    THREAD_ZERO = "thread 0"
    ASYNC_ENGINE = "async copy engine"  # written by the engine for cooperative issuers
    BULK_ENGINE = "bulk copy engine"  # a TMA copy issued by thread 0, completing on an mbarrier
    FRAGMENT = "fragment layout"  # an op touching registers follows their layout


@dataclass(frozen=True, eq=False)
class AccessEntry:
    op: Operation
    buffer: SSAValue
    offsets: tuple[SSAValue, ...]  # () = origin
    sizes: tuple[int, ...]
    tile_shape: tuple[int, ...]
    reads: bool
    writes: bool
    agent: Agent
    levels: tuple[Level, ...] = field(default=(), compare=False)
    chunk: int = 1  # cooperative chunk (elements per thread-contiguous piece)

    @property
    def is_async(self) -> bool:
        """Performed by the async copy engine (landed by a ``wait_group`` only)."""
        return self.agent is Agent.ASYNC_ENGINE

    @property
    def is_bulk_write(self) -> bool:
        return self.agent is Agent.BULK_ENGINE

    def participating_threads(self, threads: int) -> int:
        """How many leading threads take part (the rest idle)."""
        if self.agent in (Agent.COOPERATIVE, Agent.ASYNC_ENGINE):
            elements = 1
            for extent in self.tile_shape:
                elements *= extent
            return min(threads, -(-elements // self.chunk))
        if self.agent in (Agent.THREAD_ZERO, Agent.BULK_ENGINE):
            return 1
        return threads


BLOCK_VISIBLE_SPACES = (MemorySpace.SHARED, MemorySpace.GLOBAL)


def _is_block_visible(value: SSAValue) -> bool:
    """Memory more than one thread of a block can touch (not fragments or locals)."""
    return isinstance(value.type, MemRefType) and memory_space(value.type) in BLOCK_VISIBLE_SPACES


def access_entries(op: Operation) -> list[AccessEntry]:
    """The shared- and global-memory accesses of one op (none for private memory)."""
    entries: list[AccessEntry] = []
    if isinstance(op, TileOp):
        for access in op.buffer_accesses():
            if not _is_block_visible(access.buffer):
                continue
            tile = op.operand_tile_shape(access.operand_name)
            if isinstance(op, BulkCopyOp) and access.writes:
                agent = Agent.BULK_ENGINE
            elif isinstance(op, AsyncTileCopy) and not isinstance(op, BulkCopyOp):
                agent = Agent.ASYNC_ENGINE
            elif (
                op.ELEMENT_MAPPING is ElementMapping.WARP_TILED
                or access.operand_name in op.ROLES_READ_BY_ALL_THREADS
            ):
                agent = Agent.ALL_THREADS
            elif op.touches_registers():
                agent = Agent.FRAGMENT
            else:
                agent = Agent.COOPERATIVE
            entries.append(
                AccessEntry(op, access.buffer, access.offsets, access.sizes, tile,
                            access.reads, access.writes, agent, tuple(chain(op)),
                            op.cooperative_chunk())
            )
    elif isinstance(op, memref.LoadOp | memref.StoreOp) and _is_block_visible(op.memref):
        indices = tuple(op.indices)
        entries.append(
            AccessEntry(op, op.memref, indices, (1,) * len(indices), (1,),
                        isinstance(op, memref.LoadOp), isinstance(op, memref.StoreOp),
                        Agent.THREAD_ZERO, tuple(chain(op)))
        )
    return entries


class HazardKind(Enum):
    RAW = "RAW"
    WAR = "WAR"
    WAW = "WAW"


@dataclass(frozen=True, eq=False)
class Hazard:
    """``target`` may touch bytes ``source`` touched earlier; one of them writes."""

    kind: HazardKind
    source: AccessEntry
    target: AccessEntry
    relation: Relation
    needs_barrier: bool  # different threads: a block barrier must separate them
    needs_wait: bool  # the async engine performs the source: a wait_group must land it first
    threads: int  # leading threads taking part (for partial barriers)
    # A bulk (TMA) copy's data is read with no mbarrier wait on every path: only the
    # copy's mbarrier can order it (thread-sync reports it, it cannot fix it).
    needs_mbarrier_wait: bool = False

    @property
    def needs_proxy_fence(self) -> bool:
        """A generic-proxy access (a thread's, or a cp.async it issued), then a bulk
        copy (async proxy) overwriting the same bytes: the source's threads must
        execute ``fence.proxy.async`` between them (before the barrier that orders
        them before thread 0's issue)."""
        return self.target.is_bulk_write and not self.source.is_bulk_write

    def describe(self) -> str:
        distance = (
            f", {self.relation.distance} iteration(s) later"
            if self.relation.carried_loop is not None
            else ""
        )
        return (
            f"{self.kind.value} {_op_at(self.source.op)} -> {_op_at(self.target.op)} "
            f"on {buffer_name(self.source.buffer)}{distance}"
        )


def _op_at(op: Operation) -> str:
    location = op_location(op)
    return f"{op.name} (line {location.line})" if location else op.name


def buffer_name(value: SSAValue) -> str:
    for candidate in (value, underlying_buffer(value)):
        if candidate.name_hint:
            return f"%{candidate.name_hint}"
    return "<buffer>"


# --------------------------------------------------------------------------- analysis


class HazardAnalysis:
    """All block-level (shared- and global-memory) hazards of one kernel function."""

    def __init__(self, function: func.FuncOp):
        self.function = function
        _, self.threads = kernel_launch_shape(function)
        self.entries = [e for op in function.body.walk() for e in access_entries(op)]
        self.queries = 0  # distinct questions asked (intersection, same threads, ...)
        self.cache_hits = 0
        self.solver_calls = 0  # of those, answered by Z3 (dynamic bounds or guards)
        self._cache: dict[tuple, bool] = {}
        self._slices: dict[SSAValue, object] = {}

    # -- pairs

    def hazards(self) -> list[Hazard]:
        found: list[Hazard] = []
        for i, x in enumerate(self.entries):
            for y in self.entries[i:]:
                if not self._may_conflict_statically(x, y):
                    continue
                for first, second in ((x, y), (y, x)) if x is not y else ((x, x),):
                    found.extend(self._pair_hazards(first, second))
        return found

    def _pair_hazards(self, x: AccessEntry, y: AccessEntry) -> list[Hazard]:
        hazards: list[Hazard] = []
        if x is not y and precedes(x.levels, y.levels):
            if (h := self._hazard(x, y, Relation())) is not None:
                hazards.append(h)
        for loop in _common_loops(x.op, y.op):
            for distance in range(1, MAX_DISTANCE + 2):
                relation = Relation(loop, distance)
                if (h := self._hazard(x, y, relation)) is not None:
                    hazards.append(h)
                    break
        return hazards

    def _hazard(self, x: AccessEntry, y: AccessEntry, relation: Relation) -> Hazard | None:
        kind = _kind(x, y)
        if kind is None:
            return None
        if not self._intersect(x, y, relation):
            return None
        if x.is_bulk_write and kind is not HazardKind.WAR:
            # The data is landed by the copy's mbarrier phase; every thread that
            # waits on it sees it, so no block barrier is needed.
            waited = self._mbarrier_waited(x, y, relation)
            return None if waited else Hazard(
                kind, x, y, relation, False, False, self.threads, needs_mbarrier_wait=True
            )
        same_threads = self._same_threads(x, y, relation)
        needs_wait = x.is_async
        if same_threads and not needs_wait and not y.is_bulk_write:
            return None  # (a proxy fence is needed even within one thread)
        threads = max(x.participating_threads(self.threads), y.participating_threads(self.threads))
        return Hazard(kind, x, y, relation, not same_threads, needs_wait, threads)

    def _mbarrier_waited(self, x: AccessEntry, y: AccessEntry, relation: Relation) -> bool:
        """Is there a wait on the bulk copy's mbarrier array on every path x -> y?"""
        assert isinstance(x.op, BulkCopyOp)
        probe = Hazard(HazardKind.RAW, x, y, relation, False, False, 1)
        loops_x, loops_y = set(enclosing_loops(x.op)), set(enclosing_loops(y.op))
        full = {loop for loop in loops_x - loops_y if self.iterations_from_end(probe, loop)}
        full |= {loop for loop in loops_y - loops_x if self.iterations_from_start(probe, loop)}
        points = covering_points(list(x.levels), list(y.levels), relation, full)
        exited = tuple(loop for loop in enclosing_loops(x.op) if loop not in loops_y)
        return bulk_copy_waited(
            x.op, points, lambda encoder: self._conflict(encoder, x, y, relation), exited
        )

    def _may_conflict_statically(self, x: AccessEntry, y: AccessEntry) -> bool:
        if not (x.writes or y.writes):
            return False
        if self._same_storage(x.buffer, y.buffer):
            return True
        slice_x, slice_y = self._slice(x.buffer), self._slice(y.buffer)
        if slice_x is not None and slice_y is not None:
            return slice_x.overlaps(slice_y)
        return underlying_buffer(x.buffer) == underlying_buffer(y.buffer)

    def _same_storage(self, a: SSAValue, b: SSAValue) -> bool:
        """One buffer, or two views of the same arena bytes with the same type: their
        element coordinates (hence thread mappings) can be compared directly."""
        if a == b:
            return True
        slice_a, slice_b = self._slice(a), self._slice(b)
        return slice_a is not None and slice_a == slice_b and a.type == b.type

    def _slice(self, buffer: SSAValue):
        if buffer not in self._slices:
            self._slices[buffer] = arena_slice(buffer)
        return self._slices[buffer]

    # -- Z3 queries

    def _instances(
        self, encoder: IndexEncoder, x: AccessEntry, y: AccessEntry, relation: Relation
    ) -> tuple[Instance, Instance]:
        """Instances of x and y: shared ivs for common loops outside the carried one,
        the carried loop's iv shifted by distance * step, everything else free."""
        common = _common_loops(x.op, y.op)
        shared: dict[Operation, z3.ArithRef] = {}
        for loop in common:
            if loop is relation.carried_loop:
                break
            shared[loop] = encoder.fresh_iv(loop, "k")
        ix = encoder.instance_for(x.op, Instance(dict(shared)))
        shifted = dict(shared)
        if relation.carried_loop is not None:
            loop = relation.carried_loop
            step = static_step(loop)
            step_term = z3.IntVal(step) if step is not None else encoder.term(loop.step, ix)
            shifted[loop] = ix.ivs[loop] + relation.distance * step_term
        iy = encoder.instance_for(y.op, Instance(shifted))
        return ix, iy

    def _constraints(self, encoder, x, y, relation) -> tuple[list, Instance, Instance]:
        ix, iy = self._instances(encoder, x, y, relation)
        constraints = list(encoder.constraints)
        constraints += encoder.path_constraints(x.op, ix)
        constraints += encoder.path_constraints(y.op, iy)
        return constraints, ix, iy

    def _cached(self, key: tuple, compute) -> bool:
        if key in self._cache:
            self.cache_hits += 1
            return self._cache[key]
        self.queries += 1
        self._cache[key] = result = compute()
        return result

    # -- concrete evaluation (static loops): exact and fast

    def _instance_pairs(
        self, x: AccessEntry, y: AccessEntry, relation: Relation, keep=None
    ) -> list[tuple[Env, Env]] | None:
        """Every (x iteration, y iteration) pair the relation allows in which both ops
        run, or None when bounds or guards are only known at run time."""
        common = _common_loops(x.op, y.op)
        shared = common[common.index(relation.carried_loop) + 1 :] if relation.carried_loop else common
        x_envs = instances(x.op, {})
        if x_envs is None:
            return None
        pairs: list[tuple[Env, Env]] = []
        for ex in x_envs:
            if keep is not None and not keep(ex, None):
                continue
            fixed = {loop: ex[loop] for loop in shared}
            if (loop := relation.carried_loop) is not None:
                values = loop_range(loop, ex)
                if values is None:
                    return None
                shifted = ex[loop] + relation.distance * values.step
                if shifted not in values:
                    continue
                fixed[loop] = shifted
            y_envs = instances(y.op, fixed)
            if y_envs is None:
                return None
            for ey in y_envs:
                if keep is not None and not keep(ex, ey):
                    continue
                runs = (executes(x.op, ex), executes(y.op, ey))
                if None in runs:
                    return None
                if all(runs):
                    pairs.append((ex, ey))
                if len(pairs) > MAX_INSTANCES:
                    return None
        return pairs

    def _concrete_boxes(self, entry: AccessEntry, env: Env) -> list[int] | None:
        if not entry.offsets:
            return [0] * len(entry.sizes)
        values = [evaluate(o, env) for o in entry.offsets]
        return None if None in values else values  # type: ignore[return-value]

    def _concrete_overlap(self, x, y, pairs) -> bool | None:
        for ex, ey in pairs:
            ox, oy = self._concrete_boxes(x, ex), self._concrete_boxes(y, ey)
            if ox is None or oy is None:
                return None
            if self._same_storage(x.buffer, y.buffer):
                if all(a < b + nb and b < a + na
                       for a, na, b, nb in zip(ox, x.sizes, oy, y.sizes)):
                    return True
            elif _bytes_overlap(x, ox, y, oy):
                return True
        return False

    def _concrete_same_threads(self, x, y, pairs) -> bool | None:
        for ex, ey in pairs:
            ox, oy = self._concrete_boxes(x, ex), self._concrete_boxes(y, ey)
            if ox is None or oy is None:
                return None
            lo = [max(a, b) for a, b in zip(ox, oy)]
            hi = [min(a + na, b + nb) for a, na, b, nb in zip(ox, x.sizes, oy, y.sizes)]
            if any(h <= l for l, h in zip(lo, hi)):
                continue
            grid = np.meshgrid(*[np.arange(l, h) for l, h in zip(lo, hi)], indexing="ij")
            tx = _threads_of(grid, ox, x.sizes, self.threads, x.chunk)
            ty = _threads_of(grid, oy, y.sizes, self.threads, y.chunk)
            if not np.array_equal(tx, ty):
                return False
        return True

    def _intersect(self, x: AccessEntry, y: AccessEntry, relation: Relation) -> bool:
        def compute() -> bool:
            pairs = self._instance_pairs(x, y, relation)
            if pairs is not None and (found := self._concrete_overlap(x, y, pairs)) is not None:
                return found
            self.solver_calls += 1
            encoder = IndexEncoder()
            constraints, _ = self._conflict(encoder, x, y, relation)
            return satisfiable(constraints)

        return self._cached(("intersect", x, y, relation), compute)

    def _conflict(self, encoder: IndexEncoder, x: AccessEntry, y: AccessEntry,
                  relation: Relation) -> tuple[list, Instance]:
        """Constraints under which x's instance and y's touch common bytes, and x's."""
        constraints, ix, iy = self._constraints(encoder, x, y, relation)
        lo_x, hi_x = self._byte_bounds(encoder, x, ix)
        lo_y, hi_y = self._byte_bounds(encoder, y, iy)
        if self._same_storage(x.buffer, y.buffer):
            constraints += _box_overlap(encoder, x, ix, y, iy)
        else:
            constraints += [lo_x < hi_y, lo_y < hi_x]
        return constraints, ix

    def _same_threads(self, x: AccessEntry, y: AccessEntry, relation: Relation) -> bool:
        """Every common element is touched by the same thread in both accesses."""
        agents = {x.agent, y.agent}
        if agents <= {Agent.THREAD_ZERO}:
            return True
        if not agents <= {Agent.COOPERATIVE, Agent.ASYNC_ENGINE}:
            return False
        if not self._same_storage(x.buffer, y.buffer):
            return False

        def compute() -> bool:
            pairs = self._instance_pairs(x, y, relation)
            if pairs is not None:
                found = self._concrete_same_threads(x, y, pairs)
                if found is not None:
                    return found
            self.solver_calls += 1
            encoder = IndexEncoder()
            constraints, ix, iy = self._constraints(encoder, x, y, relation)
            coords = [z3.Int(f"e{d}") for d in range(len(x.sizes))]
            constraints += _inside(encoder, x, ix, coords) + _inside(encoder, y, iy, coords)
            tx = _owning_thread(encoder, x, ix, coords, self.threads)
            ty = _owning_thread(encoder, y, iy, coords, self.threads)
            return not satisfiable(constraints + [tx != ty])

        return self._cached(("threads", x, y, relation), compute)

    def _byte_bounds(self, encoder: IndexEncoder, entry: AccessEntry, inst: Instance):
        """[lo, hi) bytes of the arena (or buffer) the region spans."""
        buffer_type = entry.buffer.type
        assert isinstance(buffer_type, MemRefType)
        strides = _row_major_strides(buffer_type.get_shape())
        element = buffer_type.element_type.bitwidth // 8  # type: ignore[attr-defined]
        offsets = _offset_terms(encoder, entry, inst)
        first = sum((o * s for o, s in zip(offsets, strides)), z3.IntVal(0))
        last = sum(((o + n - 1) * s for o, n, s in zip(offsets, entry.sizes, strides)), z3.IntVal(0))
        base = arena_slice(entry.buffer)
        start = base.start if base is not None else 0
        return start + first * element, start + (last + 1) * element

    # -- offsets for wait counting

    def iterations_from_end(self, hazard: Hazard, loop: Operation) -> int:
        """Fewest iterations before the last one of ``loop`` (which holds the source
        but not the target) at which the source can conflict with the target."""
        return self._boundary_iterations(hazard, loop, from_end=True)

    def iterations_from_start(self, hazard: Hazard, loop: Operation) -> int:
        """Earliest iteration of ``loop`` (holding the target, not the source) at which
        the target can conflict with the source."""
        return self._boundary_iterations(hazard, loop, from_end=False)

    def _boundary_iterations(self, hazard: Hazard, loop: Operation, from_end: bool) -> int:
        x, y = hazard.source, hazard.target

        def conflicts_at(j: int) -> bool:
            def at_boundary(ex: Env, ey: Env | None) -> bool:
                env = ex if from_end else ey
                if env is None:
                    return True
                values = loop_range(loop, env)
                if values is None or not values:
                    return False
                target = values[-1 - j] if from_end else values[j] if j < len(values) else None
                return j < len(values) and env[loop] == target

            pairs = self._instance_pairs(x, y, hazard.relation, keep=at_boundary)
            if pairs is not None and (found := self._concrete_overlap(x, y, pairs)) is not None:
                return found
            self.solver_calls += 1
            encoder = IndexEncoder()
            constraints, ix, iy = self._constraints(encoder, x, y, hazard.relation)
            inst = ix if from_end else iy
            iv = inst.ivs[loop]
            lb = encoder.term(loop.operands[0], inst)
            ub = encoder.term(loop.operands[1], inst)
            step = encoder.term(loop.operands[2], inst)
            if from_end:
                constraints += [iv + j * step < ub, iv + (j + 1) * step >= ub]
            else:
                constraints += [iv == lb + j * step]
            if self._same_storage(x.buffer, y.buffer):
                constraints += _box_overlap(encoder, x, ix, y, iy)
            return satisfiable(constraints)

        for j in range(MAX_DISTANCE + 1):
            if self._cached(("boundary", x, y, hazard.relation, loop, from_end, j),
                            lambda: conflicts_at(j)):
                return j
        return MAX_DISTANCE + 1


def _threads_of(grid, offsets, sizes, threads: int, chunk: int):
    """Owning thread (cooperative mapping) of every buffer element in ``grid``."""
    strides = _row_major_strides(sizes)
    linear = sum((g - o) * s for g, o, s in zip(grid, offsets, strides))
    return (linear // chunk) % threads


def _bytes_overlap(x: AccessEntry, ox: list[int], y: AccessEntry, oy: list[int]) -> bool:
    return _byte_range(x, ox)[0] < _byte_range(y, oy)[1] and _byte_range(y, oy)[0] < _byte_range(x, ox)[1]


def _byte_range(entry: AccessEntry, offsets: list[int]) -> tuple[int, int]:
    buffer_type = entry.buffer.type
    assert isinstance(buffer_type, MemRefType)
    strides = _row_major_strides(buffer_type.get_shape())
    element = buffer_type.element_type.bitwidth // 8  # type: ignore[attr-defined]
    first = sum(o * s for o, s in zip(offsets, strides))
    last = sum((o + n - 1) * s for o, n, s in zip(offsets, entry.sizes, strides))
    base = arena_slice(entry.buffer)
    start = base.start if base is not None else 0
    return start + first * element, start + (last + 1) * element


def _kind(x: AccessEntry, y: AccessEntry) -> HazardKind | None:
    if x.writes and y.reads:
        return HazardKind.RAW
    if x.reads and y.writes:
        return HazardKind.WAR
    if x.writes and y.writes:
        return HazardKind.WAW
    return None


def _common_loops(a: Operation, b: Operation) -> list[Operation]:
    """Loops enclosing both ops, innermost first."""
    loops_b = set(enclosing_loops(b))
    return [loop for loop in reversed(enclosing_loops(a)) if loop in loops_b]


def _row_major_strides(shape) -> list[int]:
    strides, running = [], 1
    for extent in reversed(list(shape)):
        strides.append(running)
        running *= extent
    return strides[::-1]


def _offset_terms(encoder: IndexEncoder, entry: AccessEntry, inst: Instance):
    if not entry.offsets:
        return [z3.IntVal(0)] * len(entry.sizes)
    return [encoder.term(o, inst) for o in entry.offsets]


def _box_overlap(encoder, x: AccessEntry, ix: Instance, y: AccessEntry, iy: Instance):
    ox, oy = _offset_terms(encoder, x, ix), _offset_terms(encoder, y, iy)
    return [
        z3.And(a < b + nb, b < a + na)
        for a, na, b, nb in zip(ox, x.sizes, oy, y.sizes)
    ]


def _inside(encoder, entry: AccessEntry, inst: Instance, coords) -> list:
    offsets = _offset_terms(encoder, entry, inst)
    return [z3.And(o <= c, c < o + n) for o, n, c in zip(offsets, entry.sizes, coords)]


def _owning_thread(encoder, entry: AccessEntry, inst: Instance, coords, threads: int):
    """Thread of a cooperative op owning buffer element ``coords``."""
    offsets = _offset_terms(encoder, entry, inst)
    strides = _row_major_strides(entry.sizes)
    linear = sum(((c - o) * s for c, o, s in zip(coords, offsets, strides)), z3.IntVal(0))
    return (linear / entry.chunk) % threads

