"""The drain before the kernel's return: no ``cp.async`` group may be in flight there.

A ``cp.async`` must land before its thread exits: it writes the block's shared
memory, which is released with the block.  thread-sync's hazards only ask for the
groups someone reads, so a copy whose bytes nobody reads, or the last groups of a
loop whose readers were served by a looser wait, could outlive their threads.  This
analysis follows the top level of the function (prologue guards, the steady-state
loop, epilogue guards) and keeps, for each way a group may still be pending, the
path condition under which it is: a commit makes one pending on the current path,
a ``wait_group 0`` lands all of them, a loop may run zero times or more, an
``scf.if`` splits the paths by its condition.  The return needs a wait only when
one of those conditions is satisfiable (Z3): an epilogue guard that runs exactly
when the loop ran, for instance, is seen to drain it.  thread-sync then plans that
wait like any other (the exit as a write of every ``cp.async``'s bytes), so its
count is the tight one: the groups committed after the last copy on every path.
"""

from __future__ import annotations

import z3
from xdsl.dialects import func, scf
from xdsl.ir import Operation

from tilepipe.dialects.pipeline_sync import CommitGroupOp, WaitGroupOp
from tilepipe.passes.analysis.symbolic_index import IndexEncoder, Instance, satisfiable

PathCondition = tuple[z3.BoolRef, ...]


def needs_exit_drain(function: func.FuncOp) -> list[func.ReturnOp]:
    """The returns before which a committed group may still be in flight."""
    returns = []
    for block in function.body.blocks:
        exit_op = block.last_op
        if not isinstance(exit_op, func.ReturnOp):
            continue
        walker = _PendingGroups(IndexEncoder())
        pending = walker.run(list(block.ops)[:-1], [], ())
        if any(satisfiable([*walker.encoder.constraints, *path]) for path in pending):
            returns.append(exit_op)
    return returns


class _PendingGroups:
    def __init__(self, encoder: IndexEncoder) -> None:
        self.encoder = encoder

    def run(
        self, ops: list[Operation], pending: list[PathCondition], path: PathCondition,
    ) -> list[PathCondition]:
        """The path conditions under which a group may be pending after ``ops``,
        given those before them; ``path`` is the condition of reaching ``ops``."""
        for op in ops:
            if isinstance(op, CommitGroupOp):
                pending = [*pending, path]
            elif isinstance(op, WaitGroupOp) and op.pending_groups == 0:
                pending = []
            elif isinstance(op, scf.IfOp):
                pending = self._if(op, pending, path)
            elif isinstance(op, scf.ForOp):
                pending = self._for(op, pending, path)
            elif any(isinstance(inner, CommitGroupOp) for inner in op.walk()):
                pending = [*pending, path]  # an op this walk does not follow
        return pending

    def _if(self, op: scf.IfOp, pending, path) -> list[PathCondition]:
        taken = self._condition(op)
        out: list[PathCondition] = []
        for region, condition in zip(op.regions, (taken, _negate(taken))):
            branch = () if condition is None else (condition,)
            entering = [(*p, *branch) for p in pending]
            ops = list(region.block.ops) if region.blocks else []
            out += self.run(ops, entering, (*path, *branch))
        return out

    def _for(self, op: scf.ForOp, pending, path) -> list[PathCondition]:
        ran = self._runs(op)
        entered = () if ran is None else (ran,)
        skipped = () if ran is None else (z3.Not(ran),)
        body = list(op.body.block.ops)
        inside = (*path, *entered)
        # Conditions inside the body depend on the iteration; the body is followed
        # twice (what one iteration leaves pending may reach the next) without them.
        once = self.run(body, [(*p, *entered) for p in pending], inside)
        twice = self.run(body, [(*p, *entered) for p in pending] + once, inside)
        return [(*p, *skipped) for p in pending] + twice

    def _condition(self, op: scf.IfOp) -> z3.BoolRef | None:
        if _in_loop(op):
            return None
        return self.encoder.condition(op.cond, Instance())

    def _runs(self, op: scf.ForOp) -> z3.BoolRef | None:
        if _in_loop(op):
            return None
        lower = self.encoder.term(op.lb, Instance())
        upper = self.encoder.term(op.ub, Instance())
        return lower < upper


def _negate(condition: z3.BoolRef | None) -> z3.BoolRef | None:
    return None if condition is None else z3.Not(condition)


def _in_loop(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        if isinstance(parent, scf.ForOp | scf.WhileOp):
            return True
        parent = parent.parent_op()
    return False
