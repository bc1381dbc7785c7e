"""Entry point of the schedule simulator (see the package doc)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.dialects.builtin import ModuleOp

from tilepipe.passes.analysis.grid import grid_rank
from tilepipe.semantics.errors import KernelError
from tilepipe.semantics.tile.grid_runner import execute, load_module, select_kernel
from tilepipe.core.targets import CudaTarget, target_of

from tilepipe.schedule_sim.model import ScheduleModel, ScheduleReport
from tilepipe.schedule_sim.trace import TracingMachine


def estimate_cycles(
    module_or_text: ModuleOp | str,
    func_name: str | None = None,
    *,
    index_args: Mapping[str, int] | None = None,
    target: CudaTarget | None = None,
    shapes: Mapping[str, Sequence[int]] | None = None,
) -> ScheduleReport:
    """Simulate block 0 of a scheduled-level kernel; ``target`` overrides the kernel's
    target record (e.g. to try other latencies); ``shapes`` gives the sizes of
    dynamically shaped memref arguments by name."""
    module = load_module(module_or_text)
    func = select_kernel(module, func_name)
    chosen = target or target_of(func)
    if not isinstance(chosen, CudaTarget):
        raise KernelError(func, "the schedule simulator models CUDA kernels; an Ascend "
                          "kernel's cycles come from the pipe simulator (tile-run)")
    machines: list[TracingMachine] = []

    def machine(threads, block, tracker) -> TracingMachine:
        machines.append(TracingMachine(threads, block, tracker))
        return machines[-1]

    # Blocks run on their own SMs: one block's schedule is the kernel's.
    execute(module, func.sym_name.data, blocks=[(0,) * grid_rank(func)], index_args=index_args,
            machine=machine, shapes=shapes)
    return ScheduleModel(machines[0].steps, chosen).run()
