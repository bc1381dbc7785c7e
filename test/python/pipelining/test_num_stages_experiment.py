"""The chapter's §7 experiment (examples/num_stages_ir_diff): the observations A-D at
num_stages 1-4 are what §7.3 predicts, and the trace and diffs are written."""

import subprocess
import sys

from conftest import ROOT

SCRIPT = ROOT / "examples" / "num_stages_ir_diff" / "run.py"


def test_observations(tmp_path):
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import run as experiment
    finally:
        sys.path.pop(0)
    observations = {n: experiment.observe(n, tmp_path, "sm_80") for n in (1, 2, 3, 4)}
    # A: TileLang's plans (stage arrays); depth = num_stages.
    assert observations[1]["A"] == {"stage": [0, 0, 1], "order": [1, 2, 0], "depth": 1}
    assert observations[2]["A"] == {"stage": [0, 0, 1], "order": [0, 1, 2], "depth": 2}
    assert observations[3]["A"] == {"stage": [0, 0, 2], "order": [0, 1, 2], "depth": 3}
    assert observations[4]["A"] == {"stage": [0, 0, 3], "order": [0, 1, 2], "depth": 4}
    # B: versions = use - def + 1 (tightened to 1 at num_stages 1: gemm before copies).
    for n in (1, 2, 3, 4):
        assert observations[n]["B"] == {"A_s": n, "B_s": n}
    # C: one barrier per iteration from depth 2 on; the wait lets depth-2 groups fly.
    assert observations[1]["C"]["barriers_in_steady_state"] == 2
    for n in (2, 3, 4):
        assert observations[n]["C"]["barriers_in_steady_state"] == 1
        assert observations[n]["C"]["wait_groups"] == [n - 2, 0]
    # D: the per-pass trace.
    assert sorted(p.name for p in (tmp_path / "ns3").iterdir()) == [
        "0-input.mlir",
        "1-pipeline-planning.mlir",
        "2-inject-software-pipeline.mlir",
        "3-merge-shared-memory.mlir",
        "4-async-copy.mlir",
        "5-thread-sync.mlir",
    ]


def test_script_writes_diffs(tmp_path):
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--num-stages", "2", "3", "--out", str(tmp_path)],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "num_stages = 3" in result.stdout
    diff = (tmp_path / "diff-ns2-ns3.diff").read_text()
    assert "-    %A_s = memref.view" in diff and "3x128x64xf16" in diff
