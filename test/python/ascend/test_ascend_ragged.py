"""Ascend kernels with dynamic sizes and ragged tails: a vector add and a
cube matmul, compiled by the Ascend pipeline and run in the pipe simulator, equal bit
for bit to the tile-level interpreter and free of races, deadlocks and flag misuse;
their AscendC passes the syntax check; the static examples keep their fast path."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tilepipe.lowering.ascend.ascendc import emit_ascendc, syntax_check
from tilepipe.core.flows import run_flow
from tilepipe.semantics import run_tile_kernel
from tilepipe.semantics.ascend.sim import run_ascend_kernel
from tilepipe.semantics.tile.grid_runner import load_module

INPUTS = Path(__file__).resolve().parents[2] / "ascend" / "Inputs"
VADD = (INPUTS / "vadd_dynamic.mlir").read_text()
MATMUL = (INPUTS / "matmul_dynamic.mlir").read_text()
VMAX_2D = (INPUTS / "vmax_2d_dynamic.mlir").read_text()


def _check(text: str, inputs: dict) -> None:
    expected = run_tile_kernel(text, inputs=inputs)
    module = load_module(text)
    run_flow(module, "ascend")
    report = run_ascend_kernel(module, inputs)
    assert report.ok, report.problems()
    for name, value in expected.items():
        np.testing.assert_array_equal(report.outputs[name], value, err_msg=name)


@pytest.mark.parametrize("n", [1, 15, 255, 256, 257, 1000])
def test_vector_add_with_a_ragged_tail(n):
    rng = np.random.default_rng(n)
    x, y = (rng.uniform(-1, 1, n).astype(np.float16) for _ in range(2))
    _check(VADD, {"x": x, "y": y, "z": np.zeros(n, np.float16)})


@pytest.mark.parametrize("n,n_out", [(520, 768), (513, 1024), (1, 300)])
def test_the_padding_of_a_ragged_ub_tile_reads_zero(n, n_out):
    """The output is longer than the inputs: the sum past the inputs' end is stored in
    bounds and must be 0 + 0, not what the UB slot held from an earlier tile (the
    DataCopyPad pads only to the 32-byte block)."""
    rng = np.random.default_rng(n)
    x, y = (rng.uniform(-1, 1, n).astype(np.float16) for _ in range(2))
    _check(VADD, {"x": x, "y": y, "z": np.full(n_out, 7, np.float16)})


@pytest.mark.parametrize(
    "m,n,out", [(40, 20, (48, 48)), (33, 48, (48, 48)), (1, 1, (16, 48)), (16, 47, (16, 48))]
)
def test_ragged_rows_and_columns_of_a_2d_ub_tile_read_zero(m, n, out):
    """Rows past the array (DataCopyPad writes none of them) and columns past a row's
    32-byte block read 0 as on the tile level."""
    rng = np.random.default_rng(m * n)
    x, y = (rng.uniform(-1, 1, (m, n)).astype(np.float16) for _ in range(2))
    _check(VMAX_2D, {"x": x, "y": y, "z": np.full(out, 7, np.float16)})


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (130, 129, 77), (15, 200, 129), (128, 128, 64)])
def test_matmul_with_ragged_tiles(m, n, k):
    rng = np.random.default_rng(m + n + k)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    inputs = {"A": a, "B": b, "C": np.zeros((m, n), np.float32)}
    _check(MATMUL, inputs)
    reference = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(
        run_tile_kernel(MATMUL, inputs=inputs)["C"], reference, atol=1e-3 * k**0.5
    )


@pytest.mark.parametrize("text", [VADD, MATMUL, VMAX_2D], ids=["vadd", "matmul", "vmax_2d"])
def test_ragged_kernels_print_valid_ascendc(text):
    module = load_module(text)
    run_flow(module, "ascend")
    source = emit_ascendc(module)
    assert "DataCopyPad" in source or "InitConstValue" in source
    result = syntax_check(source)
    assert result.returncode == 0, result.stderr


def test_a_static_kernel_keeps_the_unpredicated_copies():
    examples = Path(__file__).resolve().parents[3] / "examples"
    module = load_module((examples / "ascend_vadd.mlir").read_text())
    run_flow(module, "ascend")
    source = emit_ascendc(module)
    assert "DataCopyPad" not in source and "_valid" not in source
