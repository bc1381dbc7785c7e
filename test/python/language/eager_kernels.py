"""Eager-style kernels (TileLang's newer ``@tilelang.jit`` style, the function *is*
the kernel) the eager tests share.  Lines marked ``# <name>`` are where the
diagnostics tests expect errors (:func:`kernels.line_of` reads this file too)."""

from __future__ import annotations

from pathlib import Path

import tilepipe
import tilepipe.language as T

FILE = str(Path(__file__).resolve())


@tilepipe.jit
def matmul(A, B, block_M, block_N, block_K, dtype=T.float16, accum_dtype=T.float32):
    M, N, K = T.const("M, N, K")
    A: T.Tensor((M, K), dtype)  # <annotation-a>
    B: T.Tensor[[K, N], dtype]
    C = T.empty((M, N), accum_dtype)
    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
        A_shared = T.alloc_shared((block_M, block_K), dtype)
        B_shared = T.alloc_shared((block_K, block_N), dtype)
        C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
        T.clear(C_local)
        for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
            T.copy(A[by * block_M, k * block_K], A_shared)
            T.copy(B[k * block_K, bx * block_N], B_shared)
            T.gemm(A_shared, B_shared, C_local)
        T.copy(C_local, C[by * block_M, bx * block_N])
    return C


@tilepipe.jit
def scale_rows(X, block_M=16, eps=1e-6):
    """Two outputs, a T.dynamic row count (one kernel for every M), dtype calls."""
    M = T.dynamic("M")
    N = T.const("N")
    X: T.Tensor((M, N), T.float)
    Y = T.empty((M, N), T.float)
    Norm = T.empty((M,), T.float)
    with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
        x = T.alloc_fragment((block_M, N), T.float)
        s = T.alloc_fragment((block_M,), T.float)
        T.copy(X[bx * block_M, 0], x)
        for i, j in T.Parallel(block_M, N):
            x[i, j] = x[i, j] * x[i, j]
        T.reduce_sum(x, s, dim=1)
        for i in T.Parallel(block_M):
            s[i] = T.sqrt(s[i] * (T.float32(1) / N) + eps)
        T.copy(X[bx * block_M, 0], x)
        for i, j in T.Parallel(block_M, N):
            x[i, j] = x[i, j] / s[i]
        T.copy(x, Y[bx * block_M, 0])
        T.copy(s, Norm[bx * block_M])
    return Y, Norm


@tilepipe.jit
def unreturned(X):
    X: T.Tensor((64,), T.float)
    Y = T.empty((64,), T.float)  # <unreturned>
    with T.Kernel(1, threads=128) as bx:
        x = T.alloc_fragment((64,), T.float)
        T.copy(X[0], x)
        T.copy(x, Y[0])
