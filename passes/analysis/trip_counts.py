"""Trip counts of loops: static, or bounded by what the IR proves.

Sync insertion drops a ring (a loop-carried edge of distance ``d``) when its loop runs
at most ``d`` iterations, credit rings when it runs at most the counter's limit, and
counts a loop's syncs as running only when the loop runs at least once.  A constant
trip count answers directly.  Otherwise Z3 bounds the count from what
:mod:`~tilepipe.passes.analysis.symbolic_index` encodes: the bounds' arithmetic on
kernel arguments (``arith.minsi %n, %c4``, ``divsi``, ``select``, ...) and the
conditions of the ``scf.if`` ops around the loop (a loop under ``scf.if %n <= 4``).
An answer Z3 cannot give within its resource limit is "not proven", which keeps the
sync: the conservative side.
"""

from __future__ import annotations

import z3
from xdsl.ir import Operation

from tilepipe.passes.analysis.symbolic_index import (
    IndexEncoder,
    satisfiable,
    static_step,
    static_trip_count,
)


def _trip_count_query(loop: Operation) -> tuple[z3.ArithRef, list[z3.BoolRef]] | None:
    """The loop's trip count as a Z3 term, with the facts that hold where the loop
    starts (None when its step is not a positive constant)."""
    step = static_step(loop)
    if step is None or step <= 0:
        return None
    encoder = IndexEncoder()
    instance = encoder.instance_for(loop)  # the loops around it, not the loop itself
    lb, ub = (encoder.term(v, instance) for v in loop.operands[:2])
    trips = z3.If(ub > lb, (ub - lb + (step - 1)) / step, 0)
    facts = encoder.path_constraints(loop, instance) + encoder.constraints
    return trips, facts


def trips_at_most(loop: Operation, bound: int) -> bool:
    """Whether ``loop``, where it is reached, provably runs at most ``bound``
    iterations (the conditions of the ``scf.if`` ops around it hold there)."""
    if (trips := static_trip_count(loop)) is not None:
        return trips <= bound
    query = _trip_count_query(loop)
    return query is not None and not satisfiable([*query[1], query[0] > bound])


def trips_at_least(loop: Operation, bound: int) -> bool:
    """Whether ``loop``, where it is reached, provably runs at least ``bound``
    iterations (whether it is reached at all is the caller's question)."""
    if (trips := static_trip_count(loop)) is not None:
        return trips >= bound
    query = _trip_count_query(loop)
    return query is not None and not satisfiable([*query[1], query[0] < bound])
