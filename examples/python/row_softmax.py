"""Row softmax in TileLang's style: each block owns block_M rows of X, keeps them
in registers, and computes exp(x - rowmax) / rowsum with two reductions and two
T.Parallel loops.

    python examples/python/row_softmax.py
"""

import numpy as np

import tilepipe
import tilepipe.language as T


def row_softmax(M, N, block_M=16, dtype="float32"):
    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            X_local = T.alloc_fragment((block_M, N), dtype)
            row_max = T.alloc_fragment((block_M,), dtype)
            row_sum = T.alloc_fragment((block_M,), dtype)
            T.copy(X[bx * block_M, 0], X_local)
            T.reduce_max(X_local, row_max, dim=1)
            for i, j in T.Parallel(block_M, N):
                X_local[i, j] = T.exp(X_local[i, j] - row_max[i])
            T.reduce_sum(X_local, row_sum, dim=1)
            for i, j in T.Parallel(block_M, N):
                X_local[i, j] = X_local[i, j] / row_sum[i]
            T.copy(X_local, Y[bx * block_M, 0])

    return main


def reference(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def main(M=64, N=64):
    kernel = tilepipe.compile(row_softmax(M, N), out_idx=[-1], target="sm_80")
    x = np.random.default_rng(2).uniform(-4, 4, (M, N)).astype(np.float32)
    np.testing.assert_allclose(kernel(x), reference(x), rtol=1e-5, atol=1e-6)
    print(f"row softmax {M}x{N}: matches numpy")


if __name__ == "__main__":
    main()
