"""tilelang-ascend's way of writing kernels: ``T.Kernel(n, is_npu=True) as (cid,
vid)``, ``T.alloc_L1``/``T.alloc_L0C``, ``T.gemm_v0(..., init=(k == 0))`` inside
``T.Scope("C")`` with ``T.barrier_all()``, and ``T.tile.*`` vector operations --
compiled for ascend910b ("auto" finds it), run in the pipe simulator (races,
deadlocks and flag errors raise) and checked against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import tilepipe
import tilepipe.language as T


def cube_matmul(M, N, K, block_M, block_N, K_L1, pipelined=False, out_dtype="float"):
    m_num, n_num = M // block_M, N // block_N

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
             C: T.Tensor((M, N), out_dtype)):
        with T.Kernel(m_num * n_num, is_npu=True) as (cid, _):
            bx = cid // n_num
            by = cid % n_num
            A_L1 = T.alloc_L1((block_M, K_L1), "float16")
            B_L1 = T.alloc_L1((K_L1, block_N), "float16")
            C_L0 = T.alloc_L0C((block_M, block_N), "float")
            with T.Scope("C"):
                loop = T.Pipelined(T.ceildiv(K, K_L1), num_stages=2) if pipelined else T.serial(T.ceildiv(K, K_L1))
                for k in loop:
                    T.copy(A[bx * block_M, k * K_L1], A_L1)
                    T.copy(B[k * K_L1, by * block_N], B_L1)
                    T.barrier_all()
                    T.gemm_v0(A_L1, B_L1, C_L0, init=(k == 0))
                    T.barrier_all()
                T.copy(C_L0, C[bx * block_M, by * block_N])

    return main


@pytest.mark.parametrize("pipelined", [False, True])
def test_cube_gemm_in_tilelang_ascend_style(pipelined):
    kernel = tilepipe.compile(cube_matmul(128, 128, 256, 64, 64, 64, pipelined), out_idx=[-1])
    assert kernel.target == "ascend910b"
    source = kernel.get_kernel_source()
    assert "Mmad" in source and "LoadData" in source and "Fixpipe" in source
    assert "PIPE_ALL" not in source  # T.barrier_all leaves the synchronization to tilepipe
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (128, 256)).astype(np.float16)
    b = rng.uniform(-1, 1, (256, 128)).astype(np.float16)
    c = kernel(a, b, check_races=True)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3, atol=1e-3)


def vector_add(M, N, block_M, block_N):
    m_num, n_num = M // block_M, N // block_N

    @T.prim_func
    def main(A: T.Tensor((M, N), "float"), B: T.Tensor((M, N), "float"), C: T.Tensor((M, N), "float")):
        with T.Kernel(m_num * n_num, is_npu=True) as (cid, vid):
            bx = cid // n_num
            by = cid % n_num
            half = block_M // 2
            a_ub = T.alloc_ub((half, block_N), "float")
            b_ub = T.alloc_ub((half, block_N), "float")
            c_ub = T.alloc_ub((half, block_N), "float")
            with T.Scope("V"):
                T.copy(A[bx * block_M + vid * half, by * block_N], a_ub)
                T.copy(B[bx * block_M + vid * half, by * block_N], b_ub)
                T.barrier_all()
                T.tile.add(c_ub, a_ub, b_ub)
                T.tile.mul(c_ub, c_ub, 2.0)
                T.tile.exp(a_ub, c_ub[0:half, 0:block_N])
                T.tile.max(c_ub, c_ub, a_ub)
                T.barrier_all()
                T.copy(c_ub, C[bx * block_M + vid * half, by * block_N])

    return main


def test_vector_kernel_splits_rows_between_the_two_vector_cores():
    kernel = tilepipe.compile(vector_add(64, 128, 32, 64), out_idx=[-1])
    assert "tile.grid = array<i64: 4, 2>" in kernel.mlir()  # vid: a grid dimension of 2
    rng = np.random.default_rng(1)
    a, b = (rng.uniform(-1, 1, (64, 128)).astype(np.float32) for _ in range(2))
    s = (a + b) * np.float32(2)
    np.testing.assert_allclose(kernel(a, b, check_races=True), np.maximum(s, np.exp(s)), rtol=1e-6)


def test_tile_ops_are_ascend_only_and_gemm_v0_needs_l1():
    @T.prim_func
    def cuda(A: T.Tensor((16, 16), "float")):
        with T.Kernel(1, threads=128) as bx:
            a = T.alloc_fragment((16, 16), "float")
            T.tile.add(a, a, a)  # <tile-on-cuda>

    with pytest.raises(T.LanguageError, match="T.tile.add is tilelang-ascend's"):
        cuda.build("sm_80")

    @T.prim_func
    def ub_gemm(A: T.Tensor((16, 16), "float16")):
        with T.Kernel(1, is_npu=True) as (cid, _):
            a = T.alloc_ub((16, 16), "float16")
            c = T.alloc_L0C((16, 16), "float")
            T.gemm_v0(a, a, c)

    with pytest.raises(T.LanguageError, match="must be in L1"):
        ub_gemm.build("ascend910b")


def test_f16_output_converts_on_the_way_out_of_l0c():
    """tilelang-ascend's GEMM writes C in f16: the Fixpipe rounds the f32 accumulator."""
    kernel = tilepipe.compile(cube_matmul(128, 128, 128, 64, 64, 64, out_dtype="float16"), out_idx=[-1])
    assert "F322F16" in kernel.get_kernel_source()
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, (128, 128)).astype(np.float16)
    b = rng.uniform(-1, 1, (128, 128)).astype(np.float16)
    c = kernel(a, b, check_races=True)
    assert c.dtype == np.float16
    np.testing.assert_allclose(c.astype(np.float32), a.astype(np.float32) @ b.astype(np.float32),
                               rtol=2e-3, atol=2e-3)


def test_developer_mode_scopes_are_inferred_from_the_gemm():
    """tilelang-ascend's developer mode writes T.alloc_shared/T.alloc_fragment and
    lets the compiler place them: the gemm's operands go to L1, its accumulator to
    L0C, everything else to UB."""

    @T.prim_func
    def main(A: T.Tensor((64, 128), "float16"), B: T.Tensor((128, 64), "float16"),
             C: T.Tensor((64, 64), "float16")):
        with T.Kernel(1, is_npu=True) as (cid, _):
            A_s = T.alloc_shared((64, 64), "float16")
            B_s = T.alloc_shared((64, 64), "float16")
            C_f = T.alloc_fragment((64, 64), "float")
            for k in T.serial(2):
                T.copy(A[0, k * 64], A_s)
                T.copy(B[k * 64, 0], B_s)
                T.gemm_v0(A_s, B_s, C_f, init=(k == 0))
            T.copy(C_f, C[0, 0])

    kernel = tilepipe.compile(main, out_idx=[-1], pass_configs={
        tilepipe.PassConfigKey.TL_ASCEND_AUTO_SYNC: True, tilepipe.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True})
    ir = kernel.mlir()
    assert '"l1">' in ir and '"l0c">' in ir and '"ub">' not in ir
    rng = np.random.default_rng(5)
    a = rng.uniform(-1, 1, (64, 128)).astype(np.float16)
    b = rng.uniform(-1, 1, (128, 64)).astype(np.float16)
    np.testing.assert_allclose(kernel(a, b, check_races=True).astype(np.float32),
                               a.astype(np.float32) @ b.astype(np.float32), rtol=2e-3, atol=2e-3)
