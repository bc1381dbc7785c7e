"""The summation order of ``tile.reduce sum``, part of the op's meaning: numpy's
pairwise order along a contiguous row, as one tree every implementation (the
interpreters and the lowerings) computes from here.  See docs/semantics.md,
"Execution model"."""

from __future__ import annotations

from dataclasses import dataclass

LANES = 8  # numpy's unrolling: partial sums per run
BLOCK = 128  # numpy's PW_BLOCKSIZE: longer rows are split


@dataclass(frozen=True)
class Run:
    """Elements ``start .. start + count - 1`` summed as one pairwise block."""

    start: int
    count: int

    @property
    def rounds(self) -> int:
        """Whole rounds of ``LANES`` elements feeding the partial sums (0: sequential)."""
        return self.count // LANES if self.count >= LANES else 0

    @property
    def tail(self) -> range:
        """The elements added one by one after the partials' butterfly (all of them when
        the run is shorter than ``LANES``)."""
        return range(self.start + self.rounds * LANES, self.start + self.count)


@dataclass(frozen=True)
class Split:
    """A row longer than ``BLOCK``: the sum of ``left`` plus the sum of ``right``."""

    left: SumTree
    right: SumTree


SumTree = Run | Split


def sum_tree(count: int, start: int = 0) -> SumTree:
    """The order in which ``count`` elements from ``start`` are added (module doc)."""
    if count < 1:
        raise ValueError(f"a reduction needs at least one element, not {count}")
    if count <= BLOCK:
        return Run(start, count)
    half = count // 2
    half -= half % LANES
    return Split(sum_tree(half, start), sum_tree(count - half, start + half))


def butterfly_pairs() -> tuple[int, ...]:
    """The lane distances of the partials' combination ``((p0 + p1) + (p2 + p3)) + ...``:
    first neighbours (1), then pairs (2), then quadruples (4)."""
    return tuple(1 << level for level in range(LANES.bit_length() - 1))
