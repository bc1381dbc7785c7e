"""Materialize buffer versions: the version dimension (docs/pipelining.md).

A buffer with ``v >= 2`` versions gets a leading dimension ``v`` on its ``memref.alloc``
(an explicit strided layout gets the matching leading stride), and every access of the
pipelined loop is prefixed with the slot ``((k - lb) / step) mod v`` of the iteration it
belongs to.  By the tile dialect's region rule the op's tile shape stays the same: the
slot dimension has size 1 in the touched box.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType, StridedLayoutAttr
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tilepipe.dialects.tile import TileOp
from tilepipe.passes.memory.liveness import ALIGNMENT_ATTR, SWIZZLE_ATTR
from tilepipe.passes.pipelining.buffer_versions import BufferVersions
from tilepipe.passes.rewrite.index_arith import Index, IndexBuilder
from tilepipe.passes.rewrite.operand_rewrite import with_operands


def versioned_memref_type(buffer_type: MemRefType, versions: int) -> MemRefType:
    """``memref<AxB>`` -> ``memref<VxAxB>``; a strided layout gains the stride of one
    whole version (``strides[0] * shape[0]``)."""
    shape = list(buffer_type.get_shape())
    layout = buffer_type.layout
    if isinstance(layout, StridedLayoutAttr):
        strides = layout.get_strides()
        if strides and strides[0] is not None and shape and shape[0] >= 0:
            lead: int | None = strides[0] * shape[0]
        else:
            lead = None
        layout = StridedLayoutAttr([lead, *strides], layout.get_offset())
    return MemRefType(
        buffer_type.element_type, [versions, *shape], layout, buffer_type.memory_space
    )


class MultiBuffering:
    """Version allocations and rewrites the accesses of cloned loop statements."""

    def __init__(self, versions: list[BufferVersions]):
        self.versions = {v.buffer: v.versions for v in versions if v.is_multi_buffered}
        self.replacement: dict[SSAValue, SSAValue] = {}

    def materialize(self, rewriter: Rewriter) -> None:
        """Create the versioned allocations next to the original ones."""
        for buffer, count in self.versions.items():
            alloc = buffer.owner
            assert isinstance(alloc, memref.AllocOp)
            assert isinstance(buffer.type, MemRefType)
            new_alloc = memref.AllocOp(
                [], [], versioned_memref_type(buffer.type, count), alloc.alignment
            )
            new_alloc.results[0].name_hint = buffer.name_hint
            # What the buffer asks of the arena holds for each of its versions (its
            # other attributes, such as tile.dims, describe the unversioned shape).
            for name in (ALIGNMENT_ATTR, SWIZZLE_ATTR):
                if name in alloc.attributes:
                    new_alloc.attributes[name] = alloc.attributes[name]
            rewriter.insert_op(new_alloc, InsertPoint.after(alloc))
            self.replacement[buffer] = new_alloc.results[0]

    def rewrite_instance(
        self, op: Operation, iteration: Callable[[], Index], builder: IndexBuilder
    ) -> Operation:
        """``op`` (a detached clone for the normalized iteration ``iteration()``)
        with its versioned buffers replaced and slot indices prepended."""
        if isinstance(op, TileOp):
            replacements: dict[str, object] = {}
            for buffer_field, offsets_field, _ in op.REGION_OPERANDS:
                buffer = getattr(op, buffer_field)
                if buffer not in self.versions:
                    continue
                offsets = list(getattr(op, offsets_field))
                if not offsets:
                    rank = len(buffer.type.get_shape())
                    offsets = [builder.value(0)] * rank
                slot = builder.rem(iteration(), self.versions[buffer])
                replacements[buffer_field] = self.replacement[buffer]
                replacements[offsets_field] = [builder.value(slot), *offsets]
            return with_operands(op, replacements) if replacements else op  # type: ignore[arg-type]
        if isinstance(op, memref.LoadOp | memref.StoreOp) and op.memref in self.versions:
            slot = builder.value(builder.rem(iteration(), self.versions[op.memref]))
            return with_operands(
                op, {"memref": self.replacement[op.memref], "indices": [slot, *op.indices]}
            )
        return op

    def finalize(self, rewriter: Rewriter) -> None:
        """Redirect what still uses an original buffer (deallocations) and erase it."""
        for buffer, new in self.replacement.items():
            buffer.replace_all_uses_with(new)
            rewriter.erase_op(buffer.owner)  # type: ignore[arg-type]
