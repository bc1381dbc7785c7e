"""Is a bulk (TMA) copy landed by an mbarrier wait before a later access of its bytes?

Only a wait on the copy's mbarrier orders a bulk copy's bytes (the copy engine writes
them; a block barrier does not order it).  The hazard analysis asks this for a copy
``x`` and a later access ``y`` that may touch common bytes.  The answer is yes when

* a wait on the copy's mbarrier array sits at a point every path from ``x`` to ``y``
  passes (``covering_points``), or
* for every pair of runs of ``x`` and ``y`` that conflict, one of the waits nested in
  ``scf.if``/loop statements that every such path passes whole runs *on the copy's
  mbarrier slot*: the conditions of the ``scf.if`` statements on the way hold, and a
  loop on the way runs the wait in one of its first ``SEARCHED_ITERATIONS``, or
* the access is after a loop around the copy, and a later iteration of that loop (one
  of the next ``SEARCHED_ITERATIONS``) runs a wait on the copy's slot: every path to
  the access runs the loop's remaining iterations whole.  A steady-state copy is
  landed by the next iteration's wait, and in the last iteration by the epilogue's.

Software pipelining issues the prologue's copies under ``k < n`` guards and lands them
in the steady-state loop or the epilogue under *correlated* guards: the same guard,
or a trip count the conflict forces (a prologue copy and the epilogue's rewrite of its
ring slot conflict only when the loop between them runs), and which wait lands a copy
depends on ``n``.  Treating every ``scf.if`` and loop as independent rejects those
race-free kernels.  The question is one Z3 query over the symbolic indices, like the
rest of the hazard analysis: the conflict's constraints (both accesses' loop bounds
and guards, their common bytes) imply the disjunction over the candidate waits; a
condition Z3 does not model proves nothing.  Unlike a wait on every path, a guarded
wait must be on the copy's slot: a wait that runs only sometimes, on another slot,
would otherwise hide a missing one.

A statement is used only when its first run after ``x`` is in ``x``'s iteration of
every loop around it (it follows ``x`` in program order, inside loops that all
enclose ``x``), so that its conditions and slots are those of ``x``'s instance.  The
phase a wait observes is not compared: the race detector checks that at run time.
"""

from __future__ import annotations

from collections.abc import Callable

import z3
from xdsl.dialects import func, scf
from xdsl.ir import Operation

from tilepipe.dialects.pipeline_sync import BulkCopyOp, MBarrierWaitOp

from tilepipe.passes.analysis.program_points import Point, chain, position, precedes
from tilepipe.passes.analysis.symbolic_index import (
    IndexEncoder,
    Instance,
    LoopOp,
    enclosing_loops,
    satisfiable,
)

# A wait in a loop between the copy and the access is looked for in the loop's first
# iterations: a prologue's copies are landed within the ring's depth of them.
SEARCHED_ITERATIONS = 8

# Given an encoder: the constraints under which the two accesses conflict, and the
# copy's instance in them.
Conflict = Callable[[IndexEncoder], tuple[list[z3.BoolRef], Instance]]


def bulk_copy_waited(
    copy: BulkCopyOp,
    points: set[Point],
    conflict: Conflict,
    exited_loops: tuple[Operation, ...] = (),
) -> bool:
    """Does a wait on ``copy``'s mbarrier array run between every conflicting pair of
    runs, given ``points``, the points every path from the copy to the access passes,
    and ``exited_loops``, the loops around the copy that the access is outside of?"""
    function = copy.parent_op()
    while function is not None and not isinstance(function, func.FuncOp):
        function = function.parent_op()
    assert function is not None
    waits = [  # in program order: the query, hence Z3's effort, is the same every run
        op for op in function.walk()
        if isinstance(op, MBarrierWaitOp) and op.barriers == copy.barriers
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
        if statement is not None and _runs_in_copy_iteration(copy, statement):
            lands = _waits_on_slot(encoder, wait, _nesting(wait, statement), instance, slot)
            if lands is not None:
                landings.append(lands)
        for loop in exited_loops:
            lands = _waits_in_later_iterations(encoder, wait, loop, instance, slot)
            if lands is not None:
                landings.append(lands)
    return bool(landings) and not satisfiable(facts + [z3.Not(z3.Or(*landings))])


def _waits_in_later_iterations(
    encoder: IndexEncoder,
    wait: MBarrierWaitOp,
    loop: Operation,
    instance: Instance,
    slot: list[z3.ArithRef],
) -> z3.BoolRef | None:
    """When a later iteration of ``loop`` (around the copy, not around the access)
    runs ``wait`` on the copy's mbarrier ``slot``: the access follows the loop, so
    every path from the copy to it runs each remaining iteration whole.  A steady-state
    copy is landed by the next iteration's wait, or, in the last iteration, by the
    epilogue's; None when ``wait`` is not in ``loop`` or a condition is not modelled."""
    statement: Operation = wait
    while (parent := statement.parent_op()) is not loop:
        if not isinstance(parent, scf.IfOp | LoopOp):
            return None  # not in the loop, or under a statement not modelled
        statement = parent
    iv = instance.ivs.get(loop)
    if iv is None:
        return None
    ub, step = (encoder.term(v, instance) for v in loop.operands[1:3])
    nesting = _nesting(wait, statement)
    options: list[z3.BoolRef] = []
    for j in range(1, SEARCHED_ITERATIONS + 1):
        later = iv + j * step
        rest = _waits_on_slot(encoder, wait, nesting, instance.derive({loop: later}), slot)
        if rest is None:
            return None
        options.append(z3.And(later < ub, rest))
    return z3.Or(*options)


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
