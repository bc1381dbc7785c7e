"""Numerics shared by every interpreter of tilepipe (tile level, NVVM, Ascend).

All of them must sum a matrix product in one fixed order, or a transformed kernel could
differ from its source in the last bit for reasons that have nothing to do with the
transformation (BLAS picks its kernel, and so its summation order, by CPU type, matrix
size and thread count: ``OPENBLAS_CORETYPE`` alone changes ``a @ b``).
"""

from __future__ import annotations

import numpy as np

from tilepipe.dialects.tile_reduce_order import LANES, Split, SumTree, sum_tree


def matmul_f32(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for 2-D f32 arrays, summed over K in f32 in one fixed order: from
    zero, ascending K, each product rounded to f32 before it is added -- the order the
    scalar gemm path of lower-to-nvvm emits for a K step of f16/bf16 inputs (whose
    products are exact in f32).

    ``numpy.einsum`` without optimization sums exactly so when B has two or more
    columns (B is not contiguous along K: einsum's plain loop), and never calls BLAS
    (no thread pool, the same order on every machine), so it computes those.  A
    one-column B is contiguous along K, which einsum sums with several SIMD partial
    sums: that case is summed here one K at a time.  Both operands are made
    contiguous first: einsum's loop choice depends on the strides (a transposed view
    was summed differently), and a ``transpose_b`` gemm must round as the lowered one.
    """
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    if b.shape[1] >= 2:
        return np.einsum("mk,kn->mn", a, b, optimize=False)
    total = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for k in range(a.shape[1]):
        total = total + np.multiply.outer(a[:, k], b[k]).astype(np.float32)
    return total


# The K step of the tensor-core instruction (mma.sync m16n8k16) tile.gemm lowers to.
GEMM_K_STEP = 16


def gemm_k_step(input_bits: int) -> int:
    """The K step of a gemm whose A and B elements have ``input_bits`` bits: 16 for
    the formats tensor cores take (f16, bf16), 1 for f32, which lower-to-nvvm computes
    on its scalar path, one multiply and one add per K (PTX ``mul.f32``/``add.f32``,
    never contracted to an FMA), ascending."""
    return GEMM_K_STEP if input_bits < 32 else 1


def gemm_accumulate(
    c: np.ndarray, a: np.ndarray, b: np.ndarray, k_step: int = GEMM_K_STEP
) -> np.ndarray:
    """``C + A @ B`` (f32 ``a (M, K)``, ``b (K, N)``, ``c (M, N)``) in the order of the
    lowering (``gemm_k_step``): for each ``k_step``-wide step of K in ascending order,
    the step's product (``matmul_f32``; for one-wide steps the rounded product) is
    added to the running C.

    f32 addition is not associative: ``C + (A0 B0 + A1 B1)`` (the whole K summed first)
    and ``(C + A0 B0) + A1 B1`` (one mma.sync per K step) differ by a few ulps once K
    exceeds one step, so every interpreter must accumulate in this one order or a
    correctly lowered gemm would be reported as a miscompile.
    """
    if k_step == 1:
        for k in range(a.shape[1]):
            c = c + np.multiply.outer(a[:, k], b[k]).astype(np.float32)
        return c
    for k in range(0, a.shape[1], k_step):
        c = matmul_f32(a[:, k : k + k_step], b[k : k + k_step]) + c
    return c


# Elementwise ops compute in f32 for the formats narrower than f32 (f16; bf16 is read
# as f32 already) and are rounded once by the store; f32, f64 and integers compute in
# their own format.  One definition for every interpreter: numpy's f16 ``exp`` loop and
# its f32 loop widened by hand round differently on some elements (1 ulp of f16), so an
# interpreter that picked the other one would report a miscompile that is not there.


def widened(values: np.ndarray) -> np.ndarray:
    """``values`` in the format elementwise ops compute in (see above)."""
    values = np.asarray(values)
    if values.dtype.kind == "f" and values.dtype.itemsize < 4:
        return values.astype(np.float32)
    return values


def exp(values: np.ndarray) -> np.ndarray:
    """``exp`` elementwise, unrounded (in the compute format); overflow gives inf."""
    return unary("exp", values)


UNARY = {
    "exp": np.exp,
    # log(0) = -inf, log(x < 0) = NaN, log(inf) = inf.
    "log": np.log,
    # Correctly rounded; sqrt(-0) = -0, sqrt(x < 0) = NaN.
    "sqrt": np.sqrt,
    # 1 / sqrt(x), rounded twice in the compute format (once for f16/bf16 results,
    # whose f32 computation is exact enough); rsqrt(+0) = +inf, rsqrt(-0) = -inf.
    "rsqrt": lambda values: np.divide(np.ones((), values.dtype), np.sqrt(values)),
}


def unary(kind: str, values: np.ndarray) -> np.ndarray:
    """The unary elementwise op ``kind`` (a key of ``UNARY``), unrounded (in the
    compute format); IEEE on the edges (overflow to inf, NaN outside the domain)."""
    with np.errstate(all="ignore"):
        return UNARY[kind](widened(values))


COMPARE = {
    "eq": np.equal,
    "ne": np.not_equal,  # true when either operand is NaN (IEEE's unordered ne)
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}


def compare(predicate: str, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``tile.cmp``'s ``lhs PRED rhs`` as booleans: integers signed, floats ordered
    (a NaN compares false except under ``ne``).  Exact in any format."""
    with np.errstate(invalid="ignore"):
        return COMPARE[predicate](np.asarray(lhs), np.asarray(rhs))


def select(mask: np.ndarray, on_true: np.ndarray, on_false: np.ndarray) -> np.ndarray:
    """``tile.select``: ``on_true`` where the mask is nonzero (NaN is), else
    ``on_false``; ``+-0`` selects ``on_false``."""
    with np.errstate(invalid="ignore"):
        return np.where(np.asarray(mask) != 0, on_true, on_false)


def iota(start, shape: tuple[int, ...], dim: int, compute: np.dtype) -> np.ndarray:
    """``tile.iota``: ``start + i_dim`` over a ``shape`` tile, unrounded: floats add in
    the compute format (f32 for f16/bf16; the store rounds the sum to the element
    type), integers in ``compute``, wrapping."""
    axis = [-1 if d == dim else 1 for d in range(len(shape))]
    coordinates = np.arange(shape[dim], dtype=np.int64).reshape(axis)
    if compute.kind == "f":
        first = widened(np.asarray(start, dtype=compute))
        total = first + coordinates.astype(first.dtype)
    else:
        # Two's complement: the sum modulo 2^bits, whatever the start's sign.
        total = (coordinates + int(start)).astype(compute)
    return np.broadcast_to(total, shape)


BINARY = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "max": np.maximum,
    "div": np.divide,
}


def binary(kind: str, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """The elementwise op ``kind`` (a key of ``BINARY``), unrounded; IEEE on 0/0, x/0."""
    with np.errstate(all="ignore"):
        return BINARY[kind](widened(lhs), widened(rhs))


def reduce_sum(values: np.ndarray, axis: int) -> np.ndarray:
    """``tile.reduce sum`` along ``axis``, in the order the op defines
    (``tilepipe.dialects.tile_reduce_order``; numpy's pairwise order along a contiguous
    row, but the same along every axis -- numpy sums a leading axis one row at a time)."""
    rows = np.moveaxis(np.asarray(values), axis, -1)

    def total(tree: SumTree) -> np.ndarray:
        if isinstance(tree, Split):
            return total(tree.left) + total(tree.right)
        partials = [rows[..., tree.start + lane] for lane in range(LANES if tree.rounds else 0)]
        for round_ in range(1, tree.rounds):
            for lane in range(LANES):
                partials[lane] = partials[lane] + rows[..., tree.start + round_ * LANES + lane]
        while len(partials) > 1:  # ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7))
            partials = [partials[i] + partials[i + 1] for i in range(0, len(partials), 2)]
        result = partials[0] if partials else None
        for index in tree.tail:
            result = rows[..., index] if result is None else result + rows[..., index]
        assert result is not None
        return result

    zero = np.zeros((), rows.dtype)
    return zero + total(sum_tree(rows.shape[-1]))


def float_to_integer(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``tile.cast`` from a float to an integer type: toward zero, saturating at the
    type's range (+inf to the maximum, -inf to the minimum), NaN to 0 -- what PTX's
    ``cvt.rzi`` does, where numpy's own cast leaves such values undefined."""
    info = np.iinfo(dtype)
    wide = np.trunc(values.astype(np.float64))
    with np.errstate(invalid="ignore"):
        clipped = np.clip(np.nan_to_num(wide, nan=0.0), float(info.min), float(info.max))
        result = clipped.astype(dtype)
    # float(info.max) of an i64 rounds up to 2^63, which has no int64.
    return np.where(wide >= float(info.max), info.max, result).astype(dtype)


def atomic_add(current: np.ndarray, addend: np.ndarray) -> np.ndarray:
    """One atomic add of ``addend`` to ``current`` (``tile.atomic_add``), unrounded:
    the store rounds it once.  An f16 sum computed in f32 then rounded to f16 is the
    correctly rounded f16 sum (f32 has more than twice f16's precision), so this is
    the hardware's ``atom.add.noftz.f16``; integers wrap."""
    return binary("add", current, addend)
