"""The packed arena of one memory space of one kernel: what ``merge-shared-memory``
decides and its reports draw."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.func import FuncOp

from tilepipe.dialects.memory_space import MemorySpace
from tilepipe.passes.memory.arena_packing import ArenaPlan, no_reuse_bytes, peak_live_bytes
from tilepipe.passes.memory.liveness import BufferLiveness


@dataclass(frozen=True)
class ArenaLayout:
    """The packed arena of one memory space of one kernel."""

    function: FuncOp
    space: MemorySpace
    target: str
    budget: int
    reuse: bool
    buffers: tuple[BufferLiveness, ...]
    plan: ArenaPlan
    pipeline_depth: int | None

    @property
    def size(self) -> int:
        return self.plan.size

    @property
    def no_reuse_bytes(self) -> int:
        return no_reuse_bytes(b.interval() for b in self.buffers)

    @property
    def peak_live_bytes(self) -> int:
        return peak_live_bytes(b.interval() for b in self.buffers)

    @property
    def alignment(self) -> int:
        return max(b.alignment for b in self.buffers)

    @property
    def fits(self) -> bool:
        return self.size <= self.budget

    def offset(self, buffer: BufferLiveness) -> int:
        return self.plan.offset_of(buffer.name)
