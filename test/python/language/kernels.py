"""Kernels the frontend tests share, written as TileLang's documentation writes
them.  Lines marked ``# <name>`` are what the diagnostics tests expect errors at
(:func:`line_of`)."""

from __future__ import annotations

from pathlib import Path

import tilepipe.language as T

FILE = str(Path(__file__).resolve())


def line_of(marker: str, file: str = FILE) -> int:
    """The line of ``file`` (this one) carrying ``# <marker>``."""
    for number, line in enumerate(Path(file).read_text().splitlines(), 1):
        if line.rstrip().endswith(f"# <{marker}>"):
            return number
    raise KeyError(marker)


def gemm(M, N, K, block_M=128, block_N=128, block_K=64, num_stages=3, order=None, stage=None,
         accum_dtype="float32", dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),  # <gemm-def>
             C: T.Tensor((M, N), accum_dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages,  # <pipelined>
                                  order=order, stage=stage):
                T.copy(A[by * block_M, ko * block_K], A_shared)  # <copy-a>
                T.copy(B[ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)  # <gemm>
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def bad_gemm_shapes():
    @T.prim_func
    def main(A: T.Tensor((64, 64), "float16"), C: T.Tensor((64, 64), "float32")):
        with T.Kernel(1, threads=128) as bx:
            A_s = T.alloc_shared((64, 32), "float16")
            B_s = T.alloc_shared((64, 64), "float16")
            C_f = T.alloc_fragment((64, 64), "float32")
            T.gemm(A_s, B_s, C_f)  # <bad-gemm>

    return main


def bad_while():
    @T.prim_func
    def main(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            while True:  # <while>
                pass

    return main


def data_dependent_if():
    @T.prim_func
    def main(A: T.Tensor((64, 64), "float32")):
        with T.Kernel(1, threads=128) as bx:
            A_f = T.alloc_fragment((64, 64), "float32")
            T.copy(A[0, 0], A_f)
            if A_f[0, 0] > 0:  # <data-if>
                T.clear(A_f)

    return main


def bad_copy_shapes():
    @T.prim_func
    def main(A: T.Tensor((64, 64), "float32")):
        with T.Kernel(1, threads=128) as bx:
            A_s = T.alloc_shared((32, 64), "float32")
            B_s = T.alloc_shared((64, 64), "float32")
            T.copy(A_s, B_s)  # <bad-copy>

    return main


def unknown_call():
    @T.prim_func
    def main(A: T.Tensor((64, 64), "float32")):
        with T.Kernel(1, threads=128) as bx:
            A_f = T.alloc_fragment((64, 64), "float32")
            T.copy(A[0, 0], A_f)
            for i, j in T.Parallel(64, 64):
                T.atomic_max(A[i, j], A_f[i, j])  # <atomic>

    return main


def reduction(M, N, block_M, op, red, clear):
    """A random-kernel template: an element-wise op of two tiles, then a row
    reduction; ``op``/``red``/``clear`` are compile-time choices (Python `if`)."""

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32"),
             C: T.Tensor((M, N), "float32"), R: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            a = T.alloc_fragment((block_M, N), "float32")
            b = T.alloc_fragment((block_M, N), "float32")
            r = T.alloc_fragment((block_M,), "float32")
            T.copy(A[bx * block_M, 0], a)
            T.copy(B[bx * block_M, 0], b)
            for i, j in T.Parallel(block_M, N):
                if op == "add":
                    a[i, j] = a[i, j] + b[i, j]
                elif op == "sub":
                    a[i, j] = a[i, j] - b[i, j] * 0.5
                elif op == "mul":
                    a[i, j] = a[i, j] * b[i, j] + 1.0
                elif op == "max":
                    a[i, j] = T.max(a[i, j], b[i, j])
                elif op == "min":
                    a[i, j] = T.min(a[i, j], b[i, j])
                else:
                    a[i, j] = T.exp(a[i, j] - b[i, j])
            T.copy(a, C[bx * block_M, 0])
            if not clear:
                T.fill(r, 0.25)
            if red == "max":
                T.reduce_max(a, r, dim=1, clear=clear)
            elif red == "sum":
                T.reduce_sum(a, r, dim=1, clear=clear)
            else:
                T.reduce_min(a, r, dim=-1, clear=clear)
            T.copy(r, R[bx * block_M])

    return main


def gemm_symbolic(block_M=128, block_N=128, block_K=64, dtype="float16"):
    """examples/gemm_dynamic.mlir in Python: sizes known only at run time."""
    M, N, K = T.symbolic("M"), T.symbolic("N"), T.symbolic("K")

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.copy(B[ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
