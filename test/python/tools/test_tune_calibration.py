"""Calibration of the models (tilepipe/schedule_sim/calibration.py): the fit recovers
known constants from synthetic measurements, the file round-trips, ``tilepipe tune``
reads it (``--calibration FILE`` or the default location) and says which model it
used, and a file it cannot use is a one-line error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tilepipe.core.targets import SM_80, Latency
from tilepipe.drivers.cli import main
from tilepipe.drivers.tune import tune
from tilepipe.schedule_sim.calibration import (
    Calibration,
    CalibrationError,
    calibrated_target,
    fit_calibration,
    fit_time_scale,
    read_calibrations,
    write_calibrations,
)

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "gemm.mlir"
# Synthetic configurations: (bytes copied, FLOPs) per kernel.
WORK = [(4_000_000, 200_000_000), (8_000_000, 100_000_000), (1_000_000, 800_000_000),
        (6_000_000, 400_000_000), (2_000_000, 50_000_000)]


def synthetic_cycles(copy_scale: float, gemm_scale: float) -> list[int]:
    """A model whose cycles are the copy time plus the tensor time at scaled rates."""
    return [round(b / (16 * copy_scale) + f / (2048 * gemm_scale)) for b, f in WORK]


def test_the_time_scale_fit_recovers_a_line():
    cycles = [1000, 5000, 20000, 80000]
    seconds = [3e-6 + c * 0.7e-9 for c in cycles]
    slope, overhead, error = fit_time_scale(cycles, seconds)
    assert slope == pytest.approx(0.7e-9) and overhead == pytest.approx(3e-6) and error < 1e-9
    # One point: through the origin.
    assert fit_time_scale([1000], [2e-6])[:2] == (pytest.approx(2e-9), 0.0)


def test_the_fit_recovers_the_rate_scales_and_the_clock():
    truth = synthetic_cycles(1.41, 0.71)
    measured = [5e-6 + c * 0.8e-9 for c in truth]
    fitted = fit_calibration("sm_80", measured, synthetic_cycles, device="stand-in")
    assert (fitted.copy_rate_scale, fitted.gemm_rate_scale) == (1.41, 0.71)
    assert fitted.seconds_per_cycle == pytest.approx(0.8e-9, rel=1e-6)
    assert fitted.launch_overhead_s == pytest.approx(5e-6, rel=1e-3)
    assert fitted.points == 5 and fitted.relative_error < 1e-6 and fitted.device == "stand-in"
    with pytest.raises(CalibrationError, match="positive measured times"):
        fit_calibration("sm_80", [], synthetic_cycles)


def test_calibrated_rates_reach_the_target_record():
    faster = calibrated_target(SM_80, Calibration("sm_80", 1e-9, copy_rate_scale=2.0, gemm_rate_scale=0.5))
    assert faster.latencies["issue"] == Latency(1, 32) and faster.latencies["global_copy"] == Latency(400, 32)
    assert faster.latencies["gemm"] == Latency(20, 1024)
    assert faster.latencies["compute"] == SM_80.latencies["compute"] and faster.name == "sm_80"


def test_the_file_round_trips_and_keeps_other_targets(tmp_path):
    path = tmp_path / "sub" / "calibration.json"
    sm80 = Calibration("sm_80", 0.7e-9, 4e-6, 1.41, 0.71, "A100", 6, 0.05)
    write_calibrations(path, [sm80])
    write_calibrations(path, [Calibration("sm_90", 0.55e-9, device="H100")])
    data = json.loads(path.read_text())
    assert data["format"] == 1 and set(data["targets"]) == {"sm_80", "sm_90"}
    read = read_calibrations(path)
    assert read["sm_80"] == Calibration("sm_80", 0.7e-9, 4e-6, 1.41, 0.71, "A100", 6, 0.05, source=str(path))
    assert read["sm_90"].seconds(1000) == pytest.approx(0.55e-6)


@pytest.mark.parametrize("content, message", [
    (None, "cannot read calibration file"),
    ("{", "is not JSON"),
    ('{"format": 7, "targets": {}}', "is not a tilepipe calibration"),
    ('{"format": 1, "targets": {"sm_80": {"clock": 1}}}', "the entry of sm_80 is malformed"),
    ('{"format": 1, "targets": {"sm_80": {"seconds_per_cycle": -1}}}', "needs positive numbers"),
])
def test_a_file_that_cannot_be_used_is_one_line(tmp_path, capsys, content, message):
    path = tmp_path / "calibration.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(CalibrationError, match=message):
        read_calibrations(path)
    status = main(["tune", str(EXAMPLE), "--num-stages", "2", "--no-ptxas", "-j", "1",
                   "--calibration", str(path)])
    err = capsys.readouterr().err
    assert status == 1 and err.count("\n") == 1 and message in err and "Traceback" not in err
    assert err.startswith("tilepipe tune: error: ")


def _tune_cli(capsys, tmp_path, *extra) -> str:
    assert main(["tune", str(EXAMPLE), "--target", "sm_80", "--num-stages", "2", "--no-ptxas",
                 "-j", "1", "--no-cache", "-o", str(tmp_path / "k.mlir"), *extra]) == 0
    return capsys.readouterr().err


def test_the_model_line_says_which_model_was_used(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TILEPIPE_CACHE_DIR", str(tmp_path / "cache"))
    public = _tune_cli(capsys, tmp_path)
    assert "model: public peak figures for sm_80 (A100 SXM4, 108 SMs, 1.41 GHz)" in public
    path = tmp_path / "fitted.json"
    write_calibrations(path, [Calibration("sm_80", 1e-9, 2e-6, 2.0, 1.0, "A100")])
    calibrated = _tune_cli(capsys, tmp_path, "--calibration", str(path))
    assert f"model: calibrated from {path} (A100 SXM4, 108 SMs, 1.41 GHz)" in calibrated
    # The default location: calibration.json in the cache directory.
    write_calibrations(tmp_path / "cache" / "calibration.json", [Calibration("sm_80", 1e-9)])
    assert f"model: calibrated from {tmp_path / 'cache' / 'calibration.json'}" in _tune_cli(capsys, tmp_path)
    # A file without the target's entry, named explicitly, is an error.
    status = main(["tune", str(EXAMPLE), "--target", "sm_90", "--no-ptxas", "--calibration", str(path)])
    assert status == 1 and "has no entry for sm_90 (it has: sm_80)" in capsys.readouterr().err


def test_a_calibration_changes_the_prediction():
    kernel = [(str(EXAMPLE), EXAMPLE.read_text())]
    (public,) = tune(kernel, "sm_80", [2], run_ptxas=False, jobs=1)
    faster = Calibration("sm_80", 1e-9, 1e-6, copy_rate_scale=2.0, gemm_rate_scale=2.0, source="f")
    (fitted,) = tune(kernel, "sm_80", [2], run_ptxas=False, jobs=1, calibration=faster)
    assert fitted.cycles < public.cycles and fitted.demand < public.demand
    assert fitted.seconds == pytest.approx(1e-6 + fitted.kernel_cycles * 1e-9)
    assert public.seconds == pytest.approx(public.kernel_cycles / 1.41e9)
