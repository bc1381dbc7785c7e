"""The interpreters' stated work limit: loop iterations per run.

A kernel's work is its loop iterations (the ops between two iterations are bounded by
the program's size), so every interpreter -- the tile level (``semantics/tile``), the
NVVM per-thread model (``semantics/nvvm``, whose lanes run in lockstep: one
iteration per block) and the Ascend scalar unit that feeds the pipe simulator
(``semantics/ascend``) -- charges each loop's trip count to one budget when the loop
starts.  Their loops have no early exit, so the trip count known at the start is
exactly what the loop will run: one check per loop, nothing per iteration, and a loop
of 2^63 iterations is refused before its first one instead of running without end.
The error is at the loop: ``'scf.for' op runs N iterations, which exceeds the
interpreter's limit of M loop iterations per run ...``; ``tile-run --max-steps`` and
the ``max_steps`` arguments of ``execute``/``run_tile_kernel``/``run_nvvm_kernel``/
``simulate`` raise (or lower) it.
"""

from __future__ import annotations

DEFAULT_MAX_STEPS = 10_000_000
"""Loop iterations one run may execute, all loops and blocks together (ten million
tile-level iterations are hours of interpretation)."""


def trip_count(lb: int, ub: int, step: int) -> int:
    """Iterations of ``for i = lb to ub step step`` (``step`` > 0); ``len(range())``
    overflows past 2^63."""
    return max(0, -((lb - ub) // step))


class WorkLimit:
    """The loop iterations a run has left."""

    __slots__ = ("limit", "left")

    def __init__(self, limit: int | None = None):
        self.limit = DEFAULT_MAX_STEPS if limit is None else limit
        if self.limit < 0:
            raise ValueError(f"the work limit must be >= 0, got {self.limit}")
        self.left = self.limit

    def charge(self, trips: int) -> str | None:
        """Take ``trips`` iterations of a loop that is starting; if that is over the
        limit, take nothing and return the message to report at the loop."""
        if trips <= self.left:
            self.left -= trips
            return None
        done = self.limit - self.left
        already = f" ({done} already run)" if done else ""
        return (
            f"runs {trips} iterations, which exceeds the interpreter's limit of "
            f"{self.limit} loop iterations per run{already}; raise it with "
            "tile-run --max-steps N (max_steps=N in the API)"
        )


__all__ = ["DEFAULT_MAX_STEPS", "WorkLimit"]
