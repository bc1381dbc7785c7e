"""Element-wise add in TileLang's style: each block adds one 32x64 tile,
C[y, x] = A[y, x] + B[y, x], written as a T.Parallel loop over the tile.  The
frontend turns the loop body into whole-tile ops (copy the A and B tiles on chip,
tile.add, copy the sum out).

    python examples/python/elementwise_add.py
"""

import numpy as np

import tilepipe
import tilepipe.language as T


def elementwise_add(M, N, block_M=32, block_N=64, dtype="float16", threads=128):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            start_x = bx * block_N
            start_y = by * block_M
            for local_y, local_x in T.Parallel(block_M, block_N):
                y = start_y + local_y
                x = start_x + local_x
                C[y, x] = A[y, x] + B[y, x]

    return main


def main(M=64, N=128):
    kernel = tilepipe.compile(elementwise_add(M, N), out_idx=[-1], target="sm_80")
    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, (M, N)).astype(np.float16)
    b = rng.uniform(-1, 1, (M, N)).astype(np.float16)
    c = kernel(a, b)
    np.testing.assert_array_equal(c, (a.astype(np.float32) + b.astype(np.float32)).astype(np.float16))
    print(f"elementwise add {M}x{N}: matches numpy")


if __name__ == "__main__":
    main()
