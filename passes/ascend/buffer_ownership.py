"""Ascend multi-buffering as ownership (docs/ascend.md): owners, epochs, versions, slots.

* An *owner* of an on-chip storage is a loop whose every iteration holds one complete
  epoch of it: all of the storage's accesses lie in the loop body and, in each
  iteration, the first one writes it without reading it (so no value flows from one
  iteration to the next).  An accumulator (read-modify-write across iterations, or
  used outside the loop) has no owner and keeps one version.
* *Versions* are chosen by ``ascend-prepare-multi-buffer`` under the target's on-chip
  capacities with the loop's ``num_stages`` as the upper bound, and recorded on the
  ``memref.alloc`` as ``ascend.versions``.
* The *index mode* says which clock selects the slot: ``iteration`` (the lexical
  iteration number) or ``counter`` (the number of epochs actually executed; it differs
  from the iteration on loops whose epochs are guarded).  The clock of a storage is an
  :class:`EpochClock`; :class:`EpochSlots` builds its slot expressions.  A counter is a
  scalar cell of the scalar unit (``memref.alloca() : memref<index>``, as HIVM lowers
  its ``multi_buffer_counter``): zeroed before the loop, read and incremented at the
  top of the guarded branch, so only executed epochs advance it.

``ascend-insert-sync`` reads the plan to give sync points their versions (one event id
per version); ``ascend-materialize-multi-buffer`` turns (storage, epoch) into a slot of
a physical buffer with a leading version dimension.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, StringAttr, UnitAttr, i64
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tilepipe.dialects.ascend_pipes import ascend_space, buffer_bytes
from tilepipe.dialects.memory_space import ON_CHIP_ASCEND_SPACES, MemorySpace
from tilepipe.dialects.pipeline import ForOp
from tilepipe.dialects.tile import TileOp

from tilepipe.passes.rewrite.index_arith import Index, IndexBuilder

VERSIONS_ATTR = "ascend.versions"
INDEX_MODE_ATTR = "ascend.index_mode"
ITERATION_MODE = "iteration"
COUNTER_MODE = "counter"
INDEX_MODES = (ITERATION_MODE, COUNTER_MODE)
# Marks the read of an epoch counter at the top of its branch (found again by
# ascend-insert-sync and ascend-materialize-multi-buffer).
EPOCH_COUNTER_ATTR = "ascend.epoch_counter"


@dataclass(frozen=True)
class MultiBuffer:
    """The plan for one on-chip storage."""

    alloc: memref.AllocOp
    owner: ForOp | None
    versions: int
    index_mode: str

    @property
    def storage(self) -> SSAValue:
        return self.alloc.memref


def on_chip_allocs(kernel: FuncOp) -> list[memref.AllocOp]:
    return [
        op
        for op in kernel.walk()
        if isinstance(op, memref.AllocOp)
        and ascend_space(op.memref.type) in ON_CHIP_ASCEND_SPACES
    ]


def _enclosing(op: Operation, kind: type[Operation]) -> Operation | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, kind):
        parent = parent.parent_op()
    return parent


def owner_of(storage: SSAValue) -> ForOp | None:
    """The loop owning ``storage`` (see the module doc), or None."""
    users = [use.operation for use in storage.uses]
    if not users or not all(isinstance(u, TileOp) for u in users):
        return None
    loops = {_enclosing(u, ForOp) for u in users}
    if len(loops) != 1 or None in loops:
        return None
    (loop,) = loops
    assert isinstance(loop, ForOp)
    order = {id(op): i for i, op in enumerate(loop.walk())}
    first = min(users, key=lambda u: order[id(u)])
    accesses = [a for a in first.buffer_accesses() if a.buffer is storage]
    if any(a.reads for a in accesses) or not any(a.writes for a in accesses):
        return None
    return loop


def loop_depth_bound(loop: ForOp) -> int:
    """The version upper bound of a loop: num_stages, else depth, else 1."""
    for name in ("num_stages", "depth"):
        value = loop.int_annotation(name)
        if value is not None:
            return max(1, value)
    return 1


def read_plan(kernel: FuncOp) -> dict[SSAValue, MultiBuffer]:
    """The plan ``ascend-prepare-multi-buffer`` recorded on the kernel's allocs."""
    plan: dict[SSAValue, MultiBuffer] = {}
    for alloc in on_chip_allocs(kernel):
        versions = alloc.attributes.get(VERSIONS_ATTR)
        mode = alloc.attributes.get(INDEX_MODE_ATTR)
        plan[alloc.memref] = MultiBuffer(
            alloc,
            owner_of(alloc.memref),
            versions.value.data if isinstance(versions, IntegerAttr) else 1,
            mode.data if isinstance(mode, StringAttr) else ITERATION_MODE,
        )
    return plan


def record(buffer: MultiBuffer) -> None:
    buffer.alloc.attributes[VERSIONS_ATTR] = IntegerAttr(buffer.versions, i64)
    buffer.alloc.attributes[INDEX_MODE_ATTR] = StringAttr(buffer.index_mode)


def capacity_problem(
    plan: dict[SSAValue, MultiBuffer], capacities: dict[str, int]
) -> tuple[MemorySpace, int, int] | None:
    """The first memory whose buffers (times their versions) exceed its capacity."""
    used: dict[MemorySpace, int] = {}
    for buffer in plan.values():
        space = ascend_space(buffer.storage.type)
        used[space] = used.get(space, 0) + buffer_bytes(buffer.storage.type) * buffer.versions
    for space, total in used.items():
        capacity = capacities.get(space.value)
        if capacity is not None and total > capacity:
            return space, total, capacity
    return None


def loop_top_builder(loop: ForOp) -> IndexBuilder:
    """An index builder at the top of ``loop``'s body, constants hoisted before it."""
    outer = IndexBuilder(InsertPoint.before(loop))
    return outer.nested(InsertPoint.at_start(loop.body.block))


def guarded_branch(storage: SSAValue, loop: ForOp) -> Block | None:
    """The branch of an ``scf.if`` in ``loop``'s body holding every access of
    ``storage`` (its epochs are guarded), or None when the epochs run every iteration."""
    blocks = {use.operation.parent_block() for use in storage.uses}
    if len(blocks) != 1:
        return None
    (block,) = blocks
    guard = block.parent_op() if block is not None else None
    if isinstance(guard, scf.IfOp) and guard.parent_op() is loop:
        return block
    return None


@dataclass(frozen=True)
class EpochClock:
    """What numbers the epochs of a storage: the iterations of ``loop`` (``branch``
    None), or the executed epochs of a guarded ``branch`` (the counter mode)."""

    loop: ForOp
    branch: Block | None


def epoch_clock(buffer: MultiBuffer) -> EpochClock:
    """The clock of an owned storage.  Without a guard both modes count iterations."""
    assert buffer.owner is not None
    branch = None
    if buffer.index_mode == COUNTER_MODE:
        branch = guarded_branch(buffer.storage, buffer.owner)
    return EpochClock(buffer.owner, branch)


class EpochSlots:
    """Builds ``epoch mod versions`` (+ base) for each clock, computed once at the top
    of the loop body or of the guarded branch."""

    def __init__(self) -> None:
        self._epochs: dict[EpochClock, tuple[IndexBuilder, Index]] = {}

    def _epoch(self, clock: EpochClock) -> tuple[IndexBuilder, Index]:
        if clock not in self._epochs:
            self._epochs[clock] = (
                self._counter(clock) if clock.branch is not None else self._iteration(clock)
            )
        return self._epochs[clock]

    @staticmethod
    def _iteration(clock: EpochClock) -> tuple[IndexBuilder, Index]:
        loop = clock.loop
        b = loop_top_builder(loop)
        return b, b.div(b.sub(loop.induction_var, loop.lb), loop.step)

    @staticmethod
    def _counter(clock: EpochClock) -> tuple[IndexBuilder, Index]:
        """The branch's counter value before this epoch (created on first use)."""
        branch, loop = clock.branch, clock.loop
        assert branch is not None
        outer = IndexBuilder(InsertPoint.before(loop))
        read = branch.first_op
        if not (isinstance(read, memref.LoadOp) and EPOCH_COUNTER_ATTR in read.attributes):
            cell = memref.AllocaOp.get(IndexType(), shape=[])
            cell.memref.name_hint = "epochs"
            Rewriter.insert_op(cell, InsertPoint.before(loop))
            Rewriter.insert_op(
                memref.StoreOp.get(outer.value(0), cell.memref, []), InsertPoint.before(loop)
            )
            read = memref.LoadOp.get(cell.memref, [])
            read.attributes[EPOCH_COUNTER_ATTR] = UnitAttr()
            read.res.name_hint = "epoch"
            Rewriter.insert_op(read, InsertPoint.at_start(branch))
            next_epoch = arith.AddiOp(read.res, outer.value(1))
            Rewriter.insert_op(next_epoch, InsertPoint.after(read))
            Rewriter.insert_op(
                memref.StoreOp.get(next_epoch.result, cell.memref, []),
                InsertPoint.after(next_epoch),
            )
        after_counter = read.next_op.next_op  # the increment and its store
        assert after_counter is not None
        return outer.nested(InsertPoint.after(after_counter)), read.res

    def slot(self, clock: EpochClock, versions: int, base: int = 0) -> SSAValue:
        """``epoch mod versions + base`` of the current epoch of ``clock``."""
        builder, epoch = self._epoch(clock)
        return builder.value(builder.add(builder.rem(epoch, versions), base))
