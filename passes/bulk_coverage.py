"""Is a bulk (TMA) copy landed by an mbarrier wait before a later access of its bytes?

Only a wait on the copy's mbarrier orders a bulk copy's bytes (the copy engine writes
them; a block barrier does not order it).  The hazard analysis asks this for a copy
``x`` and a later access ``y`` that may touch common bytes; the answer is yes when,
for every pair of runs of ``x`` and ``y`` that conflict, a wait on the copy's
mbarrier array runs between them:

* a wait at a point every path from ``x`` to ``y`` passes (``covering_points``), or
* a wait nested in ``scf.if``/loop statements, the outermost of which every such path
  passes whole, when the conflict implies that the wait runs the first time the
  statement runs after ``x``: the conditions of the ``scf.if`` statements on the way
  hold, and each loop on the way runs at least one iteration (the first: the
  conditions inside it are asked there).

Software pipelining issues the prologue's copies under ``k < n`` guards and lands them
in the steady-state loop or the epilogue under *correlated* guards (the same guard, or
a trip count the conflict forces: two copies of one ring slot ``n`` apart conflict
only when the loop between them runs).  Treating every ``scf.if`` and loop as
independent would reject those race-free kernels.  The implication is proved with Z3
over the symbolic indices, with the conflict's constraints (both accesses' loop bounds
and guards, their common bytes) as facts; a condition Z3 does not model proves
nothing.

The statement's first run after ``x`` is in ``x``'s iteration of every loop only when
it follows ``x`` in program order inside loops that all enclose ``x``; other statements
are not used.  Which slot and phase of the array a wait observes is not compared here,
as for waits on every path: the race detector checks that at run time.
"""

from __future__ import annotations

from collections.abc import Callable

import z3
from xdsl.dialects import scf
from xdsl.ir import Operation

from tilepipe.dialects.pipeline_sync import BulkCopyOp, MBarrierWaitOp

from .program_points import Point, chain, position, precedes
from .symbolic_index import IndexEncoder, Instance, LoopOp, enclosing_loops, satisfiable

# A wait in a loop between the copy and the access is looked for in the loop's first
# iterations: a prologue's copies are landed within the ring's depth of them.
SEARCHED_ITERATIONS = 8

# Given an encoder: the constraints under which the two accesses conflict, and the
# copy's instance in them.
Conflict = Callable[[IndexEncoder], tuple[list[z3.BoolRef], Instance]]


def bulk_copy_waited(copy: BulkCopyOp, points: set[Point], conflict: Conflict) -> bool:
    """Does a wait on ``copy``'s mbarrier array run between every conflicting pair of
    runs, given ``points``, the points every path from the copy to the access passes?"""
    waits = [
        use.operation
        for use in copy.barriers.uses
        if isinstance(use.operation, MBarrierWaitOp) and use.operation.barriers == copy.barriers
    ]
    if any((wait.parent_block(), position(wait)) in points for wait in waits):
        return True
    # Different waits may land the copy at different trip counts (a prologue copy is
    # landed in the steady-state loop when it runs, else in the epilogue): one query
    # over all of them.
    encoder = IndexEncoder()
    facts, instance = conflict(encoder)
    slot = _slot(encoder, copy, instance)
    landings = []
    for wait in waits:
        statement = _whole_statement(wait, points)
        if statement is None or not _runs_in_copy_iteration(copy, statement):
            continue
        lands = _waits_on_slot(encoder, wait, _nesting(wait, statement), instance, slot)
        if lands is not None:
            landings.append(lands)
    return bool(landings) and not satisfiable(facts + [z3.Not(z3.Or(*landings))])


def _nesting(wait: Operation, statement: Operation) -> list[tuple[Operation, Operation]]:
    """``(op, child)`` from ``statement`` (outermost) down to ``wait``'s parent."""
    nesting: list[tuple[Operation, Operation]] = []
    child = wait
    while child is not statement:
        parent = child.parent_op()
        assert parent is not None
        nesting.insert(0, (parent, child))
        child = parent
    return nesting


def _whole_statement(wait: Operation, points: set[Point]) -> Operation | None:
    """The innermost ``scf.if`` or loop around ``wait`` that every path passes whole
    (the points before and after it are on it), through ``scf.if`` and loops only."""
    statement = wait.parent_op()
    while isinstance(statement, scf.IfOp | LoopOp):
        block, at = statement.parent_block(), position(statement)
        if (block, at) in points and (block, at + 1) in points:
            return statement
        statement = statement.parent_op()
    return None


def _runs_in_copy_iteration(copy: Operation, statement: Operation) -> bool:
    """Its first run after the copy is in the copy's iteration of each of its loops."""
    copy_loops = enclosing_loops(copy)
    if not all(loop in copy_loops for loop in enclosing_loops(statement)):
        return False
    return precedes(chain(copy), chain(statement))


def _waits_on_slot(
    encoder: IndexEncoder,
    wait: MBarrierWaitOp,
    nesting: list[tuple[Operation, Operation]],
    instance: Instance,
    slot: list[z3.ArithRef],
) -> z3.BoolRef | None:
    """When a run of the statement ``nesting`` starts from (in ``instance``) runs
    ``wait`` on the mbarrier ``slot`` (in one of the first ``SEARCHED_ITERATIONS`` of
    each loop on the way), or None when a condition is not modelled."""
    if not nesting:
        return z3.And(*[a == b for a, b in zip(_slot(encoder, wait, instance), slot)])
    (op, child), inner = nesting[0], nesting[1:]
    if isinstance(op, scf.IfOp):
        condition = encoder.condition(op.cond, instance)
        rest = _waits_on_slot(encoder, wait, inner, instance, slot)
        if condition is None or rest is None:
            return None
        taken = child.parent_region() is op.true_region
        return z3.And(condition if taken else z3.Not(condition), rest)
    lb, ub, step = (encoder.term(v, instance) for v in op.operands[:3])
    options: list[z3.BoolRef] = []
    for j in range(SEARCHED_ITERATIONS):
        iv = lb + j * step
        rest = _waits_on_slot(encoder, wait, inner, instance.derive({op: iv}), slot)
        if rest is None:
            return None
        options.append(z3.And(iv < ub, rest))
    return z3.Or(*options)


def _slot(encoder: IndexEncoder, op: BulkCopyOp | MBarrierWaitOp, instance: Instance):
    return [encoder.term(index, instance) for index in op.barrier_index]
