"""Access and dependence analysis of a pipelined loop body.

Every statement (side-effecting direct child) of a ``pipeline.for`` body touches buffer
*regions*: a box ``offsets[d] .. offsets[d] + sizes[d]`` per buffer dimension.  This
module turns the offsets into affine forms over the loop's induction variable and
loop-invariant symbols, decides whether two regions can intersect when the second one
is executed ``distance`` iterations after the first, proves that a region covers
another, and derives the dependence edges producer -> consumer with their distance
(0: same iteration, >= 1: loop-carried, ``None``: unresolved).

Intersection is decided exactly when the symbols cancel (the common case: offsets that
differ by constants), otherwise with Z3 over integer symbols; anything the analysis
cannot model is treated conservatively (may intersect, does not cover).  Distinct SSA
buffers are assumed not to alias (global arguments are distinct tensors, allocations
are distinct storage), as in TileLang's region analysis.

The analysis is reused by ``pipeline-validate``, ``pipeline-planning`` and
``inject-software-pipeline`` and is meant for the arena and sync passes too::

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
from xdsl.dialects import arith, memref
from xdsl.ir import Operation, SSAValue

from tilepipe.dialects.pipeline import ForOp
from tilepipe.dialects.pipeline_sync import ARRIVING_OPS, mbarrier_operands
from tilepipe.dialects.tile import TileOp, constant_index
from tilepipe.passes.analysis.symbolic_index import satisfiable


# --------------------------------------------------------------------------- affine forms


class InductionVariable:
    """The symbol standing for the loop's induction variable in affine forms."""

    def __repr__(self) -> str:
        return "iv"


IV = InductionVariable()


@dataclass(frozen=True)
class VariantSymbol:
    """An offset computed inside the loop in a way the analysis cannot decompose: a
    different unknown in every iteration."""

    value: SSAValue


Symbol = SSAValue | InductionVariable | VariantSymbol


@dataclass(frozen=True)
class AffineExpr:
    """``constant + sum(coefficient * symbol)`` with integer coefficients."""

    constant: int = 0
    terms: tuple[tuple[Symbol, int], ...] = ()

    @staticmethod
    def of_symbol(symbol: Symbol) -> AffineExpr:
        return AffineExpr(0, ((symbol, 1),))

    def _term_dict(self) -> dict[Symbol, int]:
        return dict(self.terms)

    @staticmethod
    def _from_dict(constant: int, terms: dict[Symbol, int]) -> AffineExpr:
        return AffineExpr(constant, tuple((s, c) for s, c in terms.items() if c != 0))

    def __add__(self, other: AffineExpr) -> AffineExpr:
        terms = self._term_dict()
        for symbol, coefficient in other.terms:
            terms[symbol] = terms.get(symbol, 0) + coefficient
        return self._from_dict(self.constant + other.constant, terms)

    def scale(self, factor: int) -> AffineExpr:
        return self._from_dict(
            self.constant * factor, {s: c * factor for s, c in self.terms}
        )

    def __sub__(self, other: AffineExpr) -> AffineExpr:
        return self + other.scale(-1)

    def coefficient(self, symbol: Symbol) -> int:
        return self._term_dict().get(symbol, 0)

    def shift_iteration(self, delta: int) -> AffineExpr:
        """The same expression ``delta`` induction-variable units later."""
        return AffineExpr(self.constant + self.coefficient(IV) * delta, self.terms)

    @property
    def is_constant(self) -> bool:
        return not self.terms


def affine_form(value: SSAValue, loop: ForOp | None = None) -> AffineExpr:
    """``value`` as an affine form; the loop's induction variable becomes ``IV``,
    undecomposable values defined outside the loop are invariant symbols, those
    defined inside it are per-iteration unknowns."""
    if loop is not None and value is loop.induction_var:
        return AffineExpr.of_symbol(IV)
    if (constant := constant_index(value)) is not None:
        return AffineExpr(constant)
    owner = value.owner
    if isinstance(owner, arith.AddiOp | arith.SubiOp | arith.MuliOp):
        lhs, rhs = affine_form(owner.lhs, loop), affine_form(owner.rhs, loop)
        if isinstance(owner, arith.AddiOp):
            return lhs + rhs
        if isinstance(owner, arith.SubiOp):
            return lhs - rhs
        if rhs.is_constant:
            return lhs.scale(rhs.constant)
        if lhs.is_constant:
            return rhs.scale(lhs.constant)
    if loop is not None and _defined_inside(value, loop):
        return AffineExpr.of_symbol(VariantSymbol(value))
    return AffineExpr.of_symbol(value)


def _defined_inside(value: SSAValue, loop: ForOp) -> bool:
    owner = value.owner
    op = owner if isinstance(owner, Operation) else owner.parent_op()
    return op is not None and loop.is_ancestor(op)


# --------------------------------------------------------------------------- accesses


@dataclass(frozen=True, eq=False)
class RegionAccess:
    """One region of one buffer read and/or written by a statement.

    ``buffer is None`` marks an op the analysis cannot see into: it may touch any
    buffer, so it conflicts with everything.

    ``arrival`` marks an mbarrier arrival (``mbarrier_arrive``,
    ``mbarrier_arrive_expect_tx``, a bulk copy's complete-tx): it reads and writes the
    slot, but arrivals on one phase are commutative counter updates, so two of them
    never depend on each other -- only a wait (or init) orders them."""

    op: Operation
    buffer: SSAValue | None
    offsets: tuple[AffineExpr, ...]
    sizes: tuple[int, ...]
    reads: bool
    writes: bool
    # The SSA offset values (one per dimension, or () for the origin), for rewriting.
    offset_values: tuple[SSAValue, ...] = ()
    role: str = ""
    arrival: bool = False

    @property
    def is_opaque(self) -> bool:
        return self.buffer is None

    def conflicts_with(self, other: RegionAccess) -> bool:
        """Would the two accesses depend on each other if they touched a common
        element (one writes, and they are not two commuting mbarrier arrivals)?"""
        return (self.writes or other.writes) and not (self.arrival and other.arrival)


def op_accesses(op: Operation, loop: ForOp | None = None) -> list[RegionAccess]:
    """The regions ``op`` touches: tile ops through ``buffer_accesses()``,
    ``memref.load``/``store`` as one element, mbarrier ops (and bulk copies) one
    barrier slot, read and written (arrivals and waits update its phase; arrivals are
    marked as such, since they commute with each other); anything
    else with effects is one opaque access."""
    accesses: list[RegionAccess] = []
    if isinstance(op, TileOp):
        accesses = [
            RegionAccess(
                op,
                access.buffer,
                tuple(affine_form(v, loop) for v in access.offsets)
                or (AffineExpr(),) * len(access.sizes),
                access.sizes,
                access.reads,
                access.writes,
                access.offsets,
                access.operand_name,
            )
            for access in op.buffer_accesses()
        ]
    elif isinstance(op, memref.LoadOp | memref.StoreOp):
        indices = tuple(op.indices)
        accesses = [
            RegionAccess(
                op,
                op.memref,
                tuple(affine_form(v, loop) for v in indices),
                (1,) * len(indices),
                isinstance(op, memref.LoadOp),
                isinstance(op, memref.StoreOp),
                indices,
                "memref",
            )
        ]
    if (barrier := mbarrier_operands(op)) is not None:
        bars, index = barrier
        accesses.append(
            RegionAccess(
                op, bars, (affine_form(index, loop),), (1,), True, True, (index,),
                "barriers", arrival=isinstance(op, ARRIVING_OPS),
            )
        )
    if accesses or isinstance(op, TileOp):
        return accesses
    return [RegionAccess(op, None, (), (), True, True)]


# --------------------------------------------------------------------------- dependences


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
            exact = _exact_intersection(first, second, distance * step)
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


def provably_disjoint(first: RegionAccess, second: RegionAccess) -> bool:
    """Do two accesses of straight-line code (one instance each) never share an
    element?  Decided exactly where their offsets differ by constants; otherwise
    (and for opaque accesses) they may meet."""
    if first.is_opaque or second.is_opaque:
        return False
    if first.buffer is not second.buffer:
        return True
    return _exact_intersection(first, second, 0) is False


def _exact_intersection(
    first: RegionAccess, second: RegionAccess, iv_delta: int
) -> bool | None:
    """Decide intersection without a solver when every offset difference is a
    constant once the second access is shifted ``iv_delta`` units; None otherwise.
    A per-iteration unknown only cancels against itself within one iteration."""
    undecided = False
    for off_a, size_a, off_b, size_b in zip(
        first.offsets, first.sizes, second.offsets, second.sizes
    ):
        if iv_delta != 0 and any(isinstance(s, VariantSymbol) for s, _ in off_b.terms):
            undecided = True
            continue
        delta = off_b.shift_iteration(iv_delta) - off_a
        if not delta.is_constant:
            undecided = True
            continue
        # Intervals [0, size_a) and [delta, delta + size_b) are disjoint.
        if delta.constant >= size_a or delta.constant + size_b <= 0:
            return False
    return None if undecided else True


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

