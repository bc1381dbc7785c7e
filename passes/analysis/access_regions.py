"""Access regions: the box of one buffer a statement reads and/or writes, with
offsets as affine forms (``op_accesses``), and the solver-free intersection test of
two regions whose offsets differ by constants.  Distinct SSA buffers are assumed
not to alias (global arguments are distinct tensors, allocations distinct storage)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import memref
from xdsl.ir import Operation, SSAValue

from tilepipe.dialects.pipeline import ForOp
from tilepipe.dialects.pipeline_sync import ARRIVING_OPS, mbarrier_operands
from tilepipe.dialects.tile import TileOp
from tilepipe.passes.analysis.affine_forms import AffineExpr, VariantSymbol, affine_form


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


def provably_disjoint(first: RegionAccess, second: RegionAccess) -> bool:
    """Do two accesses of straight-line code (one instance each) never share an
    element?  Decided exactly where their offsets differ by constants; otherwise
    (and for opaque accesses) they may meet."""
    if first.is_opaque or second.is_opaque:
        return False
    if first.buffer is not second.buffer:
        return True
    return exact_intersection(first, second, 0) is False


def exact_intersection(
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
