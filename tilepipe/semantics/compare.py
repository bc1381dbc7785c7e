"""Exact comparison of kernel outputs (bit patterns, so NaNs and -0.0 count)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np


def _bits(array: np.ndarray) -> np.ndarray:
    if array.dtype.kind == "f":
        return np.ascontiguousarray(array).view(f"u{array.dtype.itemsize}")
    return array


def first_difference(
    expected: Mapping[str, np.ndarray],
    actual: Mapping[str, np.ndarray],
    expected_name: str = "original",
    actual_name: str = "transformed",
) -> str | None:
    """None when both runs produced bit-identical outputs, else what differs first."""
    if set(expected) != set(actual):
        return (
            f"the kernels have different memref arguments: {sorted(expected)} in "
            f"{expected_name}, {sorted(actual)} in {actual_name}"
        )
    for name, want in expected.items():
        got = actual[name]
        if want.shape != got.shape or want.dtype != got.dtype:
            return (
                f"%{name} is {want.shape} {want.dtype} in {expected_name} but "
                f"{got.shape} {got.dtype} in {actual_name}"
            )
        differs = _bits(want) != _bits(got)
        if differs.any():
            index = tuple(int(i) for i in np.argwhere(differs)[0])
            where = ", ".join(str(i) for i in index)
            return (
                f"outputs differ: %{name}[{where}] is {want[index]!r} in "
                f"{expected_name} but {got[index]!r} in {actual_name} "
                f"({int(differs.sum())} of {differs.size} elements differ)"
            )
    return None
