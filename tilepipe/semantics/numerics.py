"""Numerics shared by every interpreter of tilepipe (tile level, NVVM, Ascend).

All of them must sum a matrix product in one fixed order, or a transformed kernel could
differ from its source in the last bit for reasons that have nothing to do with the
transformation (BLAS picks its kernel, and so its summation order, by CPU type, matrix
size and thread count: ``OPENBLAS_CORETYPE`` alone changes ``a @ b``).
"""

from __future__ import annotations

import numpy as np


def matmul_f32(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for 2-D f32 arrays, summed over K in f32 in one fixed order.

    ``numpy.einsum`` without optimization never calls BLAS: no thread pool (whose
    start-up dominated small tiles) and the same order on every machine.
    """
    return np.einsum("mk,kn->mn", a, b, optimize=False)
