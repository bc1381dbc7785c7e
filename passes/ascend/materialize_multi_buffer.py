"""``ascend-materialize-multi-buffer``: logical (storage, epoch) -> physical slot.

Runs after ``ascend-insert-sync`` (docs/ascend.md: the protocol is decided on logical storage,
the memory layout afterwards).  Every storage with ``ascend.versions = V > 1`` becomes
one buffer with a leading version dimension (``memref<A x B>`` -> ``memref<V x A x B>``)
and every access in its owner loop gets the slot of its epoch prepended to its offsets:
``iteration mod V`` in ``iteration`` mode, ``counter mod V`` in ``counter`` mode (the
count of executed epochs of the guarded branch holding the storage, read at the top
of the branch).  The slot is the same expression the flag rings use, so the id of a
ring and the slot it protects always agree.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tilepipe.core.diagnostics import op_error
from tilepipe.dialects.tile import TileOp

from tilepipe.passes.ascend.buffer_ownership import EpochSlots, MultiBuffer, epoch_clock, read_plan
from tilepipe.passes.ascend.resolve_core import is_ascend_kernel
from tilepipe.passes.pipelining.version_dimension import versioned_memref_type
from tilepipe.passes.rewrite.index_arith import IndexBuilder
from tilepipe.passes.rewrite.operand_rewrite import with_operands


def materialize(buffer: MultiBuffer, slots: EpochSlots) -> None:
    storage = buffer.storage
    assert isinstance(storage.type, MemRefType)
    versioned = memref.AllocOp([], [], versioned_memref_type(storage.type, buffer.versions))
    versioned.memref.name_hint = storage.name_hint
    versioned.attributes |= buffer.alloc.attributes
    Rewriter.insert_op(versioned, InsertPoint.after(buffer.alloc))
    slot = slots.slot(epoch_clock(buffer), buffer.versions)
    zero = IndexBuilder(InsertPoint.before(versioned)).value(0)
    for op in list(dict.fromkeys(use.operation for use in storage.uses)):
        if not isinstance(op, TileOp):
            raise op_error(op, "cannot address a slot of a multi-buffered storage")
        replacements: dict[str, object] = {}
        for buffer_field, offsets_field, _ in op.REGION_OPERANDS:
            if getattr(op, buffer_field) is not storage:
                continue
            offsets = list(getattr(op, offsets_field)) or [zero] * len(storage.type.get_shape())
            replacements[buffer_field] = versioned.memref
            replacements[offsets_field] = [slot, *offsets]
        # with_operands consumes a detached op; drop its uses before the new op adds
        # its own, so the use lists of shared operands stay consistent.
        where = InsertPoint.after(op)
        op.detach()
        op.drop_all_references()
        Rewriter.insert_op(with_operands(op, replacements), where)
    Rewriter.erase_op(buffer.alloc)


@dataclass(frozen=True)
class AscendMaterializeMultiBuffer(ModulePass):
    """Turn each multi-buffered storage into a versioned buffer indexed by epoch slot."""

    name = "ascend-materialize-multi-buffer"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in op.walk():
            if isinstance(kernel, FuncOp) and is_ascend_kernel(kernel):
                slots = EpochSlots()
                for buffer in read_plan(kernel).values():
                    if buffer.versions > 1 and buffer.owner is not None:
                        materialize(buffer, slots)
