"""The Python examples (examples/python/*.py) compile through the full flow and
equal numpy in the interpreter; their scheduled kernels are race free."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import tilepipe

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "python"


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"tl_example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["gemm", "elementwise_add", "row_softmax", "flash_attention"])
def test_example_main_equals_numpy(name):
    load(name).main()  # each main asserts against numpy


def test_elementwise_add_race_free_after_scheduling():
    example = load("elementwise_add")
    kernel = tilepipe.compile(example.elementwise_add(64, 128), out_idx=[-1])
    a = np.full((64, 128), 1.5, np.float16)
    b = np.full((64, 128), -0.25, np.float16)
    np.testing.assert_array_equal(kernel(a, b, check_races=True), np.full((64, 128), 1.25, np.float16))


def test_gemm_race_free_after_scheduling_and_boundary_free():
    example = load("gemm")
    kernel = tilepipe.compile(example.matmul(128, 128, 256), out_idx=[-1])
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (128, 256)).astype(np.float16)
    b = rng.uniform(-1, 1, (256, 128)).astype(np.float16)
    c = kernel(a, b, check_races=True)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3, atol=1e-3)
    assert ".entry" in kernel.get_kernel_source()  # the PTX
    assert "tile.gemm<128x128x64>" in kernel.mlir()
