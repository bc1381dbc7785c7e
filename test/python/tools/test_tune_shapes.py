"""``tilepipe tune`` on kernels over dynamic shapes: ``--shape`` gives the
problem size the grid, the trip counts and both simulators are evaluated at, so
configurations are ranked for that problem; without it the kernel is rejected with
the argument that needs a size."""

from __future__ import annotations

from pathlib import Path

from tilepipe.drivers.cli import main
from tilepipe.drivers.tune import best, tune

ROOT = Path(__file__).resolve().parents[3]
GEMM = ROOT / "examples" / "gemm_dynamic.mlir"
VADD = ROOT / "test" / "ascend" / "Inputs" / "vadd_dynamic.mlir"


def _gemm(shapes, depths=(2, 3)):
    return tune([(str(GEMM), GEMM.read_text())], "sm_80", depths, run_ptxas=False, jobs=1,
                shapes=shapes)


def test_the_grid_and_the_trip_count_follow_the_given_shapes():
    small = _gemm({"A": (1000, 77), "B": (77, 129), "C": (1000, 129)})
    assert all(o.fits for o in small), [o.rejected for o in small]
    assert {o.blocks for o in small} == {2 * 8}  # ceildiv(129, 128) x ceildiv(1000, 128)
    deep_k = _gemm({"A": (1000, 1024), "B": (1024, 129), "C": (1000, 129)})
    # 16 K tiles instead of 2: more cycles per block, and the table ranks that problem.
    assert all(d.cycles > 4 * s.cycles for s, d in zip(small, deep_k))
    assert best(small) is not None and best(deep_k) is not None


def test_a_dynamic_kernel_without_shapes_is_rejected_with_the_argument():
    (outcome,) = _gemm(None, depths=(2,))
    assert not outcome.fits and "the shape of argument %B" in outcome.rejected


def test_the_command_line_takes_shapes_for_an_ascend_kernel(tmp_path, capsys):
    out = tmp_path / "chosen.mlir"
    status = main(["tune", str(VADD), "--target", "ascend", "--num-stages", "1-2", "-j", "1",
                   "--shape", "x=1000", "--shape", "y=1000", "--shape", "z=1000", "-o", str(out)])
    table = capsys.readouterr().err
    assert status == 0, table
    assert table.count(" fits") == 2 and "num_stages=1" in table
    assert "pipeline.for" in out.read_text()
