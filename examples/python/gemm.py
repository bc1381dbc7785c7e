"""GEMM in TileLang's style on tilepipe: C = A @ B with 128x128x64 blocks, f16
inputs, f32 accumulation, A and B staged through shared memory by a 3-stage
pipelined loop -- the kernel of examples/gemm.mlir, written in Python.

    python examples/python/gemm.py          # compile for sm_80, run, check vs numpy
"""

import numpy as np

import tilepipe
import tilepipe.language as T


def matmul(M, N, K, block_M=128, block_N=128, block_K=64, num_stages=3,
           dtype="float16", accum_dtype="float32"):
    @T.prim_func
    def gemm(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), accum_dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.copy(B[ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return gemm


def main(M=256, N=256, K=256):
    kernel = tilepipe.compile(matmul(M, N, K), out_idx=[-1], target="sm_80")
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    c = kernel(a, b)
    expected = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c, expected, rtol=1e-3, atol=1e-3)
    print(kernel.summary)
    print(f"gemm {M}x{N}x{K}: matches numpy")


if __name__ == "__main__":
    main()
