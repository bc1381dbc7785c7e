"""Reading the arena back: which buffers share bytes after ``merge-shared-memory``.

Packing makes distinct buffers share bytes of one arena, so "different buffers never
conflict" stops being true: when ``C_shared`` is placed in the bytes ``A_shared`` used,
the first write of ``C_shared`` must wait for the last read of ``A_shared`` (a WAR
hazard that exists only because of the reuse).  Hazard analyses (sync insertion, the
race detector) therefore ask :func:`may_alias` instead of comparing buffer values.

Two ways in:

* the IR itself: every packed buffer is ``memref.view %arena[%offset][]`` with a
  constant byte offset, so :func:`arena_slice` gives its ``[start, end)`` bytes;
* the table the arena alloc carries (``arena.layout``): :func:`reused_bytes` lists the
  pairs of buffers placed in overlapping bytes, in lifetime order.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntegerAttr,
    MemRefType,
    StringAttr,
)
from xdsl.ir import Operation, SSAValue

from tilepipe.dialects.tile import constant_index
from tilepipe.passes.memory.liveness import static_bytes

ARENA_ATTR = "arena.layout"


@dataclass(frozen=True)
class ArenaSlice:
    """The bytes ``[start, end)`` of ``arena`` that a view covers."""

    arena: SSAValue
    start: int
    end: int

    def overlaps(self, other: ArenaSlice) -> bool:
        return (
            self.arena == other.arena
            and self.start < other.end
            and other.start < self.end
        )


def arena_slice(value: SSAValue) -> ArenaSlice | None:
    """The arena bytes a ``memref.view`` (or a view of a view) covers; None when
    ``value`` is no view or its offset or size is not a constant."""
    view = value.owner
    if not isinstance(view, memref.ViewOp):
        return None
    offset = constant_index(view.byte_shift)
    assert isinstance(view.result.type, MemRefType)
    size = static_bytes(view.result.type)
    if offset is None or size is None:
        return None
    if (base := arena_slice(view.source)) is not None:
        return ArenaSlice(base.arena, base.start + offset, base.start + offset + size)
    return ArenaSlice(view.source, offset, offset + size)


def underlying_buffer(value: SSAValue) -> SSAValue:
    """The allocation (or argument) a memref value is an alias of: follows views,
    casts and subviews through their source operand."""
    while isinstance(owner := value.owner, Operation) and owner.operands:
        source = owner.operands[0]
        if not (isinstance(source.type, MemRefType) and _is_alias_op(owner)):
            break
        value = source
    return value


def _is_alias_op(op: Operation) -> bool:
    return isinstance(
        op,
        memref.ViewOp
        | memref.CastOp
        | memref.SubviewOp
        | memref.ReinterpretCastOp
        | memref.CollapseShapeOp
        | memref.ExpandShapeOp
        | memref.MemorySpaceCastOp,
    )


def may_alias(a: SSAValue, b: SSAValue) -> bool:
    """Whether two memref values can share a byte: exact for constant-offset views of
    one arena, conservative (same underlying allocation) otherwise."""
    slice_a, slice_b = arena_slice(a), arena_slice(b)
    if slice_a is not None and slice_b is not None:
        return slice_a.overlaps(slice_b)
    return underlying_buffer(a) == underlying_buffer(b)


@dataclass(frozen=True)
class PackedBuffer:
    """One row of an arena's ``arena.layout`` table."""

    name: str
    offset: int
    bytes: int
    live: tuple[int, int]


def packed_buffers(arena: memref.AllocOp) -> list[PackedBuffer]:
    table = arena.attributes.get(ARENA_ATTR)
    if not isinstance(table, DictionaryAttr):
        return []
    rows = table.data.get("buffers")
    if not isinstance(rows, ArrayAttr):
        return []
    buffers: list[PackedBuffer] = []
    for row in rows.data:
        assert isinstance(row, DictionaryAttr)
        fields = row.data
        name, offset, size, live = (
            fields["name"],
            fields["offset"],
            fields["bytes"],
            fields["live"],
        )
        assert isinstance(name, StringAttr) and isinstance(offset, IntegerAttr)
        assert isinstance(size, IntegerAttr) and isinstance(live, DenseArrayBase)
        start, end = live.get_values()
        buffers.append(
            PackedBuffer(name.data, offset.value.data, size.value.data, (int(start), int(end)))
        )
    return buffers


def reused_bytes(arena: memref.AllocOp) -> list[tuple[PackedBuffer, PackedBuffer]]:
    """Pairs ``(earlier, later)`` of buffers placed in overlapping bytes: each is a WAR
    (and WAW) hazard from the earlier buffer's last use to the later one's first write."""
    buffers = packed_buffers(arena)
    pairs: list[tuple[PackedBuffer, PackedBuffer]] = []
    for first in buffers:
        for second in buffers:
            shares_bytes = (
                first.offset < second.offset + second.bytes
                and second.offset < first.offset + first.bytes
            )
            if first is not second and shares_bytes and first.live[1] < second.live[0]:
                pairs.append((first, second))
    return pairs
