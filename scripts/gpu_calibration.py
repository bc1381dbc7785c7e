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


def model_prediction(problem: Problem, arch: str, num_stages: int | None,
                     registers: int | None = None, threads: int | None = None,
                     target=None) -> dict:
    """The models' prediction for this configuration: block 0 of its scheduled level
    simulated with the target's latencies (``target``: a record with other rates, as
    the calibration tries), and the machine model's kernel cycles (its blocks in waves
    over the SMs, at the occupancy the arena, ``registers`` and ``threads`` allow)."""
    from xdsl.utils.exceptions import DiagnosticException

    from tilepipe.dialects.kernel_attrs import kernel_launch_shape
    from tilepipe.drivers.compile import retarget
    from tilepipe.drivers.tune_evaluate import arena_bytes
    from tilepipe.schedule_sim.flow import scheduled_module, simulate_kernels
    from tilepipe.schedule_sim.machine import BlockResources, predict_kernel
    from tilepipe.core.targets import get_target

    record = target or get_target(arch)
    try:
        module = parse_kernel(problem.text, str(problem.path))
        retarget(module, get_target(arch), num_stages)
        scheduled = scheduled_module(module)
        reports = simulate_kernels(scheduled, problem.index_args, problem.shapes, target=record)
    except (CompileError, KernelError, DiagnosticException) as err:
        return {"error": str(err)}
    report = next(r for name, r in reports if name == problem.func.sym_name.data)
    blocks = math.prod(launch_grid(problem.func, problem.shapes, problem.index_args))
    resources = BlockResources(threads or kernel_launch_shape(problem.func)[1],
                               arena_bytes(scheduled), registers)
    kernel = predict_kernel(record, blocks, report.total_cycles, max(report.demand.values(), default=0),
                            resources)
    return {"cycles_per_block": report.total_cycles,
            "cycles_per_iteration": round(report.steady_step, 2),
            "grid_cycles": report.total_cycles * blocks,
            "kernel_cycles": kernel.cycles,
            "blocks_per_sm": kernel.blocks_per_processor,
            "limiter": kernel.limiter,
            "waves": kernel.waves}


def calibration(outcomes: list[Outcome]) -> dict:
    """Model vs measurement over the configurations that ran: each one's measured
    milliseconds per million predicted kernel cycles, and how many pairs of
    configurations of one kernel the model orders as the GPU did."""
    rows = [o for o in outcomes if o.ok and "kernel_cycles" in o.details.get("model", {})]
    points = [{"kernel": o.kernel, "num_stages": o.num_stages, "ms": o.details["ms"],
               "kernel_cycles": o.details["model"]["kernel_cycles"],
               "ms_per_mcycle": o.details["ms"] / o.details["model"]["kernel_cycles"] * 1e6}
              for o in rows]
    agree = pairs = 0
    for i, a in enumerate(points):
        for b in points[i + 1:]:
            if a["kernel"] != b["kernel"] or a["kernel_cycles"] == b["kernel_cycles"]:
                continue
            pairs += 1
            agree += (a["kernel_cycles"] < b["kernel_cycles"]) == (a["ms"] < b["ms"])
    return {"points": points, "pairs": pairs, "pairs_ordered_alike": agree}


def format_calibration(summary: dict) -> str:
    lines = ["gpu_check: calibration (schedule simulator vs measured)"]
    for p in summary["points"]:
        stages = "" if p["num_stages"] is None else f" num_stages={p['num_stages']}"
        lines.append(f"  {p['kernel']}{stages}: predicted {p['kernel_cycles']} kernel cycles, "
                     f"measured {p['ms']:.3f} ms ({p['ms_per_mcycle']:.3f} ms per million cycles)")
    lines.append(f"  ranking: {summary['pairs_ordered_alike']} of {summary['pairs']} pairs of "
                 "configurations ordered as measured")
    return "\n".join(lines)


def fit_constants(measured: list[tuple[Problem, Outcome]], device: str, scales=None) -> list:
    """Per target, the model constants that best explain the measured times
    (:func:`tilepipe.schedule_sim.calibration.fit_calibration`): every configuration
    that ran is simulated again at each pair of rate ``scales`` (default: RATE_SCALES)."""
    from tilepipe.core.targets import get_target
    from tilepipe.schedule_sim.calibration import (
        RATE_SCALES, Calibration, calibrated_target, fit_calibration)

    fitted = []
    for arch in sorted({o.arch for _, o in measured}):
        runs = [(p, o) for p, o in measured if o.arch == arch and o.ok
                and "kernel_cycles" in o.details.get("model", {})]
        if not runs:
            continue

        def predict(copy_scale: float, gemm_scale: float, runs=runs, arch=arch) -> list[int]:
            scaled = calibrated_target(get_target(arch), Calibration(
                arch, 1.0, copy_rate_scale=copy_scale, gemm_rate_scale=gemm_scale))
            return [model_prediction(p, arch, o.num_stages, o.details.get("registers"),
                                     o.details.get("threads"), scaled).get("kernel_cycles", 0)
                    for p, o in runs]

        fitted.append(fit_calibration(arch, [o.details["ms"] * 1e-3 for _, o in runs], predict, device,
                                      scales or RATE_SCALES))
    return fitted
