"""What ``tilepipe tune`` shows: the table (stderr), the model line, the JSON report
(``--json``) and the progress bar (docs/schedule_sim.md, "tilepipe tune")."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import asdict
from typing import TextIO

from tilepipe.core.targets import AscendTarget, CudaTarget
from tilepipe.drivers.tune_evaluate import Outcome
from tilepipe.schedule_sim.calibration import Calibration
from tilepipe.schedule_sim.machine import KernelPrediction, describe_machine

JSON_FORMAT = 1


def occupancy_cell(prediction: KernelPrediction | None) -> str:
    """``2/SM smem``: blocks per processor and what limits them."""
    if prediction is None:
        return "-"
    return f"{prediction.blocks_per_processor}/{prediction.processor} {prediction.limiter}"


def waves_cell(prediction: KernelPrediction | None) -> str:
    """``1, 44 idle``: the waves, and the processors the last one leaves without a block."""
    if prediction is None:
        return "-"
    idle = f", {prediction.idle_in_last_wave} idle" if prediction.idle_in_last_wave else ""
    return f"{prediction.waves}{idle}"


def format_table(outcomes: Sequence[Outcome], chosen: Outcome | None) -> str:
    """One row per configuration, in the order given; ``*`` marks the pick."""
    def cell(value, fmt="{}") -> str:
        return "-" if value is None else fmt.format(value)

    rows = [("", "config", "arena B", "regs", "flags", "cyc/iter", "block cyc", "blocks",
             "occupancy", "waves", "kernel cyc", "µs", "verdict")]
    for o in outcomes:
        p = o.prediction
        verdict = "rejected: " + o.rejected if o.rejected else "fits" + (" (cached)" if o.cached else "")
        rows.append((
            "*" if o is chosen else "", o.config.label, cell(o.arena_bytes), cell(o.registers),
            o.flags, cell(o.step, "{:.1f}"), cell(o.cycles), cell(o.blocks if o.cycles is not None else None),
            occupancy_cell(p), waves_cell(p), cell(p.cycles if p else None),
            cell(o.seconds * 1e6 if o.seconds is not None else None, "{:.1f}"), verdict,
        ))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join(
        " ".join(c.ljust(w) for c, w in zip(r[:-1], widths)) + " " + r[-1] for r in rows
    )


def model_line(target: CudaTarget | AscendTarget, calibration: Calibration) -> str:
    """``model: public peak figures for sm_80 (A100 SXM4, 108 SMs, 1.41 GHz)`` or
    ``model: calibrated from FILE (...)``."""
    return f"model: {calibration.describe()} ({describe_machine(target)})"


def summary_line(outcomes: Sequence[Outcome]) -> str:
    cached = sum(o.cached for o in outcomes)
    return (f"tilepipe tune: {len(outcomes)} configurations, {len(outcomes) - cached} evaluated, "
            f"{cached} from the cache")


def json_report(
    outcomes: Sequence[Outcome], chosen: Outcome | None, target: CudaTarget | AscendTarget,
    calibration: Calibration,
) -> dict:
    """The whole table as data: every configuration with its budgets, simulator and
    machine-model fields, the pick, and the model used."""
    machine = asdict(target.machine) if isinstance(target, CudaTarget) and target.machine else (
        {"cube_cores": target.cube_cores, "vector_cores": target.vector_cores,
         "clock_ghz": target.clock_ghz} if isinstance(target, AscendTarget) else None)
    rows = []
    for o in outcomes:
        rows.append({
            "config": o.config.label,
            "kernel": o.config.kernel,
            "params": dict(o.config.params),
            "num_stages": o.config.num_stages,
            "fits": o.fits,
            "rejected": o.rejected,
            "chosen": o is chosen,
            "cached": o.cached,
            "arena_bytes": o.arena_bytes,
            "registers": o.registers,
            "threads": o.threads,
            "flags": o.flags,
            "cycles_per_iteration": o.step,
            "block_cycles": o.cycles,
            "blocks": o.blocks,
            "machine": o.prediction.as_dict() if o.prediction else None,
            "kernel_cycles": o.prediction.cycles if o.prediction else None,
            "predicted_seconds": o.seconds,
        })
    calibration_fields = asdict(calibration)
    return {
        "format": JSON_FORMAT,
        "target": target.name,
        "model": {
            "description": calibration.describe(),
            "calibrated": calibration.source is not None,
            "calibration": calibration_fields,
            "machine": machine,
        },
        "chosen": chosen.config.label if chosen else None,
        "configurations": rows,
    }


class ProgressBar:
    """``tilepipe tune: [#####.....] 8/16 configurations`` redrawn in place on stderr.
    On when stderr is a terminal (so that logs and pipes stay clean) or when forced
    (``--progress``); never with ``-q``."""

    WIDTH = 30

    def __init__(self, enabled: bool, stream: TextIO | None = None):
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.drawn = False

    def update(self, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        filled = self.WIDTH * done // total
        bar = "#" * filled + "." * (self.WIDTH - filled)
        self.stream.write(f"\rtilepipe tune: [{bar}] {done}/{total} configurations")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        """End the bar's line, so that the table starts on a fresh one."""
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False


def progress_enabled(quiet: bool, forced: bool, stream: TextIO | None = None) -> bool:
    stream = stream or sys.stderr
    return not quiet and (forced or stream.isatty())
