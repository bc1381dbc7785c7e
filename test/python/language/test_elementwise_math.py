"""T.Parallel bodies beyond + - * /: logarithms and square roots, comparisons and
T.if_then_else (masks), and loop variables used as values -- each compiled
through the full CUDA flow and run against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import tilepipe
import tilepipe.language as T

RNG = np.random.default_rng(7)


def _unary(fn_name, M=16, N=32):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(1, threads=128) as bx:
            a = T.alloc_fragment((M, N), "float32")
            T.copy(A[0, 0], a)
            for i, j in T.Parallel(M, N):
                a[i, j] = getattr(T, fn_name)(a[i, j])
            T.copy(a, B[0, 0])

    return main


@pytest.mark.parametrize("fn_name, reference", [
    ("log", np.log), ("log2", np.log2), ("log10", np.log10), ("sqrt", np.sqrt),
    ("rsqrt", lambda x: 1 / np.sqrt(x)), ("exp10", lambda x: 10.0 ** x),
])
def test_math_functions(fn_name, reference):
    x = RNG.uniform(0.1, 2.0, (16, 32)).astype(np.float32)
    got = tilepipe.compile(_unary(fn_name), out_idx=[-1])(x)
    np.testing.assert_allclose(got, reference(x), rtol=2e-6, atol=1e-6)


def _masked(M, N, block, causal):
    """Flash attention's score masks: causal (row >= column) or the sequence end."""

    @T.prim_func
    def main(S: T.Tensor((M, N), "float32"), Out: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block), T.ceildiv(M, block), threads=128) as (bx, by):
            s = T.alloc_fragment((block, block), "float32")
            T.copy(S[by * block, bx * block], s)
            for i, j in T.Parallel(block, block):
                if causal:
                    s[i, j] = T.if_then_else(by * block + i >= bx * block + j, s[i, j],
                                             -T.infinity("float32"))
                else:
                    s[i, j] = T.if_then_else(bx * block + j >= N - 3, -T.infinity(s.dtype), s[i, j])
            T.copy(s, Out[by * block, bx * block])

    return main


@pytest.mark.parametrize("causal", [True, False])
def test_index_masks(causal):
    x = RNG.standard_normal((32, 48)).astype(np.float32)
    got = tilepipe.compile(_masked(32, 48, 16, causal), out_idx=[-1])(x, check_races=True)
    rows, cols = np.indices(x.shape)
    keep = rows >= cols if causal else cols < 48 - 3
    np.testing.assert_array_equal(got, np.where(keep, x, -np.inf))


def test_element_comparisons_and_boolean_masks():
    @T.prim_func
    def main(A: T.Tensor((16, 16), "float32"), B: T.Tensor((16, 16), "float32")):
        with T.Kernel(1, threads=128) as bx:
            a = T.alloc_fragment((16, 16), "float32")
            T.copy(A[0, 0], a)
            for i, j in T.Parallel(16, 16):
                # leaky ReLU inside a band, -1 outside it (an `and` of masks), 0 on the diagonal
                a[i, j] = T.if_then_else((i < j + 4) and (j < i + 4),
                                         T.if_then_else(a[i, j] > 0, a[i, j], a[i, j] * 0.1), -1.0)
                a[i, j] = T.if_then_else(i == j or a[i, j] != a[i, j], 0.0, a[i, j])
            T.copy(a, B[0, 0])

    x = RNG.standard_normal((16, 16)).astype(np.float32)
    got = tilepipe.compile(main, out_idx=[-1])(x)
    rows, cols = np.indices(x.shape)
    band = (rows < cols + 4) & (cols < rows + 4)
    expected = np.where(band, np.where(x > 0, x, np.float32(0.1) * x), -1.0)
    expected = np.where(rows == cols, 0.0, expected)
    np.testing.assert_array_equal(got, expected.astype(np.float32))


def test_loop_variables_as_values():
    @T.prim_func
    def main(B: T.Tensor((8, 24), "float32"), C: T.Tensor((8, 24), "int32")):
        with T.Kernel(1, threads=128) as bx:
            b = T.alloc_fragment((8, 24), "float32")
            c = T.alloc_fragment((8, 24), "int32")
            for i, j in T.Parallel(8, 24):
                b[i, j] = T.cast(i * 24 + j, "float32") * 0.5
                c[i, j] = i - j + bx
            T.copy(b, B[0, 0])
            T.copy(c, C[0, 0])

    b, c = tilepipe.compile(main, out_idx=[0, 1])()
    rows, cols = np.indices((8, 24))
    np.testing.assert_array_equal(b, (rows * 24 + cols).astype(np.float32) * 0.5)
    np.testing.assert_array_equal(c, rows - cols)


def test_nested_temporaries_are_not_reused_while_live():
    """``a * 2 + log2(exp2(b - a) + c)``: the log's temporary is the destination of
    the multiply by 1/ln 2, which must not go back to the pool (and be refilled with
    a constant) before the add reads it -- online softmax's update."""

    @T.prim_func
    def main(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32"),
             C: T.Tensor((64,), "float32"), O: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            a = T.alloc_fragment((64,), "float32")
            b = T.alloc_fragment((64,), "float32")
            c = T.alloc_fragment((64,), "float32")
            T.copy(A[0], a)
            T.copy(B[0], b)
            T.copy(C[0], c)
            for i in T.Parallel(64):
                a[i] = a[i] * 2.0 + T.log2(T.exp2(b[i] - a[i]) + c[i])
            T.copy(a, O[0])

    a, b, c = (RNG.uniform(0.1, 1, 64).astype(np.float32) for _ in range(3))
    got = tilepipe.compile(main, out_idx=[-1])(a, b, c)
    np.testing.assert_allclose(got, a * 2 + np.log2(np.exp2(b - a) + c), rtol=1e-5)


def test_scaled_loop_variable_is_not_an_index():
    @T.prim_func
    def main(A: T.Tensor((64, 64), "float32")):
        with T.Kernel(1, threads=128) as bx:
            a = T.alloc_fragment((32, 32), "float32")
            for i, j in T.Parallel(32, 32):
                a[i, j] = A[i * 2, j]
            T.copy(a, A[0, 0])

    with pytest.raises(T.LanguageError, match="scaled or combined loop variables"):
        main.build()


def test_masks_and_math_on_ascend():
    """The 910B vector unit compares only half and float: loop variables used as
    values are float32 there, and the AscendC has its Compare and Select."""

    @T.prim_func
    def main(A: T.Tensor((32, 64), "float32"), B: T.Tensor((32, 64), "float32")):
        with T.Kernel(2) as bx:
            a = T.alloc_ub((16, 64), "float32")
            T.copy(A[bx * 16, 0], a)
            for i, j in T.Parallel(16, 64):
                a[i, j] = T.if_then_else(bx * 16 + i >= j, T.rsqrt(a[i, j]), T.log(a[i, j]))
            T.copy(a, B[bx * 16, 0])

    kernel = tilepipe.compile(main, out_idx=[-1], target="ascend910b")
    source = kernel.get_kernel_source()
    assert "Compare" in source and "Select" in source and "Rsqrt" in source and "Ln" in source
    x = RNG.uniform(0.5, 2, (32, 64)).astype(np.float32)
    rows, cols = np.indices(x.shape)
    expected = np.where(rows >= cols, 1 / np.sqrt(x), np.log(x))
    np.testing.assert_allclose(kernel(x, check_races=True), expected, rtol=1e-6)
