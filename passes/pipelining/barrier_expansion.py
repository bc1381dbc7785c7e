"""Expand the mbarrier arrays a pipelined loop arrives on, one ring slot per stage
(the mbarrier rings of docs/pipelining.md).

An array ``memref<N x i64, "shared">`` that the loop arrives on (``mbarrier_arrive``,
``mbarrier_arrive_expect_tx`` or a ``bulk_copy`` completing on it) becomes
``memref<depth*N x i64, "shared">``.  In iteration k an access to slot ``i`` goes to
``s * N + i`` with ``s = ((k - lb) / step) mod depth``, and a parity wait waits for
``(((k - lb) / step) / depth + p0) mod 2`` where ``p0`` is the parity the user wrote,
evaluated at ``k = lb`` (the initial phase is kept as an offset).  Initializations
outside the loop are replicated over the ``depth`` ring slots.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tilepipe.dialects.memory_space import MemorySpace, memory_space
from tilepipe.dialects.pipeline import ForOp
from tilepipe.dialects.pipeline_sync import (
    ARRIVING_OPS,
    MBarrierInitOp,
    MBarrierWaitOp,
    mbarrier_operands,
)
from tilepipe.core.diagnostics import op_error
from tilepipe.passes.rewrite.index_arith import Index, IndexBuilder
from tilepipe.passes.rewrite.operand_rewrite import with_operands

def is_mbarrier_array(buffer: SSAValue, loop: ForOp) -> bool:
    """Does ``loop`` arrive on the allocated mbarrier array ``buffer``?"""
    buffer_type = buffer.type
    if not (
        isinstance(buffer.owner, memref.AllocOp)
        and isinstance(buffer_type, MemRefType)
        and buffer_type.element_type == i64
        and len(buffer_type.get_shape()) == 1
        and memory_space(buffer_type) is MemorySpace.SHARED
    ):
        return False
    return any(
        isinstance(use.operation, ARRIVING_OPS)
        and use.operation.barriers is buffer
        and loop.is_ancestor(use.operation)
        for use in buffer.uses
    )


class BarrierExpansion:
    """Ring-expands a loop's mbarrier arrays and rewrites cloned statements."""

    def __init__(self, loop: ForOp, depth: int):
        self.loop = loop
        self.depth = depth
        arrays: list[SSAValue] = []
        for op in loop.body.walk():
            operands = mbarrier_operands(op)
            if operands and is_mbarrier_array(operands[0], loop):
                if not any(operands[0] is a for a in arrays):
                    arrays.append(operands[0])
        self.arrays = arrays
        self.replacement: dict[SSAValue, SSAValue] = {}

    @staticmethod
    def _count(array: SSAValue) -> int:
        assert isinstance(array.type, MemRefType)
        return array.type.get_shape()[0]

    def materialize(self, rewriter: Rewriter) -> None:
        """Allocate the expanded arrays; replicate initializations outside the loop."""
        for array in self.arrays:
            alloc = array.owner
            assert isinstance(alloc, memref.AllocOp) and isinstance(array.type, MemRefType)
            count = self._count(array)
            new_type = MemRefType(i64, [self.depth * count], memory_space=array.type.memory_space)
            new_alloc = memref.AllocOp([], [], new_type, alloc.alignment)
            new_alloc.results[0].name_hint = array.name_hint
            rewriter.insert_op(new_alloc, InsertPoint.after(alloc))
            new = new_alloc.results[0]
            self.replacement[array] = new
            for use in list(array.uses):
                user = use.operation
                if self.loop.is_ancestor(user):
                    continue
                if isinstance(user, MBarrierInitOp):
                    self._replicate_init(user, count, new, rewriter)
                else:
                    raise op_error(
                        user,
                        "uses an mbarrier array that the pipelined loop expands per "
                        "stage; only mbarrier_init may touch it outside the loop",
                    )

    def _replicate_init(
        self, init: MBarrierInitOp, count: int, new: SSAValue, rewriter: Rewriter
    ) -> None:
        builder = IndexBuilder(InsertPoint.before(init))
        for slot in range(self.depth):
            index = builder.add(builder.mul(slot, count), init.barrier_slot)
            builder.insert(
                with_operands(init, {"barriers": new, "barrier_index": [builder.value(index)]})
            )
        rewriter.erase_op(init)

    def rewrite_instance(
        self,
        original: Operation,
        op: Operation,
        iteration: Callable[[], Index],
        lower_bound_parity: Callable[[], Index],
        builder: IndexBuilder,
    ) -> Operation:
        """``op`` (a detached clone of ``original`` for the normalized iteration
        ``iteration()``) pointed at its ring slot, with its wrap-around parity."""
        operands = mbarrier_operands(op)
        if operands is None or operands[0] not in self.replacement:
            return op
        array, index = operands
        iteration_index = iteration()
        slot = builder.rem(iteration_index, self.depth)
        new_index = builder.add(builder.mul(slot, self._count(array)), index)
        replacements: dict[str, object] = {
            "barriers": self.replacement[array],
            "barrier_index": [builder.value(new_index)],
        }
        if isinstance(op, MBarrierWaitOp):
            cycle = builder.rem(builder.div(iteration_index, self.depth), 2)
            initial = lower_bound_parity()
            parity = cycle if initial == 0 else builder.rem(builder.add(cycle, initial), 2)
            replacements["parity"] = builder.value(parity)
        return with_operands(op, replacements)  # type: ignore[arg-type]

    def finalize(self, rewriter: Rewriter) -> None:
        for array in self.replacement:
            rewriter.erase_op(array.owner)  # type: ignore[arg-type]
