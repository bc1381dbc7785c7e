"""The equivalence harness and the tile-run CLI."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tilepipe.drivers.run import EXIT_ERROR, EXIT_MISMATCH, EXIT_RACE, main
from tilepipe.semantics.testing import assert_equivalent

SEMANTICS = Path(__file__).resolve().parents[2] / "semantics"
SEQUENTIAL = (SEMANTICS / "Inputs" / "sequential.mlir").read_text()
DOUBLE_BUFFER = (SEMANTICS / "Inputs" / "double_buffer.mlir").read_text()
TRIP_COUNTS = (0, 1, 2, 3, 17)


@pytest.mark.parametrize("scheduled", ["double_buffer.mlir", "bulk_copy.mlir"])
def test_scheduled_loops_equal_the_sequential_loop(scheduled):
    text = (SEMANTICS / "Inputs" / scheduled).read_text()
    assert_equivalent(SEQUENTIAL, text, trip_counts=TRIP_COUNTS, seeds=(0, 1))


def test_a_wrong_slot_is_caught_with_the_first_difference():
    wrong = DOUBLE_BUFFER.replace(
        "tile.gemm<64x32x32> %A_s[%slot,", "tile.gemm<64x32x32> %A_s[%c0,"
    )
    assert_equivalent(SEQUENTIAL, wrong, trip_counts=(0, 1))  # slot 0 is right there
    with pytest.raises(AssertionError, match=r"trip count 2, seed 0: outputs differ: %C\["):
        assert_equivalent(SEQUENTIAL, wrong, trip_counts=TRIP_COUNTS)


def test_make_variant_specializes_the_trip_count():
    def make_variant(text, trip_count):
        return text.replace(", %n: index)", ")").replace(
            "%c0 = arith.constant 0 : index",
            f"%c0 = arith.constant 0 : index\n  %n = arith.constant {trip_count} : index",
        )

    assert_equivalent(SEQUENTIAL, DOUBLE_BUFFER, trip_counts=(2, 5), make_variant=make_variant)


def _run(*argv, capsys):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_tile_run_saves_and_reads_npz(tmp_path, capsys):
    inputs = tmp_path / "in.npz"
    outputs = tmp_path / "out.npz"
    A = np.full((1088, 32), 0.5, np.float16)
    B = np.eye(32, dtype=np.float16)
    C = np.zeros((64, 32), np.float32)
    np.savez(inputs, A=A, B=B, C=C)
    code, _, err = _run(
        SEMANTICS / "Inputs" / "double_buffer.mlir", "-i", inputs, "-o", outputs,
        "--index-arg", "n=3", capsys=capsys,
    )
    assert code == 0, err
    with np.load(outputs) as result:
        np.testing.assert_array_equal(result["C"], np.full((64, 32), 1.5, np.float32))


def test_tile_run_exit_statuses(tmp_path, capsys):
    wrong = tmp_path / "wrong.mlir"
    wrong.write_text(DOUBLE_BUFFER.replace("%A_s[%slot,", "%A_s[%c0,"))
    code, _, err = _run(
        wrong, "--compare-with", SEMANTICS / "Inputs" / "sequential.mlir",
        "--index-arg", "n=3", capsys=capsys,
    )
    assert code == EXIT_MISMATCH
    assert "outputs differ: %C[" in err and "wrong.mlir" in err
    code, _, err = _run(SEMANTICS / "slot-reuse.mlir", "--check-races", "--index-arg", "n=3", "--quiet", capsys=capsys)
    assert code == EXIT_RACE and "race (WAR)" in err
    code, _, err = _run(SEMANTICS / "slot-reuse.mlir", "--index-arg", "n", capsys=capsys)
    assert code == EXIT_ERROR and "expected NAME=INTEGER" in err  # a usage error
    code, _, err = _run(tmp_path / "missing.mlir", capsys=capsys)
    assert code == EXIT_ERROR and "No such file" in err


def test_tile_run_is_installed():
    result = subprocess.run(
        [Path(sys.executable).parent / "tile-run", SEMANTICS / "waw.mlir", "-f", "correct"],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("%A: 64x32xf16\n")
