"""How much of each randomized or cross-product sweep the tests run.

By default every test runs on a quick, fixed sample (what CI runs on two cores); the
long modes run the whole sweep.  ``TILEPIPE_TESTS=long`` turns every long mode on at
once; each sweep's own variable (README, "Tests and benchmarks") turns on one of them.
"""

from __future__ import annotations

import os

EVERYTHING = os.environ.get("TILEPIPE_TESTS") == "long"


def long_mode(variable: str) -> bool:
    """The sweep named by ``variable`` runs in full (``variable=long``, or
    ``TILEPIPE_TESTS=long``)."""
    return EVERYTHING or os.environ.get(variable) in ("long", "full")


def sample_size(variable: str, quick: int, long: int) -> int:
    """``variable=N`` if given, else ``long`` under ``TILEPIPE_TESTS=long``, else
    ``quick``."""
    given = os.environ.get(variable)
    if given is not None and given.isdigit():
        return int(given)
    return long if EVERYTHING else quick


def targets_by_depth(
    depths=(1, 2, 3, 4), targets=("sm_80", "sm_90"), first: int = 0, variable: str | None = None
) -> list[tuple[str, int]]:
    """(target, num_stages) pairs: every combination in long mode; by default each depth
    on one target, taking turns from ``targets[first]`` at the first depth (tests that
    start from different targets cover every pair between them)."""
    if long_mode(variable) if variable else EVERYTHING:
        return [(target, depth) for target in targets for depth in depths]
    return [(targets[(first + i) % len(targets)], depth) for i, depth in enumerate(depths)]
