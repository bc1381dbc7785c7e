"""Races between blocks: blocks of a grid never synchronize with each other, so two
blocks touching the same global bytes, at least one writing, always race -- unless
both update them atomically (``tile.atomic_add``): atomic updates race with plain
reads and writes of other blocks, not with each other.

After each block, the global allocations' race shadows (see :mod:`.races`) tell which
granules the block wrote and which it only read; they are compared with what earlier
blocks did, all as numpy masks.
"""

from __future__ import annotations

import numpy as np

from tilepipe.core.diagnostics import op_location

from tilepipe.semantics.memory import Buffer
from tilepipe.semantics.tile.races import AccessSite, Race, RaceTracker, _Shadow


class _History:
    """What earlier blocks did to one allocation, per granule."""

    def __init__(self, granules: int, granule: int):
        self.granule = granule
        self.write_site = np.full(granules, -1, dtype=np.int64)
        self.read_site = np.full(granules, -1, dtype=np.int64)
        self.atomic_site = np.full(granules, -1, dtype=np.int64)

    def refine(self, granule: int) -> None:
        factor = self.granule // granule
        self.write_site = np.repeat(self.write_site, factor)
        self.read_site = np.repeat(self.read_site, factor)
        self.atomic_site = np.repeat(self.atomic_site, factor)
        self.granule = granule


class GridConflicts:
    """Collects the races between the blocks run so far."""

    def __init__(self) -> None:
        self.races: list[Race] = []
        self._sites: list[tuple[tuple[int, ...], AccessSite]] = []
        self._histories: dict[int, _History] = {}
        self._reported: set[tuple] = set()

    def block_finished(self, tracker: RaceTracker, buffers: list[Buffer]) -> None:
        """Compare the global ``buffers`` (kernel arguments) ``tracker``'s block
        touched with earlier blocks, then remember what it did."""
        for buffer in buffers:
            allocation = buffer.allocation
            shadow = allocation.shadow
            if not isinstance(shadow, _Shadow) or shadow.dense_reads:
                continue
            history = self._histories.setdefault(
                allocation.id, _History(allocation.nbytes // shadow.granule, shadow.granule)
            )
            if history.granule != shadow.granule:
                history.refine(shadow.granule)
            # A plain write conflicts with everything; an atomic update (with no
            # plain write in this block) with plain accesses; a read (an atomic
            # update leaves it recorded) with writes and atomic updates.
            written = shadow.write_agent >= 0
            updated = (shadow.atomic_agent >= 0) & ~written
            read = (shadow.last_reader >= 0) & ~written
            self._compare(tracker, buffer, history, written, updated, read, shadow)
            self._record(tracker, history, written, shadow.write_event, history.write_site, "write")
            self._record(tracker, history, updated, shadow.atomic_event, history.atomic_site, "atomic add")
            self._record(tracker, history, read, shadow.last_read_event, history.read_site, "read")

    def _compare(self, tracker, buffer, history, written, updated, read, shadow) -> None:
        checks = (
            ("WAW", written, history.write_site, shadow.write_event, "write"),
            ("WAW", written, history.atomic_site, shadow.write_event, "write"),
            ("WAR", written, history.read_site, shadow.write_event, "write"),
            ("WAW", updated, history.write_site, shadow.atomic_event, "atomic add"),
            ("WAR", updated, history.read_site, shadow.atomic_event, "atomic add"),
            ("RAW", read, history.write_site, shadow.last_read_event, "read"),
            ("RAW", read, history.atomic_site, shadow.last_read_event, "read"),
        )
        for kind, now, earlier_site, now_event, mode in checks:
            conflicts = np.flatnonzero(now & (earlier_site >= 0))
            if not conflicts.size:
                continue
            pairs = np.stack([earlier_site[conflicts], now_event[conflicts]], axis=1)
            _, first = np.unique(pairs, axis=0, return_index=True)
            for g in conflicts[np.sort(first)]:
                self._report(
                    kind, tracker, buffer, int(g) * history.granule,
                    int(earlier_site[g]), int(now_event[g]), mode,
                )

    def _report(self, kind, tracker, buffer, byte, site, event, mode) -> None:
        first_block, first = self._sites[site]
        second = self._site(tracker, event, mode)
        key = (kind, first.op, second.op, buffer.allocation.id)
        if key in self._reported:
            return
        self._reported.add(key)
        element = np.unravel_index(
            (byte - buffer.byte_offset) // buffer.element.itemsize, buffer.shape
        )
        self.races.append(
            Race(
                kind,
                buffer.name,
                tuple(int(i) for i in element),
                tracker.block,
                AccessSite(first.op, first.location, first.iteration,
                           f"block {first_block}", first.mode),
                AccessSite(second.op, second.location, second.iteration,
                           f"block {tracker.block}", mode),
                between_blocks=True,
            )
        )

    def _site(self, tracker: RaceTracker, event: int, mode: str) -> AccessSite:
        recorded = tracker.events[event]
        assert recorded is not None
        return AccessSite(
            recorded.op, op_location(recorded.op), recorded.iteration, "", mode
        )

    def _record(self, tracker, history, mask, events, sites, mode) -> None:
        touched = np.flatnonzero(mask)
        if not touched.size:
            return
        unique, inverse = np.unique(events[touched], return_inverse=True)
        base = len(self._sites)
        self._sites.extend(
            (tracker.block, self._site(tracker, int(e), mode)) for e in unique
        )
        sites[touched] = base + inverse
