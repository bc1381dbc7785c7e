"""The per-block state of the NVVM interpreter's wgmma model (``wgmma.py``): the
issued wgmmas and their commit groups, the warpgroups' last fences, and which values
hold accumulators still being computed; and which warpgroups execute an op (wgmma,
``setmaxnreg``: whole warpgroups only).  Its own module so that handlers outside the
wgmma model (a register bitcast that builds wgmma's A, ``collectives.py``) record
into it without importing the model."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.ir import Operation, SSAValue

from tilepipe.semantics.nvvm.execution import WARP, BlockExecution, NvvmExecutionError

WARPGROUP = 4 * WARP


@dataclass
class IssuedWgmma:
    group: int  # the warpgroup's commit-group number, -1 while uncommitted
    result: SSAValue
    shared_bytes: np.ndarray  # the operand bytes it reads until retired
    # The threads its reads are recorded for, and their race-detector epochs then: a
    # release (mbarrier arrival) before the retirement does not order the reads.
    readers: np.ndarray | None = None
    epochs: np.ndarray | None = None
    retired: bool = False


@dataclass
class WarpgroupState:
    issued: dict[int, list[IssuedWgmma]] = field(default_factory=dict)
    committed: dict[int, int] = field(default_factory=dict)
    fenced_at: dict[int, int] = field(default_factory=dict)
    built_at: dict[SSAValue, int] = field(default_factory=dict)
    # The wgmmas (one per warpgroup) whose accumulator a value holds: the result of a
    # wgmma, or a loop-carried value that is one (:func:`forward`).
    produced_by: dict[SSAValue, list[IssuedWgmma]] = field(default_factory=dict)
    clock: int = 0

    def tick(self) -> int:
        self.clock += 1
        return self.clock


def state_of(ex: BlockExecution) -> WarpgroupState:
    state = getattr(ex, "wgmma", None)
    if state is None:
        state = ex.wgmma = WarpgroupState()  # type: ignore[attr-defined]
    return state


def warpgroups(ex: BlockExecution, op: Operation, mask: np.ndarray) -> list[int]:
    """The warpgroups executing ``op``, whole."""
    if mask.size % WARPGROUP:
        raise NvvmExecutionError(op, f"a block of {mask.size} threads has no whole warpgroups")
    per_group = mask.reshape(-1, WARPGROUP)
    if not (per_group.all(axis=1) | ~per_group.any(axis=1)).all():
        raise NvvmExecutionError(op, "executed by part of a warpgroup")
    return [int(g) for g in np.flatnonzero(per_group[:, 0])]
