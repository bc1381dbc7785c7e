"""Tensors indexed ``[..., rows, h, :]`` (TileLang's (batch, seq, heads, dim)): the
frontend packs their trailing dimensions, every subscript is rewritten, and calls
reshape the arrays -- checked on examples/python/flash_attention_bshd.py and on
small kernels of each access form."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import tilepipe
import tilepipe.language as T

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "python" / "flash_attention_bshd.py"
_spec = importlib.util.spec_from_file_location("tl_example_flash_attention_bshd", EXAMPLE)
fa = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fa)


@pytest.mark.parametrize("is_causal, seq_len", [(False, 128), (True, 128), (False, 96), (True, 96)])
def test_bshd_attention_sm80_race_free_and_equal_to_numpy(is_causal, seq_len):
    kernel = tilepipe.compile(fa.flash_attention(1, 2, seq_len, 64, is_causal), out_idx=[-1])
    assert "memref<1x%dx128xf16>" % seq_len in kernel.mlir()  # (heads, dim) packed: 2 * 64
    q, k, v = fa.inputs(1, 2, seq_len, 64, seed=3)
    out = kernel(q, k, v, check_races=True)
    assert out.shape == q.shape
    np.testing.assert_allclose(out, fa.reference(q, k, v, is_causal), rtol=2e-3, atol=2e-3)


def test_bshd_causal_attention_sm90a_ptxas_and_numpy():
    kernel = tilepipe.compile(fa.flash_attention(2, 1, 64, 64, True), out_idx=[-1],
                              target="sm_90a", run_ptxas=True)
    assert "ptxas" in kernel.summary and "accepted" in kernel.summary
    q, k, v = fa.inputs(2, 1, 64, 64, seed=4)
    np.testing.assert_allclose(kernel(q, k, v, check_races=True), fa.reference(q, k, v, True),
                               rtol=2e-3, atol=2e-3)


def _head_scale():
    """Each access form on one packed tensor: a slice tile, a T.Parallel element
    load and store with the head index, and a whole-tensor view of another head."""

    @T.prim_func
    def main(X: T.Tensor((2, 16, 3, 8), "float32"), Y: T.Tensor((2, 16, 3, 8), "float32")):
        with T.Kernel(3, 2, threads=128) as (h, b):
            x = T.alloc_fragment((16, 8), "float32")
            T.copy(X[b, 0:16, h, :], x)
            for i, j in T.Parallel(16, 8):
                Y[b, i, h, j] = x[i, j] * (h + 1) + X[b, i, 2 - h, j]

    return main


def test_every_access_form_of_a_packed_tensor():
    x = np.random.default_rng(0).standard_normal((2, 16, 3, 8)).astype(np.float32)
    y = tilepipe.compile(_head_scale(), out_idx=[-1])(x)
    scale = np.arange(1, 4, dtype=np.float32)[None, None, :, None]
    np.testing.assert_array_equal(y, x * scale + x[:, :, ::-1, :])


def test_a_partial_slice_of_the_last_dimension_is_a_contiguous_run():
    @T.prim_func
    def main(X: T.Tensor((2, 16, 3, 8), "float32"), Y: T.Tensor((16, 4), "float32")):
        with T.Kernel(1, threads=128) as bx:
            x = T.alloc_fragment((16, 4), "float32")
            T.copy(X[1, 0:16, 2, 2:6], x)
            T.copy(x, Y[0, 0])

    x = np.random.default_rng(1).standard_normal((2, 16, 3, 8)).astype(np.float32)
    np.testing.assert_array_equal(tilepipe.compile(main, out_idx=[-1])(x), x[1, :, 2, 2:6])


def test_a_slice_that_is_not_contiguous_in_the_packed_dimension_is_an_error():
    @T.prim_func
    def main(X: T.Tensor((2, 16, 3, 8), "float32"), Y: T.Tensor((16, 8), "float32")):
        with T.Kernel(1, threads=128) as bx:
            x = T.alloc_fragment((16, 8), "float32")
            T.copy(X[0, 0:16, 1, :], x)
            T.copy(X[0, 0:16, 0:2, 0:4], x)
            T.copy(x, Y[0, 0])

    with pytest.raises(T.LanguageError, match="must be whole"):
        main.build()
