"""GEMM + ReLU in TileLang's newest style, on tilepipe: the decorated function is the
kernel; its sizes are ``T.const`` names, read from the tensors it is called with (or
given to ``.compile``); its output is the ``T.empty`` tensor it returns.

    python examples/python/quickstart.py
"""

import numpy as np

import tilepipe
import tilepipe.language as T


@tilepipe.jit
def matmul_relu(A, B, block_M: int = 128, block_N: int = 128, block_K: int = 64):
    M, N, K = T.const("M, N, K")
    A: T.Tensor((M, K), T.float16)
    B: T.Tensor((K, N), T.float16)
    C = T.empty((M, N), T.float32)

    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
        A_shared = T.alloc_shared((block_M, block_K), T.float16)
        B_shared = T.alloc_shared((block_K, block_N), T.float16)
        C_local = T.alloc_fragment((block_M, block_N), T.float32)
        T.clear(C_local)
        for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
            T.copy(A[by * block_M, ko * block_K], A_shared)
            T.copy(B[ko * block_K, bx * block_N], B_shared)
            T.gemm(A_shared, B_shared, C_local)
        for i, j in T.Parallel(block_M, block_N):
            C_local[i, j] = T.max(C_local[i, j], 0)
        T.copy(C_local, C[by * block_M, bx * block_N])
    return C


def main(M=256, N=256, K=256):
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    c = matmul_relu(a, b)                      # compiles for these shapes (cached), then runs
    expected = np.maximum(a.astype(np.float32) @ b.astype(np.float32), 0)
    np.testing.assert_allclose(c, expected, rtol=1e-3, atol=1e-3)
    kernel = matmul_relu.compile(M=M, N=N, K=K)  # the same kernel object, from the cache
    print(kernel.summary)
    print(f"gemm + relu {M}x{N}x{K}: matches numpy ({len(kernel.get_kernel_source())} bytes of PTX)")


if __name__ == "__main__":
    main()
