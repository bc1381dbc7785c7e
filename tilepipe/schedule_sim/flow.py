"""Where the simulator meets the drivers: the ``schedule-sim`` pass and the scheduled
level of a tile kernel (what ``tilepipe compile --schedule-svg`` and ``tilepipe tune``
simulate)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from tilepipe.core.diagnostics import OpDiagnosticError, op_error
from tilepipe.semantics.errors import KernelError
from tilepipe.core.source import parse_assignments
from tilepipe.core.targets import CudaTarget

from tilepipe.schedule_sim.model import ScheduleReport
from tilepipe.schedule_sim.simulate import estimate_cycles
from tilepipe.schedule_sim.svg import schedule_svg

def parse_index_args(spec: str | None) -> dict[str, int]:
    """``"n=4,m=2"`` -> ``{"n": 4, "m": 2}``."""
    return parse_assignments(spec, "index arguments")


def simulate_kernels(
    module: ModuleOp, index_args: dict[str, int] | None = None,
    shapes: dict[str, tuple[int, ...]] | None = None, target: CudaTarget | None = None,
) -> list[tuple[str, ScheduleReport]]:
    """Simulate every CUDA kernel of a scheduled-level module (``target`` overrides
    the record the kernels name, e.g. a calibrated one); bad kernels raise a
    located :class:`OpDiagnosticError`."""
    reports = []
    for func in [op for op in module.ops if isinstance(op, FuncOp) and op.body.blocks]:
        try:
            report = estimate_cycles(module, func.sym_name.data, index_args=index_args,
                                     target=target, shapes=shapes)
        except KernelError as err:  # already located at the op that failed
            raise OpDiagnosticError(err.diagnostic) from None
        if report.deadlock:
            raise op_error(func, "the simulated schedule deadlocks: " + "; ".join(report.deadlock))
        reports.append((func.sym_name.data, report))
    return reports


def scheduled_module(module: ModuleOp) -> ModuleOp:
    """Run the CUDA flow up to the scheduled level on (a clone of) ``module``."""
    from tilepipe.core.flows import run_flow

    return run_flow(module.clone(), "cuda", "scheduled")


def draw_schedule(
    text: str, file_name: str, target_name: str, depths: list[int | None], svg: str
) -> None:
    """The Gantt chart of a tile-level kernel's scheduled level, one panel per depth in
    ``depths`` (None: the kernel's own ``num_stages``) on one time scale:
    ``tilepipe compile --schedule-svg`` and the README's num_stages comparison."""
    from tilepipe.drivers.compile import parse_kernel, retarget
    from tilepipe.core.targets import get_target

    panels = []
    for depth in depths:
        module = parse_kernel(text, file_name)
        retarget(module, get_target(target_name), depth)
        for name, report in simulate_kernels(scheduled_module(module)):
            title = name if depth is None else f"{name} num_stages={depth}"
            panels.append((title, report))
    Path(svg).write_text(schedule_svg(panels))


@dataclass(frozen=True)
class ScheduleSim(ModulePass):
    """Simulate the schedule of every kernel of a scheduled-level module (the chapter's
    cycle model, docs/schedule_sim.md) and draw it; the IR is left unchanged."""

    name = "schedule-sim"

    svg: str | None = None
    """Write the Gantt chart of every kernel to this SVG file (quote the path)."""

    index_args: str | None = None
    """Values of the kernels' index arguments, e.g. "n=4,m=2"."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        try:
            index_args = parse_index_args(self.index_args)
        except ValueError as err:
            raise PassFailedException(f"schedule-sim: {err}") from None
        reports = simulate_kernels(op, index_args)
        if self.svg is not None:
            Path(self.svg).write_text(schedule_svg(reports))
