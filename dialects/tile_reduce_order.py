"""The summation order of ``tile.reduce sum``: part of the op's meaning.

Floating-point addition is not associative, so a sum is defined only with its order,
and every implementation of the op -- the tile-level interpreter, each lowering, the
interpreters of lowered code -- must add in this one order or a transformed kernel
differs from its source in the last bits for reasons that have nothing to do with the
transformation.  The order is numpy's pairwise summation (``numpy.add.reduce`` over a
contiguous row), reduced to a tree that this module computes once for every user:

* a row of more than ``BLOCK`` (128) elements is split in two, the first part the
  largest multiple of ``LANES`` (8) not above half the row, and the two sums added;
* a row of at most ``BLOCK`` elements and at least ``LANES`` is a :class:`Run`: ``LANES``
  partial sums, partial ``j`` adding elements ``j, j + 8, j + 16, ...`` in ascending
  order over the whole rounds of 8, combined as ``((p0 + p1) + (p2 + p3)) + ((p4 + p5) +
  (p6 + p7))`` -- a butterfly over the 8 partials --, then the ``count % 8`` elements
  left added one by one;
* a shorter run adds its elements one by one, in ascending order;
* the row's total is ``+0.0 + tree`` (numpy starts from the identity; it only turns a
  sum of negative zeros into +0.0).

The error bound is numpy's (O(log n) ulps), the order suits the targets: a thread that
loops over a row keeps 8 accumulators; a warp that holds a row across lanes combines the
partials with three butterfly shuffles.
"""

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
