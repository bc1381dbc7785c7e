"""What ``tilepipe tune`` shows a user: the table's machine-model columns, ``--json``
(every field, the pick, the model), ``--svg`` (a well-formed chart with occupancy and
waves), the progress bar (a terminal, ``--progress``, never ``-q``), and one-line
errors for an executor that cannot run."""

from __future__ import annotations

import io
import json
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from tilepipe.drivers.cli import main
from tilepipe.drivers.tune_executors import ExecutorError, run_jobs
from tilepipe.drivers.tune_report import ProgressBar, progress_enabled

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "gemm_tune.mlir"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """One tune of the example (4 tile shapes x depths 2 and 6, no ptxas) with every
    output: (stderr, JSON report, SVG root)."""
    folder = tmp_path_factory.mktemp("tune")
    capture = io.StringIO()
    saved, sys.stderr = sys.stderr, capture
    try:
        status = main(["tune", str(EXAMPLE), "--target", "sm_80", "--num-stages", "2,6", "--no-ptxas",
                       "-j", "2", "--no-cache", "--json", str(folder / "t.json"),
                       "--svg", str(folder / "t.svg"), "-o", str(folder / "k.mlir")])
    finally:
        sys.stderr = saved
    assert status == 0, capture.getvalue()
    return (capture.getvalue(), json.loads((folder / "t.json").read_text()),
            ElementTree.parse(folder / "t.svg").getroot())


def test_the_table_shows_occupancy_and_waves(reports):
    err, _, _ = reports
    lines = err.splitlines()
    header = lines[0]
    for column in ("block cyc", "blocks", "occupancy", "waves", "kernel cyc", "µs"):
        assert column in header
    row = next(line for line in lines if "block_M=128 block_K=64 num_stages=2 " in line)
    # 64 KiB arena: 2 per SM by shared memory; 64 blocks in one wave, 44 SMs idle.
    assert " 2/SM smem " in row and " 1, 44 idle " in row
    assert "model: public peak figures for sm_80" in err
    assert "8 configurations, 8 evaluated, 0 from the cache" in err
    assert "\r" not in err  # no progress bar: stderr is not a terminal


def test_the_json_report_has_every_field(reports):
    _, report, _ = reports
    assert report["format"] == 1 and report["target"] == "sm_80"
    assert report["model"]["calibrated"] is False
    assert report["model"]["description"] == "public peak figures for sm_80"
    assert report["model"]["machine"]["count"] == 108
    rows = report["configurations"]
    assert len(rows) == 8 and sum(row["chosen"] for row in rows) == 1
    chosen = next(row for row in rows if row["chosen"])
    assert report["chosen"] == chosen["config"] and chosen["fits"]
    fitting = [row for row in rows if row["fits"]]
    assert chosen["kernel_cycles"] == min(row["kernel_cycles"] for row in fitting)
    for row in fitting:
        machine = row["machine"]
        for field in ("blocks_per_processor", "limiter", "waves", "idle_in_last_wave",
                      "last_wave_fill", "block_cycles", "demand_cycles", "cycles"):
            assert field in machine
        assert machine["cycles"] == row["kernel_cycles"] and row["predicted_seconds"] > 0
        assert row["params"].keys() == {"block_M", "block_K"} and row["threads"] == 128
    rejected = [row for row in rows if not row["fits"]]
    assert rejected and all(row["machine"] is None and "exceeds" in row["rejected"] for row in rejected)


def test_the_svg_chart_is_well_formed(reports):
    _, report, root = reports
    assert root.tag == f"{SVG}svg"
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    for row in report["configurations"]:
        assert any(row["config"] in text for text in texts)
    notes = [t for t in texts if "/SM " in t and "wave" in t]
    assert len(notes) == sum(row["fits"] for row in report["configurations"])
    assert any("44 SMs idle" in t for t in notes)
    assert sum("rejected: " in t for t in texts) == sum(not row["fits"] for row in report["configurations"])
    assert any(t.startswith("* ") for t in texts)  # the pick
    assert len(list(root.iter(f"{SVG}rect"))) >= len(notes)  # a bar of waves each


def test_the_progress_bar():
    stream = io.StringIO()
    bar = ProgressBar(True, stream)
    bar.update(0, 4)
    bar.update(4, 4)
    bar.close()
    assert stream.getvalue() == (
        "\rtilepipe tune: [" + "." * 30 + "] 0/4 configurations"
        "\rtilepipe tune: [" + "#" * 30 + "] 4/4 configurations\n"
    )
    quiet = io.StringIO()
    ProgressBar(False, quiet).update(1, 2)
    assert quiet.getvalue() == ""

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert progress_enabled(quiet=False, forced=False, stream=Terminal())
    assert not progress_enabled(quiet=False, forced=False, stream=io.StringIO())
    assert progress_enabled(quiet=False, forced=True, stream=io.StringIO())
    assert not progress_enabled(quiet=True, forced=True, stream=Terminal())


def test_forced_progress_and_quiet(tmp_path, capsys):
    args = ["tune", str(EXAMPLE), "--num-stages", "2", "--no-ptxas", "-j", "1", "-o", str(tmp_path / "k")]
    assert main([*args, "--progress", "--no-cache"]) == 0
    err = capsys.readouterr().err
    assert "\rtilepipe tune: [" in err and "] 4/4 configurations\n" in err
    assert main([*args, "-q", "--progress", "--json", "-"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and json.loads(captured.out)["chosen"]


def test_executor_errors_are_one_line(tmp_path, capsys, monkeypatch):
    assert main(["tune", str(EXAMPLE), "--executor", "dask"]) == 1  # a usage error
    assert "argument --executor: invalid choice: 'dask' (choose from 'local', 'ray')" in capsys.readouterr().err
    with pytest.raises(ExecutorError, match="unknown executor 'dask'"):
        run_jobs([1], abs, "dask")
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    status = main(["tune", str(EXAMPLE), "--num-stages", "2", "--no-ptxas", "--no-cache", "--executor", "ray"])
    err = capsys.readouterr().err
    assert status == 1 and err.count("\n") == 1
    assert err.startswith("tilepipe tune: error: --executor ray needs Ray, which is not installed: "
                          "pip install 'tilepipe[ray]'")
