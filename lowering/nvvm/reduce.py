"""Row reductions of register fragments with warp shuffles (``nvvm.shfl.sync bfly``).

A fragment's rows are spread over the lanes of one warp in the two layouts where
this is simple, so a butterfly of shuffles combines them without shared memory:

* the mma accumulator layout of a fragment the layout analysis gave whole rows per
  warp (``warps_n == 1``, chosen for accumulators that are reduced along rows): a
  thread folds its registers of a row (2 per 16x8 block), then lanes ``4g .. 4g+3``
  -- the quad holding row ``g`` -- combine with ``xor 1`` and ``xor 2``;
* the cooperative layout of an ``R x C`` f32 fragment with ``C`` a power of two up
  to 32: register ``r`` of the ``C`` consecutive lanes ``t`` with the same ``t / C``
  holds one row, combined with ``xor C/2 .. 1``.

Lane ``0`` of each group then writes the row's result to the destination in shared
or global memory.  Other shapes are rejected with a diagnostic.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type
from xdsl.ir import SSAValue

from tilepipe.dialects import nvvm
from tilepipe.dialects.tile import AddOp, MaxOp, ReduceKind, ReduceOp
from tilepipe.diagnostics import op_error

from tilepipe.lowering.nvvm import emit
from tilepipe.lowering.nvvm.access import TileOperand
from tilepipe.lowering.nvvm.combine import combine, reduction_identity
from tilepipe.lowering.nvvm.kernel import KernelContext
from tilepipe.lowering.nvvm.layout import WARP_SIZE, CooperativeLayout, MmaAccumulatorLayout

FULL_WARP = -1  # shfl.sync member mask: all 32 lanes
CLAMP = WARP_SIZE - 1  # shfl.sync c operand for a 32-lane segment


def check_fragment_reduction(op: ReduceOp, src: TileOperand, dst: TileOperand) -> None:
    """Raise the diagnostic for fragment reductions the shuffles cannot do."""
    shape = op.tile_shape
    if dst.is_fragment or len(shape) != 2 or op.reduce_axis != 1:
        raise op_error(
            op,
            "a register fragment is reduced along its rows into shared or global "
            "memory only; copy the tile to shared memory first",
        )
    if not isinstance(src.element_type, Float32Type):
        raise op_error(op, "warp-shuffle reductions need f32 fragments")
    layout = src.layout
    if isinstance(layout, MmaAccumulatorLayout) and layout.grid.warps_n == 1:
        return
    if isinstance(layout, CooperativeLayout):
        rows, cols = shape
        if cols <= WARP_SIZE and cols & (cols - 1) == 0 and (rows * cols) % layout.threads == 0:
            return
    raise op_error(
        op,
        "the rows of this register fragment are spread over several warps; "
        "copy the tile to shared memory first",
    )


def _combine(kind: ReduceKind, lhs: SSAValue, rhs: SSAValue) -> SSAValue:

    return combine(AddOp if kind is ReduceKind.SUM else MaxOp, lhs, rhs)


def _butterfly(kind: ReduceKind, value: SSAValue, offsets: list[int]) -> SSAValue:
    for offset in offsets:
        other = nvvm.ShflSyncOp(
            nvvm.ShflKind.BFLY,
            emit.const_i32(FULL_WARP),
            value,
            emit.const_i32(offset),
            emit.const_i32(CLAMP),
        ).res
        value = _combine(kind, value, other)
    return value


def _store_from_lane_zero(lane_in_group: SSAValue, dst: TileOperand, value: SSAValue, row: SSAValue) -> None:
    is_first = arith.CmpiOp(lane_in_group, emit.const(0), "eq").result
    emit.if_then(is_first, lambda: dst.store(value, [row], None))


def lower_fragment_reduction(
    op: ReduceOp, context: KernelContext, src: TileOperand, dst: TileOperand
) -> None:

    kind = op.reduce_kind
    layout = src.layout
    ids = context.ids
    if isinstance(layout, MmaAccumulatorLayout):
        grid = layout.grid
        warp_row, _ = grid.warp_origin(ids.warp)
        lane = ids.lane
        quad_lane = emit.rem(lane, 4)
        group_row = emit.add(warp_row, emit.div(lane, 4))
        for tile_m in range(grid.tiles_m):
            for half in (0, 1):  # rows g and g + 8 of the 16x8 blocks
                acc = reduction_identity(kind, src.element_type)
                for tile_n in range(grid.tiles_n):
                    for column in (0, 1):
                        register = layout.register_index(tile_m, tile_n, 2 * half + column)
                        acc = _combine(kind, acc, emit.load(src.buffer, [emit.const(register)]))
                acc = _butterfly(kind, acc, [1, 2])
                row = emit.add(group_row, 16 * tile_m + 8 * half)
                _store_from_lane_zero(quad_lane, dst, acc, row)
        return
    assert isinstance(layout, CooperativeLayout)
    cols = op.tile_shape[1]
    thread = ids.thread
    group_lane = emit.rem(thread, cols)
    offsets = [cols >> (i + 1) for i in range(cols.bit_length() - 1)]
    for register in range(layout.registers):
        value = emit.load(src.buffer, [emit.const(register)])
        value = _butterfly(kind, value, offsets)
        row = emit.div(emit.add(thread, register * layout.threads), cols)
        _store_from_lane_zero(group_lane, dst, value, row)
