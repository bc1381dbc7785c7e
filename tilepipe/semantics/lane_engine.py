"""The event engine shared by the cycle models: greedy list scheduling over in-order lanes.

A *lane* is a unit that executes its items one after another in issue order: an Ascend
pipe, or the copy engine / compute unit of a CUDA block in the schedule simulator
(:mod:`tilepipe.schedule_sim`).  An item may sit on several lanes at once (a
``pipe_barrier(PIPE_ALL)``, a block barrier): it starts only when it heads all of them
and occupies all of them.

Each step the engine asks the model when the head of every lane could start (``ready``:
a time, or ``None`` while an event it needs has not happened), starts the earliest one
(ties go to the item issued first, so a run is deterministic), and lets the model
execute it (``execute`` returns when it frees its lanes).  What an item *needs* is the
model's business -- flags, commit groups, mbarrier phases; the engine only owns the
lanes, the clock and the timeline.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

Item = TypeVar("Item")
Lane = TypeVar("Lane", bound=Hashable)


@dataclass(frozen=True)
class Span(Generic[Item, Lane]):
    """One executed item: the lanes it occupied from ``start`` to ``end``."""

    item: Item
    lanes: tuple[Lane, ...]
    start: int
    end: int


class LaneEngine(Generic[Item, Lane]):
    def __init__(
        self,
        items: Iterable[Item],
        lanes_of: Callable[[Item], Sequence[Lane]],
        order: Callable[[Item], int],
    ):
        self.order = order
        # Each item's lanes, asked once: the loop below asks again at every step.
        self._lanes: dict[int, tuple[Lane, ...]] = {}
        self.queues: dict[Lane, deque[Item]] = {}
        for item in items:
            lanes = self._lanes[id(item)] = tuple(lanes_of(item))
            for lane in lanes:
                self.queues.setdefault(lane, deque()).append(item)
        self.free: dict[Lane, int] = {lane: 0 for lane in self.queues}
        self.timeline: list[Span[Item, Lane]] = []

    def run(
        self,
        ready: Callable[[Item], int | None],
        execute: Callable[[Item, int], int],
    ) -> bool:
        """Run every item; False when the lanes deadlock (``queues`` keeps what is left)."""
        while any(self.queues.values()):
            best: tuple[int, int, Item] | None = None
            for lane, queue in self.queues.items():
                if not queue:
                    continue
                item = queue[0]
                lanes = self._lanes[id(item)]
                if len(lanes) > 1 and any(not self.queues[k] or self.queues[k][0] is not item for k in lanes):
                    continue  # a multi-lane item waits until it heads all its lanes
                needed = ready(item)
                if needed is None:
                    continue
                start = max([needed, *(self.free[k] for k in lanes)])
                if best is None or (start, self.order(item)) < best[:2]:
                    best = (start, self.order(item), item)
            if best is None:
                return False
            start, _, item = best
            lanes = self._lanes[id(item)]
            for lane in lanes:
                self.queues[lane].popleft()
            end = execute(item, start)
            for lane in lanes:
                self.free[lane] = end
            self.timeline.append(Span(item, lanes, start, end))
        return True

    @property
    def makespan(self) -> int:
        return max((span.end for span in self.timeline), default=0)


def steady_step(timeline: Sequence[Span[Item, Lane]], work: Callable[[Item], str | None]) -> float:
    """Cycles per iteration of a loop-shaped run: the mean distance between the starts
    of the most frequent kind of work (``work`` names an item's kind, None for items
    that are not work) over the second half of its instances, where the fill no
    longer shows -- the chapter's "average over the second half of the loop"."""
    starts: dict[str, list[int]] = {}
    for span in sorted(timeline, key=lambda s: s.start):  # stable: issue order on ties
        kind = work(span.item)
        if kind is not None:
            starts.setdefault(kind, []).append(span.start)
    if not starts:
        return 0.0
    times = starts[max(starts, key=lambda k: len(starts[k]))]  # first seen wins ties
    middle = len(times) // 2
    if len(times) < 2:
        return 0.0
    if middle == len(times) - 1:
        return float(times[-1] - times[0])
    return (times[-1] - times[middle]) / (len(times) - 1 - middle)
