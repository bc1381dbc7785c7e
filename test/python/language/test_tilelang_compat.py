"""What TileLang's programs use around their kernels: ``@autotune``, ``pass_configs``
and ``PassConfigKey``, the profiler, TileLang's compile options, ``T.Pipelined``
without ``num_stages``, dtype names and calls."""

from __future__ import annotations

import numpy as np
import pytest

import tilepipe
import tilepipe.language as T
from tilepipe.autotuner import autotune
from tilepipe.profiler import do_bench

import kernels


def _tuned_gemm():
    configs = [
        {"block_M": 256, "block_N": 256, "block_K": 128, "num_stages": 4},  # over the smem budget
        {"block_M": 64, "block_N": 64, "block_K": 32, "num_stages": 2},
        {"block_M": 128, "block_N": 128, "block_K": 32, "num_stages": 3},
    ]

    @autotune(configs=configs, warmup=10, rep=10)
    @tilepipe.jit(out_idx=[-1], pass_configs={tilepipe.PassConfigKey.TL_ENABLE_FAST_MATH: True})
    def gemm(M, N, K, block_M=64, block_N=64, block_K=32, num_stages=2):
        return kernels.gemm(M, N, K, block_M, block_N, block_K, num_stages)

    return gemm


def test_autotune_drops_over_budget_configs_and_ranks_the_rest():
    gemm = _tuned_gemm()
    kernel = gemm(256, 256, 128)
    rejected = [t for t in gemm.trials if t.rejected]
    assert [t.config["block_M"] for t in rejected] == [256]
    assert "shared arena" in rejected[0].rejected
    ranked = sorted((t for t in gemm.trials if not t.rejected), key=lambda t: t.cycles)
    assert f"num_stages = {ranked[0].config['num_stages']}" in kernel.mlir()
    rng = np.random.default_rng(0)
    a, b = (rng.uniform(-1, 1, (256, 128)).astype(np.float16),
            rng.uniform(-1, 1, (128, 256)).astype(np.float16))
    np.testing.assert_allclose(kernel(a, b), a.astype(np.float32) @ b.astype(np.float32),
                               rtol=1e-3, atol=1e-3)


def test_autotune_skips_tuning_when_the_call_gives_every_tunable():
    gemm = _tuned_gemm()
    kernel = gemm(128, 128, 64, block_M=64, block_N=64, block_K=32, num_stages=2)
    assert gemm.trials == [] and "num_stages = 2" in kernel.mlir()


def test_pass_configs_that_disable_features_turn_tilepipe_options_off():
    func = kernels.gemm(128, 128, 128, num_stages=2)
    on = tilepipe.compile(func, out_idx=[-1], target="sm_90a", level="nvvm")
    off = tilepipe.compile(func, out_idx=[-1], target="sm_90a", level="nvvm", pass_configs={
        tilepipe.PassConfigKey.TL_DISABLE_TMA_LOWER: True,
        "tl.disable_warp_specialized": True, tilepipe.PassConfigKey.TL_ENABLE_FAST_MATH: True})
    text_on, text_off = str(on.compilation.module), str(off.compilation.module)
    assert "cp.async.bulk.tensor" in text_on and "cp.async.bulk.tensor" not in text_off
    assert "warp_roles" in text_on and "warp_roles" not in text_off


def test_tilelang_build_options_are_accepted():
    kernel = tilepipe.compile(kernels.gemm(128, 128, 64, num_stages=2), out_idx=[-1],
                              target="cuda", execution_backend="cython", verbose=False,
                              compile_flags=["-O3"], target_host=None)
    assert kernel.target == "sm_80"


def test_profiler_checks_against_a_reference_and_times_the_interpreter():
    kernel = tilepipe.compile(kernels.gemm(64, 64, 64, 64, 64, 32, num_stages=2), out_idx=[-1])
    profiler = kernel.get_profiler()
    profiler.assert_allclose(lambda a, b: np.asarray(a, np.float32) @ np.asarray(b, np.float32),
                             rtol=1e-2, atol=1e-2)
    with pytest.raises(AssertionError, match="elements differ"):
        profiler.assert_allclose(lambda a, b: np.asarray(a, np.float32) @ np.asarray(b, np.float32) + 1)
    assert profiler.do_bench(rep=1) > 0
    assert do_bench(lambda: None, rep=2) >= 0


def test_pipelined_without_num_stages_is_a_plain_loop():
    @T.prim_func
    def main(A: T.Tensor((4, 64), "float32"), B: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            a = T.alloc_fragment((64,), "float32")
            acc = T.alloc_fragment((64,), "float32")
            T.clear(acc)
            for k in T.Pipelined(4):
                T.copy(A[k, 0], a)
                for i in T.Parallel(64):
                    acc[i] += a[i]
            for k in T.Serial(0):
                T.clear(acc)
            T.copy(acc, B[0])

    assert "pipeline.for" not in main.mlir() and "scf.for" in main.mlir()
    x = np.arange(256, dtype=np.float32).reshape(4, 64)
    np.testing.assert_array_equal(tilepipe.compile(main, out_idx=[-1])(x), x.sum(0))


def test_cdiv_is_tilelangs():
    assert (tilepipe.cdiv(7, 2), tilepipe.cdiv(8, 2), tilepipe.cdiv(0, 64)) == (4, 4, 0)


def test_dtype_names_and_calls():
    assert (T.float, T.half, T.double, T.int, T.long) == ("float32", "float16", "float64", "int32", "int64")
    assert isinstance(T.float16, T.dtype)
    assert T.float32(1) == 1.0 and isinstance(T.float32(1), float) and T.int32(3.0) == 3


def _prefix_scale():
    @T.prim_func
    def main(A: T.Tensor((64, 32), "float32"), B: T.Tensor((64, 32), "float32"), rows: T.int32):
        with T.Kernel(4, threads=128) as bx:
            a = T.alloc_fragment((16, 32), "float32")
            T.copy(A[bx * 16, 0], a)
            for i, j in T.Parallel(16, 32):
                a[i, j] = T.if_then_else(bx * 16 + i < rows, a[i, j] * 2.0, 0.0)
            T.copy(a, B[bx * 16, 0])

    return main


@pytest.mark.parametrize("target", ["sm_80", "ascend910b"])
def test_integer_parameters_are_run_time_indices(target):
    kernel = tilepipe.compile(_prefix_scale(), out_idx=[1], target=target)
    assert "%rows: index" in kernel.mlir()
    x = np.random.default_rng(0).standard_normal((64, 32)).astype(np.float32)
    for rows in (0, 21, 64):
        expected = np.where(np.arange(64)[:, None] < rows, x * 2, 0).astype(np.float32)
        np.testing.assert_array_equal(kernel(x, rows, check_races=True), expected)
    with pytest.raises(TypeError, match="integer parameter"):
        kernel(x, 1.5)


def test_layout_annotations_are_accepted_and_index_helpers_work():
    @T.prim_func
    def main(A: T.Tensor((8, 32), "float32"), B: T.Tensor((8, 32), "float32")):
        with T.Kernel(4, threads=128) as bx:
            a = T.alloc_shared((2, 32), "float32")
            T.annotate_layout({a: T.Layout((2, 32), lambda i, j: [i, j])})
            T.copy(A[T.floordiv(bx * 4, 2), 0], a)
            T.copy(a, B[T.floormod(bx * 2 + 1, 8) - 1, 0])

    x = np.arange(256, dtype=np.float32).reshape(8, 32)
    np.testing.assert_array_equal(tilepipe.compile(main, out_idx=[-1])(x), x)
