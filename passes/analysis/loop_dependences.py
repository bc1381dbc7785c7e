"""Dependences of a pipelined loop body: ``LoopAccessAnalysis`` derives the edges
producer -> consumer between its statements with their distance (0: same iteration,
>= 1: loop-carried, ``None``: unresolved), deciding whether two access regions meet
``distance`` iterations apart exactly when the symbols cancel and with Z3 otherwise
(an unknown answer counts as may-intersect).  See docs/pipelining.md, "The analyses,
for other passes"::

    analysis = LoopAccessAnalysis(loop)
    analysis.accesses(op)                      # list[RegionAccess]
    analysis.may_intersect(a, b, distance=1)   # cached
    analysis.dependences()                     # list[Dependence]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property

import z3
from xdsl.ir import Operation, SSAValue

from tilepipe.dialects.pipeline import ForOp
from tilepipe.dialects.tile import constant_index
from tilepipe.passes.analysis.access_regions import RegionAccess, exact_intersection, op_accesses
from tilepipe.passes.analysis.affine_forms import IV, AffineExpr, VariantSymbol, affine_form
from tilepipe.passes.analysis.symbolic_index import satisfiable


class DependenceKind(Enum):
    FLOW = "flow"  # write -> read (RAW)
    ANTI = "anti"  # read -> write (WAR)
    OUTPUT = "output"  # write -> write (WAW)


@dataclass(frozen=True)
class Dependence:
    """``target`` of iteration ``k + distance`` must follow ``source`` of iteration k.

    ``distance`` is 0 for a same-iteration dependence (source before target in program
    order), >= 1 for a loop-carried one (the smallest distance at which the regions
    intersect), ``None`` when it exists but no distance up to the search bound was
    found (unresolved)."""

    source: Operation
    target: Operation
    buffer: SSAValue | None
    kind: DependenceKind
    distance: int | None


def _kind(source: RegionAccess, target: RegionAccess) -> DependenceKind | None:
    if not source.conflicts_with(target):
        return None
    if source.writes and target.reads:
        return DependenceKind.FLOW
    if source.reads and target.writes:
        return DependenceKind.ANTI
    if source.writes and target.writes:
        return DependenceKind.OUTPUT
    return None


@dataclass
class LoopAccessAnalysis:
    """Regions and dependences of one ``pipeline.for`` body; query results are cached.

    ``max_distance`` bounds the search for the smallest loop-carried distance."""

    loop: ForOp
    max_distance: int = 16
    _intersect_cache: dict[tuple[RegionAccess, RegionAccess, int | None], bool] = field(
        default_factory=dict, repr=False
    )

    @cached_property
    def statements(self) -> list[Operation]:
        return self.loop.statements()

    @cached_property
    def _accesses(self) -> dict[Operation, list[RegionAccess]]:
        return {op: op_accesses(op, self.loop) for op in self.statements}

    @cached_property
    def _position(self) -> dict[Operation, int]:
        return {op: i for i, op in enumerate(self.statements)}

    @cached_property
    def step_value(self) -> int | None:
        return constant_index(self.loop.step)

    def accesses(self, op: Operation) -> list[RegionAccess]:
        return self._accesses[op]

    def all_accesses(self) -> Iterable[RegionAccess]:
        for op in self.statements:
            yield from self._accesses[op]

    def buffers_written(self) -> list[SSAValue]:
        return _unique(a.buffer for a in self.all_accesses() if a.writes and a.buffer)

    def accesses_of(self, buffer: SSAValue) -> list[RegionAccess]:
        return [a for a in self.all_accesses() if a.buffer is buffer]

    # -- region queries

    def may_intersect(
        self, first: RegionAccess, second: RegionAccess, distance: int | None = 0
    ) -> bool:
        """Can ``first`` (iteration k) and ``second`` (iteration k + distance) touch a
        common element?  ``distance=None`` asks for any distance >= 1."""
        if first.is_opaque or second.is_opaque:
            return True
        if first.buffer is not second.buffer:
            return False
        # The accesses themselves (hashed by identity) key the cache: keeping them
        # alive here means an id can never be reused by another access.
        key = (first, second, distance)
        if key not in self._intersect_cache:
            self._intersect_cache[key] = self._solve_intersection(first, second, distance)
        return self._intersect_cache[key]

    def _solve_intersection(
        self, first: RegionAccess, second: RegionAccess, distance: int | None
    ) -> bool:
        step = self.step_value
        if distance is not None and step is not None:
            exact = exact_intersection(first, second, distance * step)
            if exact is not None:
                return exact
        encoder = _Z3Encoder(self.loop, step)
        lag, lag_constraints = encoder.lag(distance)
        constraints = [*lag_constraints, *encoder.iteration_bounds(lag)]
        for off_a, size_a, off_b, size_b in zip(
            first.offsets, first.sizes, second.offsets, second.sizes
        ):
            a = encoder.encode(off_a, instance=0, lag=0)
            b = encoder.encode(off_b, instance=1 if distance != 0 else 0, lag=lag)
            constraints += [a < b + size_b, b < a + size_a]
        return satisfiable(constraints)  # "unknown" counts as may-intersect

    def covers(self, outer: RegionAccess, inner: RegionAccess) -> bool:
        """Is ``inner``'s region provably inside ``outer``'s (same iteration)?"""
        if outer.is_opaque or inner.is_opaque or outer.buffer is not inner.buffer:
            return False
        for off_o, size_o, off_i, size_i in zip(
            outer.offsets, outer.sizes, inner.offsets, inner.sizes
        ):
            delta = off_i - off_o
            if not delta.is_constant:
                return False
            if delta.constant < 0 or delta.constant + size_i > size_o:
                return False
        return True

    # -- dependences

    def program_order_precedes(self, first: Operation, second: Operation) -> bool:
        return self._position[first] < self._position[second]

    def dependences(self) -> list[Dependence]:
        """All dependence edges between statements, same-iteration and loop-carried."""
        edges: list[Dependence] = []
        for source in self.statements:
            for target in self.statements:
                edges.extend(self.dependences_between(source, target))
        return edges

    def dependences_between(self, source: Operation, target: Operation) -> list[Dependence]:
        edges: list[Dependence] = []
        for a in self._accesses[source]:
            for b in self._accesses[target]:
                kind = _kind(a, b)
                if kind is None:
                    continue
                distance = self.smallest_distance(a, b)
                if distance is _NONE:
                    continue
                edges.append(Dependence(source, target, a.buffer or b.buffer, kind, distance))
        return edges

    def smallest_distance(self, first: RegionAccess, second: RegionAccess):
        """Smallest d such that ``second`` at k + d touches what ``first`` touched at
        k (0 only when ``first`` precedes ``second`` in program order); ``None`` when
        some d >= 1 exists but none up to ``max_distance``; ``_NONE`` when never."""
        if first.op is not second.op and self.program_order_precedes(first.op, second.op):
            if self.may_intersect(first, second, 0):
                return 0
        if not self.may_intersect(first, second, None):
            return _NONE
        for distance in range(1, self.max_distance + 1):
            if self.may_intersect(first, second, distance):
                return distance
        return None


_NONE = object()  # sentinel: no dependence at any distance


class _Z3Encoder:
    """Integer encoding of affine forms for two loop iterations k and k + lag."""

    def __init__(self, loop: ForOp, step: int | None):
        self.loop = loop
        self.step = step
        self.iv = z3.Int("k")
        self.symbols: dict[object, z3.ArithRef] = {}

    def _symbol(self, key: object) -> z3.ArithRef:
        if key not in self.symbols:
            self.symbols[key] = z3.Int(f"s{len(self.symbols)}")
        return self.symbols[key]

    def lag(self, distance: int | None) -> tuple[z3.ArithRef, list[z3.BoolRef]]:
        """Induction-variable units between the two iterations, with the
        constraints on them (``distance=None``: any number >= 1 of iterations)."""
        if distance is not None and self.step is not None:
            return z3.IntVal(distance * self.step), []
        d = z3.Int("d")
        step = self._symbol(("step",)) if self.step is None else z3.IntVal(self.step)
        constraints = [d >= 1] if distance is None else [d == distance]
        if self.step is None:
            constraints.append(step >= 1)
        return d * step, constraints

    def iteration_bounds(self, lag: z3.ArithRef) -> list[z3.BoolRef]:
        """Both iterations k and k + lag lie in [lb, ub)."""
        constraints = []
        lb = affine_form(self.loop.lb)
        ub = affine_form(self.loop.ub)
        constraints.append(self.encode(lb, 0, 0) <= self.iv)
        constraints.append(self.iv + lag < self.encode(ub, 0, 0))
        return constraints

    def encode(self, expr: AffineExpr, instance: int, lag: z3.ArithRef | int) -> z3.ArithRef:
        total: z3.ArithRef = z3.IntVal(expr.constant)
        for symbol, coefficient in expr.terms:
            if symbol is IV:
                term = self.iv + lag
            elif isinstance(symbol, VariantSymbol):
                term = self._symbol((symbol, instance))
            else:
                term = self._symbol(symbol)
            total = total + coefficient * term
        return total


def _unique(values: Iterable[SSAValue]) -> list[SSAValue]:
    seen: list[SSAValue] = []
    for value in values:
        if not any(value is s for s in seen):
            seen.append(value)
    return seen
