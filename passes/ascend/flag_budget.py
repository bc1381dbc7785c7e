"""``ascend-flag-budget``: fit every hard event's flags into its 8 event ids.

The plan comes from :mod:`tilepipe.passes.ascend.flag_blocks` (demand per hard event, 0/1
knapsack when it exceeds the target's ids).  This pass applies it:

* kept sync points are renumbered into ``[0, 8)`` (static ids stay static, dynamic ids
  ``i mod n + base`` get the new base; constant SSA ids fold into static ids);
* spilled sync points move to the lock pool, one slot per version (the chapter's
  RewriteFlagToBuf)::

      set_flag[P, C] id  ->  get_buf[P] slot non_block ; rls_buf[P] slot non_block
      wait_flag[P, C] id ->  get_buf[C] slot block     ; rls_buf[C] slot block

  The spill keeps the protocol -- requests on a slot are served in issue order, so the
  consumer's blocking request waits for the producer's release -- but a blocking lock
  costs more than a flag, which is the chapter's "the bottleneck moves from memory to
  flag slots";
* cross-core flags must fit the target's 16 flags (they cannot spill).

With ``report=true`` it prints the allocation to stderr; ``ids_per_event=N`` replaces
the target's 8 ids per hard event (e.g. 4 on the Atlas training series).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tilepipe.core.diagnostics import op_error
from tilepipe.dialects.ascend_sync import (
    CORE_ATTR,
    FlagOp,
    GetBufOp,
    IdOperandOp,
    RlsBufOp,
    SetFlagOp,
    ascend_target_of,
    sync_op_core,
)
from tilepipe.dialects.tile import constant_index
from tilepipe.core.targets import AscendTarget

from tilepipe.passes.ascend.flag_blocks import (
    FlagBudgetPlan,
    IdBlock,
    LockPoolExhausted,
    UnboundedId,
    plan_flag_budget,
)


class IdShifter:
    """Shifts ids by a constant, folding constants and reusing shifted values."""

    def __init__(self) -> None:
        self._shifted: dict[tuple[SSAValue, int], SSAValue] = {}

    def shifted(self, op: IdOperandOp, delta: int) -> int | SSAValue:
        value = op.id
        if isinstance(value, int):
            return value + delta
        if (constant := constant_index(value)) is not None:
            return constant + delta
        if delta == 0:
            return value
        base, offset = value, delta
        owner = value.owner
        if isinstance(owner, arith.AddiOp) and (c := constant_index(owner.rhs)) is not None:
            base, offset = owner.lhs, c + delta
            if offset == 0:
                return base
        if (base, offset) not in self._shifted:
            const = arith.ConstantOp(IntegerAttr(offset, IndexType()))
            add = arith.AddiOp(base, const.result)
            # Right after the base's definition, so it dominates every later user.
            if isinstance(base.owner, Operation):
                where = InsertPoint.after(base.owner)
            else:
                where = InsertPoint.at_start(base.owner)
            Rewriter.insert_op([const, add], where)
            self._shifted[(base, offset)] = add.result
        return self._shifted[(base, offset)]


def _renumber(block: IdBlock, new_base: int, shifter: IdShifter) -> None:
    for op in block.ops:
        assert isinstance(op, FlagOp)
        new_op = type(op)(op.hard_event, shifter.shifted(op, new_base - block.lo))
        new_op.attributes |= op.attributes
        Rewriter.replace_op(op, new_op, new_results=[])


def _spill(block: IdBlock, slot_base: int, shifter: IdShifter) -> None:
    for op in block.ops:
        assert isinstance(op, FlagOp)
        slot = shifter.shifted(op, slot_base - block.lo)
        is_set = isinstance(op, SetFlagOp)
        event = op.hard_event
        pipe = event.producer if is_set else event.consumer
        lock_ops = [cls(pipe, slot, blocking=not is_set) for cls in (GetBufOp, RlsBufOp)]
        core = sync_op_core(op)
        for lock_op in lock_ops:
            lock_op.attributes |= op.attributes
            # A lock on MTE2 no longer says which core's MTE2 it is.
            if core is not None and sync_op_core(lock_op) is None:
                lock_op.attributes[CORE_ATTR] = StringAttr(core.value)
        Rewriter.replace_op(op, lock_ops, new_results=[])


_ID_ARITHMETIC = (
    arith.ConstantOp,
    arith.AddiOp,
    arith.SubiOp,
    arith.RemUIOp,
    arith.RemSIOp,
    arith.DivSIOp,
)


def _erase_dead_id_arithmetic(values: list[SSAValue]) -> None:
    """Erase the index ops that computed ids no op uses any more."""
    work = [v.owner for v in values if isinstance(v.owner, Operation)]
    while work:
        op = work.pop()
        if op.parent is None or any(r.uses for r in op.results):
            continue
        if not isinstance(op, _ID_ARITHMETIC):
            continue
        operands = [o.owner for o in op.operands if isinstance(o.owner, Operation)]
        Rewriter.erase_op(op)
        work.extend(operands)


def apply_flag_budget(plan: FlagBudgetPlan) -> None:
    old_ids = [
        op.id
        for budget in plan.events
        for block in budget.blocks
        for op in block.ops
        if isinstance(op.id, SSAValue)
    ]
    shifter = IdShifter()
    for budget in plan.events:
        for index, block in enumerate(budget.blocks):
            if index in budget.kept:
                _renumber(block, budget.kept[index], shifter)
            else:
                _spill(block, budget.spilled[index], shifter)
    _erase_dead_id_arithmetic(old_ids)


def budget_report(plan: FlagBudgetPlan, target: AscendTarget) -> str:
    """The allocation as docs/ascend.md shows it (blocks, demand, kept and spilled)."""
    capacity = target.intra_core_event_ids
    lines = [
        f"ascend-flag-budget: @{plan.kernel.sym_name.data} on {target.name} "
        f"({capacity} ids per hard event, {target.lock_pool_slots} lock slots, "
        f"{target.cross_core_flags} cross-core flags)"
    ]
    for budget in plan.events:
        blocks = ", ".join(f"{b.name}={b.size}" for b in budget.blocks)
        lines.append(f"  {budget.event}: blocks {blocks}")
        if not budget.spilled:
            lines.append(
                f"    demand {budget.demand} ids -> fits in {capacity} slots; no spill "
                f"({capacity - budget.demand} slots spare)"
            )
            continue
        lines.append(
            f"    demand {budget.demand} ids -> exceeds {capacity} slots: 0/1 knapsack "
            f"keeps {budget.kept_slots}/{capacity} slots as set/wait flags"
        )
        kept = ", ".join(
            f"{budget.blocks[i].name} ids [{base}, {base + budget.blocks[i].size})"
            for i, base in budget.kept.items()
        )
        spilled = ", ".join(
            f"{budget.blocks[i].name} slots [{base}, {base + budget.blocks[i].size})"
            for i, base in budget.spilled.items()
        )
        lines.append(f"    kept    : {kept or '-'}")
        lines.append(f"    spilled : {spilled} -> lock pool (blocking)")
    cross = sum(block.size for block in plan.cross_core_blocks)
    lines.append(
        f"  lock pool: {plan.lock_slots_used} of {target.lock_pool_slots} slots; "
        f"cross-core flags: {cross} of {target.cross_core_flags}"
    )
    return "\n".join(lines)


def _check_cross_core(plan: FlagBudgetPlan, target: AscendTarget) -> None:
    for block in plan.cross_core_blocks:
        if block.hi >= target.cross_core_flags or block.lo < 0:
            raise op_error(
                block.ops[0],
                f"cross-core flag ids [{block.lo}, {block.hi}] exceed the "
                f"{target.cross_core_flags} cross-core flags of {target.name} "
                "(cross-core flags cannot spill)",
            )


@dataclass(frozen=True)
class AscendFlagBudget(ModulePass):
    """Fit each hard event's flag ids into the target's 8 (knapsack; spill to locks)."""

    name = "ascend-flag-budget"

    report: bool = False
    # Event ids per hard event; 0 means the target's.  A smaller budget models the
    # Atlas training series (4 ids) or forces the lock-pool spill for experiments.
    ids_per_event: int = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [f for f in op.walk() if isinstance(f, FuncOp)]:
            if kernel.body.blocks and self._has_flags(kernel):
                self._apply_to(kernel)

    @staticmethod
    def _has_flags(kernel: FuncOp) -> bool:
        return any(isinstance(o, IdOperandOp) for o in kernel.walk())

    def _apply_to(self, kernel: FuncOp) -> None:
        first = next(o for o in kernel.walk() if isinstance(o, IdOperandOp))
        target = ascend_target_of(first)
        if self.ids_per_event:
            target = replace(target, intra_core_event_ids=self.ids_per_event)
        try:
            plan = plan_flag_budget(
                kernel, target.intra_core_event_ids, target.lock_pool_slots
            )
        except UnboundedId as err:
            raise op_error(
                err.op,
                "cannot bound this event id (expected a constant, or "
                "'arith.remui' by a constant plus a constant base)",
            ) from None
        except LockPoolExhausted as err:
            raise op_error(kernel, str(err)) from None
        _check_cross_core(plan, target)
        if self.report:
            print(budget_report(plan, target), file=sys.stderr)
        apply_flag_budget(plan)
