"""Flag-id demand of an Ascend kernel, and the plan that fits it into the hardware.

A *sync point* occupies a contiguous block of event ids on its hard event: one id per
version, addressed at run time as ``iteration mod versions + base``.  Such a block is
indivisible -- a dynamic id cannot be split across the 8-id boundary at run time -- so
the budget is a 0/1 knapsack per hard event (docs/ascend.md):

* demand(hard event) = sum of the block sizes of its sync points;
* demand <= 8: every block keeps its flags (renumbered into ``[0, 8)``);
* demand  > 8: the subset of blocks that fills the 8 slots best keeps its flags (ties:
  the earliest blocks in program order); the others spill to the lock pool.

The id range of every flag op is proved from its id expression (constants,
``arith.remui``/``remsi`` by a constant, ``arith.addi``), as TileLang proves it with
``const_int_bound``; an id whose range cannot be bounded is an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith
from xdsl.dialects.builtin import StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue

from tilepipe.dialects.ascend_pipes import HardEvent
from tilepipe.dialects.ascend_sync import CrossCoreFlagOp, FlagOp, IdOperandOp
from tilepipe.dialects.tile import constant_index

# Discardable attribute naming the sync point a flag op belongs to (set by
# ascend-insert-sync, read by reports).
SYNC_POINT_ATTR = "ascend.sync_point"


def id_range(value: int | SSAValue) -> tuple[int, int] | None:
    """Inclusive bounds of an id expression, or None when it cannot be bounded."""
    if isinstance(value, int):
        return (value, value)
    if (constant := constant_index(value)) is not None:
        return (constant, constant)
    owner = value.owner
    # Iteration indices are non-negative, so a signed remainder is bounded too.
    if isinstance(owner, arith.RemUIOp | arith.RemSIOp):
        divisor = constant_index(owner.rhs)
        if divisor is not None and divisor > 0:
            return (0, divisor - 1)
    if isinstance(owner, arith.AddiOp):
        lhs, rhs = id_range(owner.lhs), id_range(owner.rhs)
        if lhs is not None and rhs is not None:
            return (lhs[0] + rhs[0], lhs[1] + rhs[1])
    if isinstance(owner, arith.IndexCastOp):
        return id_range(owner.input)
    return None


@dataclass
class IdBlock:
    """Overlapping id ranges of one resource namespace, merged: one sync point."""

    lo: int
    hi: int  # inclusive
    ops: list[IdOperandOp] = field(default_factory=list)

    @property
    def size(self) -> int:
        return self.hi - self.lo + 1

    @property
    def name(self) -> str:
        names: list[str] = []
        for op in self.ops:
            attr = op.attributes.get(SYNC_POINT_ATTR)
            if isinstance(attr, StringAttr) and attr.data not in names:
                names.append(attr.data)
        return "+".join(names) if names else f"ids[{self.lo}..{self.hi}]"


class UnboundedId(Exception):
    def __init__(self, op: Operation):
        super().__init__("cannot bound the event id of this flag")
        self.op = op


def coalesce(ops: Sequence[IdOperandOp]) -> list[IdBlock]:
    """Blocks of overlapping id ranges of ``ops`` (given in program order), ordered by
    their first op.  Only overlapping ranges merge: [0, 3] and [4, 7] stay apart."""
    blocks: list[IdBlock] = []
    for op in ops:
        bounds = id_range(op.id)
        if bounds is None:
            raise UnboundedId(op)
        merged = IdBlock(bounds[0], bounds[1], [op])
        for block in [b for b in blocks if b.lo <= merged.hi and merged.lo <= b.hi]:
            blocks.remove(block)
            merged = IdBlock(
                min(merged.lo, block.lo), max(merged.hi, block.hi), block.ops + merged.ops
            )
        blocks.append(merged)
    position = {id(op): index for index, op in enumerate(ops)}
    for block in blocks:
        block.ops.sort(key=lambda op: position[id(op)])
    return sorted(blocks, key=lambda block: position[id(block.ops[0])])


def knapsack_keep(sizes: Sequence[int], capacity: int) -> tuple[int, ...]:
    """Indices of the subset whose total size is the largest not above ``capacity``.

    Among equally full subsets the lexicographically smallest index tuple wins, i.e.
    ties go to the blocks that come first in program order."""
    best: dict[int, tuple[int, ...]] = {0: ()}
    for index, size in enumerate(sizes):
        for total, chosen in sorted(best.items(), reverse=True):
            new_total = total + size
            if new_total > capacity:
                continue
            candidate = chosen + (index,)
            if new_total not in best or candidate < best[new_total]:
                best[new_total] = candidate
    return best[max(best)]


@dataclass
class EventBudget:
    """The plan for one hard event."""

    event: HardEvent
    blocks: list[IdBlock]
    capacity: int
    kept: dict[int, int] = field(default_factory=dict)  # block index -> new base id
    spilled: dict[int, int] = field(default_factory=dict)  # block index -> lock slot base

    @property
    def demand(self) -> int:
        return sum(block.size for block in self.blocks)

    @property
    def kept_slots(self) -> int:
        return sum(self.blocks[i].size for i in self.kept)


@dataclass
class FlagBudgetPlan:
    """Per hard event: which sync points keep flags (at which base), which spill."""

    kernel: FuncOp
    events: list[EventBudget]
    cross_core_blocks: list[IdBlock]
    lock_slots_used: int

    def budget(self, event: HardEvent) -> EventBudget:
        return next(b for b in self.events if b.event == event)


class LockPoolExhausted(Exception):
    pass


def plan_flag_budget(
    kernel: FuncOp, capacity: int, lock_pool_slots: int, first_lock_slot: int = 0
) -> FlagBudgetPlan:
    """Group the kernel's flags into blocks per hard event and fit them (see module
    doc).  Raises UnboundedId or LockPoolExhausted."""
    flags: dict[HardEvent, list[FlagOp]] = {}
    cross_core: list[CrossCoreFlagOp] = []
    for op in kernel.walk():
        if isinstance(op, FlagOp):
            flags.setdefault(op.hard_event, []).append(op)
        elif isinstance(op, CrossCoreFlagOp):
            cross_core.append(op)
    next_slot = first_lock_slot
    events: list[EventBudget] = []
    for event, ops in flags.items():
        budget = EventBudget(event, coalesce(ops), capacity)
        sizes = [block.size for block in budget.blocks]
        keep = range(len(sizes)) if budget.demand <= capacity else knapsack_keep(sizes, capacity)
        base = 0
        for index, block in enumerate(budget.blocks):
            if index in keep:
                budget.kept[index] = base
                base += block.size
            else:
                budget.spilled[index] = next_slot
                next_slot += block.size
        events.append(budget)
    if next_slot > lock_pool_slots:
        raise LockPoolExhausted(
            f"spilled flags need {next_slot - first_lock_slot} lock slots but the pool "
            f"has {lock_pool_slots - first_lock_slot}"
        )
    return FlagBudgetPlan(kernel, events, coalesce(cross_core), next_slot - first_lock_slot)
