"""Lower a TileLang flash-attention forward kernel to CUDA source, without a GPU: the
same computation and tiles as tilepipe's examples/flash_attention.mlir (one head,
sequence 1024, head dimension 64, 64 query rows per block, 64-row K/V blocks streamed
through a pipelined loop, online softmax with exp, Q pre-scaled, O in f32).

Runs in the scratch venv of ``bench/peer/tilelang.sh`` (TileLang is never a dependency
of tilepipe).

    python tilelang_flash.py ARCH NUM_STAGES THREADS OUT.cu
"""

import sys

import tilelang
import tilelang.language as T
from tvm.target import Target

SEQ, DIM, BLOCK = 1024, 64, 64


def flash(num_stages: int, threads: int):
    @T.prim_func
    def kernel(
        Q: T.Tensor((SEQ, DIM), "float16"),
        K: T.Tensor((SEQ, DIM), "float16"),
        V: T.Tensor((SEQ, DIM), "float16"),
        O: T.Tensor((SEQ, DIM), "float32"),
    ):
        with T.Kernel(SEQ // BLOCK, threads=threads) as bx:
            q_tile = T.alloc_shared((BLOCK, DIM), "float16")
            k_tile = T.alloc_shared((BLOCK, DIM), "float16")
            v_tile = T.alloc_shared((BLOCK, DIM), "float16")
            scores = T.alloc_fragment((BLOCK, BLOCK), "float")
            probabilities = T.alloc_fragment((BLOCK, BLOCK), "float16")
            out = T.alloc_fragment((BLOCK, DIM), "float")
            row_max = T.alloc_fragment((BLOCK,), "float")
            row_max_before = T.alloc_fragment((BLOCK,), "float")
            rescale = T.alloc_fragment((BLOCK,), "float")
            row_sum = T.alloc_fragment((BLOCK,), "float")
            block_sum = T.alloc_fragment((BLOCK,), "float")

            T.copy(Q[bx * BLOCK, 0], q_tile)
            T.fill(out, 0)
            T.fill(row_sum, 0)
            T.fill(row_max, -T.infinity("float"))
            for j in T.Pipelined(SEQ // BLOCK, num_stages=num_stages):
                T.copy(K[j * BLOCK, 0], k_tile)
                T.copy(V[j * BLOCK, 0], v_tile)
                T.clear(scores)
                # Each warp owns whole rows, as the row reductions need.
                T.gemm(q_tile, k_tile, scores, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)
                T.copy(row_max, row_max_before)
                T.reduce_max(scores, row_max, dim=1, clear=False)
                for i in T.Parallel(BLOCK):
                    rescale[i] = T.exp(row_max_before[i] - row_max[i])
                for i, k in T.Parallel(BLOCK, BLOCK):
                    scores[i, k] = T.exp(scores[i, k] - row_max[i])
                T.reduce_sum(scores, block_sum, dim=1)
                for i in T.Parallel(BLOCK):
                    row_sum[i] = row_sum[i] * rescale[i] + block_sum[i]
                for i, d in T.Parallel(BLOCK, DIM):
                    out[i, d] *= rescale[i]
                T.copy(scores, probabilities)
                T.gemm(probabilities, v_tile, out, policy=T.GemmWarpPolicy.FullRow)
            for i, d in T.Parallel(BLOCK, DIM):
                out[i, d] /= row_sum[i]
            T.copy(out, O[bx * BLOCK, 0])

    return kernel


def main() -> None:
    arch, num_stages, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    target = Target({"kind": "cuda", "arch": arch})
    with target:
        artifact = tilelang.lower(flash(num_stages, threads), target=target,
                                  enable_device_compile=False)
    with open(sys.argv[4], "w") as out:
        out.write(artifact.kernel_source)


if __name__ == "__main__":
    main()
