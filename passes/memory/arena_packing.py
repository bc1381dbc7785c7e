"""Linear-scan arena packing: place live intervals at byte offsets in one arena.

This is TileLang's MergeSharedMemoryAllocations algorithm (docs/arena.md),
written against plain data so that it can be tested, benchmarked and reused without IR:

1. intervals are visited in the order ``(start, -size, name)``: program order, the
   larger of two buffers born together first, names breaking ties so the layout is
   deterministic;
2. before placing an interval, every live interval that ended strictly before its
   start is retired (a min-heap keyed by end) and its bytes go back to a free list
   kept sorted by offset, with neighbours coalesced;
3. the interval is placed by **best fit**: the free block that leaves the fewest bytes
   over after aligning its start; failing that, a free block that touches the arena top
   is *grown* (the arena extends by the deficit only); failing that, the interval is
   **bumped** onto the aligned top and the alignment gap goes to the free list, where a
   later small buffer can use it.

Intervals are closed: ``[start, end]`` are the first and last program positions at which
the buffer is touched, so two intervals sharing a position never share bytes.

``pack(..., reuse=False)`` never retires anything: every buffer keeps its own bytes (the
``disable_reuse`` comparison of docs/arena.md).
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

DEFAULT_ALIGNMENT = 16


def align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


@dataclass(frozen=True)
class Interval:
    """A buffer's lifetime ``[start, end]`` (program positions) and its footprint."""

    name: str
    start: int
    end: int
    size: int  # bytes (all versions of a multi-version buffer)
    alignment: int = DEFAULT_ALIGNMENT

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise ValueError(f"interval {self.name}: end {self.end} < start {self.start}")
        if self.size < 0:
            raise ValueError(f"interval {self.name}: negative size {self.size}")
        if self.alignment <= 0 or self.alignment & (self.alignment - 1):
            raise ValueError(
                f"interval {self.name}: alignment {self.alignment} is not a power of two"
            )

    def overlaps(self, other: Interval) -> bool:
        return self.start <= other.end and other.start <= self.end


@dataclass(frozen=True)
class Placement:
    interval: Interval
    offset: int

    @property
    def end_offset(self) -> int:
        return self.offset + self.interval.size


@dataclass(frozen=True)
class ArenaPlan:
    """Where every buffer lives, and the arena's size (its highest byte + 1)."""

    placements: tuple[Placement, ...]  # in packing order
    size: int

    @cached_property
    def offsets(self) -> dict[str, int]:
        return {p.interval.name: p.offset for p in self.placements}

    def offset_of(self, name: str) -> int:
        return self.offsets[name]


class FreeList:
    """Free byte ranges below the arena top, sorted by offset, never adjacent."""

    def __init__(self) -> None:
        self._offsets: list[int] = []
        self._sizes: list[int] = []

    @property
    def blocks(self) -> list[tuple[int, int]]:
        return list(zip(self._offsets, self._sizes))

    def free(self, offset: int, size: int) -> None:
        """Return ``[offset, offset + size)``, merging it with touching neighbours."""
        if size == 0:
            return
        index = bisect.bisect_left(self._offsets, offset)
        end = offset + size
        if index < len(self._offsets) and self._offsets[index] <= end:
            # Merge with the following block.
            end = max(end, self._offsets[index] + self._sizes[index])
            del self._offsets[index], self._sizes[index]
        if index > 0 and self._offsets[index - 1] + self._sizes[index - 1] >= offset:
            # Merge with the preceding block.
            index -= 1
            offset = self._offsets[index]
            end = max(end, offset + self._sizes[index])
            del self._offsets[index], self._sizes[index]
        self._offsets.insert(index, offset)
        self._sizes.insert(index, end - offset)

    def best_fit(self, need: int, alignment: int) -> int | None:
        """Carve ``need`` bytes from the block that leaves the fewest bytes over after
        alignment (the lowest such block on ties); the aligned offset, or None."""
        best: int | None = None
        best_waste = 0
        for index, (offset, size) in enumerate(zip(self._offsets, self._sizes)):
            head = align_up(offset, alignment) - offset
            if head + need > size:
                continue
            waste = size - head - need
            if best is None or waste < best_waste:
                best, best_waste = index, waste
        if best is None:
            return None
        return self._carve(best, need, alignment)

    def grow_top_block(self, need: int, alignment: int, top: int) -> int | None:
        """Start an allocation in the free block that ends at ``top`` even though it is
        too small; the caller raises the top.  The aligned offset, or None."""
        if not self._offsets:
            return None
        offset, size = self._offsets[-1], self._sizes[-1]
        aligned = align_up(offset, alignment)
        if offset + size != top or aligned >= top:
            return None
        del self._offsets[-1], self._sizes[-1]
        self.free(offset, aligned - offset)
        return aligned

    def _carve(self, index: int, need: int, alignment: int) -> int:
        offset, size = self._offsets[index], self._sizes[index]
        del self._offsets[index], self._sizes[index]
        aligned = align_up(offset, alignment)
        self.free(offset, aligned - offset)
        self.free(aligned + need, offset + size - aligned - need)
        return aligned


def packing_order(intervals: Iterable[Interval]) -> list[Interval]:
    return sorted(intervals, key=lambda i: (i.start, -i.size, i.name))


def pack(intervals: Sequence[Interval], reuse: bool = True) -> ArenaPlan:
    """Pack ``intervals`` into one arena (see the module docstring)."""
    names = [interval.name for interval in intervals]
    if len(set(names)) != len(names):
        raise ValueError("interval names must be unique")
    free_list = FreeList()
    live: list[tuple[int, int, int, int]] = []  # (end, sequence, offset, size)
    top = 0
    placements: list[Placement] = []
    for sequence, interval in enumerate(packing_order(intervals)):
        while reuse and live and live[0][0] < interval.start:
            _, _, offset, size = heapq.heappop(live)
            free_list.free(offset, size)
        need, alignment = interval.size, interval.alignment
        offset = free_list.best_fit(need, alignment)
        if offset is None:
            offset = free_list.grow_top_block(need, alignment, top)
            if offset is None:
                offset = align_up(top, alignment)
                free_list.free(top, offset - top)
            top = offset + need
        heapq.heappush(live, (interval.end, sequence, offset, need))
        placements.append(Placement(interval, offset))
    return ArenaPlan(tuple(placements), top)


def peak_live_bytes(intervals: Iterable[Interval]) -> int:
    """The most bytes live at one program position: no packing can do better."""
    events: list[tuple[int, int]] = []
    for interval in intervals:
        events.append((interval.start, interval.size))
        events.append((interval.end + 1, -interval.size))
    # At equal positions the endings (negative deltas) come first.
    events.sort()
    live = peak = 0
    for _, delta in events:
        live += delta
        peak = max(peak, live)
    return peak


def no_reuse_bytes(intervals: Iterable[Interval]) -> int:
    """The sum of all footprints: what an arena without reuse (or alignment) needs."""
    return sum(interval.size for interval in intervals)
