"""Flash attention (forward) in TileLang's style: the online-softmax formulation of
FlashAttention-2, the Python form of examples/flash_attention.mlir (sm_80) and
examples/flash_attention_sm90a.mlir (sm_90a, P from registers).

Block (bx, by) owns block_M query rows of head by.  The block_N-row K and V tiles
stream through a two-stage pipeline over the sequence while S = Q·K^T, the running
row maximum, the running row sum and the unnormalized output stay on chip:

    m_new = max(m, rowmax(S))          P = exp2((S - m_new) * scale)
    alpha = exp2((m - m_new) * scale)  l = l * alpha + rowsum(P)
    O     = O * alpha + P·V            and finally O / l

with scale = log2(e) / sqrt(dim), so exp2 computes softmax(Q·K^T / sqrt(dim)).
P is cast to f16 in a register fragment (acc_s_cast) for the second gemm.

    python examples/python/flash_attention.py
"""

import math

import numpy as np

import tilepipe
import tilepipe.language as T


def flash_attention(heads, seq_len, dim, block_M=64, block_N=64, num_stages=2, threads=128):
    scale = (1.0 / dim) ** 0.5 * 1.44269504  # log2(e): softmax through exp2
    shape = (heads, seq_len, dim)
    dtype = "float16"
    accum_dtype = "float32"

    @T.prim_func
    def main(Q: T.Tensor(shape, dtype), K: T.Tensor(shape, dtype), V: T.Tensor(shape, dtype),
             Output: T.Tensor(shape, accum_dtype)):
        with T.Kernel(T.ceildiv(seq_len, block_M), heads, threads=threads) as (bx, by):
            Q_shared = T.alloc_shared((block_M, dim), dtype)
            K_shared = T.alloc_shared((block_N, dim), dtype)
            V_shared = T.alloc_shared((block_N, dim), dtype)
            acc_s = T.alloc_fragment((block_M, block_N), accum_dtype)
            acc_s_cast = T.alloc_fragment((block_M, block_N), dtype)
            acc_o = T.alloc_fragment((block_M, dim), accum_dtype)
            scores_max = T.alloc_fragment((block_M,), accum_dtype)
            scores_max_prev = T.alloc_fragment((block_M,), accum_dtype)
            scores_scale = T.alloc_fragment((block_M,), accum_dtype)
            scores_sum = T.alloc_fragment((block_M,), accum_dtype)
            logsum = T.alloc_fragment((block_M,), accum_dtype)

            T.copy(Q[by, bx * block_M:(bx + 1) * block_M, :], Q_shared)
            T.fill(acc_o, 0)
            T.fill(logsum, 0)
            T.fill(scores_max, -T.infinity(accum_dtype))

            for k in T.Pipelined(T.ceildiv(seq_len, block_N), num_stages=num_stages):
                T.copy(K[by, k * block_N:(k + 1) * block_N, :], K_shared)
                T.copy(V[by, k * block_N:(k + 1) * block_N, :], V_shared)
                T.clear(acc_s)
                T.gemm(Q_shared, K_shared, acc_s, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullRow)
                T.copy(scores_max, scores_max_prev)
                T.reduce_max(acc_s, scores_max, dim=1, clear=False)
                for i in T.Parallel(block_M):
                    scores_scale[i] = T.exp2(scores_max_prev[i] * scale - scores_max[i] * scale)
                for i, j in T.Parallel(block_M, block_N):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale - scores_max[i] * scale)
                T.reduce_sum(acc_s, scores_sum, dim=1)
                for i in T.Parallel(block_M):
                    logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
                T.copy(acc_s, acc_s_cast)
                for i, j in T.Parallel(block_M, dim):
                    acc_o[i, j] *= scores_scale[i]
                T.gemm(acc_s_cast, V_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)

            for i, j in T.Parallel(block_M, dim):
                acc_o[i, j] /= logsum[i]
            T.copy(acc_o, Output[by, bx * block_M:(bx + 1) * block_M, :])

    return main


def reference(q, k, v):
    """softmax(Q·K^T / sqrt(dim))·V per head, in float64."""
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    s = q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1])
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return (p / p.sum(axis=-1, keepdims=True)) @ v


def inputs(heads, seq_len, dim, seed=5):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 1, (heads, seq_len, dim)).astype(np.float16) for _ in range(3)]


def main(heads=2, seq_len=128, dim=64, target="sm_80"):
    kernel = tilepipe.compile(flash_attention(heads, seq_len, dim), out_idx=[-1], target=target)
    q, k, v = inputs(heads, seq_len, dim)
    out = kernel(q, k, v)
    # P is rounded to f16 before P·V (as in TileLang): about 5e-5 from float64 here.
    np.testing.assert_allclose(out, reference(q, k, v), rtol=1e-3, atol=3e-4)
    print(f"flash attention {heads}x{seq_len}x{dim} ({target}): matches numpy")


if __name__ == "__main__":
    main()
