"""Splitting an ``scf.if`` guard in two under the same condition.

``scf.if %c { A; B }`` runs like ``scf.if %c { A }; scf.if %c { B }`` when the guard
yields nothing, has no else branch and ``B`` uses no value ``A`` computes with effects
(pure index math is recomputed in the second half: it is replayable).  Between the
halves is a program point outside the guard, which every thread reaches:

* ``async-copy`` commits a stage guard's copies there, before a reader of the same
  time slot in the guard;
* ``thread-sync`` places a barrier there when both accesses of a hazard sit in one
  guard whose condition may differ between threads (a barrier inside could deadlock).
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.ir import Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint
from xdsl.traits import is_side_effect_free


def can_split(guard: scf.IfOp, index: int) -> bool:
    """Whether ``guard`` may be split before the op at ``index`` of its then-block."""
    if guard.results or guard.false_region.blocks or len(guard.true_region.blocks) != 1:
        return False
    block = guard.true_region.block
    ops = list(block.ops)
    if not 0 < index < len(ops) - 1:  # a non-empty first half and a statement to move
        return False
    return all(_is_pure(op) for op in _defining_ops(block, ops[index:]))


def split_guard(
    guard: scf.IfOp, index: int, rewriter: PatternRewriter | None = None
) -> scf.IfOp:
    """Move the ops from ``index`` on (but the yield) into a new guard right after
    ``guard``, with the same condition; returns the new guard.  Outside a pattern
    (``rewriter`` None) a rewriter anchored at the guard makes the changes."""
    rewriter = rewriter or PatternRewriter(guard)
    assert can_split(guard, index)
    head = guard.true_region.block
    moved = list(head.ops)[index:-1]
    for op in moved:
        op.detach()
    tail = Block([*moved, scf.YieldOp()])
    second = scf.IfOp(guard.cond, [], [tail])
    rewriter.insert(second, InsertPoint.after(guard))
    _rematerialize(head, tail, rewriter)
    return second


def _defining_ops(head: Block, ops: list[Operation]) -> list[Operation]:
    """The ops of ``head`` outside ``ops`` whose values ``ops`` use, transitively, in
    program order."""
    moved = set(ops)
    needed: set[Operation] = set()
    pending = [v for op in ops for inner in op.walk() for v in inner.operands]
    while pending:
        owner = pending.pop().owner
        if (
            isinstance(owner, Operation)
            and owner.parent_block() is head
            and owner not in moved
            and owner not in needed
        ):
            needed.add(owner)
            pending.extend(owner.operands)
    return [op for op in head.ops if op in needed]


def _rematerialize(head: Block, tail: Block, rewriter: PatternRewriter) -> None:
    """Clone into ``tail`` the pure ops of ``head`` that ``tail`` uses (clones precede
    their users) and erase the originals left unused."""
    originals = _defining_ops(head, list(tail.ops))
    clones: dict[SSAValue, SSAValue] = {}
    anchor = InsertPoint.at_start(tail)
    for original in originals:
        clone = original.clone(value_mapper=clones)
        rewriter.insert(clone, anchor)
        anchor = InsertPoint.after(clone)
    for original in originals:
        for result in original.results:
            rewriter.replace_uses_with_if(
                result, clones[result], lambda use: _is_inside(use.operation, tail)
            )
    for original in reversed(originals):
        if all(not result.uses for result in original.results):
            rewriter.erase(original)


def _is_inside(op: Operation, block: Block) -> bool:
    while (parent := op.parent_block()) is not None:
        if parent is block:
            return True
        if (owner := parent.parent_op()) is None:
            return False
        op = owner
    return False


def _is_pure(op: Operation) -> bool:
    return is_side_effect_free(op) and not op.regions
