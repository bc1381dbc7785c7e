"""The compile cache: the same kernel hits; another shape, constant, target or
output list misses (a cache that ignores the shape hands back a wrong kernel)."""

from __future__ import annotations

import numpy as np

import tilepipe
from tilepipe.language import jit as jit_module

from kernels import reduction


def test_same_kernel_hits_and_other_shapes_miss():
    first = tilepipe.compile(reduction(16, 16, 8, "add", "sum", True), out_idx=[2, 3])
    again = tilepipe.compile(reduction(16, 16, 8, "add", "sum", True), out_idx=[2, 3])
    assert again is first
    other_shape = tilepipe.compile(reduction(32, 16, 8, "add", "sum", True), out_idx=[2, 3])
    other_op = tilepipe.compile(reduction(16, 16, 8, "mul", "sum", True), out_idx=[2, 3])
    other_outs = tilepipe.compile(reduction(16, 16, 8, "add", "sum", True), out_idx=[3])
    assert len({id(k) for k in (first, other_shape, other_op, other_outs)}) == 4
    a = np.ones((32, 16), np.float32)
    c, r = other_shape(a, a)
    assert c.shape == (32, 16) and r.shape == (32,)
    np.testing.assert_array_equal(r, np.full(32, 32.0, np.float32))


def test_jit_factory_uses_the_cache():
    before = dict(jit_module.cache_stats)

    @tilepipe.jit(out_idx=[-2, -1])
    def kernel(M, N):
        return reduction(M, N, 8, "max", "max", True)

    k1, k2 = kernel(8, 16), kernel(8, 16)
    assert k1 is k2
    assert jit_module.cache_stats["hits"] >= before["hits"] + 1
    x = np.arange(128, dtype=np.float32).reshape(8, 16)
    c, r = k1(x, -x)
    np.testing.assert_array_equal(r, x.max(axis=1))
