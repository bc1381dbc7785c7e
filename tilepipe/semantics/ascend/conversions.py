"""What the Ascend pipe simulator computes for the vector unit's ``Cast``, the plan
of an ``ascend.reduce`` and the fixpipe's converting move out of L0C.

* ``Cast`` converts as ``tile.cast`` does for the pairs the lowering admits
  (``ascend.VECTOR_CAST_MODES``): round to nearest even to a float, toward zero and
  saturating to an integer (``numerics.float_to_integer``);
* a reduction runs its plan (``dialects/ascend_reduce_plan.py``) instruction by
  instruction in f32 -- the strided adds, ``BlockReduce*``'s binary tree per 32-byte
  block -- so that the comparison with the tile level checks the order, not just
  the sum;
* the fixpipe's F322F16/F322BF16 quantization rounds to nearest even and
  *saturates*: asc-devkit's ``asc_copy_l0c2gm`` (arch 2201) says its result "不支持
  INF_NAN模式", i.e. an overflow or an infinity becomes the largest finite value of
  the type and a NaN becomes 0 (CTRL[48]'s saturation mode).  ``tile.cast`` gives
  infinity and NaN there, so each element where the two differ is reported
  (:func:`fixpipe_convert` returns how many).
"""

from __future__ import annotations

import numpy as np

from tilepipe.dialects.ascend_reduce_plan import F32_BLOCK, ReducePlan, View
from tilepipe.semantics import numerics


def vector_cast(values: np.ndarray, target: np.dtype) -> np.ndarray:
    """``Cast`` of ``values`` to ``target`` (unrounded for float targets: the store
    rounds to nearest even)."""
    if target.kind == "i" and values.dtype.kind == "f":
        return numerics.float_to_integer(values, target)
    return values


def fixpipe_convert(values: np.ndarray, target: np.dtype) -> tuple[np.ndarray, int]:
    """The fixpipe's f32 -> ``target`` conversion (saturating, see the module doc),
    and the number of elements where it differs from ``tile.cast``."""
    if target == values.dtype:
        return values, 0
    with np.errstate(over="ignore", invalid="ignore"):
        rounded = values.astype(target)
    largest = np.finfo(target).max
    saturated = np.where(np.isnan(values), target.type(0), np.clip(rounded, -largest, largest))
    saturated = saturated.astype(target)
    differs = ~((saturated == rounded) | (np.isnan(saturated) & np.isnan(rounded)))
    return saturated, int(np.count_nonzero(differs))


def _indices(view: View) -> np.ndarray:
    rows = np.arange(view.rows).reshape(-1, 1) * view.row_stride
    return (view.offset + rows + np.arange(view.width)).reshape(-1)


def _block_tree(blocks: np.ndarray, combine) -> np.ndarray:
    """Each row of 8 lanes reduced as ``((d0 + d1) + (d2 + d3)) + ((d4 + d5) + (d6 + d7))``."""
    while blocks.shape[1] > 1:
        blocks = combine(blocks[:, 0::2], blocks[:, 1::2])
    return blocks[:, 0]


def run_reduce_plan(plan: ReducePlan, source: np.ndarray, target: np.dtype) -> np.ndarray:
    """The destination tile (flat, ``target`` elements) that ``plan``'s vector calls
    leave for the flat source tile ``source``."""
    combine = np.add if plan.reduce_kind == "sum" else np.maximum
    buffers = {
        "src": np.asarray(source).reshape(-1),
        "work": np.zeros(plan.work_elements, np.float32),
        "dst": np.zeros(plan.steps[-1].out.count, target),
    }

    def read(view: View) -> np.ndarray:
        return buffers[view.buffer][_indices(view)]

    with np.errstate(all="ignore"):
        for step in plan.steps:
            if step.kind == "widen":
                values = read(step.a).astype(np.float32)
            elif step.kind == "combine":
                assert step.b is not None
                values = combine(read(step.a).astype(np.float32), read(step.b).astype(np.float32))
            elif step.kind == "block":
                lanes = read(step.a).reshape(-1, F32_BLOCK)
                values = _block_tree(lanes, combine)[: step.out.count]
            elif step.kind == "add_zero":
                values = np.float32(0) + read(step.a)
            else:  # copy, narrow: the store rounds to nearest even
                values = read(step.a)
            out = buffers[step.out.buffer]
            out[_indices(step.out)] = values.astype(out.dtype)
    return buffers["dst"]
