"""Lower TileLang's tiled GEMM to CUDA source for sm_90a or sm_80, without a GPU.

Runs in the scratch venv that ``bench/peer/tilelang.sh`` makes (TileLang is never
a dependency of tilepipe).  The kernel is TileLang's canonical GEMM: copies into shared
tiles in a ``T.Pipelined`` loop, ``T.gemm`` into a fragment accumulator; on sm_90a
TileLang warp-specializes it (a TMA producer warpgroup, wgmma consumers); on sm_80
it issues cp.async and mma.sync, as tilepipe's examples/gemm.mlir does.

    python tilelang_gemm.py ARCH SIZE BLOCK_M BLOCK_N BLOCK_K NUM_STAGES THREADS C_DTYPE OUT.cu
    python tilelang_gemm.py --time    (lowering time of examples/gemm.mlir's GEMM, sm_80)
"""

import sys
import time

import tilelang
import tilelang.language as T
from tvm.target import Target


def gemm(size: int, block_m: int, block_n: int, block_k: int, num_stages: int, threads: int,
         c_dtype: str):
    SIZE, BLOCK_K = size, block_k  # M = N = K, static

    @T.prim_func
    def kernel(
        A: T.Tensor((SIZE, SIZE), "float16"),
        B: T.Tensor((SIZE, SIZE), "float16"),
        C: T.Tensor((SIZE, SIZE), c_dtype),
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


def time_lowering() -> None:
    """``tilelang.lower`` of examples/gemm.mlir's GEMM (1024^3, 128x128x64, f32 C, 128
    threads) for sm_80 at num_stages 0-4, in process, best of 3 after a warm-up."""
    target = Target({"kind": "cuda", "arch": "sm_80"})
    with target:
        def lower(stages: int) -> None:
            tilelang.lower(gemm(1024, 128, 128, 64, stages, 128, "float32"), target=target,
                           enable_device_compile=False)

        lower(3)
        for stages in range(5):
            times = []
            for _ in range(3):
                start = time.perf_counter()
                lower(stages)
                times.append(time.perf_counter() - start)
            print(f"num_stages {stages}: {min(times) * 1000:.0f} ms")


def main() -> None:
    if sys.argv[1] == "--time":
        return time_lowering()
    arch = sys.argv[1]
    size, block_m, block_n, block_k, num_stages, threads = (int(a) for a in sys.argv[2:8])
    target = Target({"kind": "cuda", "arch": arch})
    with target:
        artifact = tilelang.lower(
            gemm(size, block_m, block_n, block_k, num_stages, threads, sys.argv[8]),
            target=target, enable_device_compile=False,
        )
    with open(sys.argv[9], "w") as out:
        out.write(artifact.kernel_source)


if __name__ == "__main__":
    main()
