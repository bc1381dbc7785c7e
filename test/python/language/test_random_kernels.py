"""Random small element-wise + reduction kernels, built through the frontend and
compiled through the full CUDA flow (PTX), run in the interpreter equal to numpy.
A handful of seeds by default; ``TILEPIPE_LANGUAGE_SEEDS=N`` runs N."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

import tilepipe

from kernels import reduction

SEEDS = range(int(os.environ.get("TILEPIPE_LANGUAGE_SEEDS", "5")))


def reference(op, red, clear, a, b):
    elementwise = {
        "add": lambda: a + b, "sub": lambda: a - b * np.float32(0.5),
        "mul": lambda: a * b + np.float32(1.0), "max": lambda: np.maximum(a, b),
        "min": lambda: np.minimum(a, b), "exp": lambda: np.exp(a - b),
    }[op]().astype(np.float32)
    reduced = {"max": elementwise.max, "sum": elementwise.sum, "min": elementwise.min}[red](axis=1)
    if not clear:
        combine = {"max": np.maximum, "sum": np.add, "min": np.minimum}[red]
        reduced = combine(np.float32(0.25), reduced)
    return elementwise, reduced.astype(np.float32)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_kernel_equals_numpy(seed):
    rng = random.Random(seed)
    block_M = rng.choice([4, 8, 16])
    M = block_M * rng.choice([1, 2, 3])
    N = rng.choice([8, 16, 32])
    op = rng.choice(["add", "sub", "mul", "max", "min", "exp"])
    red = rng.choice(["max", "sum", "min"])
    clear = rng.choice([True, False])
    kernel = tilepipe.compile(reduction(M, N, block_M, op, red, clear), out_idx=[2, 3])
    assert ".entry" in kernel.get_kernel_source()
    data = np.random.default_rng(seed)
    a = data.uniform(-2, 2, (M, N)).astype(np.float32)
    b = data.uniform(-2, 2, (M, N)).astype(np.float32)
    c, r = kernel(a, b)
    want_c, want_r = reference(op, red, clear, a, b)
    np.testing.assert_allclose(c, want_c, rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(r, want_r, rtol=1e-5, atol=1e-5)
