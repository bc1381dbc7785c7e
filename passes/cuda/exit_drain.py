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
from xdsl.ir import Block, Operation

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
        self._inside_loops: dict[tuple[Block, bool], bool] = {}

    def run(
        self, ops: list[Operation], pending: list[PathCondition], path: PathCondition,
    ) -> list[PathCondition]:
        """The path conditions under which a group may be pending after the top-level
        ``ops``, given those before them; ``path`` is the condition of reaching them."""
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
        taken = self.encoder.condition(op.cond, Instance())
        out: list[PathCondition] = []
        for region, condition in zip(op.regions, (taken, _negate(taken))):
            branch = () if condition is None else (condition,)
            entering = [(*p, *branch) for p in pending]
            ops = list(region.block.ops) if region.blocks else []
            out += self.run(ops, entering, (*path, *branch))
        return out

    def _for(self, op: scf.ForOp, pending, path) -> list[PathCondition]:
        """A loop runs zero times (``not ran``) or more.  Its body's conditions
        depend on the iteration, so the body is summarized without them: whether a
        group is pending after an iteration, given whether one was before it."""
        ran = self.encoder.term(op.lb, Instance()) < self.encoder.term(op.ub, Instance())
        skipped = [(*p, z3.Not(ran)) for p in pending]
        body = op.body.block
        from_none, from_some = self._body(body, False), self._body(body, True)
        if not from_none and not from_some:
            return skipped  # every iteration ends drained
        if not from_none and from_some:
            return skipped + [(*p, ran) for p in pending]  # an iteration keeps what was
        return skipped + [(*path, ran)]

    def _body(self, block: Block, in_flight: bool) -> bool:
        """Inside a loop: may a group be pending after ``block``, given ``in_flight``
        before it (memoized: two questions per block keep nested loops linear)."""
        key = (block, in_flight)
        if key not in self._inside_loops:
            for op in block.ops:
                if isinstance(op, CommitGroupOp):
                    in_flight = True
                elif isinstance(op, WaitGroupOp) and op.pending_groups == 0:
                    in_flight = False
                elif isinstance(op, scf.IfOp):
                    in_flight = any(
                        self._body(r.block, in_flight) if r.blocks else in_flight
                        for r in op.regions
                    )
                elif isinstance(op, scf.ForOp):
                    once = self._body(op.body.block, in_flight)
                    again = self._body(op.body.block, in_flight or once)
                    in_flight = in_flight or once or again
                elif any(isinstance(inner, CommitGroupOp) for inner in op.walk()):
                    in_flight = True
            self._inside_loops[key] = in_flight
        return self._inside_loops[key]


def _negate(condition: z3.BoolRef | None) -> z3.BoolRef | None:
    return None if condition is None else z3.Not(condition)
