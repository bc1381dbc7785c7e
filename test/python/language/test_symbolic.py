"""T.symbolic sizes: ``?`` memref sizes, a ``tile.grid_dims`` grid, boundary tiles
(reads past an array are 0, writes dropped) -- one kernel for every shape."""

from __future__ import annotations

import numpy as np

import tilepipe

from kernels import gemm_symbolic


def test_symbolic_gemm_runs_any_shape():
    kernel = tilepipe.compile(gemm_symbolic(), out_idx=[-1])
    text = kernel.mlir()
    assert "memref<?x?xf16>" in text and "tile.grid_dims" in text
    rng = np.random.default_rng(5)
    for m, k, n in ((200, 77, 129), (64, 64, 64)):
        a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
        b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
        c = kernel(a, b)
        assert c.shape == (m, n)
        np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3, atol=1e-3)
