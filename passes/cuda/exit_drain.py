"""The drain before the kernel's return: no ``cp.async`` copy may be in flight there.

A ``cp.async`` must land before its thread exits: it writes the block's shared
memory, which is released with the block.  thread-sync's hazards only ask for the
groups someone reads, so a copy whose bytes nobody reads, or the last groups of a
loop whose readers were served by a looser wait, could outlive their threads.

This analysis follows the top level of the function (prologue guards, the
steady-state loop, epilogue guards) and keeps, for each copy that may still be in
flight, its state and the path condition under which it is: a copy is issued
*uncommitted* on the current path, a commit makes the uncommitted ones *pending*, a
``wait_group 0`` lands the pending ones (it does not wait for uncommitted copies), a
loop may run zero times or more, an ``scf.if`` splits the paths by its condition.
The return needs a wait only when a pending copy's condition is satisfiable (Z3).
Copies, not groups, are tracked: the prologue commits a group on every path to keep
the group count uniform, but under a guard that skips the copy that group is empty,
and an epilogue guard that runs exactly when the copy was issued (its
``wait_group 0`` under the same condition) is seen to drain it.  thread-sync then
plans that wait like any other (the exit as a write of every ``cp.async``'s bytes),
so its count is the tight one: the groups committed after the last copy on every
path.

Inside a loop the body's conditions depend on the iteration, so the body is
summarized without them: the states a copy may be in after the body given its state
before (its *fate*), and the states of the copies the body issues.
"""

from __future__ import annotations

import z3
from xdsl.dialects import func, scf
from xdsl.ir import Block, Operation

from tilepipe.dialects.pipeline_sync import AsyncTileCopy, CommitGroupOp, WaitGroupOp
from tilepipe.passes.analysis.symbolic_index import IndexEncoder, Instance, satisfiable

# The states of a copy that may still be in flight.
UNCOMMITTED, PENDING = "uncommitted", "pending"
States = frozenset  # of UNCOMMITTED / PENDING; a landed copy is in none
# For each state, the condition under which some copy is in it.  Copies in one state
# share one entry, their conditions joined by "or": every step acts on each copy
# alone and "and" distributes over "or", so this is exact, and the entries stay two
# however many guards the prologue and epilogue hold (one entry per copy and path
# doubled at each top-level scf.if).  z3 shares the common parts of the conditions.
Entries = dict[str, z3.BoolRef]


def needs_exit_drain(function: func.FuncOp) -> list[func.ReturnOp]:
    """The returns before which a committed copy may still be in flight."""
    returns = []
    for block in function.body.blocks:
        exit_op = block.last_op
        if not isinstance(exit_op, func.ReturnOp):
            continue
        walker = _CopiesInFlight(IndexEncoder())
        entries = walker.run(list(block.ops)[:-1], {}, z3.BoolVal(True))
        # A wait_group lands only committed copies: an uncommitted one at the exit is
        # not this drain's to wait for (async-copy commits every copy it issues).
        if PENDING in entries and satisfiable([*walker.encoder.constraints, entries[PENDING]]):
            returns.append(exit_op)
    return returns


def _is_copy(op: Operation) -> bool:
    return isinstance(op, AsyncTileCopy)


def _step(op: Operation, state: str) -> States:
    """The states a copy in ``state`` may be in after ``op`` (not a loop or an if)."""
    if isinstance(op, CommitGroupOp):
        return frozenset({PENDING})
    if isinstance(op, WaitGroupOp) and op.pending_groups == 0:
        return frozenset() if state == PENDING else frozenset({state})
    if state == UNCOMMITTED and any(isinstance(i, CommitGroupOp) for i in op.walk()):
        return frozenset({UNCOMMITTED, PENDING})  # an op this walk does not follow
    return frozenset({state})


def _add(entries: Entries, state: str, condition: z3.BoolRef) -> None:
    known = entries.get(state)
    entries[state] = condition if known is None else z3.Or(known, condition)


class _CopiesInFlight:
    def __init__(self, encoder: IndexEncoder) -> None:
        self.encoder = encoder
        self._fates: dict[tuple[Block, str], States] = {}
        self._issued: dict[Block, States] = {}

    # -- the top level: entries with path conditions

    def run(self, ops: list[Operation], entries: Entries, path: z3.BoolRef) -> Entries:
        """The copies that may be in flight after the top-level ``ops``, given those
        before them; ``path`` is the condition of reaching them."""
        for op in ops:
            if isinstance(op, scf.IfOp):
                entries = self._if(op, entries, path)
            elif isinstance(op, scf.ForOp):
                entries = self._for(op, entries, path)
            else:
                after: Entries = {}
                for state, condition in sorted(entries.items()):
                    for s in sorted(_step(op, state)):
                        _add(after, s, condition)
                for s in sorted(self._issued_by(op)):
                    _add(after, s, path)
                entries = after
        return entries

    def _if(self, op: scf.IfOp, entries: Entries, path: z3.BoolRef) -> Entries:
        taken = self.encoder.condition(op.cond, Instance())
        out: Entries = {}
        for region, condition in zip(op.regions, (taken, _negate(taken))):
            def branch(c: z3.BoolRef) -> z3.BoolRef:
                return c if condition is None else z3.And(c, condition)

            entering = {s: branch(c) for s, c in entries.items()}
            ops = list(region.block.ops) if region.blocks else []
            for state, c in sorted(self.run(ops, entering, branch(path)).items()):
                _add(out, state, c)
        return out

    def _for(self, op: scf.ForOp, entries: Entries, path: z3.BoolRef) -> Entries:
        """A loop runs zero times (``not ran``) or more (``ran``)."""
        ran = self.encoder.term(op.lb, Instance()) < self.encoder.term(op.ub, Instance())
        body = op.body.block
        out: Entries = {}
        for state, c in sorted(entries.items()):
            _add(out, state, z3.And(c, z3.Not(ran)))
        for state, c in sorted(entries.items()):
            for s in sorted(self._iterated(body, {state})):
                _add(out, s, z3.And(c, ran))
        issued = self._issued_block(body)
        for s in sorted(issued | self._iterated(body, issued)):
            _add(out, s, z3.And(path, ran))
        return out

    # -- inside loops: states only, memoized per block (nested loops stay linear)

    def _iterated(self, body: Block, states) -> States:
        """The states after one or more more runs of ``body`` from ``states``."""
        reached: set[str] = set()
        frontier = set(states)
        while frontier:
            after = set().union(*(self._fate(body, s) for s in frontier))
            frontier = after - reached
            reached |= after
        return frozenset(reached)

    def _fate(self, block: Block, state: str) -> States:
        """The states a copy in ``state`` may be in after ``block``."""
        key = (block, state)
        if key not in self._fates:
            states: States = frozenset({state})
            for op in block.ops:
                states = frozenset().union(*(self._fate_op(op, s) for s in states))
            self._fates[key] = states
        return self._fates[key]

    def _fate_op(self, op: Operation, state: str) -> States:
        if isinstance(op, scf.IfOp):
            return frozenset().union(
                *(self._fate(r.block, state) if r.blocks else {state} for r in op.regions)
            )
        if isinstance(op, scf.ForOp):
            return frozenset({state}) | self._iterated(op.body.block, {state})
        return _step(op, state)

    def _issued_block(self, block: Block) -> States:
        """The states the copies ``block`` issues may be in at its end."""
        if block not in self._issued:
            states: States = frozenset()
            for op in block.ops:
                states = frozenset().union(*(self._fate_op(op, s) for s in states))
                states |= self._issued_by(op)
            self._issued[block] = states
        return self._issued[block]

    def _issued_by(self, op: Operation) -> States:
        """The states the copies ``op`` issues may be in right after it."""
        if _is_copy(op):
            return frozenset({UNCOMMITTED})
        if isinstance(op, scf.IfOp):
            return frozenset().union(*(self._issued_block(r.block) for r in op.regions if r.blocks))
        if isinstance(op, scf.ForOp):
            issued = self._issued_block(op.body.block)
            return issued | self._iterated(op.body.block, issued)
        if any(_is_copy(inner) for inner in op.walk()):
            return frozenset({UNCOMMITTED, PENDING})  # an op this walk does not follow
        return frozenset()


def _negate(condition: z3.BoolRef | None) -> z3.BoolRef | None:
    return None if condition is None else z3.Not(condition)
