"""An inner ``scf.for`` in a pipelined loop body that may run zero times, with m - i trips in outer iteration i: compiled in both index modes, it is
race-free, leaves nothing set and computes what the tile program computes for m = 0,
1, 2, 3 and 5; deleting any of its sync ops is reported (for m = 0, 1 or 3); its
AscendC passes the syntax check."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_ascend_pipeline import mutants

from tilepipe.core.flows import run_flow
from tilepipe.lowering.ascend.ascendc import emit_ascendc, syntax_check
from tilepipe.semantics import load_module, run_tile_kernel
from tilepipe.semantics.ascend.sim import run_ascend_kernel

TEXT = (Path(__file__).resolve().parents[2] / "ascend" / "Inputs" / "inner_loop.mlir").read_text()


def inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {
        "x": rng.uniform(-1, 1, 1024).astype(np.float32),
        "y": rng.uniform(-1, 1, 4096).astype(np.float32),
        "z": np.zeros(4096, np.float32),
    }


@pytest.mark.parametrize("index_mode", ["iteration", "counter"])
@pytest.mark.parametrize("m", [0, 1, 2, 3, 5])
def test_possibly_empty_inner_loop(m, index_mode):
    data = inputs()
    expected = run_tile_kernel(TEXT, inputs=data, index_args={"m": m})
    module = run_flow(load_module(TEXT), "ascend", options={"ascend-prepare-multi-buffer": f"index_mode={index_mode}"})
    report = run_ascend_kernel(module, data, {"m": m})
    assert report.ok, report.problems()
    for name, values in expected.items():
        np.testing.assert_array_equal(report.outputs[name], values, err_msg=name)
    assert syntax_check(emit_ascendc(module)).returncode == 0


def test_every_sync_around_and_in_the_inner_loop_is_needed():
    # Where the inner loop runs, its fences (pipe_barrier[ALL]) also order the code
    # around it; where it does not (m - i <= 0), only the syncs at its boundary do:
    # each sync is needed for some m.
    data = inputs()
    checked = 0
    for description, module in mutants(TEXT):
        reports = [run_ascend_kernel(module, data, {"m": m}) for m in (0, 1, 3)]
        assert not all(r.ok for r in reports), f"deleting {description} went unnoticed"
        checked += 1
    assert checked >= 6
