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


@pytest.mark.parametrize("name", ["gemm", "elementwise_add", "row_softmax", "flash_attention",
                                  "gemm_epilogue", "ascend_vadd", "quickstart"])
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


def test_gemm_epilogue_race_free_and_reuses_the_staging_bytes():
    """bias + ReLU in one T.Parallel loop; C_shared, live only after the loop, lies in
    the staging buffers' bytes (arena 64 KiB, not 96: examples/gemm_epilogue.mlir's
    reuse), and the scheduled kernel is race free with that reuse."""
    example = load("gemm_epilogue")
    kernel = tilepipe.compile(example.gemm_bias_relu(128, 128, 256), out_idx=[-1])
    a, b, bias = example.inputs(128, 128, 256, seed=2)
    c = kernel(a, b, bias, check_races=True)
    want = example.reference(a, b, bias)
    np.testing.assert_allclose(c.astype(np.float32), want.astype(np.float32), rtol=2e-3, atol=2e-3)
    assert "arena: 65536 bytes" in kernel.summary
    assert "tile.broadcast<128x128>" in kernel.mlir() and "tile.max<128x128>" in kernel.mlir()


def test_ascend_vadd_through_the_ascend_flow_race_free():
    """ascend910b: UB buffers double-buffered by the ascend-* passes (two versions
    each), AscendC printed, and the scheduled ascend-level kernel run in the pipe
    simulator without races, deadlocks or flag errors; the IR is examples/ascend_vadd.mlir's."""
    example = load("ascend_vadd")
    kernel = tilepipe.compile(example.vadd(1024), out_idx=[-1], target="ascend910b")
    assert "versions: x_ub x2, y_ub x2, z_ub x2" in kernel.summary
    assert "__aicore__" in kernel.get_kernel_source()
    ir = kernel.mlir()
    assert "tile.add<256> %x_ub, %y_ub -> %z_ub" in ir and '"ub">' in ir and "tile.threads" not in ir
    x = np.arange(1024).astype(np.float16)
    y = np.full(1024, 0.5, np.float16)
    np.testing.assert_array_equal(kernel(x, y, check_races=True), x + y)


def test_ascend_race_check_reports_a_broken_schedule(monkeypatch):
    """check_races on Ascend really runs the pipe simulator: with ascend-insert-sync
    disabled the same kernel races between the pipes."""
    from tilepipe.semantics.tile.grid_runner import RaceError

    example = load("ascend_vadd")
    kernel = tilepipe.compile(example.vadd(1024), out_idx=[-1], target="ascend910b")
    x = np.ones(1024, np.float16)
    from tilepipe.semantics.ascend import sim

    real = sim.run_ascend_kernel

    def without_flags(module, inputs, *args, **kwargs):
        for op in list(module.walk()):
            if op.name in ("ascend.set_flag", "ascend.wait_flag"):
                op.detach()
                op.erase()
        return real(module, inputs, *args, **kwargs)

    monkeypatch.setattr(sim, "run_ascend_kernel", without_flags)
    with pytest.raises(RaceError):
        kernel(x, x, check_races=True)


def test_row_softmax_race_free_after_scheduling():
    example = load("row_softmax")
    kernel = tilepipe.compile(example.row_softmax(64, 64), out_idx=[-1])
    x = np.random.default_rng(9).uniform(-4, 4, (64, 64)).astype(np.float32)
    np.testing.assert_allclose(kernel(x, check_races=True), example.reference(x), rtol=1e-5, atol=1e-6)


def test_quickstart_has_no_register_warning_and_ptxas_agrees():
    """The ReLU's zero is a constant splat, not 128 more registers per thread: no
    spill warning, and ptxas fits the kernel in the registers it has."""
    example = load("quickstart")
    with_ptxas = tilepipe.jit(run_ptxas=True)(example.matmul_relu.__wrapped__)
    kernel = with_ptxas.compile(M=256, N=256, K=128)
    assert "warning" not in kernel.summary
    assert "ptxas" in kernel.summary and "accepted" in kernel.summary


def test_torch_tensors_in_torch_tensors_out():
    torch = pytest.importorskip("torch")
    example = load("quickstart")
    a = torch.rand(128, 64, dtype=torch.float16)
    b = torch.rand(64, 128, dtype=torch.float16)
    c = example.matmul_relu(a, b, block_M=64, block_N=64, block_K=32)
    assert isinstance(c, torch.Tensor) and c.shape == (128, 128)
    torch.testing.assert_close(c, torch.relu(a.float() @ b.float()), rtol=1e-3, atol=1e-3)


def test_row_softmax_on_ascend_race_free_and_equal_to_numpy():
    """The same Python kernel for ascend910b: its buffers in UB, the reductions and
    the division on the vector unit, run in the pipe simulator."""
    example = load("row_softmax")
    kernel = tilepipe.compile(example.row_softmax(64, 64), out_idx=[-1], target="ascend910b")
    source = kernel.get_kernel_source()
    assert "BlockReduceMax" in source and "Div" in source
    x = np.random.default_rng(4).uniform(-4, 4, (64, 64)).astype(np.float32)
    np.testing.assert_allclose(kernel(x, check_races=True), example.reference(x), rtol=1e-5, atol=1e-6)
