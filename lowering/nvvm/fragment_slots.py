"""Register fragments with slot dimensions: the versions of a multi-buffered fragment.

``inject-software-pipeline`` gives a fragment that crosses stages a leading version
dimension (``memref<2x16x64xf32, "fragment">``) and indexes it with the version slot
``((k - lb) / step) mod versions``.  A fragment is private to each thread, but the
versions are still needed: the stage that reads iteration ``k``'s values runs after the
stage that already wrote iteration ``k + 1``'s, in the same thread.  So each thread holds
the registers of every version.

Generally: the tile ops touching a fragment fix its *tile shape* (the trailing
dimensions, as many as their tiles have); the leading dimensions before it are *slot
dimensions*, each slot a whole tile in the fragment's layout.  Every slot becomes an
alloca of its own, so that every register index stays static and LLVM keeps them all
in registers.  A tile op that picks its slot with a run-time value (the version slot of
the steady-state loop) works on a staging fragment of the slot's layout instead
(:func:`stage_dynamic_slots`): the selected slot's registers are copied in before the
op with a chain of ``select``s over the slots, and the result is copied out after it
(every slot's register takes the result if it is the selected slot, else keeps its
value).  That costs ``versions - 1`` selects per register read and ``versions`` per
register written, all in registers; a register indexed at run time would put the
whole fragment in local memory.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from xdsl.builder import Builder, ImplicitBuilder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tilepipe.dialects.tile import TileOp, constant_index
from tilepipe.core.diagnostics import op_error

from tilepipe.lowering.nvvm import emit
from tilepipe.lowering.nvvm.layout import FragmentLayout


@dataclass(frozen=True)
class SlottedFragment:
    """A fragment with slot dimensions ``slots``: ``storage[i]`` holds slot ``i``
    (row-major over the slot dimensions) in ``layout``."""

    slots: tuple[int, ...]
    layout: FragmentLayout
    storage: tuple[SSAValue, ...]

    def slot_storage(self, slot_offsets: Sequence[SSAValue], op: Operation) -> SSAValue:
        """The alloca of the slot that constant ``slot_offsets`` select."""
        index = 0
        for offset, extent in zip(slot_offsets, self.slots):
            value = constant_index(offset)
            assert value is not None, "stage_dynamic_slots stages run-time slots"
            if not 0 <= value < extent:
                raise op_error(op, f"slot {value} of a register fragment with {extent} slots")
            index = index * extent + value
        return self.storage[index]


def _tile_uses(buffer: SSAValue) -> Iterable[tuple[TileOp, str, tuple[SSAValue, ...]]]:
    for use in buffer.uses:
        op = use.operation
        if isinstance(op, TileOp):
            for role, region_buffer, offsets in op.tile_regions():
                if region_buffer == buffer:
                    yield op, role, offsets


def slot_rank(buffer: SSAValue) -> int:
    """How many leading dimensions of fragment ``buffer`` are slot dimensions: those
    before the largest tile any tile op touches it with."""
    buffer_type = buffer.type
    assert isinstance(buffer_type, MemRefType)
    ranks = [len(op.operand_tile_shape(role)) for op, role, _ in _tile_uses(buffer)]
    return len(buffer_type.get_shape()) - max(ranks, default=len(buffer_type.get_shape()))


def tile_shape_of(buffer: SSAValue) -> tuple[int, ...]:
    """The shape of one slot of fragment ``buffer``: its trailing dimensions."""
    buffer_type = buffer.type
    assert isinstance(buffer_type, MemRefType)
    return tuple(buffer_type.get_shape())[slot_rank(buffer) :]


def slot_count(buffer: SSAValue) -> int:
    buffer_type = buffer.type
    assert isinstance(buffer_type, MemRefType)
    return math.prod(tuple(buffer_type.get_shape())[: slot_rank(buffer)])


def _slot_index(offsets: Sequence[SSAValue], slots: Sequence[int]) -> SSAValue | None:
    """The run-time linear slot ``offsets`` select (None: all constant)."""
    if all(constant_index(o) is not None for o in offsets):
        return None
    index = emit.const(0)
    for offset, extent in zip(offsets, slots):
        index = emit.add(emit.mul(index, extent), offset)
    return index


def stage_dynamic_slots(
    region: Region,
    slotted: dict[SSAValue, SlottedFragment],
    staged: dict[tuple[Operation, str], SSAValue],
) -> None:
    """Give every tile op operand that picks its slot at run time a staging fragment
    of its own (``staged[op, role]``, an alloca in the slot's layout): the op reads
    the selected slot's registers from it, copied in just before the op (a
    ``select`` chain over the slots, register by register; also before a write of a
    part of the slot, whose other registers must stay), and writes its result
    there, copied out just after (each slot's register keeps its value unless it is
    the selected slot).  Every register index stays static, so LLVM keeps the slots
    and the staging fragments in registers (an op split into one copy per slot
    behind a uniform branch would be cheaper, but upstream's greedy rewrites merge
    the copies back into one block that picks its alloca by a block argument, which
    forces every slot into local memory).  A staging fragment is shared by every op
    of its (fragment, role): the ops' uses of it do not overlap."""
    if not slotted:
        return
    stages: dict[tuple[SSAValue, str], SSAValue] = {}
    for op in [op for op in region.walk() if isinstance(op, TileOp)]:
        for role, buffer, offsets in op.tile_regions():
            fragment = slotted.get(buffer)
            if fragment is None or not offsets:
                continue
            with ImplicitBuilder(Builder(InsertPoint.before(op))), emit.located_before(op):
                slot = _slot_index(offsets[: len(fragment.slots)], fragment.slots)
            if slot is None:
                continue
            stage = stages.get((buffer, role))
            if stage is None:
                stage = stages[(buffer, role)] = _staging_alloca(buffer, fragment)
            staged[(op, role)] = stage
            reads, writes = op.reads_and_writes(role)
            lead = len(fragment.slots)
            whole = tuple(fragment.layout.shape) == op.operand_tile_shape(role) and all(
                constant_index(o) == 0 for o in offsets[lead:]
            )
            # A part of the slot written (relayout.py) leaves the rest as it was:
            # the staging registers must start as the slot's own.
            if reads or not whole:
                with ImplicitBuilder(Builder(InsertPoint.before(op))), emit.located_before(op):
                    _copy_in(fragment, slot, stage)
            if writes:
                after = op.next_op
                assert after is not None  # a tile op is never a block's terminator
                with ImplicitBuilder(Builder(InsertPoint.before(after))):
                    _copy_out(fragment, slot, stage)
                current = op.next_op  # the copies out are the op's: its location
                while current is not after:
                    assert current is not None
                    for inner in current.walk():
                        inner.location = op.location
                    current = current.next_op


def _staging_alloca(buffer: SSAValue, fragment: SlottedFragment) -> SSAValue:
    """Next to the slots' allocas, in the kernel's entry block (a static alloca)."""
    alloca = memref.AllocaOp.get(
        fragment.storage[0].type.element_type,
        alignment=emit.BASE_ALIGNMENT,
        shape=[fragment.layout.registers],
    )
    alloca.location = buffer.owner.location
    Rewriter.insert_op(alloca, InsertPoint.before(buffer.owner))
    return alloca.memref


def _copy_in(fragment: SlottedFragment, slot: SSAValue, stage: SSAValue) -> None:
    """stage = the selected slot's registers.  Register by register: PTX has no
    vector select, so LLVM would take a vector one apart anyway."""
    is_slot = [arith.CmpiOp(slot, emit.const(i), "eq").result for i in range(len(fragment.storage))]
    for register in range(fragment.layout.registers):
        index = [emit.const(register)]
        value = emit.load(fragment.storage[-1], index)
        for i in range(len(fragment.storage) - 2, -1, -1):
            loaded = emit.load(fragment.storage[i], index)
            value = arith.SelectOp(is_slot[i], loaded, value).result
        emit.store(value, stage, index)


def _copy_out(fragment: SlottedFragment, slot: SSAValue, stage: SSAValue) -> None:
    """Every slot's register = the stage's if it is the selected slot, else its own."""
    is_slot = [arith.CmpiOp(slot, emit.const(i), "eq").result for i in range(len(fragment.storage))]
    for register in range(fragment.layout.registers):
        index = [emit.const(register)]
        result = emit.load(stage, index)
        for i, storage in enumerate(fragment.storage):
            kept = emit.load(storage, index)
            emit.store(arith.SelectOp(is_slot[i], result, kept).result, storage, index)


def erase_slotted(slotted: dict[SSAValue, SlottedFragment]) -> None:
    """Remove the tile-level fragments whose slots replaced them; an op other than
    a tile op that still uses one is an error (it would see no registers)."""
    for buffer in slotted:
        for use in buffer.uses:
            raise op_error(
                use.operation,
                "lower-to-nvvm reaches the slots of a register fragment through tile ops only",
            )
        owner = buffer.owner
        assert isinstance(owner, memref.AllocOp)
        Rewriter.erase_op(owner)
