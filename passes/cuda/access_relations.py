"""Questions about two access entries: do they touch common bytes, do the same
threads touch each common element, how close to a loop's boundary can they conflict.

Each question is asked of an earlier entry ``x`` and a later one ``y`` under a
:class:`Relation`: in program order within one iteration, or loop-carried (``y``
``d`` iterations of a common loop later, found by comparing iteration k with
k + d·step).  With static loop bounds and guards the runs of the two are enumerated
and evaluated (``concrete_index``): exact and fast.  Otherwise intersection and "same
threads" are Z3 queries over the symbolic indices (loop bounds and the conditions of
enclosing ``scf.if`` ops as constraints); unknown answers are treated as conflicts.
"Same threads" is proved under the tile dialect's cooperative chunk mapping
(``ElementMapping``): no element of the common region has different owning threads.
Results are cached per pair.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
import z3
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

from tilepipe.passes.memory.arena_aliasing import arena_slice
from tilepipe.passes.cuda.access_entries import AccessEntry, Agent
from tilepipe.passes.analysis.concrete_index import (
    MAX_INSTANCES,
    Env,
    evaluate,
    executes,
    instances,
    loop_range,
)
from tilepipe.passes.analysis.program_points import Relation
from tilepipe.passes.analysis.symbolic_index import (
    IndexEncoder,
    Instance,
    enclosing_loops,
    satisfiable,
    static_step,
)

MAX_DISTANCE = 8  # loop-carried distances searched exactly; beyond, "d > MAX_DISTANCE"


class AccessPair(Protocol):
    """An earlier access and a later one (a :class:`~hazards.Hazard`)."""

    @property
    def source(self) -> AccessEntry: ...

    @property
    def target(self) -> AccessEntry: ...

    @property
    def relation(self) -> Relation: ...


class AccessRelations:
    """The cached questions about pairs of access entries of a kernel run by
    ``threads`` threads per block, and how many of them were asked."""

    def __init__(self, threads: int):
        self.threads = threads
        self.queries = 0  # distinct questions asked (intersection, same threads, ...)
        self.cache_hits = 0
        self.solver_calls = 0  # of those, answered by Z3 (dynamic bounds or guards)
        self._cache: dict[tuple, bool] = {}
        self._slices: dict[SSAValue, object] = {}

    def same_storage(self, a: SSAValue, b: SSAValue) -> bool:
        """One buffer, or two views of the same arena bytes with the same type: their
        element coordinates (hence thread mappings) can be compared directly."""
        if a == b:
            return True
        slice_a, slice_b = self.slice_of(a), self.slice_of(b)
        return slice_a is not None and slice_a == slice_b and a.type == b.type

    def slice_of(self, buffer: SSAValue):
        if buffer not in self._slices:
            self._slices[buffer] = arena_slice(buffer)
        return self._slices[buffer]

    # -- Z3 queries

    def _instances(
        self, encoder: IndexEncoder, x: AccessEntry, y: AccessEntry, relation: Relation
    ) -> tuple[Instance, Instance]:
        """Instances of x and y: shared ivs for common loops outside the carried one,
        the carried loop's iv shifted by distance * step, everything else free."""
        common = common_loops(x.op, y.op)
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

    def instance_pairs(
        self, x: AccessEntry, y: AccessEntry, relation: Relation, keep=None
    ) -> list[tuple[Env, Env]] | None:
        """Every (x iteration, y iteration) pair the relation allows in which both ops
        run, or None when bounds or guards are only known at run time."""
        common = common_loops(x.op, y.op)
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
        conflicting = self.conflicting_pairs(x, y, pairs)
        return None if conflicting is None else bool(conflicting)

    def conflicting_pairs(self, x, y, pairs) -> list | None:
        """The pairs of runs that touch common bytes, or None when an offset is only
        known at run time."""
        found = []
        for ex, ey in pairs:
            ox, oy = self._concrete_boxes(x, ex), self._concrete_boxes(y, ey)
            if ox is None or oy is None:
                return None
            if self.same_storage(x.buffer, y.buffer):
                if all(a < b + nb and b < a + na
                       for a, na, b, nb in zip(ox, x.sizes, oy, y.sizes)):
                    found.append((ex, ey))
            elif _bytes_overlap(x, ox, y, oy):
                found.append((ex, ey))
        return found

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

    def intersect(self, x: AccessEntry, y: AccessEntry, relation: Relation) -> bool:
        def compute() -> bool:
            pairs = self.instance_pairs(x, y, relation)
            if pairs is not None and (found := self._concrete_overlap(x, y, pairs)) is not None:
                return found
            self.solver_calls += 1
            encoder = IndexEncoder()
            constraints, _, _ = self.conflict(encoder, x, y, relation)
            return satisfiable(constraints)

        return self._cached(("intersect", x, y, relation), compute)

    def conflict(self, encoder: IndexEncoder, x: AccessEntry, y: AccessEntry,
                  relation: Relation) -> tuple[list, Instance, Instance]:
        """Constraints under which x's instance and y's touch common bytes, and the
        two instances."""
        constraints, ix, iy = self._constraints(encoder, x, y, relation)
        lo_x, hi_x = self._byte_bounds(encoder, x, ix)
        lo_y, hi_y = self._byte_bounds(encoder, y, iy)
        if self.same_storage(x.buffer, y.buffer):
            constraints += _box_overlap(encoder, x, ix, y, iy)
        else:
            constraints += [lo_x < hi_y, lo_y < hi_x]
        return constraints, ix, iy

    def same_threads(self, x: AccessEntry, y: AccessEntry, relation: Relation) -> bool:
        """Every common element is touched by the same thread in both accesses."""
        agents = {x.agent, y.agent}
        if agents <= {Agent.THREAD_ZERO}:
            return True
        if not agents <= {Agent.COOPERATIVE, Agent.ASYNC_ENGINE}:
            return False
        if not self.same_storage(x.buffer, y.buffer):
            return False

        def compute() -> bool:
            pairs = self.instance_pairs(x, y, relation)
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

    def iterations_from_end(self, pair: AccessPair, loop: Operation) -> int:
        """Fewest iterations before the last one of ``loop`` (which holds the source
        but not the target) at which the source can conflict with the target."""
        return self._boundary_iterations(pair, loop, from_end=True)

    def iterations_from_start(self, pair: AccessPair, loop: Operation) -> int:
        """Earliest iteration of ``loop`` (holding the target, not the source) at which
        the target can conflict with the source."""
        return self._boundary_iterations(pair, loop, from_end=False)

    def _boundary_iterations(self, pair: AccessPair, loop: Operation, from_end: bool) -> int:
        x, y = pair.source, pair.target

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

            pairs = self.instance_pairs(x, y, pair.relation, keep=at_boundary)
            if pairs is not None and (found := self._concrete_overlap(x, y, pairs)) is not None:
                return found
            self.solver_calls += 1
            encoder = IndexEncoder()
            constraints, ix, iy = self._constraints(encoder, x, y, pair.relation)
            inst = ix if from_end else iy
            iv = inst.ivs[loop]
            lb = encoder.term(loop.operands[0], inst)
            ub = encoder.term(loop.operands[1], inst)
            step = encoder.term(loop.operands[2], inst)
            if from_end:
                constraints += [iv + j * step < ub, iv + (j + 1) * step >= ub]
            else:
                constraints += [iv == lb + j * step]
            if self.same_storage(x.buffer, y.buffer):
                constraints += _box_overlap(encoder, x, ix, y, iy)
            return satisfiable(constraints)

        for j in range(MAX_DISTANCE + 1):
            if self._cached(("boundary", x, y, pair.relation, loop, from_end, j),
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


def common_loops(a: Operation, b: Operation) -> list[Operation]:
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

