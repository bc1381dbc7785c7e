"""Fill, elementwise, reduce and broadcast tile ops as per-thread loops over owned elements.

Elementwise ops iterate under their fragments' layout (or in cooperative chunks when
all operands are in memory), one vector op per run of neighbouring elements a thread
owns where every operand allows the aligned vector access.  ``tile.reduce`` of a source in shared or global memory
gives each thread the destination elements it owns and loops over the reduced axis
(in f32 for f16/bf16 tiles, as the tile semantics reduce; a sum in the op's order, 8
accumulators per run: ``reduce.sum_in_order``);
row reductions of register fragments use warp shuffles (``reduce.py``), which leave
their results in shared memory, and the other fragment reductions stage the fragment
in a shared scratch and reduce it there (``reduce_scratch.py``); ``tile.broadcast`` reads them back into the threads
owning each row of a fragment.  Each op with a global region that may leave its array
is lowered unpredicated in blocks whose regions lie inside, predicated at the edges
(``with_interior_fast_path``).
"""

from __future__ import annotations

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import f32, f64, i32
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tilepipe.dialects.tile import (
    AddOp,
    BroadcastOp,
    CastOp,
    CmpOp,
    DivOp,
    ExpOp,
    FillOp,
    IotaOp,
    LogOp,
    MaxOp,
    MulOp,
    ReduceKind,
    ReduceOp,
    RsqrtOp,
    SelectOp,
    SqrtOp,
    SubOp,
)
from tilepipe.core.diagnostics import op_error

from tilepipe.lowering.nvvm import emit
from tilepipe.lowering.nvvm.access import (
    Operands,
    TileOperand,
    for_each_element,
    for_each_run,
    tile_operands,
    with_interior_fast_path,
)
from tilepipe.lowering.nvvm.kernel import KernelContext
from tilepipe.lowering.nvvm.combine import (
    combine,
    compare,
    is_float,
    nonzero,
    reduction_identity,
    splat,
)
from tilepipe.lowering.nvvm.conversions import convert, vectorizable
from tilepipe.lowering.nvvm.reduce import (
    lower_fragment_reduction,
    reduce_through_scratch,
    sum_in_order,
)


_MATH = {ExpOp: math.ExpOp, LogOp: math.LogOp, SqrtOp: math.SqrtOp, RsqrtOp: math.RsqrtOp}

ElementwiseTileOp = (
    FillOp | AddOp | SubOp | MulOp | MaxOp | DivOp | ExpOp | LogOp | SqrtOp | RsqrtOp
    | CastOp | IotaOp | CmpOp | SelectOp
)


def coordinate_value(start: SSAValue, coordinate: SSAValue, element_type: Attribute) -> SSAValue:
    """``start + coordinate`` as ``tile.iota`` defines it: a float sum in f32 for
    f16/bf16 (in the element type otherwise), rounded once to the element type; an
    integer sum in the element type, wrapping (the coordinate truncated to it first:
    the same sum modulo 2^bits)."""
    if not is_float(element_type):
        return arith.AddiOp(start, arith.IndexCastOp(coordinate, element_type).result).result
    wide = f64 if element_type == f64 else f32
    as_float = arith.SIToFPOp(arith.IndexCastOp(coordinate, i32).result, wide).result
    return convert(arith.AddfOp(convert(start, wide), as_float).result, element_type)


class LowerElementwise(RewritePattern):
    """Each thread computes the runs of elements it owns, a vector op per run."""

    def __init__(self, context: KernelContext):
        self.context = context

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ElementwiseTileOp, rewriter: PatternRewriter) -> None:
        operands = tile_operands(op, self.context)

        def compute(
            operands: Operands, coords: list[SSAValue], register: SSAValue | None, width: int
        ) -> SSAValue:
            def run(role: str) -> SSAValue:
                return operands[role].load_run(coords, register, width)

            if isinstance(op, FillOp):
                return emit.broadcast(op.value, width)
            if isinstance(op, IotaOp):  # one value per run: along another dimension
                start, element_type = op.value, operands["dst"].element_type
                value = coordinate_value(start, coords[op.iota_dim], element_type)
                return emit.broadcast(value, width)
            if type(op) in _MATH:
                return _MATH[type(op)](run("src")).result
            if isinstance(op, CastOp):
                return convert(run("src"), operands["dst"].element_type)
            if isinstance(op, SelectOp):
                chosen = nonzero(run("mask"))
                return arith.SelectOp(chosen, run("on_true"), run("on_false")).result
            lhs, rhs = run("lhs"), run("rhs")
            if isinstance(op, CmpOp):
                holds = compare(op.compare_predicate, lhs, rhs)
                return arith.SelectOp(holds, splat(1, lhs), splat(0, lhs)).result
            return combine(type(op), lhs, rhs)

        # One element at a time: a cast between formats with no vector conversion,
        # coordinates along a run's own (innermost) dimension, and comparisons
        # (``combine.compare``: scalar i1s).
        one_at_a_time = (
            isinstance(op, CmpOp | SelectOp)
            or (isinstance(op, IotaOp) and op.iota_dim == len(op.tile_shape) - 1)
            or (isinstance(op, CastOp) and not vectorizable(
                operands["src"].element_type, operands["dst"].element_type
            ))
        )

        def lower(operands: Operands) -> None:
            dst = operands["dst"]
            for_each_run(
                op,
                self.context,
                list(operands.values()),
                op.tile_shape,
                dst.element_type,
                lambda coords, register, width: dst.store_run(
                    compute(operands, coords, register, width), coords, register
                ),
                max_width=1 if one_at_a_time else 16,
            )

        with emit.emitting(rewriter, op):
            with_interior_fast_path(operands, lower)
        rewriter.erase(op)


class LowerBroadcast(RewritePattern):
    """Every thread reads, for each destination element it owns, the source element
    it repeats -- a row statistic that a fragment reduction left in shared memory
    reaches exactly the threads holding that row of the destination fragment."""

    def __init__(self, context: KernelContext):
        self.context = context

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BroadcastOp, rewriter: PatternRewriter) -> None:
        operands = tile_operands(op, self.context)
        # Every thread reads source elements others own: a fragment source comes
        # through a scratch tile in shared memory (relayout.py).
        assert not operands["src"].is_fragment
        axis = op.along_axis

        def lower(operands: Operands) -> None:
            src, dst = operands["src"], operands["dst"]

            def repeat(coords: list[SSAValue], register: SSAValue | None) -> None:
                value = src.load([*coords[:axis], *coords[axis + 1 :]], None)
                dst.store(value, coords, register)

            for_each_element(op, self.context, [dst], op.tile_shape, dst.element_type, repeat)

        with emit.emitting(rewriter, op):
            with_interior_fast_path(operands, lower)
        rewriter.erase(op)


class LowerReduce(RewritePattern):
    def __init__(self, context: KernelContext):
        self.context = context

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReduceOp, rewriter: PatternRewriter) -> None:
        operands = tile_operands(op, self.context)
        src, dst = operands["src"], operands["dst"]
        context = self.context

        def in_memory(src: TileOperand, dst: TileOperand) -> None:
            _reduce_in_memory(op, context, src, dst)

        with emit.emitting(rewriter, op):
            if not src.is_fragment:
                with_interior_fast_path(operands, lambda o: in_memory(o["src"], o["dst"]))
            elif op in context.scratch_reductions:  # chosen with the kernel's shared layout
                reduce_through_scratch(op, context, src, dst, in_memory)
            else:
                lower_fragment_reduction(op, context, src, dst)
        rewriter.erase(op)


def _reduce_in_memory(
    op: ReduceOp, context: KernelContext, src: TileOperand, dst: TileOperand
) -> None:
    """Each thread reduces the destination elements it owns over a source in memory,
    looping over the reduced axis: in the op's order for a sum (``sum_in_order``), in
    f32 for f16/bf16 tiles, rounded once -- as the tile semantics reduce; integers in
    their type (``arith.addi`` wraps, ``arith.maxsi``)."""
    axis = op.reduce_axis
    extent = op.tile_shape[axis]
    kind = op.reduce_kind
    step = AddOp if kind is ReduceKind.SUM else MaxOp
    element_type = src.element_type
    narrow_float = is_float(element_type) and element_type.bitwidth < 32
    accumulator_type = f32 if narrow_float else element_type

    def reduce_one(coords: list[SSAValue], register: SSAValue | None) -> None:
        def element(index: SSAValue) -> SSAValue:
            at = [*coords[:axis], index, *coords[axis:]]
            return convert(src.load(at, None), accumulator_type)

        def accumulate(index: SSAValue, acc: SSAValue) -> SSAValue:
            return combine(step, acc, element(index))

        init = reduction_identity(kind, accumulator_type)
        if kind is ReduceKind.SUM:  # in the order the op defines
            total = sum_in_order(extent, element, init)
        else:
            total = emit.for_range_carrying(extent, init, accumulate)
        dst.store(convert(total, dst.element_type), coords, register)

    dst_shape = op.operand_tile_shape("dst")
    if not dst_shape:  # a 1-d tile's one result: the first thread's, as a 1-element tile's
        first = arith.CmpiOp(context.ids.thread, emit.const(0), "eq").result
        emit.if_then(first, lambda: reduce_one([], emit.const(0) if dst.is_fragment else None))
        return
    for_each_element(op, context, [dst], dst_shape, dst.element_type, reduce_one)
