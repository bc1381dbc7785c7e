"""``tile.gemm`` on tensor cores (``nvgpu.ldmatrix`` + ``mma.sync`` m16n8k16),
with a scalar FMA path for the dtypes tensor cores lack.

Tensor-core path (f16 or bf16 inputs in shared memory, f32 accumulator fragment, M, N,
K tiling into whole m16n8k16 blocks over the block's warps -- ``choose_warp_grid``):
each warp owns a ``warp_m x warp_n`` sub-tile of C, held in registers in the
accumulator layout (``MmaAccumulatorLayout``).  For every 16-wide step of K it loads
one A fragment per 16 rows with ``ldmatrix.x4`` and the B fragments of two 8-column
blocks with one ``ldmatrix.x4`` (``.trans`` for a row-major KxN B), then issues one
``mma.sync`` per 16x8 block; LLVM unrolls the k-steps.  The lane addresses follow the
PTX ISA's ``ldmatrix`` rule (lanes ``8i..8i+7`` address the rows of matrix ``i``) and
produce exactly the A/B fragment layouts ``mma.m16n8k16`` expects.

f16 uses ``nvgpu.mma.sync``.  bf16 uses upstream's ``nvvm.mma.sync`` directly
(``m16n8k16.row.col`` with bf16 multiplicand types), because upstream 22.1.8's
``convert-nvgpu-to-nvvm`` cannot lower a bf16 ``nvgpu.mma.sync`` (it reports an error
without failing, which aborts the bindings).  The ldmatrix fragments are the same;
each ``vector<2xbf16>`` row of a fragment is bitcast (``llvm.bitcast``) to the i32
register PTX wants, and the ``!llvm.struct<(f32, f32, f32, f32)>`` result is taken
apart with ``llvm.extractvalue``.

Scalar FMA path (f32 inputs, which tensor cores have no m16n8k16 form for): every
thread computes the accumulator elements it owns as a K-loop of multiply-adds,
reading A and B from shared memory.  An f16/bf16 gemm whose tile does not split into
m16n8k16 blocks over the warps is an error, not a silent slow path.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, llvm, vector
from xdsl.dialects.builtin import BFloat16Type, DenseArrayBase, VectorType, f32, i32, i64
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tilepipe.dialects.nvgpu import LdMatrixOp, MmaSyncOp
from tilepipe.dialects.nvvm import MmaOp
from tilepipe.dialects.tile import GemmOp
from tilepipe.dialects.vector_upstream import ExtractStridedSliceOp
from tilepipe.core.diagnostics import op_error

from tilepipe.lowering.nvvm import emit
from tilepipe.lowering.nvvm.access import TileOperand, tile_operands
from tilepipe.lowering.nvvm.kernel import KernelContext
from tilepipe.lowering.nvvm.layout import (
    MMA_K,
    MMA_M,
    MMA_N,
    TENSOR_CORE_INPUTS,
    MmaAccumulatorLayout,
    tensor_core_misfit,
)

ACCUMULATOR_VECTOR = VectorType(f32, [2, 2])


class LowerGemm(RewritePattern):
    def __init__(self, context: KernelContext):
        self.context = context

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GemmOp, rewriter: PatternRewriter) -> None:
        operands = tile_operands(op, self.context)
        a, b, c = operands["a"], operands["b"], operands["c"]
        if not c.is_fragment:
            raise op_error(op, "the accumulator must be a register fragment")
        if a.is_fragment or b.is_fragment:
            raise op_error(op, "gemm inputs must be in shared (or global) memory")
        # The accumulator's layout is mma.sync's when any gemm into it runs on tensor
        # cores; an f32 gemm into the same fragment still takes the scalar path, over
        # that layout (fuzz seed 411991: it issued an f32 ldmatrix, which upstream
        # rejects and the NVVM interpreter ran as a wrong product).
        mma_layout = isinstance(c.layout, MmaAccumulatorLayout)
        tensor_cores = mma_layout and isinstance(a.element_type, TENSOR_CORE_INPUTS)
        if isinstance(a.element_type, TENSOR_CORE_INPUTS) and not mma_layout:
            m, n, k = op.mnk
            misfit = tensor_core_misfit(m, n, k, self.context.warps)
            raise op_error(
                op,
                f"{a.element_type} gemms run on tensor cores (mma.sync m16n8k16), but "
                f"{misfit}; choose a tile that splits, or f32 for the scalar path",
            )
        if tensor_cores:
            for operand in (a, b):
                if not operand.vector_aligned(8):
                    raise op_error(
                        op,
                        f"ldmatrix reads 16-byte rows: {operand.role} must be rows of a "
                        "multiple of 8 elements at a column offset that is provably a "
                        "multiple of 8",
                    )
        with emit.emitting(rewriter, op):
            if tensor_cores:
                assert isinstance(c.layout, MmaAccumulatorLayout)
                _tensor_core_gemm(op, self.context, a, b, c, c.layout)
            else:
                _fma_gemm(op, self.context, a, b, c)
        rewriter.erase(op)


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
            fragments += [ExtractStridedSliceOp(loaded, first, 2).result for first in (0, 2)]
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
) -> None:
    grid = layout.grid
    warp_row, warp_col = grid.warp_origin(context.ids.warp)
    lanes = _LaneOffsets.of(context.ids.lane)
    transpose_a = op.transpose_a is not None
    transpose_b = op.transpose_b is not None
    bf16 = isinstance(a.element_type, BFloat16Type)

    def k_step(k0: SSAValue) -> None:
        a_fragments = []
        for i in range(grid.tiles_m):
            row0 = emit.add(warp_row, i * MMA_M)
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
            a_registers = [_packed_registers(f, 4) for f in a_fragments]
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
                acc = emit.shape_cast(acc, ACCUMULATOR_VECTOR.get_shape())
                acc = MmaSyncOp(a_fragments[i], b_fragments[j], acc).res
                emit.vector_store(emit.shape_cast(acc, [4]), c.buffer, register)

    # LLVM unrolls the k-steps completely (it would keep a loop of two steps, paying
    # its counter and address updates every step): their shared-memory addresses then
    # differ by constants, folded into the ldmatrix immediates.
    emit.for_range(
        op.mnk[2] // MMA_K, lambda step: k_step(emit.mul(step, MMA_K)), unroll=True
    )


def _fma_gemm(
    op: GemmOp, context: KernelContext, a: TileOperand, b: TileOperand, c: TileOperand
) -> None:
    assert c.layout is not None
    k_extent = op.mnk[2]
    transpose_a = op.transpose_a is not None
    transpose_b = op.transpose_b is not None

    def widen(value: SSAValue) -> SSAValue:
        return value if value.type == f32 else arith.ExtFOp(value, f32).result

    def one_element(register: SSAValue, coords: list[SSAValue]) -> None:
        row, col = coords

        def multiply_add(k: SSAValue, acc: SSAValue) -> SSAValue:
            a_value = a.load([k, row] if transpose_a else [row, k], None)
            b_value = b.load([col, k] if transpose_b else [k, col], None)
            product = arith.MulfOp(widen(a_value), widen(b_value)).result
            return arith.AddfOp(acc, product).result

        initial = c.load(coords, register)
        c.store(emit.for_range_carrying(k_extent, initial, multiply_add), coords, register)

    c.layout.for_each(context.ids, one_element)
