"""How many versions each buffer of a pipelined loop needs (docs/pipelining.md).

``versions = use - def + 1`` where ``def`` is the earliest stage writing the buffer and
``use`` the latest stage reading it; buffers not both written and read in the loop keep
one version.  The bound is tightened by one (for any bound >= 2, as TileLang's code
does) unless some writer/reader pair has order(w) < order(r), stage(w) < stage(r) and
intersecting regions -- only such a pair makes the extra copy necessary.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import SSAValue

from tilepipe.passes.analysis.access_regions import RegionAccess
from tilepipe.passes.analysis.loop_dependences import LoopAccessAnalysis
from tilepipe.passes.pipelining.barrier_expansion import is_mbarrier_array
from tilepipe.passes.analysis.pipeline_schedule import LoopSchedule


@dataclass(frozen=True)
class BufferVersions:
    """The version count of one buffer with how it was derived."""

    buffer: SSAValue
    def_stage: int | None  # earliest writing stage; None: not written in the loop
    use_stage: int | None  # latest reading stage; None: not read in the loop
    upper_bound: int  # use - def + 1 (1 when not both written and read)
    versions: int
    tightened: bool

    @property
    def is_multi_buffered(self) -> bool:
        return self.versions >= 2


def compute_buffer_versions(
    schedule: LoopSchedule, analysis: LoopAccessAnalysis
) -> list[BufferVersions]:
    """Versions of every buffer the loop writes, in order of first write.

    mbarrier arrays are not versioned here; they are expanded per stage instead."""
    results: list[BufferVersions] = []
    for buffer in analysis.buffers_written():
        if is_mbarrier_array(buffer, schedule.loop):
            continue
        accesses = analysis.accesses_of(buffer)
        writers = [a for a in accesses if a.writes]
        readers = [a for a in accesses if a.reads]
        def_stage = min(schedule.stage(a.op) for a in writers)
        use_stage = max((schedule.stage(a.op) for a in readers), default=None)
        if use_stage is None:
            results.append(BufferVersions(buffer, def_stage, None, 1, 1, False))
            continue
        bound = max(1, use_stage - def_stage + 1)
        versions = bound
        tightened = False
        if bound >= 2 and not _needs_multi_version(schedule, analysis, writers, readers):
            versions, tightened = bound - 1, True
        results.append(
            BufferVersions(buffer, def_stage, use_stage, bound, versions, tightened)
        )
    return results


def _needs_multi_version(
    schedule: LoopSchedule,
    analysis: LoopAccessAnalysis,
    writers: list[RegionAccess],
    readers: list[RegionAccess],
) -> bool:
    return any(
        schedule.order(w.op) < schedule.order(r.op)
        and schedule.stage(w.op) < schedule.stage(r.op)
        and analysis.may_intersect(w, r, 0)
        for w in writers
        for r in readers
    )


def versions_by_buffer(versions: list[BufferVersions]) -> dict[SSAValue, int]:
    return {v.buffer: v.versions for v in versions}
