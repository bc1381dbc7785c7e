"""Memory of the interpreter: byte allocations, typed views onto them, element formats.

Every buffer is a typed, strided view of an ``Allocation`` -- a flat byte array with a
per-byte "initialized" mask -- so ``memref.view`` of an ``i8`` arena aliases exactly as
on the device: two views of overlapping bytes see each other's writes.

Element formats keep values faithful: ``f16`` is stored as IEEE half, ``bf16`` as its
16-bit pattern (numpy has no bfloat16; values are computed in f32 and rounded to
nearest even when stored), integers as their width.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import count

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
)
from xdsl.ir import Attribute

from tilepipe.dialects.memory_space import MemorySpace, memory_space

POISON_BYTE = 0xFF  # uninitialized bytes: NaN for floats, -1 for integers

# --------------------------------------------------------------------------- formats


def round_f32_to_bf16_bits(values: np.ndarray) -> np.ndarray:
    """The bf16 bit patterns nearest (ties to even) to f32 ``values``; NaN stays NaN."""
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    rounding = np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    rounded = ((bits + rounding) >> np.uint32(16)).astype(np.uint16)
    nan = np.isnan(values)
    if nan.any():
        rounded = np.where(nan, np.uint16(0x7FC0), rounded)
    return rounded


def bf16_bits_to_f32(bits: np.ndarray) -> np.ndarray:
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << np.uint32(16)).view(
        np.float32
    )


@dataclass(frozen=True)
class ElementFormat:
    """How values of one element type are stored and computed with."""

    name: str
    storage: np.dtype
    compute: np.dtype
    is_float: bool

    @property
    def itemsize(self) -> int:
        return self.storage.itemsize

    @property
    def is_bf16(self) -> bool:
        return self.name == "bf16"

    def to_storage(self, values: np.ndarray) -> np.ndarray:
        if self.is_bf16:
            return round_f32_to_bf16_bits(np.asarray(values, dtype=np.float32))
        return np.asarray(values).astype(self.storage, copy=False)

    def from_storage(self, stored: np.ndarray) -> np.ndarray:
        if self.is_bf16:
            return bf16_bits_to_f32(stored)
        return np.array(stored, dtype=self.compute)

    def scalar(self, value) -> object:
        """A Python/numpy scalar of this format (rounded like a stored value)."""
        if self.is_float:
            return self.from_storage(self.to_storage(np.asarray([value])))[0]
        return int(value)


def _float(name: str, dtype) -> ElementFormat:
    return ElementFormat(name, np.dtype(dtype), np.dtype(dtype), True)


FORMATS = {
    "f16": _float("f16", np.float16),
    "bf16": ElementFormat("bf16", np.dtype(np.uint16), np.dtype(np.float32), True),
    "f32": _float("f32", np.float32),
    "f64": _float("f64", np.float64),
}
_INT_STORAGE = {1: np.int8, 8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}


@cache
def element_format(element_type: Attribute) -> ElementFormat:
    if isinstance(element_type, Float16Type):
        return FORMATS["f16"]
    if isinstance(element_type, BFloat16Type):
        return FORMATS["bf16"]
    if isinstance(element_type, Float32Type):
        return FORMATS["f32"]
    if isinstance(element_type, Float64Type):
        return FORMATS["f64"]
    if isinstance(element_type, IndexType):
        return ElementFormat("index", np.dtype(np.int64), np.dtype(np.int64), False)
    if isinstance(element_type, IntegerType) and element_type.width.data in _INT_STORAGE:
        dtype = np.dtype(_INT_STORAGE[element_type.width.data])
        return ElementFormat(f"i{element_type.width.data}", dtype, dtype, False)
    raise ValueError(f"no memory format for element type {element_type}")


# --------------------------------------------------------------------------- memory

_allocation_ids = count()


class Allocation:
    """A block of bytes in one memory space (a kernel argument or a ``memref.alloc``)."""

    def __init__(self, name: str, nbytes: int, space: MemorySpace):
        self.id = next(_allocation_ids)
        self.name = name
        self.space = space
        self.data = np.full(nbytes, POISON_BYTE, dtype=np.uint8)
        self.initialized = np.zeros(nbytes, dtype=bool)
        # Race detection tracks memory in granules: the gcd of the element sizes and
        # offsets of the views accessed so far (0: none yet), so an arena accessed
        # through f16 and f32 views is tracked per 2 bytes, not per byte.
        self.granule = 0
        self.shadow: object | None = None  # the race detector's per-granule state

    @property
    def nbytes(self) -> int:
        return self.data.size


@dataclass(frozen=True)
class Region:
    """A box of a buffer: per-dimension start and size (in elements).

    A tile op's region of a global array may reach past the array (docs/semantics.md,
    "Dynamic shapes and boundary tiles"): then ``bounds`` holds the array's shape and
    only ``inside()`` -- the in-bounds part -- is read, written and tracked; reads see
    zeros elsewhere.  ``bounds`` is None when the whole box is in bounds."""

    starts: tuple[int, ...]
    sizes: tuple[int, ...]
    bounds: tuple[int, ...] | None = None

    @property
    def slices(self) -> tuple[slice, ...]:
        return tuple(slice(s, s + n) for s, n in zip(self.starts, self.sizes))

    @property
    def clipped(self) -> bool:
        return self.bounds is not None

    def inside(self) -> Region:
        """The in-bounds part (possibly empty), in buffer coordinates."""
        if self.bounds is None:
            return self
        lows = tuple(min(max(s, 0), b) for s, b in zip(self.starts, self.bounds))
        highs = tuple(
            max(min(s + n, b), low)
            for s, n, b, low in zip(self.starts, self.sizes, self.bounds, lows)
        )
        return Region(lows, tuple(h - lo for lo, h in zip(lows, highs)))

    def tile_slices(self) -> tuple[slice, ...]:
        """Where ``inside()`` lies in the tile (coordinates relative to ``starts``)."""
        inner = self.inside()
        return tuple(
            slice(lo - s, lo - s + n)
            for lo, n, s in zip(inner.starts, inner.sizes, self.starts)
        )


class OutOfBounds(Exception):
    pass


class UninitializedRead(Exception):
    def __init__(self, element: tuple[int, ...]):
        super().__init__(element)
        self.element = element


@dataclass(eq=False)
class Buffer:
    """A typed, strided view (what a memref SSA value holds)."""

    allocation: Allocation
    byte_offset: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]  # bytes
    element: ElementFormat
    name: str

    @property
    def space(self) -> MemorySpace:
        return self.allocation.space

    def storage(self) -> np.ndarray:
        return np.ndarray(
            self.shape,
            dtype=self.element.storage,
            buffer=self.allocation.data,
            offset=self.byte_offset,
            strides=self.strides,
        )

    def _initialized_bytes(self) -> np.ndarray:
        return np.ndarray(
            self.shape + (self.element.itemsize,),
            dtype=bool,
            buffer=self.allocation.initialized,
            offset=self.byte_offset,
            strides=self.strides + (1,),
        )

    def region(
        self, starts: Sequence[int], sizes: Sequence[int], *, tile: bool = False
    ) -> Region:
        """The box ``starts + sizes``; out of bounds is an error, except for a tile
        op's region (``tile``) of off-chip memory, which is clipped (boundary tiles)."""
        starts = tuple(int(s) for s in starts) or (0,) * len(self.shape)
        for d, (start, size, dim) in enumerate(zip(starts, sizes, self.shape)):
            if start < 0 or start + size > dim:
                if tile and self.space.is_off_chip:
                    return Region(starts, tuple(sizes), self.shape)
                raise OutOfBounds(
                    f"region [{start}, {start + size}) of {self.name} is out of bounds "
                    f"in dimension {d} of size {dim}"
                )
        return Region(starts, tuple(sizes))

    def read(self, region: Region) -> np.ndarray:
        """The region's values in the compute format (a copy); 0 outside the array."""
        inner = region.inside()
        initialized = self._initialized_bytes()[inner.slices]
        if not initialized.all():
            missing = np.argwhere(~initialized.all(axis=-1))[0]
            raise UninitializedRead(
                tuple(int(s + m) for s, m in zip(inner.starts, missing))
            )
        return self.element.from_storage(self.read_stored(region))

    def read_stored(self, region: Region) -> np.ndarray:
        """The region's stored bit patterns (a copy), without an initialization check;
        elements outside the array read as the bit pattern 0 (0 in every format)."""
        if not region.clipped:
            return np.array(self.storage()[region.slices])
        stored = np.zeros(region.sizes, dtype=self.element.storage)
        stored[region.tile_slices()] = self.storage()[region.inside().slices]
        return stored

    def write(self, region: Region, values: np.ndarray) -> None:
        self.write_stored(region, self.element.to_storage(values))

    def write_stored(self, region: Region, stored: np.ndarray) -> None:
        """Store a tile; elements outside the array are dropped."""
        stored = np.reshape(stored, region.sizes)
        if region.clipped:
            stored = stored[region.tile_slices()]
            region = region.inside()
        self.storage()[region.slices] = stored
        self._initialized_bytes()[region.slices] = True

    def byte_offsets(self, region: Region) -> np.ndarray:
        """Byte offset (in the allocation) of every element of ``region``."""
        offsets = np.full(region.sizes, self.byte_offset, dtype=np.int64)
        for d, (start, size, stride) in enumerate(
            zip(region.starts, region.sizes, self.strides)
        ):
            shape = [1] * len(region.sizes)
            shape[d] = size
            offsets += ((start + np.arange(size)) * stride).reshape(shape)
        return offsets

    def whole(self) -> Region:
        return Region((0,) * len(self.shape), self.shape)


def contiguous_strides(shape: Sequence[int], itemsize: int) -> tuple[int, ...]:
    strides = []
    step = itemsize
    for dim in reversed(shape):
        strides.append(step)
        step *= dim
    return tuple(reversed(strides))


def new_buffer(memref_type: MemRefType, name: str, *, shape=None) -> Buffer:
    """A fresh (uninitialized) allocation holding one buffer of ``memref_type``."""
    element = element_format(memref_type.element_type)
    shape = tuple(shape if shape is not None else memref_type.get_shape())
    nbytes = math.prod(shape) * element.itemsize
    allocation = Allocation(name, nbytes, memory_space(memref_type))
    return Buffer(
        allocation, 0, shape, contiguous_strides(shape, element.itemsize), element, name
    )


def typed_view(
    source: Buffer, byte_shift: int, memref_type: MemRefType, shape, name: str
) -> Buffer:
    """``memref.view``: a contiguous typed buffer ``byte_shift`` bytes into ``source``."""
    element = element_format(memref_type.element_type)
    shape = tuple(shape)
    nbytes = math.prod(shape) * element.itemsize
    if byte_shift < 0 or byte_shift + nbytes > math.prod(source.shape) * source.element.itemsize:
        raise OutOfBounds(
            f"a view of {nbytes} bytes at byte {byte_shift} does not fit in "
            f"{source.name} ({math.prod(source.shape) * source.element.itemsize} bytes)"
        )
    if byte_shift % element.itemsize:
        raise OutOfBounds(
            f"byte shift {byte_shift} is not aligned to the {element.itemsize}-byte "
            f"element type {memref_type.element_type}"
        )
    return Buffer(
        source.allocation,
        source.byte_offset + byte_shift,
        shape,
        contiguous_strides(shape, element.itemsize),
        element,
        name,
    )


def strided_view(
    source: Buffer,
    offsets: Sequence[int],
    sizes: Sequence[int],
    strides: Sequence[int],
    rank: int,
    name: str,
) -> Buffer:
    """``memref.subview``: a box of ``source`` with element strides; unit dimensions
    are dropped from the front until ``rank`` remain (rank reduction)."""
    source.region(offsets, [(n - 1) * s + 1 for n, s in zip(sizes, strides)])
    byte_offset = source.byte_offset + sum(o * s for o, s in zip(offsets, source.strides))
    dims = list(zip(sizes, (s * b for s, b in zip(strides, source.strides))))
    while len(dims) > rank:
        unit = next((d for d, (n, _) in enumerate(dims) if n == 1), None)
        if unit is None:
            raise OutOfBounds(f"cannot reduce a {tuple(sizes)} subview to rank {rank}")
        del dims[unit]
    return Buffer(
        source.allocation,
        byte_offset,
        tuple(n for n, _ in dims),
        tuple(b for _, b in dims),
        source.element,
        name,
    )
