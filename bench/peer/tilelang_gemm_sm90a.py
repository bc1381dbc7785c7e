"""Lower TileLang's tiled GEMM for sm_90a to CUDA source, without a GPU.

Runs in the scratch venv that ``bench/peer/tilelang_sm90a.sh`` makes (TileLang is never
a dependency of tilepipe).  The kernel is TileLang's canonical GEMM: copies into shared
tiles in a ``T.Pipelined`` loop, ``T.gemm`` into a fragment accumulator; on sm_90a
TileLang warp-specializes it (a TMA producer warpgroup, wgmma consumers).

    python tilelang_gemm_sm90a.py BLOCK_M BLOCK_N NUM_STAGES THREADS OUT.cu
"""

import sys

import tilelang
import tilelang.language as T
from tvm.target import Target

SIZE = 4096  # M = N = K, static
BLOCK_K = 64


def gemm(block_m: int, block_n: int, num_stages: int, threads: int):
    @T.prim_func
    def kernel(
        A: T.Tensor((SIZE, SIZE), "float16"),
        B: T.Tensor((SIZE, SIZE), "float16"),
        C: T.Tensor((SIZE, SIZE), "float16"),
    ):
        with T.Kernel(T.ceildiv(SIZE, block_n), T.ceildiv(SIZE, block_m), threads=threads) as (bx, by):
            a_tile = T.alloc_shared((block_m, BLOCK_K), "float16")
            b_tile = T.alloc_shared((BLOCK_K, block_n), "float16")
            acc = T.alloc_fragment((block_m, block_n), "float")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(SIZE, BLOCK_K), num_stages=num_stages):
                T.copy(A[by * block_m, k * BLOCK_K], a_tile)
                T.copy(B[k * BLOCK_K, bx * block_n], b_tile)
                T.gemm(a_tile, b_tile, acc)
            T.copy(acc, C[by * block_m, bx * block_n])

    return kernel


def main() -> None:
    block_m, block_n, num_stages, threads = (int(a) for a in sys.argv[1:5])
    target = Target({"kind": "cuda", "arch": "sm_90a"})
    with target:
        artifact = tilelang.lower(
            gemm(block_m, block_n, num_stages, threads), target=target,
            enable_device_compile=False,
        )
    with open(sys.argv[5], "w") as out:
        out.write(artifact.kernel_source)


if __name__ == "__main__":
    main()
