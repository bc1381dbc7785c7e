"""``-o -`` is stdout in every driver, as in mlir-opt (it used to write a file named
'-', or '-.npz')."""

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
KERNEL = ROOT / "test/regressions/negative_wait_group.mlir"


@pytest.mark.parametrize(
    ("command", "starts"),
    [
        (["tile-opt", str(KERNEL), "-o", "-"], b"builtin.module"),
        (["tilepipe", "compile", str(KERNEL), "--emit", "nvvm", "--no-ptxas", "-q", "-o", "-"], b"module"),
        (["tile-run", str(KERNEL), "--index-arg", "n=2", "--quiet", "-o", "-"], b"PK"),  # an .npz archive
    ],
)
def test_dash_is_stdout(command, starts, tmp_path):
    result = subprocess.run(command, cwd=tmp_path, capture_output=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(starts)
    assert list(tmp_path.iterdir()) == []
