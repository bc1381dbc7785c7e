"""Flash attention (forward) over TileLang's (batch, seq_len, heads, dim) tensors,
optionally causal: the layout and masks of TileLang's own attention examples.

A tile of Q is rows of one head: ``Q[bz, bx * block_M:(bx + 1) * block_M, by, :]``.
Those rows are ``heads * dim`` elements apart, so the frontend packs each
tensor's trailing (heads, dim) into one dimension (docs/language.md, "Tensors
indexed [..., rows, h, :]") and the tile is an ordinary 2-D region of it.

Scores are masked with ``T.if_then_else`` on element coordinates (tile.iota,
tile.cmp, tile.select): the causal mask keeps key j for query i when j <= i, and
the last key block, when seq_len is not a multiple of block_N, masks the keys past
the end.  A causal block stops at its diagonal: the loop runs
``min(ceildiv(seq_len, block_N), ceildiv((bx + 1) * block_M, block_N))`` times, a
trip count known only at run time.

    python examples/python/flash_attention_bshd.py
"""

import math

import numpy as np

import tilepipe
import tilepipe.language as T


def flash_attention(batch, heads, seq_len, dim, is_causal, block_M=64, block_N=64,
                    num_stages=2, threads=128):
    scale = (1.0 / dim) ** 0.5 * 1.44269504  # log2(e): softmax through exp2
    shape = [batch, seq_len, heads, dim]
    dtype = T.float16
    accum_dtype = T.float32

    @T.prim_func
    def main(Q: T.Tensor(shape, dtype), K: T.Tensor(shape, dtype), V: T.Tensor(shape, dtype),
             Output: T.Tensor(shape, dtype)):
        with T.Kernel(T.ceildiv(seq_len, block_M), heads, batch, threads=threads) as (bx, by, bz):
            Q_shared = T.alloc_shared([block_M, dim], dtype)
            K_shared = T.alloc_shared([block_N, dim], dtype)
            V_shared = T.alloc_shared([block_N, dim], dtype)
            O_shared = T.alloc_shared([block_M, dim], dtype)
            acc_s = T.alloc_fragment([block_M, block_N], accum_dtype)
            acc_s_cast = T.alloc_fragment([block_M, block_N], dtype)
            acc_o = T.alloc_fragment([block_M, dim], accum_dtype)
            scores_max = T.alloc_fragment([block_M], accum_dtype)
            scores_max_prev = T.alloc_fragment([block_M], accum_dtype)
            scores_scale = T.alloc_fragment([block_M], accum_dtype)
            scores_sum = T.alloc_fragment([block_M], accum_dtype)
            logsum = T.alloc_fragment([block_M], accum_dtype)

            T.copy(Q[bz, bx * block_M:(bx + 1) * block_M, by, :], Q_shared)
            T.fill(acc_o, 0)
            T.fill(logsum, 0)
            T.fill(scores_max, -T.infinity(accum_dtype))

            loop_range = (
                T.min(T.ceildiv(seq_len, block_N), T.ceildiv((bx + 1) * block_M, block_N))
                if is_causal else T.ceildiv(seq_len, block_N)
            )
            for k in T.Pipelined(loop_range, num_stages=num_stages):
                T.copy(K[bz, k * block_N:(k + 1) * block_N, by, :], K_shared)
                if is_causal:
                    for i, j in T.Parallel(block_M, block_N):
                        acc_s[i, j] = T.if_then_else(bx * block_M + i >= k * block_N + j, 0,
                                                     -T.infinity(acc_s.dtype))
                else:
                    for i, j in T.Parallel(block_M, block_N):
                        acc_s[i, j] = T.if_then_else(k * block_N + j >= seq_len,
                                                     -T.infinity(acc_s.dtype), 0)
                T.gemm(Q_shared, K_shared, acc_s, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)
                T.copy(scores_max, scores_max_prev)
                T.fill(scores_max, -T.infinity(accum_dtype))
                T.reduce_max(acc_s, scores_max, dim=1, clear=False)
                for i in T.Parallel(block_M):
                    scores_max[i] = T.max(scores_max[i], scores_max_prev[i])
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
                T.copy(V[bz, k * block_N:(k + 1) * block_N, by, :], V_shared)
                T.gemm(acc_s_cast, V_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)

            for i, j in T.Parallel(block_M, dim):
                acc_o[i, j] /= logsum[i]
            T.copy(acc_o, O_shared)
            T.copy(O_shared, Output[bz, bx * block_M:(bx + 1) * block_M, by, :])

    return main


def reference(q, k, v, is_causal):
    """softmax(Q·K^T / sqrt(dim))·V per batch and head, in float64, (b, s, h, d)."""
    q, k, v = (x.astype(np.float64).transpose(0, 2, 1, 3) for x in (q, k, v))
    s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(q.shape[-1])
    if is_causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return ((p / p.sum(axis=-1, keepdims=True)) @ v).transpose(0, 2, 1, 3)


def inputs(batch, heads, seq_len, dim, seed=5):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 1, (batch, seq_len, heads, dim)).astype(np.float16) for _ in range(3)]


def main(batch=1, heads=2, seq_len=128, dim=64, target="sm_80"):
    for is_causal in (False, True):
        kernel = tilepipe.compile(flash_attention(batch, heads, seq_len, dim, is_causal),
                                  out_idx=[-1], target=target)
        q, k, v = inputs(batch, heads, seq_len, dim)
        out = kernel(q, k, v)
        np.testing.assert_allclose(out, reference(q, k, v, is_causal), rtol=2e-3, atol=2e-3)
        print(f"flash attention (b, s, h, d) = {q.shape}, causal={is_causal} ({target}): matches numpy")


if __name__ == "__main__":
    main()
