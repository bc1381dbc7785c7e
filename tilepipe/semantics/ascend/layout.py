"""Physical layouts of the cube's L1 buffers, for the pipe simulator.

The cube reads its L1 operands in the fractal **NZ** layout: a ``R x C`` matrix is
stored as ``C / c0`` column blocks, each ``R`` rows of ``c0`` elements (one 32-byte
block, ``c0 = 32 / element size``), so element ``(r, c)`` lives at

    (c // c0) * R * c0 + r * c0 + c % c0

``DataCopy`` with ``Nd2NzParams`` (``ascend.data_copy_nd2nz``) and ``Fixpipe`` into L1
(``CFG_NZ``) write NZ and ``LoadData`` reads NZ; a plain ``DataCopy`` writes row-major
(ND).  The simulator keeps each L1 buffer as its physical memory -- the numpy array's
row-major order is the address order -- and places and fetches elements by these
formulas, so an ND copy followed by an NZ load computes garbage, as on the hardware.
L0A/L0B/L0C are read and written only by the cube's own instructions, each matching
the other's layout, so they stay logical.
"""

from __future__ import annotations

import itertools

import numpy as np


def c0_elements(dtype: np.dtype) -> int:
    """Elements of one 32-byte block, the inner dimension of an NZ fractal."""
    return max(1, 32 // dtype.itemsize)


def nz_positions(
    shape: tuple[int, ...], starts: tuple[int, ...], sizes: tuple[int, ...], c0: int
) -> tuple[tuple, np.ndarray]:
    """(leading index slices, flat positions [h, w]) of a region of an NZ buffer whose
    last two dimensions are the matrix (a 1-d buffer is one row)."""
    rows, cols = (1, shape[0]) if len(shape) == 1 else shape[-2:]
    r0, c_start = (0, starts[0]) if len(shape) == 1 else starts[-2:]
    h, w = (1, sizes[0]) if len(shape) == 1 else sizes[-2:]
    r = np.arange(r0, r0 + h)[:, None]
    c = np.arange(c_start, c_start + w)[None, :]
    flat = (c // c0) * rows * c0 + r * c0 + c % c0
    lead = tuple(slice(s, s + n) for s, n in zip(starts[:-2], sizes[:-2]))
    return lead, flat


def read_nz(array: np.ndarray, starts, sizes) -> np.ndarray:
    lead, flat = nz_positions(array.shape, tuple(starts), tuple(sizes), c0_elements(array.dtype))
    matrix = array.reshape(*array.shape[:-2], -1) if array.ndim >= 2 else array.reshape(1, -1)[0]
    picked = matrix[lead] if lead else matrix
    return picked[..., flat].reshape(sizes)


def write_nz(array: np.ndarray, starts, sizes, values: np.ndarray) -> None:
    lead, flat = nz_positions(array.shape, tuple(starts), tuple(sizes), c0_elements(array.dtype))
    matrix = array.reshape(*array.shape[:-2], -1) if array.ndim >= 2 else array.reshape(-1)
    values = np.asarray(values).reshape(sizes).astype(array.dtype)
    if array.ndim < 2:
        matrix[flat.reshape(-1)] = values.reshape(-1)
        return
    lead_ranges = [range(sl.start, sl.stop) for sl in lead]
    for index in itertools.product(*lead_ranges):
        local = tuple(i - sl.start for i, sl in zip(index, lead))
        matrix[index][flat] = values[local] if local else values
