"""Affine forms of index values: ``constant + sum(coefficient * symbol)`` over a
loop's induction variable (``IV``), loop-invariant SSA values and per-iteration
unknowns (``VariantSymbol``) -- what the access regions' offsets are written in."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.ir import Operation, SSAValue

from tilepipe.dialects.pipeline import ForOp
from tilepipe.dialects.tile import constant_index


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
