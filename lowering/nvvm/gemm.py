"""``tile.gemm`` on tensor cores (``nvgpu.ldmatrix`` + ``mma.sync`` m16n8k16),
with a scalar path for whatever tensor cores cannot take.

Which path a gemm takes is data: the target's ``mma_shapes`` (``CudaTarget``) say
which input types have an m16n8k16 instruction, and the accumulator's layout
(``layout.py``: an mma accumulator layout when its tile is whole 16x8 blocks over
some of the block's warps) says whether the gemm's C is held the way mma.sync
needs it.  Tensor cores then run every whole 16-wide step of K whose operands
ldmatrix can read (16-byte rows); the scalar path runs the rest: the K tail, or the
whole gemm.

Tensor-core path: each warp of the grid owns a ``warp_m x warp_n`` sub-tile of C,
held in registers in the accumulator layout (``MmaAccumulatorLayout``); a tile with
fewer 16x8 blocks than the block has warps runs on some of them, the others skip
the gemm (it holds no barrier, so nothing else is made non-uniform).  For every
16-wide step of K it loads one A fragment per 16 rows with ``ldmatrix.x4`` and the
B fragments of two 8-column blocks with one ``ldmatrix.x4`` (``.trans`` for a
row-major KxN B), then issues one ``mma.sync`` per 16x8 block; LLVM unrolls the
k-steps.  The lane addresses follow the PTX ISA's ``ldmatrix`` rule (lanes
``8i..8i+7`` address the rows of matrix ``i``) and produce exactly the A/B fragment
layouts ``mma.m16n8k16`` expects.

f16 uses ``nvgpu.mma.sync``.  bf16 uses upstream's ``nvvm.mma.sync`` directly
(``m16n8k16.row.col`` with bf16 multiplicand types), because upstream 22.1.8's
``convert-nvgpu-to-nvvm`` cannot lower a bf16 ``nvgpu.mma.sync`` (it reports an error
without failing, which aborts the bindings).  The ldmatrix fragments are the same;
each ``vector<2xbf16>`` row of a fragment is bitcast (``llvm.bitcast``) to the i32
register PTX wants, and the ``!llvm.struct<(f32, f32, f32, f32)>`` result is taken
apart with ``llvm.extractvalue``.

Scalar path: every thread computes the accumulator elements it owns (under C's
layout) from A and B in shared or global memory, in the order the tile level
defines (``numerics.gemm_accumulate``): f32 inputs one K at a time (a rounded
product, then a rounded sum); f16/bf16 inputs one 16-wide step of K at a time, each
step summed from zero in ascending K (the products are exact in f32) and then added
to C -- the same rounding as a tensor-core step, so the two paths can share an
accumulator and a K split between them.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, llvm, vector
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseArrayBase,
    FloatAttr,
    VectorType,
    f32,
    i32,
    i64,
)
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tilepipe.dialects.nvgpu import LdMatrixOp, MmaSyncOp
from tilepipe.dialects.nvvm import FenceProxyOp, MmaOp
from tilepipe.dialects.tile import GemmOp
from tilepipe.core.diagnostics import op_error

from tilepipe.lowering.nvvm import emit
from tilepipe.lowering.nvvm.access import TileOperand, tile_operands
from tilepipe.lowering.nvvm.kernel import KernelContext
from tilepipe.lowering.nvvm.layout import (
    MMA_K,
    MMA_N,
    MmaAccumulatorLayout,
    WarpgroupGrid,
    tensor_core_shape,
)
from tilepipe.lowering.nvvm.staging import stage_register_operands
from tilepipe.lowering.nvvm.wgmma import lower_on_wgmma, wgmma_forms
from tilepipe.lowering.nvvm.wgmma_register_a import register_fragment

ACCUMULATOR_VECTOR = VectorType(f32, [2, 2])


class LowerGemm(RewritePattern):
    def __init__(self, context: KernelContext):
        self.context = context

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GemmOp, rewriter: PatternRewriter) -> None:
        operands = tile_operands(op, self.context)
        a, b, c = operands["a"], operands["b"], operands["c"]
        if not c.is_fragment:  # the verifier admits fragments (and Ascend's L0C) only
            raise op_error(op, "the accumulator must be a register fragment")
        k = op.mnk[2]
        with emit.emitting(rewriter, op):
            a, b = stage_register_operands(op, self.context, [a, b])
            tensor_k = _tensor_core_extent(self.context, a, b, c, k)
            forms = wgmma_forms(op, self.context, a, b, c) if tensor_k else None
            if forms is not None:
                lower_on_wgmma(op, self.context, a, b, c, forms, tensor_k)
            elif tensor_k:
                assert isinstance(c.layout, MmaAccumulatorLayout)
                _tensor_core_gemm(op, self.context, a, b, c, c.layout, tensor_k)
            if tensor_k < k:
                _scalar_gemm(op, self.context, a, b, c, tensor_k)
            if _generic_reads_of_a_wgmma_gemm(c, forms is not None and tensor_k == k):
                # thread-sync took this gemm's operand reads for wgmma's (async
                # proxy): its generic ones are fenced as such (warpgroup_mma.py).
                FenceProxyOp()
        rewriter.erase(op)


def _generic_reads_of_a_wgmma_gemm(c: TileOperand, all_on_wgmma: bool) -> bool:
    """Did a gemm into an accumulator of wgmma's layout read some of its operands
    with ordinary loads (ldmatrix, the scalar path)?"""
    layout = c.layout
    return (
        isinstance(layout, MmaAccumulatorLayout)
        and isinstance(layout.grid, WarpgroupGrid)
        and not all_on_wgmma
    )


def _tensor_core_extent(
    context: KernelContext, a: TileOperand, b: TileOperand, c: TileOperand, k: int
) -> int:
    """How much of K (from 0) runs on tensor cores: its whole 16-wide steps when the
    target has an mma for the inputs, C has the mma layout and ldmatrix can read A and
    B (16-byte rows at 16-byte aligned columns); else none.  (An f32 gemm into an mma
    accumulator runs on the scalar path over its layout: fuzz seed 411991.)"""
    if tensor_core_shape(context.target, a.element_type) is None:
        return 0
    if not isinstance(c.layout, MmaAccumulatorLayout):
        return 0
    if not (a.vector_aligned(8) and b.vector_aligned(8)):
        return 0
    return k - k % MMA_K


def _ldmatrix(
    operand: TileOperand, coords: list[SSAValue], tiles: int, transpose: bool
) -> SSAValue:
    fragment_type = VectorType(operand.element_type, [tiles, 2])
    return LdMatrixOp(
        operand.buffer, operand.indices(coords), tiles, transpose, fragment_type
    ).res


def _packed_registers(fragment: SSAValue, tiles: int) -> list[SSAValue]:
    """The i32 registers of a bf16 ldmatrix fragment: row ``i`` (a ``vector<2xbf16>``
    pair, lower element in the lower half) is register ``i``."""
    pair = VectorType(BFloat16Type(), [2])
    return [
        llvm.BitcastOp(vector.ExtractOp(fragment, [i], pair).result, i32).result
        for i in range(tiles)
    ]


@dataclass(frozen=True)
class _LaneOffsets:
    """The lane's row/column offsets in the ``ldmatrix`` address patterns."""

    mod16: SSAValue
    mod8: SSAValue
    half_k: SSAValue  # lanes 16..31: 8 on (the k + 8 half of A, B's second block)
    second_matrix: SSAValue  # lanes 8..15, 24..31: 8 on

    @staticmethod
    def of(lane: SSAValue) -> _LaneOffsets:
        return _LaneOffsets(
            emit.rem(lane, 16),
            emit.rem(lane, 8),
            emit.mul(emit.div(lane, 16), 8),
            emit.mul(emit.rem(emit.div(lane, 8), 2), 8),
        )


def _b_fragments(
    b: TileOperand,
    k0: SSAValue,
    warp_col: SSAValue,
    lanes: _LaneOffsets,
    tiles_n: int,
    transpose_b: bool,
) -> list[SSAValue]:
    """The B fragments of one 16-wide k-step, two 8-column blocks per ``ldmatrix.x4``
    (an odd last block with ``.x2``).

    The four 8x8 matrices of an x4 load are (k 0-7, block j), (k 8-15, block j),
    (k 0-7, block j+1), (k 8-15, block j+1): registers 0-1 are block j's fragment,
    2-3 block j+1's.  Lanes ``8i..8i+7`` address matrix ``i``, so lanes 16-31 (whose
    addresses an x2 load ignores) address the second block, 8 columns on.
    """
    fragments = []
    for j in range(0, tiles_n, 2):
        pair = j + 1 < tiles_n
        col0 = emit.add(warp_col, j * MMA_N)
        block = lanes.half_k if pair else emit.const(0)
        if transpose_b:  # B stored N x K: rows of B^T are columns of B
            row = emit.add(emit.add(col0, lanes.mod8), block)
            coords = [row, emit.add(k0, lanes.second_matrix)]
        else:
            coords = [emit.add(k0, lanes.mod16), emit.add(col0, block)]
        loaded = _ldmatrix(b, coords, 4 if pair else 2, not transpose_b)
        if pair:
            fragments += [emit.rows(loaded, first, 2) for first in (0, 2)]
        else:
            fragments.append(loaded)
    return fragments


def _tensor_core_gemm(
    op: GemmOp,
    context: KernelContext,
    a: TileOperand,
    b: TileOperand,
    c: TileOperand,
    layout: MmaAccumulatorLayout,
    k_extent: int,
) -> None:
    warp = context.ids.warp
    layout.grid.if_active(
        warp, lambda: _warp_tile_gemm(op, context, warp, a, b, c, layout, k_extent)
    )


def _warp_tile_gemm(
    op: GemmOp,
    context: KernelContext,
    warp: SSAValue,
    a: TileOperand,
    b: TileOperand,
    c: TileOperand,
    layout: MmaAccumulatorLayout,
    k_extent: int,
) -> None:
    grid = layout.grid
    warp_row, warp_col = grid.warp_origin(warp)
    lanes = _LaneOffsets.of(context.ids.lane)
    transpose_a = op.transpose_a is not None
    transpose_b = op.transpose_b is not None
    bf16 = isinstance(a.element_type, BFloat16Type)
    # f16: the vector<2x2xf32> the four accumulator registers are inserted over (they
    # overwrite it whole), once for every mma of the warp tile.
    zero_accumulator = None if bf16 else emit.float_zeros(ACCUMULATOR_VECTOR)

    def k_step(k0: SSAValue) -> None:
        a_fragments = []
        for i in range(grid.tiles_m):
            if a.is_fragment:  # wgmma's register A, where wgmma did not take B
                a_fragments.append(register_fragment(a, i, k0, bf16))
                continue
            row0 = emit.add(warp_row, i * grid.block_rows)
            if transpose_a:  # A stored K x M: transposing loads of 8x8 blocks
                coords = [
                    emit.add(emit.add(k0, lanes.mod8), lanes.half_k),
                    emit.add(row0, lanes.second_matrix),
                ]
            else:
                coords = [emit.add(row0, lanes.mod16), emit.add(k0, lanes.half_k)]
            a_fragments.append(_ldmatrix(a, coords, 4, transpose_a))
        b_fragments = _b_fragments(b, k0, warp_col, lanes, grid.tiles_n, transpose_b)
        if bf16:
            a_registers = [
                f if isinstance(f, list) else _packed_registers(f, 4) for f in a_fragments
            ]
            b_registers = [_packed_registers(f, 2) for f in b_fragments]
            for i in range(grid.tiles_m):
                for j in range(grid.tiles_n):
                    registers = [
                        emit.const(layout.register_index(i, j, r)) for r in range(4)
                    ]
                    accumulators = [emit.load(c.buffer, [reg]) for reg in registers]
                    result = MmaOp(a_registers[i], b_registers[j], accumulators).res
                    for r, register in enumerate(registers):
                        value = llvm.ExtractValueOp(
                            DenseArrayBase.from_list(i64, [r]), result, f32
                        ).res
                        emit.store(value, c.buffer, [register])
            return
        for i in range(grid.tiles_m):
            for j in range(grid.tiles_n):
                # c0..c3 of a 16x8 block are four neighbouring registers: one
                # 16-byte vector each way, which LLVM keeps in registers.
                register = [emit.const(layout.register_index(i, j, 0))]
                acc = emit.vector_load(c.buffer, register, 4)
                assert zero_accumulator is not None
                acc = emit.split_rows(acc, zero_accumulator)
                acc = MmaSyncOp(a_fragments[i], b_fragments[j], acc).res
                emit.vector_store(emit.join_rows(acc), c.buffer, register)

    # LLVM unrolls the k-steps completely (it would keep a loop of two steps, paying
    # its counter and address updates every step): their shared-memory addresses then
    # differ by constants, folded into the ldmatrix immediates.
    emit.for_range(
        k_extent // MMA_K, lambda step: k_step(emit.mul(step, MMA_K)), unroll=True
    )


def _f32_zero() -> SSAValue:
    return arith.ConstantOp(FloatAttr(0.0, f32)).result


def _scalar_gemm(
    op: GemmOp,
    context: KernelContext,
    a: TileOperand,
    b: TileOperand,
    c: TileOperand,
    k_begin: int,
) -> None:
    """``C += A[:, k_begin:] B[k_begin:, :]`` element by element (see the module doc
    for the order)."""
    assert c.layout is not None
    k_extent = op.mnk[2]
    transpose_a = op.transpose_a is not None
    transpose_b = op.transpose_b is not None
    # The tile level's K step (numerics.gemm_k_step): one for f32, mma's 16 for the
    # narrow formats, whichever path runs them.
    k_step = 1 if a.element_type == f32 else MMA_K

    def widen(value: SSAValue) -> SSAValue:
        return value if value.type == f32 else arith.ExtFOp(value, f32).result

    def one_element(register: SSAValue, coords: list[SSAValue]) -> None:
        row, col = coords

        def multiply_add(k: SSAValue, acc: SSAValue) -> SSAValue:
            a_value = a.load([k, row] if transpose_a else [row, k], None)
            b_value = b.load([col, k] if transpose_b else [k, col], None)
            product = arith.MulfOp(widen(a_value), widen(b_value)).result
            return arith.AddfOp(acc, product).result

        def step_sum(k0: SSAValue, width: int) -> SSAValue:
            """The products of K ``k0 .. k0 + width``, summed from zero upwards."""
            return emit.for_range_carrying(
                width, _f32_zero(), lambda k, acc: multiply_add(emit.add(k0, k), acc)
            )

        acc = c.load(coords, register)
        if k_step == 1:
            acc = emit.for_range_carrying(
                k_extent - k_begin, acc, lambda k, acc: multiply_add(emit.add(k, k_begin), acc)
            )
        else:
            steps, tail = divmod(k_extent - k_begin, k_step)

            def whole_step(step: SSAValue, acc: SSAValue) -> SSAValue:
                k0 = emit.add(emit.mul(step, k_step), k_begin)
                return arith.AddfOp(acc, step_sum(k0, k_step)).result

            if steps:
                acc = emit.for_range_carrying(steps, acc, whole_step)
            if tail:
                last = emit.const(k_begin + steps * k_step)
                acc = arith.AddfOp(acc, step_sum(last, tail)).result
        c.store(acc, coords, register)

    c.layout.for_each(context.ids, one_element)
