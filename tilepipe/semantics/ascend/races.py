"""``--check-races`` for Ascend kernels: the Ascend model, not the CUDA thread model.

A tile-level Ascend kernel has no threads and no syncs yet -- the pipes' completion
protocol is what ``ascend-insert-sync`` adds -- so the CUDA race detector (threads 0
and 1 of a block) would report races that no Ascend execution has.  Instead, the
kernel is compiled with the ``ascend`` flow (:func:`tilepipe.core.flows.run_flow`, the
default options) and the result runs in the pipe simulator on the same inputs: its races,
deadlocks, flag errors and flags left set are the kernel's race report.  A kernel the
pipeline cannot compile is reported as what it is: unsynchronized source.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from tilepipe.core.diagnostics import OpDiagnosticError
from tilepipe.core.flows import run_flow

from tilepipe.semantics.ascend.sim import run_ascend_kernel
from tilepipe.semantics.errors import KernelError


@dataclass(frozen=True)
class AscendProblem:
    """One problem the pipe simulator found in the compiled kernel (a race report)."""

    text: str

    def __str__(self) -> str:
        return f"ascend pipe simulator (compiled with the Ascend pipeline): {self.text}"


def ascend_races(
    func: FuncOp,
    inputs: Mapping[str, np.ndarray],
    index_args: Mapping[str, int],
    max_steps: int | None = None,
) -> list[AscendProblem]:
    """The pipe simulator's problems for the compiled form of ``func`` (a tile-level
    kernel for an Ascend target) run on ``inputs``."""
    module = ModuleOp([func.clone()])
    try:
        run_flow(module, "ascend")
    except OpDiagnosticError as err:
        raise KernelError(
            func,
            "is unsynchronized Ascend source: its races are decided after "
            f"ascend-insert-sync, and the Ascend pipeline cannot compile it ({err.diagnostic})",
        ) from None
    report = run_ascend_kernel(module, inputs, index_args, max_steps=max_steps)
    return [AscendProblem(problem) for problem in report.problems()]
