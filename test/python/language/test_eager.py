"""Eager ``@tilepipe.jit`` kernels: the function is the kernel, its sizes come from
``.compile(M=...)`` or from the tensors it is called with, its outputs are the
``T.empty`` tensors it returns; and what goes wrong is said at the user's line."""

from __future__ import annotations

import numpy as np
import pytest

import tilepipe
from tilepipe.language import jit as jit_module

import eager_kernels as ek
from kernels import line_of


def _line(marker: str) -> int:
    return line_of(marker, ek.FILE)


def _ab(m, n, k, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1, 1, (m, k)).astype(np.float16),
            rng.uniform(-1, 1, (k, n)).astype(np.float16))


def test_compile_with_sizes_then_call():
    kernel = ek.matmul.compile(M=128, N=64, K=96, block_M=64, block_N=64, block_K=32)
    assert kernel.params == ["A", "B", "C"] and kernel.out_idx == [2]
    a, b = _ab(128, 64, 96)
    np.testing.assert_allclose(kernel(a, b), a.astype(np.float32) @ b.astype(np.float32),
                               rtol=1e-3, atol=1e-3)
    assert "memref<128x96xf16>" in kernel.mlir()


def test_call_reads_sizes_from_tensors_and_caches_per_shape():
    a, b = _ab(64, 64, 64)
    before = dict(jit_module.cache_stats)
    c = ek.matmul(a, b, block_M=64, block_N=64, block_K=32)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3, atol=1e-3)
    ek.matmul(a, b, block_M=64, block_N=64, block_K=32)
    assert jit_module.cache_stats["hits"] == before["hits"] + 1
    a2, b2 = _ab(128, 64, 64, seed=1)  # another M: another kernel, not the cached one
    c2 = ek.matmul(a2, b2, block_M=64, block_N=64, block_K=32)
    assert c2.shape == (128, 64)
    assert jit_module.cache_stats["misses"] == before["misses"] + 2


def test_dynamic_size_is_one_kernel_and_outputs_come_back_in_return_order():
    rng = np.random.default_rng(2)
    before = dict(jit_module.cache_stats)
    for rows in (32, 40):  # 40: a boundary block
        x = rng.uniform(0.5, 1.5, (rows, 32)).astype(np.float32)
        y, norm = ek.scale_rows(x)
        expected = np.sqrt((x * x).mean(1) + 1e-6)
        np.testing.assert_allclose(norm, expected, rtol=1e-5)
        np.testing.assert_allclose(y, x / expected[:, None], rtol=1e-5)
    assert jit_module.cache_stats["misses"] == before["misses"] + 1


def test_get_kernel_source_is_ptx():
    assert ".entry matmul" in ek.matmul.get_kernel_source(
        M=64, N=64, K=64, block_M=64, block_N=64, block_K=32)


@pytest.mark.parametrize("call, marker, words", [
    (lambda: ek.matmul(np.zeros((64, 32), np.float16), np.zeros((64, 64), np.float16),
                       block_M=64, block_N=64, block_K=32),
     None, "size K is 32 but 'B' has 64"),
    (lambda: ek.matmul(np.zeros((64,), np.float16), np.zeros((64, 64), np.float16),
                       block_M=64, block_N=64, block_K=32),
     "annotation-a", "'A' is declared with 2 dimensions (M, K) but is given shape (64,)"),
    (lambda: ek.matmul.compile(M=64, N=64, K=64, Q=3, block_M=64, block_N=64, block_K=32),
     None, "unexpected arguments: Q"),
    (lambda: ek.matmul.compile(M=64, N=64, K=64, block_M=64, block_N=64),
     None, "needs a value for block_K"),
    (lambda: ek.unreturned(np.zeros(64, np.float32)), "unreturned", "is never returned"),
])
def test_errors_name_the_line(call, marker, words):
    with pytest.raises(tilepipe.CompileError) as info:
        call()
    text = str(info.value.diagnostics[0])
    assert text.startswith(ek.FILE + ":"), text
    if marker is not None:
        assert text.startswith(f"{ek.FILE}:{_line(marker)}:"), text
    assert words in text, text


def test_out_idx_on_an_eager_kernel_is_refused():
    with pytest.raises(TypeError, match="T.empty"):
        tilepipe.jit(out_idx=[-1])(ek.matmul.__wrapped__)
