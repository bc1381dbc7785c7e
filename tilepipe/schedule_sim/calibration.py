"""Calibration of the cycle and machine models against measured kernel times
(docs/schedule_sim.md, "Calibration").

Without a calibration the models use the target record's public peak figures: its
per-SM rates and the clock its peak is quoted at.  ``scripts/gpu_check.py
--calibrate`` measures configurations on a GPU and fits, per target, four constants:

* ``copy_rate_scale`` and ``gemm_rate_scale``: factors on the record's copy bandwidth
  (``issue``, ``global_copy``) and tensor throughput (``gemm``) rates, chosen from a
  small grid by re-simulating every measured configuration at each pair;
* ``seconds_per_cycle`` and ``launch_overhead_s``: the line ``measured = overhead +
  predicted_cycles x seconds_per_cycle`` fitted by least squares on relative error
  (a 1 ms and a 10 µs kernel count alike), the overhead kept non-negative.

The fitted constants go to a JSON file (one entry per target, see
:func:`write_calibrations`) that ``tilepipe tune --calibration FILE`` reads.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

from tilepipe.core.targets import AscendTarget, CudaTarget, Latency

CALIBRATION_FORMAT = 1
# The rate factors tried per unit: halving to doubling, in steps of sqrt(2).
RATE_SCALES = (0.5, 0.71, 1.0, 1.41, 2.0)
_COPY_LATENCIES = ("issue", "global_copy")
_GEMM_LATENCIES = ("gemm",)


class CalibrationError(ValueError):
    """A calibration file that cannot be read or has no usable entry."""


@dataclass(frozen=True)
class Calibration:
    target: str
    seconds_per_cycle: float
    launch_overhead_s: float = 0.0
    copy_rate_scale: float = 1.0
    gemm_rate_scale: float = 1.0
    device: str = ""  # the GPU it was measured on
    points: int = 0  # measured configurations it was fitted to
    relative_error: float | None = None  # rms of (predicted - measured) / measured
    source: str | None = None  # the file it was read from (None: the public figures)

    def seconds(self, cycles: int) -> float:
        return self.launch_overhead_s + cycles * self.seconds_per_cycle

    def describe(self) -> str:
        """The model line of ``tilepipe tune``."""
        if self.source is None:
            return f"public peak figures for {self.target}"
        return f"calibrated from {self.source}"


def public_figures(target: CudaTarget | AscendTarget, clock_ghz: float | None) -> Calibration:
    """The uncalibrated model: the record's rates, cycles at its peak clock (one cycle
    per nanosecond where the record has no machine)."""
    return Calibration(target.name, 1e-9 / (clock_ghz or 1.0))


def calibrated_target(target: CudaTarget | AscendTarget, calibration: Calibration) -> CudaTarget | AscendTarget:
    """``target`` with its copy and tensor rates scaled (CUDA; an Ascend record is
    returned as it is: its calibration is a time scale only)."""
    if not isinstance(target, CudaTarget):
        return target
    scales = {key: calibration.copy_rate_scale for key in _COPY_LATENCIES}
    scales.update({key: calibration.gemm_rate_scale for key in _GEMM_LATENCIES})
    latencies = {
        key: Latency(lat.fixed, lat.rate * scales[key]) if lat.rate and key in scales else lat
        for key, lat in target.latencies.items()
    }
    return replace(target, latencies=latencies)


def fit_time_scale(cycles: Sequence[int], seconds: Sequence[float]) -> tuple[float, float, float]:
    """``(seconds_per_cycle, overhead_s, rms relative error)`` of ``seconds ~ overhead +
    cycles x seconds_per_cycle``, least squares on the relative residuals, overhead
    >= 0 (a single point, or a negative intercept, fits through the origin)."""
    weights = [1.0 / (m * m) for m in seconds]
    sw = sum(weights)
    swc = sum(w * c for w, c in zip(weights, cycles))
    swcc = sum(w * c * c for w, c in zip(weights, cycles))
    swm = sum(w * m for w, m in zip(weights, seconds))
    swcm = sum(w * c * m for w, c, m in zip(weights, cycles, seconds))
    determinant = sw * swcc - swc * swc
    slope = overhead = 0.0
    if len(seconds) > 1 and determinant > 1e-12 * sw * swcc:
        slope = (sw * swcm - swc * swm) / determinant
        overhead = (swm - slope * swc) / sw
    if overhead <= 0.0 or slope <= 0.0:
        slope, overhead = swcm / swcc, 0.0
    residuals = [(overhead + slope * c - m) / m for c, m in zip(cycles, seconds)]
    return slope, overhead, math.sqrt(sum(r * r for r in residuals) / len(residuals))


def fit_calibration(
    target: str, measured_s: Sequence[float], predict: Callable[[float, float], Sequence[int]],
    device: str = "", scales: Sequence[float] = RATE_SCALES,
) -> Calibration:
    """The constants that best explain ``measured_s``: for each (copy, gemm) rate scale,
    ``predict`` gives the model's kernel cycles of every measured configuration (in
    the same order), a time scale is fitted, and the pair with the least relative
    error wins (ties: the scales nearest 1)."""
    if not measured_s or any(m <= 0 for m in measured_s):
        raise CalibrationError("calibration needs positive measured times")
    best: tuple | None = None
    for copy_scale in scales:
        for gemm_scale in scales:
            cycles = list(predict(copy_scale, gemm_scale))
            if len(cycles) != len(measured_s) or min(cycles) <= 0:
                continue
            slope, overhead, error = fit_time_scale(cycles, measured_s)
            distance = abs(math.log(copy_scale)) + abs(math.log(gemm_scale))
            candidate = (round(error, 9), distance, copy_scale, gemm_scale, slope, overhead, error)
            if best is None or candidate[:2] < best[:2]:
                best = candidate
    if best is None:
        raise CalibrationError("the model predicted no configuration that was measured")
    _, _, copy_scale, gemm_scale, slope, overhead, error = best
    return Calibration(target, slope, overhead, copy_scale, gemm_scale, device,
                       len(measured_s), error)


def _entry(calibration: Calibration) -> dict:
    entry = asdict(calibration)
    del entry["target"], entry["source"]
    return entry


def write_calibrations(path: Path, calibrations: Iterable[Calibration]) -> None:
    """Write (or update: other targets' entries are kept) the calibration file:
    ``{"format": 1, "targets": {"sm_80": {"seconds_per_cycle": ..., ...}}}``."""
    existing: dict = {}
    if path.exists():
        try:
            existing = {c.target: _entry(c) for c in read_calibrations(path).values()}
        except CalibrationError:
            existing = {}  # a broken file is replaced
    existing.update({c.target: _entry(c) for c in calibrations})
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"format": CALIBRATION_FORMAT, "targets": existing}, indent=2, sort_keys=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as out:
        out.write(text + "\n")
    os.replace(out.name, path)


def read_calibrations(path: Path) -> dict[str, Calibration]:
    """Every target's calibration in ``path``; an unreadable or malformed file is a
    :class:`CalibrationError` that says what is wrong."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as err:
        raise CalibrationError(f"cannot read calibration file '{path}': {err.strerror or err}") from None
    except json.JSONDecodeError as err:
        raise CalibrationError(f"calibration file '{path}' is not JSON: {err}") from None
    if not isinstance(data, dict) or data.get("format") != CALIBRATION_FORMAT or not isinstance(data.get("targets"), dict):
        raise CalibrationError(
            f"calibration file '{path}' is not a tilepipe calibration (format {CALIBRATION_FORMAT}: "
            '{"format": 1, "targets": {"sm_80": {"seconds_per_cycle": ...}}})')
    known = {f.name for f in fields(Calibration)} - {"target", "source"}
    found: dict[str, Calibration] = {}
    for target, entry in data["targets"].items():
        if not isinstance(entry, dict) or set(entry) - known or "seconds_per_cycle" not in entry:
            raise CalibrationError(f"calibration file '{path}': the entry of {target} is malformed")
        try:
            calibration = Calibration(target, source=str(path), **entry)
            if not calibration.seconds_per_cycle > 0 or not calibration.copy_rate_scale > 0 \
                    or not calibration.gemm_rate_scale > 0:
                raise TypeError
        except TypeError:
            raise CalibrationError(
                f"calibration file '{path}': the entry of {target} needs positive numbers") from None
        found[target] = calibration
    return found
