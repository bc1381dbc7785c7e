"""C++ spellings of element types and the row layout of a tile region, shared by the
AscendC printer's modules."""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, IntegerType, MemRefType
from xdsl.ir import Attribute

from tilepipe.dialects.tile import BufferAccess


def cpp_type(element: Attribute) -> str:
    if isinstance(element, Float16Type):
        return "half"
    if isinstance(element, Float32Type):
        return "float"
    if isinstance(element, BFloat16Type):
        return "bfloat16_t"
    if isinstance(element, IntegerType):
        return "bool" if element.width.data == 1 else f"int{element.width.data}_t"
    return "int64_t"  # index


@dataclass(frozen=True)
class TileLayout:
    """A tile region of a row-major buffer as ``rows`` runs of ``row_length``
    elements, ``row_stride`` apart (rows == 1: one contiguous run)."""

    rows: int
    row_length: int
    row_stride: int

    @property
    def contiguous(self) -> bool:
        return self.rows == 1

    @property
    def count(self) -> int:
        return self.rows * self.row_length


def tile_layout(access: BufferAccess) -> TileLayout | None:
    """The runs of a region, or None when they are not evenly spaced."""
    assert isinstance(access.buffer.type, MemRefType)
    dims, sizes = access.buffer.type.get_shape(), access.sizes
    partial = [d for d in range(len(dims)) if sizes[d] != dims[d]]
    split = partial[-1] if partial else 0
    outer = [d for d in range(split) if sizes[d] > 1]
    if not outer:
        return TileLayout(1, math.prod(sizes[split:]), 0)
    if len(outer) > 1:
        return None
    stride = math.prod(dims[outer[0] + 1 :])
    return TileLayout(sizes[outer[0]], math.prod(sizes[outer[0] + 1 :]), stride)
