"""Calibration of the schedule simulator against the GPU: each configuration's
predicted cycles (docs/schedule_sim.md) next to its measured time, and how often the
model orders two configurations of one kernel as the GPU did (docs/gpu_check.md)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from tilepipe.drivers.compile import CompileError, parse_kernel
from tilepipe.semantics import KernelError

from gpu_problems import Problem, launch_grid

if TYPE_CHECKING:  # gpu_run imports this module for model_prediction
    from gpu_run import Outcome


def model_prediction(problem: Problem, arch: str, num_stages: int | None) -> dict:
    """The schedule simulator's cycles for this configuration: block 0 of its scheduled
    level with the target's latencies, and the grid's blocks one after another."""
    from xdsl.utils.exceptions import DiagnosticException

    from tilepipe.drivers.compile import retarget
    from tilepipe.schedule_sim.flow import scheduled_module, simulate_kernels
    from tilepipe.core.targets import get_target

    try:
        module = parse_kernel(problem.text, str(problem.path))
        retarget(module, get_target(arch), num_stages)
        reports = simulate_kernels(scheduled_module(module))
    except (CompileError, KernelError, DiagnosticException) as err:
        return {"error": str(err)}
    report = next(r for name, r in reports if name == problem.func.sym_name.data)
    grid = launch_grid(problem.func, problem.shapes, problem.index_args)
    return {"cycles_per_block": report.total_cycles,
            "cycles_per_iteration": round(report.steady_step, 2),
            "grid_cycles": report.total_cycles * math.prod(grid)}


def calibration(outcomes: list[Outcome]) -> dict:
    """Model vs measurement over the configurations that ran: each one's measured
    milliseconds per million predicted grid cycles, and how many pairs of
    configurations of one kernel the model orders as the GPU did."""
    rows = [o for o in outcomes if o.ok and "grid_cycles" in o.details.get("model", {})]
    points = [{"kernel": o.kernel, "num_stages": o.num_stages, "ms": o.details["ms"],
               "grid_cycles": o.details["model"]["grid_cycles"],
               "ms_per_mcycle": o.details["ms"] / o.details["model"]["grid_cycles"] * 1e6}
              for o in rows]
    agree = pairs = 0
    for i, a in enumerate(points):
        for b in points[i + 1:]:
            if a["kernel"] != b["kernel"] or a["grid_cycles"] == b["grid_cycles"]:
                continue
            pairs += 1
            agree += (a["grid_cycles"] < b["grid_cycles"]) == (a["ms"] < b["ms"])
    return {"points": points, "pairs": pairs, "pairs_ordered_alike": agree}


def format_calibration(summary: dict) -> str:
    lines = ["gpu_check: calibration (schedule simulator vs measured)"]
    for p in summary["points"]:
        stages = "" if p["num_stages"] is None else f" num_stages={p['num_stages']}"
        lines.append(f"  {p['kernel']}{stages}: predicted {p['grid_cycles']} grid cycles, "
                     f"measured {p['ms']:.3f} ms ({p['ms_per_mcycle']:.3f} ms per million cycles)")
    lines.append(f"  ranking: {summary['pairs_ordered_alike']} of {summary['pairs']} pairs of "
                 "configurations ordered as measured")
    return "\n".join(lines)
