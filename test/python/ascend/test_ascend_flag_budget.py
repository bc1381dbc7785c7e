"""The flag-budget knapsack against brute force, and its tie-breaking rule."""

from itertools import combinations

from hypothesis import given
from hypothesis import strategies as st

from tilepipe.passes.ascend.flag_blocks import knapsack_keep


def brute_force_best(sizes: list[int], capacity: int) -> tuple[int, ...]:
    best: tuple[int, tuple[int, ...]] = (0, ())
    for r in range(len(sizes) + 1):
        for subset in combinations(range(len(sizes)), r):
            total = sum(sizes[i] for i in subset)
            if total > capacity:
                continue
            if total > best[0] or (total == best[0] and subset < best[1]):
                best = (total, subset)
    return best[1]


@given(st.lists(st.integers(1, 9), max_size=8), st.integers(0, 16))
def test_knapsack_is_the_fullest_earliest_subset(sizes, capacity):
    assert knapsack_keep(sizes, capacity) == brute_force_best(sizes, capacity)


def test_chapter_figures():
    # Four sync points of `depth` versions each on one hard event (§4.5).
    assert knapsack_keep([2, 2, 2, 2], 8) == (0, 1, 2, 3)  # 8 ids, 0 spare
    assert knapsack_keep([3, 3, 3, 3], 8) == (0, 1)  # keeps 6 of 8: acquire_A, acquire_B


def test_a_later_block_wins_only_when_it_fills_more():
    assert knapsack_keep([3, 3, 5], 8) == (0, 2)
    assert knapsack_keep([4, 4, 8], 8) == (0, 1)
