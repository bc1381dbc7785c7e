"""``T.atomic_add``: TileLang's split-K GEMM (several blocks adding their partial
products into one C tile, element by element in a ``T.Parallel`` loop) and the
region form, through the full CUDA flow, race free and equal to numpy; a plain
read-add-write in its place is a race."""

from __future__ import annotations

import numpy as np
import pytest

import tilepipe
import tilepipe.language as T
from tilepipe.semantics.tile.grid_runner import RaceError


def split_k_gemm(M, N, K, block_M, block_N, block_K, split_k, region_form=False):
    split = K // split_k

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
             C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), split_k, threads=128) as (bx, by, bz):
            A_shared = T.alloc_shared((block_M, block_K), "float16")
            B_shared = T.alloc_shared((block_K, block_N), "float16")
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(split, block_K), num_stages=2):
                T.copy(A[by * block_M, bz * split + ko * block_K], A_shared)
                T.copy(B[bz * split + ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            if region_form:
                T.atomic_add(C[by * block_M:(by + 1) * block_M, bx * block_N:(bx + 1) * block_N], C_local)
            else:
                for i, j in T.Parallel(block_M, block_N):
                    T.atomic_add(C[by * block_M + i, bx * block_N + j], C_local[i, j])

    return main


@pytest.mark.parametrize("region_form", [False, True])
def test_split_k_gemm_race_free_and_equal_to_numpy(region_form):
    kernel = tilepipe.compile(split_k_gemm(64, 96, 128, 32, 32, 32, 2, region_form), out_idx=[-1])
    assert "tile.atomic_add" in kernel.mlir()
    assert "atom.global.add.f32" in kernel.get_kernel_source() or "red.global.add.f32" in kernel.get_kernel_source()
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (64, 128)).astype(np.float16)
    b = rng.uniform(-1, 1, (128, 96)).astype(np.float16)
    c = kernel(a, b, check_races=True)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-4, atol=1e-4)


def test_a_plain_read_add_write_instead_is_a_race():
    @T.prim_func
    def main(X: T.Tensor((32, 32), "float32"), C: T.Tensor((32, 32), "float32")):
        with T.Kernel(1, 4, threads=128) as (bx, bz):
            x = T.alloc_fragment((32, 32), "float32")
            c = T.alloc_fragment((32, 32), "float32")
            T.copy(X[0, 0], x)
            T.copy(C[0, 0], c)
            for i, j in T.Parallel(32, 32):
                c[i, j] = c[i, j] + x[i, j]
            T.copy(c, C[0, 0])

    kernel = tilepipe.compile(main, out_idx=[-1])
    with pytest.raises(RaceError):
        kernel(np.ones((32, 32), np.float32), check_races=True)


def test_atomic_add_into_on_chip_memory_is_an_error():
    @T.prim_func
    def main(X: T.Tensor((32, 32), "float32")):
        with T.Kernel(1, threads=128) as bx:
            x = T.alloc_fragment((32, 32), "float32")
            s = T.alloc_shared((32, 32), "float32")
            T.copy(X[0, 0], x)
            for i, j in T.Parallel(32, 32):
                T.atomic_add(s[i, j], x[i, j])

    with pytest.raises(T.LanguageError, match="adds into global memory"):
        main.build()
