"""``tile.atomic_add`` as one ``llvm.atomicrmw`` per element (``fadd`` for f32 and
f16, ``add`` for i32) at ``monotonic`` ordering, the relaxed ordering of CUDA's
``atomicAdd``: each thread adds the source elements it owns (its fragment's layout,
else cooperative chunks of one element at a time) to their global addresses.  NVPTX
prints it as ``atom.global.add`` (ptxas turns an unused result into ``red``).

At an edge of the global array an element outside it is skipped
(``EdgeChecks.contains``), as tile.copy drops its stores there; blocks wholly inside
take the unpredicated path (``with_interior_fast_path``).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerType
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tilepipe.dialects.llvm_atomic import AtomicRMWOp
from tilepipe.dialects.tile import AtomicAddOp

from tilepipe.lowering.nvvm import emit
from tilepipe.lowering.nvvm.access import (
    Operands,
    for_each_element,
    tile_operands,
    with_interior_fast_path,
)
from tilepipe.lowering.nvvm.kernel import KernelContext

GLOBAL_ADDRESS_SPACE = 1


class LowerAtomicAdd(RewritePattern):
    def __init__(self, context: KernelContext):
        self.context = context

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtomicAddOp, rewriter: PatternRewriter) -> None:
        bin_op = "add" if isinstance(op.dst.type.element_type, IntegerType) else "fadd"

        def accumulate(operands: Operands) -> None:
            src, dst = operands["src"], operands["dst"]

            def add_element(coords: list[SSAValue], register: SSAValue | None) -> None:
                value = src.load(coords, register)
                indices = dst.indices(coords)

                def update() -> None:
                    pointer = emit.element_pointer(dst.buffer, indices, GLOBAL_ADDRESS_SPACE)
                    AtomicRMWOp(pointer, value, bin_op)

                if dst.edges is None:
                    update()
                else:
                    emit.if_then(dst.edges.contains(indices), update)

            for_each_element(
                op, self.context, [src, dst], op.tile_shape, src.element_type, add_element
            )

        with emit.emitting(rewriter, op):
            with_interior_fast_path(tile_operands(op, self.context), accumulate)
        rewriter.erase(op)
