"""Is a bulk (TMA) copy landed by an mbarrier wait on its slot before a later access
of its bytes?  The hazard analysis asks this for every conflicting pair of runs;
static loops are enumerated, the rest is one Z3 query over the candidate waits.
The rules are in docs/sync.md, "`thread-sync`" (item "Never a racy kernel")."""

from __future__ import annotations

from collections.abc import Callable

import z3
from xdsl.dialects import func, scf
from xdsl.ir import Operation

from tilepipe.dialects.pipeline_sync import BulkCopyOp, MBarrierWaitOp

from tilepipe.passes.analysis.program_points import (
    Point,
    Relation,
    chain,
    position,
    precedes,
)
from tilepipe.passes.analysis.concrete_index import Env, evaluate, loop_range
from tilepipe.passes.analysis.symbolic_index import (
    IndexEncoder,
    Instance,
    LoopOp,
    enclosing_loops,
    satisfiable,
    static_step,
)

# A wait in a loop between the copy and the access is looked for in the loop's first
# iterations: a prologue's copies are landed within the ring's depth of them.
SEARCHED_ITERATIONS = 8

# Given an encoder: the constraints under which the two accesses conflict (or only
# run, in order), and the copy's and the access's instances in them.
Conflict = Callable[[IndexEncoder], tuple[list[z3.BoolRef], Instance, Instance]]


def bulk_copy_waited(
    copy: BulkCopyOp,
    access: Operation,
    relation: Relation,
    points: set[Point],
    conflict: Conflict,
    conflicting_runs: list[tuple[Env, Env]] | None,
    reach: Conflict | None = None,
) -> bool:
    """Does a wait on ``copy``'s mbarrier slot run between every conflicting pair of
    runs of ``copy`` and ``access``, given how the access's iteration follows the
    copy's (``relation``), ``points``, the points every path passes, and the
    conflicting pairs of runs themselves when the loop bounds are static?
    ``reach``, like ``conflict`` without the byte overlap: the constraints under which
    the two run in that order."""
    function = copy.parent_op()
    while function is not None and not isinstance(function, func.FuncOp):
        function = function.parent_op()
    assert function is not None
    waits = [  # in program order: the query, hence Z3's effort, is the same every run
        op for op in function.walk()
        if isinstance(op, MBarrierWaitOp) and op.barriers == copy.barriers
    ]
    on_every_path = [w for w in waits if (w.parent_block(), position(w)) in points]
    runs = [_runs_between(copy, access, w, relation) for w in on_every_path]
    if any(r is None for r in runs):
        return True  # a wait in a loop passed whole between the two: slot not compared
    if any(
        ("copy", None, 0) in r and list(w.barrier_index) == list(copy.barrier_index)
        for w, r in zip(on_every_path, runs)
    ):
        return True  # the copy's own slot value, in its iteration: no question to ask
    candidates = list(zip(on_every_path, runs))
    if conflicting_runs is not None and all(
        any(_lands_concretely(copy, wait, wait_runs, pair) for wait, wait_runs in candidates)
        for pair in conflicting_runs
    ):
        return True  # static bounds: every conflicting pair checked by evaluation
    # Different waits may land the copy at different trip counts (a prologue copy is
    # landed in the steady-state loop when it runs, else in the epilogue): one query
    # over all of them.  First whether every run of the copy is landed before every
    # later run of the access, their bytes aside: that suffices, and without the
    # byte-overlap terms (arena offsets of two buffers times run-time slot indices)
    # z3 decides within its budget queries the overlap makes it give up on (fuzz seed
    # 700607: a steady-state TMA copy and a gemm in a later loop's epilogue guard).
    if reach is not None and _landed(copy, access, reach, candidates, waits, points):
        return True
    return _landed(copy, access, conflict, candidates, waits, points)


def _landed(
    copy: BulkCopyOp,
    access: Operation,
    facts_of: Conflict,
    candidates: list[tuple[MBarrierWaitOp, list[Run]]],
    waits: list[MBarrierWaitOp],
    points: set[Point],
) -> bool:
    """Whether, under the constraints ``facts_of`` gives, some wait lands the copy's
    slot between the copy's run and the access's."""
    encoder = IndexEncoder()
    facts, copy_instance, access_instance = facts_of(encoder)
    slot = _slot(encoder, copy, copy_instance)
    landings = []
    access_loops = enclosing_loops(access)
    exited_loops = [loop for loop in enclosing_loops(copy) if loop not in access_loops]
    on_every_path = [wait for wait, _ in candidates]
    for wait, wait_runs in candidates:
        for whose, loop, shift in wait_runs:
            base = copy_instance if whose == "copy" else access_instance
            run, when = _shifted(encoder, base, loop, shift)
            landings.append(z3.And(when, _same_slot(_slot(encoder, wait, run), slot)))
    for wait in waits:
        statement = _whole_statement(wait, points)
        if statement is not None and _runs_after(copy, statement):
            lands = _waits_on_slot(encoder, wait, _nesting(wait, statement), copy_instance,
                                   slot)
            if lands is not None:
                landings.append(lands)
        if wait in on_every_path:
            continue  # its later iterations are among its runs above
        for loop in exited_loops:
            lands = _waits_in_later_iterations(encoder, wait, loop, copy_instance, slot)
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
    epilogue's; None when ``wait`` is not in ``loop`` or a condition is not modelled.

    Unlike a ``wait_group``, whose last run before the access is the only one that
    matters, each of the next iterations is a candidate: only a run on the copy's slot
    lands it (``later_iterations`` says which loops both searches cover)."""
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


# A run of a wait: in the copy's or the access's iteration (``"copy"``/``"access"``),
# with ``loop``'s induction variable moved by ``shift`` steps (``None``: unmoved).
Run = tuple[str, Operation | None, int]


def _runs_between(
    copy: Operation, access: Operation, wait: Operation, relation: Relation
) -> list[Run] | None:
    """The runs of a wait on every path that lie between the copy and the access: in
    the copy's iteration after it, in the access's before it, and in the iterations
    between the two of the loop whose body holds the wait (directly) -- all of them
    for a loop carrying the pair, the next (previous) ones while in bounds for a
    loop the path leaves (enters), as many as the mbarrier array has slots (a ring's
    wait comes back to a slot within that many iterations; fewer runs can only
    prove less).  None when the wait runs in a loop between the two otherwise."""
    runs: list[Run] = [("copy", None, 0)] if _runs_after(copy, wait) else []
    runs += [("access", None, 0)] if _runs_before(access, wait) else []
    copy_loops, access_loops = enclosing_loops(copy), enclosing_loops(access)
    loops = enclosing_loops(wait)
    shared = [loop for loop in copy_loops if loop in access_loops]
    if all(loop in shared and loop is not relation.carried_loop for loop in loops):
        return runs  # in the iterations the two share
    loop = loops[-1]
    if wait.parent_block() is not loop.regions[0].blocks[0] or any(
        outer not in shared for outer in loops[:-1]
    ):
        return None  # its other runs are under conditions, or in other loops' iterations
    searched = min(SEARCHED_ITERATIONS, wait.barriers.type.get_shape()[0])
    if loop is relation.carried_loop:
        return runs + [("copy", loop, d) for d in range(1, relation.distance)]
    if loop in copy_loops and loop not in access_loops:
        return runs + [("copy", loop, d) for d in range(1, searched + 1)]
    if loop in access_loops and loop not in copy_loops:
        return runs + [("access", loop, -d) for d in range(1, searched + 1)]
    return None


def _shifted(
    encoder: IndexEncoder, base: Instance, loop: Operation | None, shift: int
) -> tuple[Instance, z3.BoolRef]:
    """``base`` with ``loop`` moved ``shift`` steps, and when that iteration exists."""
    if loop is None:
        return base, z3.BoolVal(True)
    step = static_step(loop)
    step_term = z3.IntVal(step) if step is not None else encoder.term(loop.step, base)
    iv = base.ivs[loop] + shift * step_term
    lb, ub = (encoder.term(v, base) for v in loop.operands[:2])
    return base.derive({loop: iv}), z3.And(lb <= iv, iv < ub)


def _lands_concretely(
    copy: BulkCopyOp, wait: MBarrierWaitOp, runs: list[Run], pair: tuple[Env, Env]
) -> bool:
    """Whether one of the wait's runs between a conflicting pair of runs of the copy
    and the access (their loop iterations) is on the copy's slot."""
    slot = [evaluate(i, pair[0]) for i in copy.barrier_index]
    for whose, loop, shift in runs:
        env = pair[0] if whose == "copy" else pair[1]
        if loop is not None:
            values = loop_range(loop, env)
            if values is None or (iv := env[loop] + shift * values.step) not in values:
                continue
            env = {**env, loop: iv}
        if None not in slot and [evaluate(i, env) for i in wait.barrier_index] == slot:
            return True
    return False


def _runs_after(copy: Operation, op: Operation) -> bool:
    """``op``'s first run after the copy is in the copy's iteration of each of its
    loops (it follows the copy in program order, inside loops around the copy)."""
    copy_loops = enclosing_loops(copy)
    if not all(loop in copy_loops for loop in enclosing_loops(op)):
        return False
    return precedes(chain(copy), chain(op))


def _runs_before(access: Operation, op: Operation) -> bool:
    """``op``'s last run before the access is in the access's iteration of each of
    its loops (it precedes the access in program order, inside loops around it)."""
    access_loops = enclosing_loops(access)
    if not all(loop in access_loops for loop in enclosing_loops(op)):
        return False
    return precedes(chain(op), chain(access))


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
        return _same_slot(_slot(encoder, wait, instance), slot)
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


def _same_slot(a: list[z3.ArithRef], b: list[z3.ArithRef]) -> z3.BoolRef:
    return z3.And(*[x == y for x, y in zip(a, b)])
