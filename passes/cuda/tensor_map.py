"""When a bulk copy can be one tensor-map copy (``cp.async.bulk.tensor``, sm_90a),
and the box and swizzle its map describes: shared by ``tma-copy``, which decides, and
``lower-to-nvvm``, which emits the copy and the map's parameter.

A tensor map (``CUtensorMap``, encoded on the host by ``cuTensorMapEncodeTiled``)
describes a whole global array -- base address, sizes, byte strides -- and the box one
copy moves: up to 5 dimensions of at most 256 elements, the innermost a multiple of
16 bytes.  The copy lands the box contiguously, row-major, at a shared address that is
128-byte aligned, permuting the 16-byte units of each row by the map's swizzle
(32, 64 or 128 bytes; the pattern repeats every 8 rows, so a swizzled box needs the
swizzle's 256-, 512- or 1024-byte alignment).  A swizzled box's rows are at most the
swizzle's bytes, so a tile with longer rows (a multiple of 128 bytes) lands as panels:
one 128-byte wide box per panel, side by side in the tile, one after the other in
shared memory (the layout ``lowering/nvvm/swizzle.py`` addresses).  Elements outside the array read as
zero and still count as transaction bytes (PTX ISA, "Tensor copy", "Swizzling
modes"; CUDA driver API, ``cuTensorMapEncodeTiled``).

So a copy qualifies when its source is a kernel argument (the map's array) and its
shared destination is a whole, contiguous slice of its buffer: the tile's extents are
the buffer's innermost extents, and the tile starts at their origin.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType, NoneAttr
from xdsl.ir import BlockArgument

from tilepipe.dialects.pipeline_sync import BulkCopyOp
from tilepipe.dialects.tile import CopyOp
from tilepipe.dialects.tile_base import constant_index, element_bytes

MAX_RANK = 5
MAX_BOX = 256  # elements per box dimension
BOX_ALIGNMENT = 128  # bytes: the shared address of an unswizzled tensor copy
SWIZZLE_BYTES = (32, 64, 128)  # the modes: 16-byte units permuted within rows of this size
SWIZZLE_PERIOD_ROWS = 8  # a swizzle pattern spans 8 of its rows


def swizzle_alignment(swizzle: int) -> int:
    """The alignment a box swizzled by ``swizzle`` bytes needs: its pattern's span."""
    return swizzle * SWIZZLE_PERIOD_ROWS if swizzle else BOX_ALIGNMENT


@dataclass(frozen=True)
class TensorBox:
    """What a tensor copy's map says beyond its array: the box (outermost extent
    first, one per dimension of the array), the swizzle a shared tile of this shape
    can take (0: none) and, swizzled, in how many boxes of 128-byte rows (panels,
    side by side in the tile, one after the other in shared memory) it lands."""

    box: tuple[int, ...]
    element_bytes: int
    swizzle_candidate: int
    panels: int = 1

    @property
    def bytes(self) -> int:
        count = self.element_bytes
        for extent in self.box:
            count *= extent
        return count


def _kernel_argument(value) -> bool:
    owner = value.owner if isinstance(value, BlockArgument) else None
    return owner is not None and owner.parent_op() is not None and owner.parent_op().name in (
        "func.func",
        "gpu.func",
    )


def tensor_box(op: CopyOp | BulkCopyOp) -> TensorBox | str:
    """The box of ``op`` as a tensor copy, or why it cannot be one (a phrase that
    completes "no tensor map: ...")."""
    src, dst = op.src.type, op.dst.type
    assert isinstance(src, MemRefType) and isinstance(dst, MemRefType)
    shape = tuple(op.tile_shape)
    rank = len(src.get_shape())
    if not _kernel_argument(op.src):
        return "its source is not a kernel argument (a map describes a whole argument)"
    if not isinstance(src.layout, NoneAttr):
        return "its source has a strided layout"
    if rank > MAX_RANK or len(shape) > rank:
        return f"a map has at most {MAX_RANK} dimensions"
    if any(extent > MAX_BOX for extent in shape):
        return f"a box has at most {MAX_BOX} elements per dimension"
    dst_shape = dst.get_shape()
    inner = dst_shape[len(dst_shape) - len(shape) :]
    if tuple(inner) != shape or any(
        constant_index(offset) != 0 for offset in op.dst_offsets[len(dst_shape) - len(shape) :]
    ):
        return "its shared tile is not a whole slice of its buffer (a box lands contiguously)"
    size = element_bytes(src.element_type)
    box = TensorBox((1,) * (rank - len(shape)) + shape, size, 0)
    row_bytes = shape[-1] * size
    # Multi-buffering makes the buffer a stack of such tiles: each must stay aligned.
    if box.bytes % BOX_ALIGNMENT:
        return f"its tile of {box.bytes} bytes is no multiple of {BOX_ALIGNMENT} bytes"
    # The hardware swizzles by address, the lowering by a tile's row: they agree when
    # each 2-d slice of the tile starts a pattern (8 rows).  Panels hold every row of
    # the tile, so they take 2-d tiles only.
    rows = shape[-2] if len(shape) > 1 else 1
    widest = SWIZZLE_BYTES[-1]
    if rows % SWIZZLE_PERIOD_ROWS == 0:
        if row_bytes in SWIZZLE_BYTES:
            box = TensorBox(box.box, size, row_bytes)
        elif (
            row_bytes % widest == 0
            and rows % (row_bytes // widest) == 0
            and box.bytes == rows * row_bytes
        ):
            box = TensorBox(box.box, size, widest, row_bytes // widest)
    return box


def shared_alloc(op: CopyOp | BulkCopyOp) -> memref.AllocOp | None:
    owner = op.dst.owner
    return owner if isinstance(owner, memref.AllocOp) else None

