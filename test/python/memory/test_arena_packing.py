"""Unit and property tests of the linear-scan arena packing (passes/memory/arena_packing.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilepipe.passes.memory.arena_packing import (
    FreeList,
    Interval,
    align_up,
    no_reuse_bytes,
    pack,
    packing_order,
    peak_live_bytes,
)


def offsets(plan) -> dict[str, int]:
    return {p.interval.name: p.offset for p in plan.placements}


# --------------------------------------------------------------------------- free list


def test_free_list_coalesces_both_neighbours():
    free = FreeList()
    free.free(0, 16)
    free.free(32, 16)
    assert free.blocks == [(0, 16), (32, 16)]
    free.free(16, 16)  # touches both: one block
    assert free.blocks == [(0, 48)]


def test_free_list_keeps_gaps_apart_and_sorted():
    free = FreeList()
    free.free(100, 10)
    free.free(0, 10)
    free.free(50, 10)
    assert free.blocks == [(0, 10), (50, 10), (100, 10)]


def test_best_fit_picks_least_leftover_not_first():
    free = FreeList()
    free.free(0, 256)  # fits, 192 bytes left over
    free.free(512, 80)  # fits, 16 left over: the best fit
    assert free.best_fit(64, 16) == 512
    assert free.blocks == [(0, 256), (576, 16)]


def test_best_fit_counts_alignment_and_returns_the_head():
    free = FreeList()
    free.free(16, 1024)  # aligned to 256 the start is 256: head [16, 256) stays free
    assert free.best_fit(512, 256) == 256
    assert free.blocks == [(16, 240), (768, 272)]


def test_best_fit_fails_when_alignment_eats_the_block():
    free = FreeList()
    free.free(16, 100)
    assert free.best_fit(64, 128) is None
    assert free.blocks == [(16, 100)]


def test_grow_top_block_only_at_the_top():
    free = FreeList()
    free.free(64, 192)
    assert free.grow_top_block(1024, 16, top=512) is None  # does not touch the top
    assert free.grow_top_block(1024, 16, top=256) == 64
    assert free.blocks == []


# --------------------------------------------------------------------------- pack


def test_packing_order_is_start_then_larger_then_name():
    intervals = [
        Interval("b", 0, 5, 64),
        Interval("a", 0, 5, 64),
        Interval("big", 0, 5, 128),
        Interval("early", -1, 0, 1),
    ]
    assert [i.name for i in packing_order(intervals)] == ["early", "big", "a", "b"]


def test_disjoint_lifetimes_share_bytes():
    plan = pack([Interval("x", 0, 3, 1024), Interval("y", 4, 9, 1024)])
    assert offsets(plan) == {"x": 0, "y": 0}
    assert plan.size == 1024


def test_closed_intervals_sharing_a_position_do_not_share_bytes():
    plan = pack([Interval("x", 0, 4, 1024), Interval("y", 4, 9, 1024)])
    assert offsets(plan) == {"x": 0, "y": 1024}


def test_disable_reuse_gives_every_buffer_its_own_bytes():
    intervals = [Interval("x", 0, 3, 1024), Interval("y", 4, 9, 1024)]
    plan = pack(intervals, reuse=False)
    assert offsets(plan) == {"x": 0, "y": 1024}
    assert plan.size == no_reuse_bytes(intervals)


def test_bump_returns_alignment_gap_to_free_list():
    plan = pack(
        [
            Interval("a", 0, 9, 48),
            Interval("big", 1, 9, 1024, alignment=1024),
            Interval("small", 2, 9, 64),
        ]
    )
    assert offsets(plan) == {"a": 0, "big": 1024, "small": 48}
    assert plan.size == 2048


def test_free_block_at_top_grows_instead_of_bumping():
    plan = pack(
        [Interval("p", 0, 1, 256), Interval("q", 2, 9, 64), Interval("r", 3, 9, 1024)]
    )
    assert offsets(plan) == {"p": 0, "q": 0, "r": 64}
    assert plan.size == 1088


def test_chapter_epilogue_table():
    # §3.4: A and B (2 versions x 16 KiB) live through the loop, C (32 KiB) after it.
    plan = pack(
        [
            Interval("A_shared", 0, 10, 32768),
            Interval("B_shared", 1, 10, 32768),
            Interval("C_shared", 11, 12, 32768),
        ]
    )
    assert offsets(plan) == {"A_shared": 0, "B_shared": 32768, "C_shared": 0}
    assert plan.size == 65536


def test_peak_live_bytes_is_the_heaviest_position():
    intervals = [Interval("x", 0, 4, 10), Interval("y", 4, 6, 20), Interval("z", 5, 9, 5)]
    assert peak_live_bytes(intervals) == 30  # x and y at position 4
    assert peak_live_bytes([]) == 0


def test_invalid_intervals_are_rejected():
    with pytest.raises(ValueError, match="not a power of two"):
        Interval("x", 0, 1, 8, alignment=24)
    with pytest.raises(ValueError, match="end"):
        Interval("x", 5, 1, 8)
    with pytest.raises(ValueError, match="unique"):
        pack([Interval("x", 0, 1, 8), Interval("x", 2, 3, 8)])


# --------------------------------------------------------------------------- property

intervals_strategy = st.lists(
    st.tuples(
        st.integers(0, 40),  # start
        st.integers(0, 15),  # length
        st.integers(0, 4096),  # size
        st.sampled_from([16, 16, 32, 128, 256, 1024]),  # alignment
    ),
    max_size=24,
).map(
    lambda rows: [
        Interval(f"b{i}", start, start + length, size, alignment)
        for i, (start, length, size, alignment) in enumerate(rows)
    ]
)


@settings(max_examples=300, deadline=None)
@given(intervals_strategy, st.booleans())
def test_packing_is_sound(intervals, reuse):
    plan = pack(intervals, reuse=reuse)
    placements = plan.placements
    assert sorted(p.interval.name for p in placements) == sorted(i.name for i in intervals)
    for p in placements:
        assert p.offset % p.interval.alignment == 0
        assert p.offset >= 0 and p.end_offset <= plan.size
    for i, p in enumerate(placements):
        for q in placements[i + 1 :]:
            both_live = p.interval.overlaps(q.interval) or not reuse
            bytes_overlap = p.offset < q.end_offset and q.offset < p.end_offset
            if p.interval.size and q.interval.size:
                assert not (both_live and bytes_overlap), (p, q)
    assert plan.size >= peak_live_bytes(intervals)
    if not reuse:
        assert plan.size >= no_reuse_bytes(intervals)


@settings(max_examples=100, deadline=None)
@given(intervals_strategy)
def test_arena_is_at_most_the_sizes_plus_alignment_padding(intervals):
    # Each placement raises the top by at most its size plus an alignment gap.
    bound = sum(align_up(i.size, i.alignment) + i.alignment for i in intervals)
    assert pack(intervals).size <= bound
