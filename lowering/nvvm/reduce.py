"""Row reductions of register fragments with warp shuffles (``nvvm.shfl.sync``), and
one thread's sum of a row in the order ``tile.reduce sum`` defines (``sum_in_order``).

A fragment's rows are spread over the lanes of one warp in the two layouts where
this is simple, so shuffles combine them without shared memory:

* the mma accumulator layout of a fragment the layout analysis gave whole rows per
  warp (``warps_n == 1``, chosen for accumulators that are reduced along rows): a
  thread folds its registers of a row (2 per 16x8 block), then lanes ``4g .. 4g+3``
  -- the quad holding row ``g`` -- combine with ``xor 1`` and ``xor 2``;
* the cooperative layout of an ``R x C`` f32 fragment with ``C`` a power of two up
  to 32: register ``r`` of the ``C`` consecutive lanes ``t`` with the same ``t / C``
  holds one row: a max combines with ``xor C/2 .. 1``, a sum shuffles elements down
  to the row's first 8 lanes and combines those with ``xor 1, 2, 4``.

A sum adds in the op's order (``tilepipe.dialects.tile_reduce_order``: 8 strided
partials, their butterfly, the rest one by one), which the two layouts give at the
cost of the plain butterfly or one shuffle more: the interpreters and the lowered
kernel agree to the bit.  Lane ``0`` of each group then writes the row's result to the
destination in shared memory.  Every other fragment reduction (other axes, element
types, layouts, a destination in registers) goes through shared memory
(``reduce_scratch.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import MemRefType, StringAttr
from xdsl.ir import SSAValue

from tilepipe.dialects import nvvm
from tilepipe.dialects.tile import AddOp, MaxOp, ReduceKind, ReduceOp
from tilepipe.dialects.tile_reduce_order import LANES, Run, Split, SumTree, butterfly_pairs, sum_tree

from tilepipe.lowering.nvvm import emit
from tilepipe.lowering.nvvm.access import TileOperand, for_each_run
from tilepipe.lowering.nvvm.combine import combine, reduction_identity
from tilepipe.lowering.nvvm.kernel import SHARED_ADDRESS_SPACE, KernelContext
from tilepipe.lowering.nvvm.layout import WARP_SIZE, CooperativeLayout, MmaAccumulatorLayout
from tilepipe.lowering.nvvm.reduce_scratch import SCRATCH_BARRIER_ATTR, staged_shape

FULL_WARP = -1  # shfl.sync member mask: all 32 lanes
CLAMP = WARP_SIZE - 1  # shfl.sync c operand for a 32-lane segment


def _combine(kind: ReduceKind, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    return combine(AddOp if kind is ReduceKind.SUM else MaxOp, lhs, rhs)


def _add(lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    return combine(AddOp, lhs, rhs)


def _shuffle(kind: nvvm.ShflKind, value: SSAValue, offset: int) -> SSAValue:
    return nvvm.ShflSyncOp(
        kind, emit.const_i32(FULL_WARP), value, emit.const_i32(offset), emit.const_i32(CLAMP)
    ).res


def _butterfly(kind: ReduceKind, value: SSAValue, offsets: Sequence[int]) -> SSAValue:
    for offset in offsets:
        value = _combine(kind, value, _shuffle(nvvm.ShflKind.BFLY, value, offset))
    return value


def sum_in_order(
    extent: int, element: Callable[[SSAValue], SSAValue], identity: SSAValue
) -> SSAValue:
    """One thread's sum of ``element(0) .. element(extent - 1)`` in the order
    ``tile.reduce sum`` defines (``tile_reduce_order``): per run, 8 accumulators over
    an ``scf.for`` of whole rounds, their butterfly, the rest one by one."""

    def total(tree: SumTree) -> SSAValue:
        if isinstance(tree, Split):
            return _add(total(tree.left), total(tree.right))
        result: SSAValue | None = None
        if tree.rounds:
            partials = [element(emit.const(tree.start + lane)) for lane in range(LANES)]
            if tree.rounds > 1:
                def one_round(index: SSAValue, accumulators: list[SSAValue]) -> list[SSAValue]:
                    first = emit.add(emit.mul(index, LANES), tree.start)
                    return [
                        _add(accumulator, element(emit.add(first, lane)))
                        for lane, accumulator in enumerate(accumulators)
                    ]

                partials = emit.for_range_carrying_all(1, tree.rounds, partials, one_round)
            while len(partials) > 1:  # ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7))
                partials = [_add(partials[i], partials[i + 1]) for i in range(0, len(partials), 2)]
            result = partials[0]
        for index in tree.tail:
            value = element(emit.const(index))
            result = value if result is None else _add(result, value)
        assert result is not None
        return result

    return _add(identity, total(sum_tree(extent)))


def _store_from_lane_zero(lane_in_group: SSAValue, dst: TileOperand, value: SSAValue, row: SSAValue) -> None:
    is_first = arith.CmpiOp(lane_in_group, emit.const(0), "eq").result
    emit.if_then(is_first, lambda: dst.store(value, [row], None))


def _row_sum_of_quads(src: TileOperand, layout: MmaAccumulatorLayout, tile_m: int, half: int) -> SSAValue:
    """A row of the mma accumulator layout summed in ``tile.reduce``'s order.  Lane
    ``q`` of the row's quad holds columns ``2q`` and ``2q + 1`` of every 8-column block:
    exactly partials ``2q`` and ``2q + 1`` of a run, so each is a sum over the blocks in
    the lane itself, then ``p_2q + p_2q+1`` and a butterfly over the quad (distance 1,
    then 2) give ``((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7))`` in every lane."""

    def column(tile_n: int, column: int) -> SSAValue:
        register = layout.register_index(tile_m, tile_n, 2 * half + column)
        return emit.load(src.buffer, [emit.const(register)])

    def total(tree: SumTree) -> SSAValue:
        if isinstance(tree, Split):
            return _add(total(tree.left), total(tree.right))
        assert tree.start % LANES == 0 and tree.count % LANES == 0
        blocks = range(tree.start // LANES, (tree.start + tree.count) // LANES)
        partials = []
        for col in (0, 1):
            partial = column(blocks[0], col)
            for tile_n in blocks[1:]:
                partial = _add(partial, column(tile_n, col))
            partials.append(partial)
        return _butterfly(ReduceKind.SUM, _add(*partials), [1, 2])

    return total(sum_tree(LANES * layout.grid.tiles_n))


def _row_sum_across_lanes(value: SSAValue, cols: int) -> SSAValue:
    """A row held one element per lane (``cols`` consecutive lanes from a multiple of
    ``cols``) summed in ``tile.reduce``'s order, valid in the row's first lane: partial
    ``j`` adds the elements ``j + 8r`` shuffled down from lane ``j + 8r``, the partials'
    butterfly (distances 1, 2, 4), then the elements left one by one."""
    run = sum_tree(cols)
    assert isinstance(run, Run)
    result: SSAValue | None = None
    if run.rounds:
        result = value
        for round_ in range(1, run.rounds):
            result = _add(result, _shuffle(nvvm.ShflKind.DOWN, value, round_ * LANES))
        result = _butterfly(ReduceKind.SUM, result, butterfly_pairs())
    for index in run.tail:
        element = value if index == 0 else _shuffle(nvvm.ShflKind.DOWN, value, index)
        result = element if result is None else _add(result, element)
    assert result is not None
    return result


def lower_fragment_reduction(
    op: ReduceOp, context: KernelContext, src: TileOperand, dst: TileOperand
) -> None:

    kind = op.reduce_kind
    identity = reduction_identity(kind, src.element_type)
    layout = src.layout
    ids = context.ids
    if isinstance(layout, MmaAccumulatorLayout):
        grid = layout.grid
        assert LANES * grid.tiles_n == op.tile_shape[1]
        warp_row, _ = grid.warp_origin(ids.warp)
        lane = ids.lane
        quad_lane = emit.rem(lane, 4)
        group_row = emit.add(warp_row, emit.div(lane, 4))
        for tile_m in range(grid.tiles_m):
            for half in (0, 1):  # rows g and g + 8 of the 16x8 blocks
                if kind is ReduceKind.SUM:
                    acc = _add(identity, _row_sum_of_quads(src, layout, tile_m, half))
                else:
                    acc = identity
                    for tile_n in range(grid.tiles_n):
                        for column in (0, 1):
                            register = layout.register_index(tile_m, tile_n, 2 * half + column)
                            acc = _combine(kind, acc, emit.load(src.buffer, [emit.const(register)]))
                    acc = _butterfly(kind, acc, [1, 2])
                row = emit.add(group_row, grid.block_rows * tile_m + 8 * half)
                _store_from_lane_zero(quad_lane, dst, acc, row)
        return
    assert isinstance(layout, CooperativeLayout)
    cols = op.tile_shape[1]
    thread = ids.thread
    group_lane = emit.rem(thread, cols)
    offsets = [cols >> (i + 1) for i in range(cols.bit_length() - 1)]
    for register in range(layout.registers):
        value = emit.load(src.buffer, [emit.const(register)])
        if kind is ReduceKind.SUM:
            value = _add(identity, _row_sum_across_lanes(value, cols))
        else:
            value = _butterfly(kind, value, offsets)
        row = emit.div(emit.add(thread, register * layout.threads), cols)
        _store_from_lane_zero(group_lane, dst, value, row)


def reduce_through_scratch(
    op: ReduceOp,
    context: KernelContext,
    src: TileOperand,
    dst: TileOperand,
    reduce_in_memory: Callable[[TileOperand, TileOperand], None],
) -> None:
    """A fragment reduction the shuffles cannot do (``reduce_scratch.py``): every
    thread stores the elements it holds into the kernel's shared scratch, and
    ``reduce_in_memory`` reduces the staged tile into ``dst`` as a tile in shared
    memory is reduced -- each destination element by its owner, in the op's order.

    ``bar.sync`` between the stores and the reads (another thread's elements), and
    after the reads where the scratch may be staged again (a later iteration or
    reduction) with no barrier of the kernel's between (``read_barriers``)."""
    assert context.scratch_offset is not None
    shape = op.tile_shape
    staged_type = MemRefType(
        src.element_type, staged_shape(op), memory_space=SHARED_ADDRESS_SPACE
    )
    staged_buffer = memref.ViewOp(
        context.shared_memory(), emit.const(context.scratch_offset), [], staged_type
    )
    staged = TileOperand("src", staged_buffer.results[0], (), shape, None)
    for_each_run(
        op,
        context,
        [src, staged],
        shape,
        src.element_type,
        lambda coords, register, width: staged.store_run(
            src.load_run(coords, register, width), coords, register
        ),
    )
    _scratch_barrier("staged")  # the staged tile is whole before any thread reads it
    reduce_in_memory(staged, dst)
    if context.scratch_reductions[op]:
        _scratch_barrier("read")  # every thread has read it before it is overwritten


def _scratch_barrier(purpose: str) -> None:
    """``bar.sync 0``, marked (``SCRATCH_BARRIER_ATTR``) for the tests that delete it."""
    barrier = nvvm.Barrier0Op()
    barrier.attributes[SCRATCH_BARRIER_ATTR] = StringAttr(purpose)
