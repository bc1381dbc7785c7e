"""Fill, elementwise, reduce and broadcast tile ops as per-thread loops over owned elements.

Elementwise ops iterate under their fragments' layout (or in cooperative chunks when
all operands are in memory).  ``tile.reduce`` of a source in shared or global memory
gives each thread the destination elements it owns and loops over the reduced axis;
row reductions of register fragments use warp shuffles (``nvvm_reduce``), which leave
their results in shared memory; ``tile.broadcast`` reads them back into the threads
owning each row of a fragment.
"""

from __future__ import annotations

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import AnyFloat, FloatAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tilepipe.dialects.tile import (
    AddOp,
    BroadcastOp,
    CastOp,
    DivOp,
    ExpOp,
    FillOp,
    MaxOp,
    MulOp,
    ReduceKind,
    ReduceOp,
    SubOp,
)
from tilepipe.diagnostics import op_error

from . import nvvm_emit as emit
from .nvvm_access import for_each_element, tile_operands
from .nvvm_kernel import KernelContext
from .nvvm_reduce import check_fragment_reduction, lower_fragment_reduction


def _is_float(element_type: Attribute) -> bool:
    return isinstance(element_type, AnyFloat)


def combine(kind: type, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    """``lhs (op) rhs`` for a binary tile op class, on floats or integers."""
    floating = _is_float(lhs.type)
    ops = {
        AddOp: (arith.AddfOp, arith.AddiOp),
        SubOp: (arith.SubfOp, arith.SubiOp),
        MulOp: (arith.MulfOp, arith.MuliOp),
        MaxOp: (arith.MaximumfOp, arith.MaxSIOp),
        DivOp: (arith.DivfOp, arith.DivSIOp),
    }[kind]
    return (ops[0] if floating else ops[1])(lhs, rhs).result


def convert(value: SSAValue, to: Attribute) -> SSAValue:
    """Float conversion for ``tile.cast`` (round to nearest even when narrowing)."""
    if value.type == to:
        return value
    if to.bitwidth > value.type.bitwidth:
        return arith.ExtFOp(value, to).result
    return arith.TruncFOp(value, to).result


class LowerElementwise(RewritePattern):
    def __init__(self, context: KernelContext):
        self.context = context

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: FillOp | AddOp | SubOp | MulOp | MaxOp | DivOp | ExpOp | CastOp,
        rewriter: PatternRewriter,
    ) -> None:
        operands = tile_operands(op, self.context)
        dst = operands["dst"]

        def compute(coords: list[SSAValue], register: SSAValue | None) -> SSAValue:
            if isinstance(op, FillOp):
                return op.value
            if isinstance(op, ExpOp):
                return math.ExpOp(operands["src"].load(coords, register)).result
            if isinstance(op, CastOp):
                return convert(operands["src"].load(coords, register), dst.element_type)
            lhs = operands["lhs"].load(coords, register)
            rhs = operands["rhs"].load(coords, register)
            return combine(type(op), lhs, rhs)

        if isinstance(op, CastOp) and not (
            _is_float(dst.element_type) and _is_float(operands["src"].element_type)
        ):
            raise op_error(op, "lower-to-nvvm casts between float types only")
        with emit.emitting(rewriter, op):
            for_each_element(
                op,
                self.context,
                list(operands.values()),
                op.tile_shape,
                dst.element_type,
                lambda coords, register: dst.store(
                    compute(coords, register), coords, register
                ),
            )
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
        src, dst = operands["src"], operands["dst"]
        if src.is_fragment:
            raise op_error(
                op,
                "lower-to-nvvm broadcasts from shared or global memory only (a thread "
                "cannot read another thread's registers)",
            )
        axis = op.along_axis

        def repeat(coords: list[SSAValue], register: SSAValue | None) -> None:
            value = src.load([*coords[:axis], *coords[axis + 1 :]], None)
            dst.store(value, coords, register)

        with emit.emitting(rewriter, op):
            for_each_element(op, self.context, [dst], op.tile_shape, dst.element_type, repeat)
        rewriter.erase(op)


def reduction_identity(kind: ReduceKind, element_type: Attribute) -> SSAValue:
    if not _is_float(element_type):
        raise ValueError(element_type)
    value = 0.0 if kind is ReduceKind.SUM else float("-inf")
    return arith.ConstantOp(FloatAttr(value, element_type)).result


class LowerReduce(RewritePattern):
    def __init__(self, context: KernelContext):
        self.context = context

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReduceOp, rewriter: PatternRewriter) -> None:
        operands = tile_operands(op, self.context)
        src, dst = operands["src"], operands["dst"]
        if not _is_float(src.element_type):
            raise op_error(op, "lower-to-nvvm reduces float tiles only")
        if src.is_fragment:
            check_fragment_reduction(op, src, dst)
            with emit.emitting(rewriter, op):
                lower_fragment_reduction(op, self.context, src, dst)
            rewriter.erase(op)
            return
        axis = op.reduce_axis
        extent = op.tile_shape[axis]
        kind = op.reduce_kind
        step = AddOp if kind is ReduceKind.SUM else MaxOp

        def reduce_one(coords: list[SSAValue], register: SSAValue | None) -> None:
            def accumulate(index: SSAValue, acc: SSAValue) -> SSAValue:
                at = [*coords[:axis], index, *coords[axis:]]
                return combine(step, acc, src.load(at, None))

            init = reduction_identity(kind, src.element_type)
            dst.store(emit.for_range_carrying(extent, init, accumulate), coords, register)

        dst_shape = op.operand_tile_shape("dst")
        with emit.emitting(rewriter, op):
            for_each_element(op, self.context, [dst], dst_shape, dst.element_type, reduce_one)
        rewriter.erase(op)
