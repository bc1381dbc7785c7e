"""GEMM with an element-wise epilogue in TileLang's style: C = relu(A·B + bias),
the Python form of examples/gemm_epilogue.mlir.  The f32 accumulator gets the bias
(a vector broadcast along the rows) and the ReLU in one T.Parallel loop, then is
cast to f16 through a shared tile that is live only after the k-loop -- so
merge-shared-memory places it in the bytes the staging buffers used (the arena's
buffer reuse, docs/arena.md), and thread-sync orders the last gemm's reads of them
before the cast's writes.

    python examples/python/gemm_epilogue.py
"""

import numpy as np

import tilepipe
import tilepipe.language as T


def gemm_bias_relu(M, N, K, block_M=128, block_N=128, block_K=64, num_stages=2,
                   dtype="float16", accum_dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             Bias: T.Tensor((N,), accum_dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_shared = T.alloc_shared((block_M, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.copy(B[ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            for i, j in T.Parallel(block_M, block_N):
                C_local[i, j] = T.max(C_local[i, j] + Bias[bx * block_N + j], 0)
            T.copy(C_local, C_shared)
            T.copy(C_shared, C[by * block_M, bx * block_N])

    return main


def reference(a, b, bias):
    c = a.astype(np.float32) @ b.astype(np.float32) + bias
    return np.maximum(c, 0).astype(np.float16)


def inputs(M, N, K, seed=7):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1, 1, (M, K)).astype(np.float16),
            rng.uniform(-1, 1, (K, N)).astype(np.float16),
            rng.uniform(-2, 2, (N,)).astype(np.float32))


def main(M=128, N=256, K=256, target="sm_80"):
    kernel = tilepipe.compile(gemm_bias_relu(M, N, K), out_idx=[-1], target=target)
    a, b, bias = inputs(M, N, K)
    c = kernel(a, b, bias)
    np.testing.assert_allclose(c.astype(np.float32), reference(a, b, bias).astype(np.float32),
                               rtol=2e-3, atol=2e-3)
    assert (c == 0).any() and (c > 0).any()  # the ReLU clipped some, kept others
    print(f"gemm + bias + relu {M}x{N}x{K} ({target}): matches numpy")


if __name__ == "__main__":
    main()
