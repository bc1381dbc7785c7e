"""Which register-fragment reductions need shared memory, and the scratch they share.

Warp shuffles reduce a fragment only where each row stays inside one warp, is f32, and
is reduced along its rows into shared memory (``shuffle_reducible``; ``reduce.py``).
Every other ``tile.reduce`` of a fragment -- rows spread over several warps (an mma
accumulator with ``warps_n > 1``, a cooperative fragment with long or uneven rows),
columns, f16/bf16, integers, a destination in registers, other ranks -- is staged
through one shared-memory scratch (``reduce.reduce_through_scratch``): the fragment's
owners store their elements, ``bar.sync``, and the destination's owners reduce the
staged tile as a tile in shared memory is reduced (the op's order, bit for bit).

The scratch is one ``memref.alloc`` of ``"shared"`` bytes, as large as the largest
staged tile, added to the kernel before its shared buffers are laid out, after them
(the arena keeps its offsets), so the kernel's shared bytes -- static or dynamic, and
the check against the target's budget -- include it.  It lives outside the arena
because ``merge-shared-memory`` ran before the lowering knew it is needed.  The
reductions share it one after another; ``read_barriers`` says where a barrier must
end a reduction before the next staging.
"""

from __future__ import annotations

import math

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import Float32Type, MemRefType, StringAttr, i8
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tilepipe.dialects.memory_space import MemorySpace, memory_space
from tilepipe.dialects.pipeline_sync import BarrierOp
from tilepipe.dialects.tile import ReduceOp
from tilepipe.dialects.tile_base import element_bytes

from tilepipe.lowering.nvvm.layout import (
    WARP_SIZE,
    CooperativeLayout,
    FragmentLayout,
    MmaAccumulatorLayout,
)


def shuffle_reducible(op: ReduceOp, layout: FragmentLayout) -> bool:
    """Can warp shuffles reduce ``op``'s fragment source (of ``layout``)?"""
    shape = op.tile_shape
    if memory_space(op.dst.type).is_thread_private or len(shape) != 2 or op.reduce_axis != 1:
        return False
    if not isinstance(op.element_type("src"), Float32Type):
        return False
    if isinstance(layout, MmaAccumulatorLayout):
        return layout.grid.warps_n == 1
    if isinstance(layout, CooperativeLayout):
        rows, cols = shape
        return cols <= WARP_SIZE and cols & (cols - 1) == 0 and (rows * cols) % layout.threads == 0
    return False


def scratch_reductions(
    kernel: func.FuncOp, layouts: dict[SSAValue, FragmentLayout]
) -> list[ReduceOp]:
    """The fragment reductions of ``kernel`` that go through the scratch, in program
    order."""
    return [
        op
        for op in kernel.walk()
        if isinstance(op, ReduceOp)
        and op.src in layouts
        and not shuffle_reducible(op, layouts[op.src])
    ]


BANK_BYTES = 4
SCRATCH_BARRIER_ATTR = "tilepipe.reduce_scratch"  # on the barriers of the staging


def staged_shape(op: ReduceOp) -> tuple[int, ...]:
    """The shape of the staged tile in the scratch: the tile, its rows one bank word
    longer where the reduction runs along them -- the threads then read rows whose
    starts fall in different banks, not all in one (a row of a multiple of 32 words)."""
    shape = op.tile_shape
    if op.reduce_axis != len(shape) - 1 or len(shape) < 2:
        return shape
    pad = max(1, BANK_BYTES // element_bytes(op.element_type("src")))
    return (*shape[:-1], shape[-1] + pad)


def scratch_bytes(op: ReduceOp) -> int:
    return math.prod(staged_shape(op)) * element_bytes(op.element_type("src"))


def add_scratch(kernel: func.FuncOp, reductions: list[ReduceOp]) -> memref.AllocOp | None:
    """The scratch for ``reductions``, allocated at the kernel's entry (None: none
    needed), located at the reduction that needs the most."""
    if not reductions:
        return None
    largest = max(reductions, key=scratch_bytes)
    shared = StringAttr(MemorySpace.SHARED.value)
    alloc = memref.AllocOp([], [], MemRefType(i8, [scratch_bytes(largest)], memory_space=shared))
    alloc.location = largest.location
    entry = kernel.body.block
    buffers = [
        op
        for op in entry.ops
        if isinstance(op, memref.AllocOp) and memory_space(op.memref.type) is MemorySpace.SHARED
    ]
    # After the kernel's own buffers (the arena): their offsets stay what they were.
    where = InsertPoint.after(buffers[-1]) if buffers else InsertPoint.at_start(entry)
    Rewriter.insert_op(alloc, where)
    return alloc


def read_barriers(reductions: list[ReduceOp]) -> dict[ReduceOp, bool]:
    """For each staged reduction: must a barrier follow its reads of the scratch?
    Where another staging (a later reduction, or this one in the next iteration of a
    loop) can follow on some path that passes no block barrier (``pipeline.barrier``
    of all threads, unconditional on that path): one thread may then overwrite rows
    another is still reading.  Where the synchronization of the kernel already puts a
    barrier on every such path, or nothing stages again, another would be useless."""
    staged = set(reductions)
    return {op: _restaged_without_barrier(op, staged) for op in reductions}


def _is_block_barrier(op: Operation) -> bool:
    return isinstance(op, BarrierOp) and op.threads is None and op.barrier_id == 0


def _restaged_without_barrier(op: ReduceOp, staged: set[ReduceOp]) -> bool:
    wrapped: set[Operation] = set()  # loops whose next iteration was looked at

    def stages(candidate: Operation) -> bool:
        return candidate in staged or any(inner in staged for inner in candidate.walk())

    def from_op(first: Operation | None, block_owner: Operation | None) -> bool:
        """Is a staging reachable from ``first`` (on to the end of its block, then
        wherever control goes from there) before a block barrier?"""
        current = first
        while current is not None:
            if _is_block_barrier(current):
                return False
            if stages(current):
                return True
            current = current.next_op
        if block_owner is None or block_owner.name not in _STRUCTURED_CONTROL_FLOW:
            return False  # the kernel's end
        after = from_op(block_owner.next_op, block_owner.parent_op())
        if block_owner.name == "scf.while":  # two regions per iteration: any staging
            return after or stages(block_owner)
        if block_owner.name == "scf.for" and block_owner not in wrapped:
            wrapped.add(block_owner)  # the next iteration, from the body's start
            after = after or from_op(block_owner.regions[0].block.first_op, block_owner)
        return after

    return from_op(op.next_op, op.parent_op())


_STRUCTURED_CONTROL_FLOW = ("scf.for", "scf.while", "scf.if", "scf.execute_region")
