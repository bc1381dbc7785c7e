"""``tile.div``, ``tile.cast``, ``tile.reduce``, UB -> UB ``tile.copy`` and the
converting move out of L0C on Ascend, end to end: compiled for ascend910b at 1-3
pipeline stages, run in the pipe simulator race and deadlock free, bit for bit
equal to the tile level, printed as AscendC that passes the syntax check.  Kernels:
a row softmax, an RMS norm, a column sum, casts, and a cube GEMM writing f16
through the fixpipe.
"""

from __future__ import annotations

import numpy as np
import pytest

from tilepipe.core.flows import run_flow
from tilepipe.dialects.ascend_reduce_plan import reduce_plan
from tilepipe.lowering.ascend.ascendc import emit_ascendc, syntax_check
from tilepipe.semantics import load_module, numerics, run_tile_kernel
from tilepipe.semantics.ascend.conversions import fixpipe_convert, run_reduce_plan
from tilepipe.semantics.ascend.sim import run_ascend_kernel

# Row softmax of 8-row blocks: max, x - max, exp, sum, / sum.
SOFTMAX = """
func.func @softmax(%x: memref<64x64xT>, %y: memref<64x64xT>) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %x_ub = memref.alloc() : memref<8x64xT, "ub">
  %m_ub = memref.alloc() : memref<8xT, "ub">
  %b_ub = memref.alloc() : memref<8x64xT, "ub">
  %s_ub = memref.alloc() : memref<8xT, "ub">
  %y_ub = memref.alloc() : memref<8x64xT, "ub">
  pipeline.for %i = %c0 to %c8 step %c1 num_stages = STAGES {
    %off = arith.muli %i, %c8 : index
    tile.copy<8x64> %x[%off, %c0] -> %x_ub : memref<64x64xT> -> memref<8x64xT, "ub">
    tile.reduce<8x64> max %x_ub -> %m_ub axis 1 : memref<8x64xT, "ub"> -> memref<8xT, "ub">
    tile.broadcast<8x64> %m_ub -> %b_ub axis 1 : memref<8xT, "ub"> -> memref<8x64xT, "ub">
    tile.sub<8x64> %x_ub, %b_ub -> %y_ub : memref<8x64xT, "ub">, memref<8x64xT, "ub"> -> memref<8x64xT, "ub">
    tile.exp<8x64> %y_ub -> %y_ub : memref<8x64xT, "ub"> -> memref<8x64xT, "ub">
    tile.reduce<8x64> sum %y_ub -> %s_ub axis 1 : memref<8x64xT, "ub"> -> memref<8xT, "ub">
    tile.broadcast<8x64> %s_ub -> %b_ub axis 1 : memref<8xT, "ub"> -> memref<8x64xT, "ub">
    tile.div<8x64> %y_ub, %b_ub -> %y_ub : memref<8x64xT, "ub">, memref<8x64xT, "ub"> -> memref<8x64xT, "ub">
    tile.copy<8x64> %y_ub -> %y[%off, %c0] : memref<8x64xT, "ub"> -> memref<64x64xT>
  }
  func.return
}
"""

# RMS norm of 8-row blocks of f16: widen, x * x, row sum, * 1/64, rsqrt, x * r, narrow.
RMS_NORM = """
func.func @rms_norm(%x: memref<64x64xf16>, %y: memref<64x64xf16>) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %inv_n = arith.constant 1.562500e-02 : f32
  %h_ub = memref.alloc() : memref<8x64xf16, "ub">
  %x_ub = memref.alloc() : memref<8x64xf32, "ub">
  %q_ub = memref.alloc() : memref<8x64xf32, "ub">
  %s_ub = memref.alloc() : memref<8xf32, "ub">
  %n_ub = memref.alloc() : memref<8xf32, "ub">
  %y_ub = memref.alloc() : memref<8x64xf16, "ub">
  pipeline.for %i = %c0 to %c8 step %c1 num_stages = STAGES {
    %off = arith.muli %i, %c8 : index
    tile.copy<8x64> %x[%off, %c0] -> %h_ub : memref<64x64xf16> -> memref<8x64xf16, "ub">
    tile.cast<8x64> %h_ub -> %x_ub : memref<8x64xf16, "ub"> -> memref<8x64xf32, "ub">
    tile.mul<8x64> %x_ub, %x_ub -> %q_ub : memref<8x64xf32, "ub">, memref<8x64xf32, "ub"> -> memref<8x64xf32, "ub">
    tile.reduce<8x64> sum %q_ub -> %s_ub axis 1 : memref<8x64xf32, "ub"> -> memref<8xf32, "ub">
    tile.fill<8> %inv_n -> %n_ub : f32 -> memref<8xf32, "ub">
    tile.mul<8> %s_ub, %n_ub -> %s_ub : memref<8xf32, "ub">, memref<8xf32, "ub"> -> memref<8xf32, "ub">
    tile.rsqrt<8> %s_ub -> %s_ub : memref<8xf32, "ub"> -> memref<8xf32, "ub">
    tile.broadcast<8x64> %s_ub -> %q_ub axis 1 : memref<8xf32, "ub"> -> memref<8x64xf32, "ub">
    tile.mul<8x64> %x_ub, %q_ub -> %x_ub : memref<8x64xf32, "ub">, memref<8x64xf32, "ub"> -> memref<8x64xf32, "ub">
    tile.cast<8x64> %x_ub -> %y_ub : memref<8x64xf32, "ub"> -> memref<8x64xf16, "ub">
    tile.copy<8x64> %y_ub -> %y[%off, %c0] : memref<8x64xf16, "ub"> -> memref<64x64xf16>
  }
  func.return
}
"""

# Column sums and maxima of 16x32 blocks (axis 0), f16 through f32 and back; a UB ->
# UB copy; f32 -> i32 toward zero.
COLUMNS = """
func.func @columns(%x: memref<64x32xf16>, %s: memref<4x32xf16>, %m: memref<4x32xf16>, %t: memref<64x32xi32>) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %x_ub = memref.alloc() : memref<16x32xf16, "ub">
  %c_ub = memref.alloc() : memref<16x32xf16, "ub">
  %w_ub = memref.alloc() : memref<16x32xf32, "ub">
  %t_ub = memref.alloc() : memref<16x32xi32, "ub">
  %s_ub = memref.alloc() : memref<32xf16, "ub">
  %m_ub = memref.alloc() : memref<32xf16, "ub">
  pipeline.for %i = %c0 to %c4 step %c1 num_stages = STAGES {
    %off = arith.muli %i, %c16 : index
    tile.copy<16x32> %x[%off, %c0] -> %x_ub : memref<64x32xf16> -> memref<16x32xf16, "ub">
    tile.copy<16x32> %x_ub -> %c_ub : memref<16x32xf16, "ub"> -> memref<16x32xf16, "ub">
    tile.reduce<16x32> sum %c_ub -> %s_ub axis 0 : memref<16x32xf16, "ub"> -> memref<32xf16, "ub">
    tile.reduce<16x32> max %c_ub -> %m_ub axis 0 : memref<16x32xf16, "ub"> -> memref<32xf16, "ub">
    tile.cast<16x32> %x_ub -> %w_ub : memref<16x32xf16, "ub"> -> memref<16x32xf32, "ub">
    tile.cast<16x32> %w_ub -> %t_ub : memref<16x32xf32, "ub"> -> memref<16x32xi32, "ub">
    tile.copy<32> %s_ub -> %s[%i, %c0] : memref<32xf16, "ub"> -> memref<4x32xf16>
    tile.copy<32> %m_ub -> %m[%i, %c0] : memref<32xf16, "ub"> -> memref<4x32xf16>
    tile.copy<16x32> %t_ub -> %t[%off, %c0] : memref<16x32xi32, "ub"> -> memref<64x32xi32>
  }
  func.return
}
"""

# A cube GEMM whose f32 accumulator leaves L0C as f16 through the fixpipe.
GEMM_F16 = """
func.func @gemm(%A: memref<32x128xf16>, %B: memref<128x32xf16>, %C: memref<32x32xf16>)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.000000e+00 : f32
  %a_l1 = memref.alloc() : memref<32x32xf16, "l1">
  %b_l1 = memref.alloc() : memref<32x32xf16, "l1">
  %a_l0a = memref.alloc() : memref<32x32xf16, "l0a">
  %b_l0b = memref.alloc() : memref<32x32xf16, "l0b">
  %c_l0c = memref.alloc() : memref<32x32xf32, "l0c">
  tile.fill<32x32> %zero -> %c_l0c : f32 -> memref<32x32xf32, "l0c">
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = STAGES {
    %k0 = arith.muli %k, %c32 : index
    tile.copy<32x32> %A[%c0, %k0] -> %a_l1 : memref<32x128xf16> -> memref<32x32xf16, "l1">
    tile.copy<32x32> %B[%k0, %c0] -> %b_l1 : memref<128x32xf16> -> memref<32x32xf16, "l1">
    tile.copy<32x32> %a_l1 -> %a_l0a : memref<32x32xf16, "l1"> -> memref<32x32xf16, "l0a">
    tile.copy<32x32> %b_l1 -> %b_l0b : memref<32x32xf16, "l1"> -> memref<32x32xf16, "l0b">
    tile.gemm<32x32x32> %a_l0a, %b_l0b -> %c_l0c : memref<32x32xf16, "l0a">, memref<32x32xf16, "l0b"> -> memref<32x32xf32, "l0c">
  }
  tile.cast<32x32> %c_l0c -> %C : memref<32x32xf32, "l0c"> -> memref<32x32xf16>
  func.return
}
"""


def _inputs(text: str, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    kernel = next(op for op in load_module(text).walk() if op.name == "func.func")
    arrays = {}
    for arg in kernel.body.block.args:
        shape = arg.type.get_shape()
        element = str(arg.type.element_type)
        dtype = {"f16": np.float16, "f32": np.float32, "i32": np.int32}[element]
        # Wide dynamic range: a sum in another order would differ in the last bits.
        values = rng.standard_normal(shape) * np.exp2(rng.integers(-6, 7, shape))
        arrays[arg.name_hint] = values.astype(dtype)
    return arrays


def _check(text: str, seed: int = 0, calls: tuple[str, ...] = ()) -> None:
    module = run_flow(load_module(text), "ascend")
    inputs = _inputs(text, seed)
    expected = run_tile_kernel(text, inputs={k: v.copy() for k, v in inputs.items()})
    report = run_ascend_kernel(module, {k: v.copy() for k, v in inputs.items()})
    assert report.ok, report.problems()
    for name, values in expected.items():
        np.testing.assert_array_equal(report.outputs[name], values, err_msg=name)
    source = emit_ascendc(module)
    result = syntax_check(source)
    assert result.returncode == 0, result.stderr
    for call in calls:
        assert call in source, call


@pytest.mark.parametrize("num_stages", [1, 2, 3])
def test_row_softmax(num_stages):
    text = SOFTMAX.replace("xT", "xf32").replace("STAGES", str(num_stages))
    _check(text, calls=("BlockReduceMax(", "BlockReduceSum(", "Brcb(", "Div(", "BinaryRepeatParams("))


@pytest.mark.parametrize("num_stages", [1, 2, 3])
def test_rms_norm(num_stages):
    _check(RMS_NORM.replace("STAGES", str(num_stages)),
           calls=("RoundMode::CAST_NONE", "RoundMode::CAST_RINT", "SetSaturationFlag"))


@pytest.mark.parametrize("num_stages", [1, 2, 3])
def test_column_reductions_casts_and_local_copy(num_stages):
    _check(COLUMNS.replace("STAGES", str(num_stages)), seed=num_stages,
           calls=("RoundMode::CAST_TRUNC", "AscendC::DataCopy(c_ub"))


@pytest.mark.parametrize("num_stages", [1, 2, 3])
def test_gemm_writes_f16_through_the_fixpipe(num_stages):
    text = GEMM_F16.replace("STAGES", str(num_stages))
    module = run_flow(load_module(text), "ascend")
    assert any(op.name == "ascend.fixpipe" for op in module.walk())
    _check(text, calls=("QuantMode_t::F322F16",))


def test_fixpipe_saturation_is_reported():
    """The 910B fixpipe saturates what tile.cast makes inf/NaN: the simulator computes
    the hardware's value and reports the difference instead of passing silently."""
    text = GEMM_F16.replace("STAGES", "2")
    inputs = _inputs(text, 0)
    inputs["A"][0, 0] = np.float16(60000.0)
    inputs["B"][0, :] = np.float16(60000.0)
    report = run_ascend_kernel(run_flow(load_module(text), "ascend"), inputs)
    assert report.numerics and not report.ok
    values, differing = fixpipe_convert(np.array([1e6, -np.inf, np.nan, 1.5], np.float32), np.dtype(np.float16))
    assert values.tolist() == [65504.0, -65504.0, 0.0, 1.5] and differing == 3


@pytest.mark.parametrize("shape, axis", [((16, 64), 1), ((3, 256), 1), ((9, 392), 1), ((200,), 0),
                                         ((24, 16), 0), ((300, 8), 0), ((1, 16), 0), ((7, 24), 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_reduce_plans_add_in_the_tile_order(shape, axis, dtype):
    """The plan's vector calls (strided adds, block trees, splits) reproduce
    numerics.reduce_sum bit for bit on data where the order shows."""
    rng = np.random.default_rng(len(shape) * 100 + shape[0])
    x = (rng.standard_normal(shape) * np.exp(rng.uniform(-8, 8, shape))).astype(dtype)
    narrow = dtype == np.float16
    plan = reduce_plan("sum", shape, axis, widen=narrow, narrow=narrow)
    got = run_reduce_plan(plan, x.reshape(-1), np.dtype(dtype))
    expected = numerics.reduce_sum(x.astype(np.float32), axis).astype(dtype).reshape(-1)
    np.testing.assert_array_equal(got, expected)
    # A different order (numpy's own sum along a leading axis, plain sequential) differs.
    plan_max = reduce_plan("max", shape, axis, widen=narrow, narrow=narrow)
    got_max = run_reduce_plan(plan_max, x.reshape(-1), np.dtype(dtype))
    np.testing.assert_array_equal(got_max, np.max(x, axis).reshape(-1))
