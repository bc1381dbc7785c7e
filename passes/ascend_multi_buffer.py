"""Ascend multi-buffering as ownership (§3.5): owners, epochs, versions, slots.

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
  from the iteration on loops whose epochs are guarded).

``ascend-insert-sync`` reads the plan to give sync points their versions (one event id
per version); ``ascend-materialize-multi-buffer`` turns (storage, epoch) into a slot of
a physical buffer with a leading version dimension.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import memref
from xdsl.dialects.builtin import IntegerAttr, StringAttr, i64
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint

from tilepipe.dialects.ascend_pipes import ascend_space, buffer_bytes
from tilepipe.dialects.memory_space import ON_CHIP_ASCEND_SPACES, MemorySpace
from tilepipe.dialects.pipeline import ForOp
from tilepipe.dialects.tile import TileOp

from .index_arith import Index, IndexBuilder

VERSIONS_ATTR = "ascend.versions"
INDEX_MODE_ATTR = "ascend.index_mode"
ITERATION_MODE = "iteration"
COUNTER_MODE = "counter"


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


def iteration_slot(loop_body_builder: IndexBuilder, loop: ForOp, versions: int) -> Index:
    """``((iv - lb) / step) mod versions``: the slot of the current iteration."""
    b = loop_body_builder
    iteration = b.div(b.sub(loop.induction_var, loop.lb), loop.step)
    return b.rem(iteration, versions)


def loop_top_builder(loop: ForOp) -> IndexBuilder:
    """An index builder at the top of ``loop``'s body, constants hoisted before it."""
    outer = IndexBuilder(InsertPoint.before(loop))
    return outer.nested(InsertPoint.at_start(loop.body.block))
