"""``async-copy``: global -> shared tile copies become ``cp.async`` copies (§4.3).

On CUDA targets with ``cp.async`` (sm_80 and later), a ``tile.copy`` from global into
shared memory whose rows split into the target's copy chunks (4, 8 or 16 bytes) becomes
``pipeline.async_copy``.  Right after every maximal run of statements that issue async
copies (the copies of one pipeline time slot, guarded or not) the pass commits one
group.  Commits are placed unconditionally -- outside any ``scf.if`` guard -- so that
every thread commits the same number of groups on every path (an empty group is legal
and completes at once); ``thread-sync`` relies on that to count the groups between a
copy and its consumers and to choose each ``wait_group``'s pending count.

The waits themselves, and the barriers after them, are placed by ``thread-sync``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free

from tilepipe.dialects.memory_space import MemorySpace, memory_space
from tilepipe.dialects.pipeline_sync import AsyncCopyOp, CommitGroupOp
from tilepipe.dialects.tile import CopyOp
from tilepipe.targets import CudaTarget, target_of

from .symbolic_index import LoopOp


def copy_chunk_bytes(op: CopyOp, target: CudaTarget) -> int | None:
    """The largest cp.async chunk that divides the copy's contiguous rows, or None when
    the copy cannot be asynchronous (not global -> shared, or rows not divisible)."""
    src_type, dst_type = op.src.type, op.dst.type
    assert isinstance(src_type, MemRefType) and isinstance(dst_type, MemRefType)
    if memory_space(src_type) is not MemorySpace.GLOBAL:
        return None
    if memory_space(dst_type) is not MemorySpace.SHARED:
        return None
    element_bytes = dst_type.element_type.bitwidth // 8  # type: ignore[attr-defined]
    row_bytes = op.tile_shape[-1] * element_bytes
    for chunk in sorted(target.async_copy_sizes, reverse=True):
        if row_bytes % chunk == 0:
            return chunk
    return None


@dataclass
class ConvertCopyToAsync(RewritePattern):
    target: CudaTarget

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CopyOp, rewriter: PatternRewriter) -> None:
        if copy_chunk_bytes(op, self.target) is None:
            return
        async_copy = AsyncCopyOp(
            op.src, op.src_offsets, op.dst, op.dst_offsets, op.tile_shape
        )
        async_copy.attributes |= op.attributes
        async_copy.location = op.location
        rewriter.replace(op, async_copy, [])


def _issues_async_copies(op: Operation) -> bool:
    if isinstance(op, AsyncCopyOp):
        return True
    return bool(op.regions) and not _is_loop(op) and any(
        isinstance(inner, AsyncCopyOp) for inner in op.walk()
    )


def _is_loop(op: Operation) -> bool:
    return isinstance(op, LoopOp)


def insert_commit_groups(block: Block) -> int:
    """Commit after every run of async-copy statements of ``block`` (recursively into
    loop bodies); returns the number of commits inserted.

    A run is one pipeline time slot: it ends at the first op with other effects, or
    when a copy writes a buffer the run already wrote (the next slot's copy into the
    next version of the same buffer, as in an unrolled prologue)."""
    inserted = 0
    run: list[Operation] = []
    written: set[SSAValue] = set()
    for op in list(block.ops):
        if _is_loop(op):
            for region in op.regions:
                for inner in region.blocks:
                    inserted += insert_commit_groups(inner)
        if _issues_async_copies(op):
            destinations = _async_destinations(op)
            if run and destinations & written:
                inserted += _commit_after(run)
                run, written = [], set()
            run.append(op)
            written |= destinations
            continue
        if _is_pure(op):
            continue  # index math between the copies of one slot does not end the run
        if run:
            inserted += _commit_after(run)
            run, written = [], set()
    if run:
        inserted += _commit_after(run)
    return inserted


def _async_destinations(op: Operation) -> set[SSAValue]:
    copies = [op] if isinstance(op, AsyncCopyOp) else op.walk()
    return {copy.dst for copy in copies if isinstance(copy, AsyncCopyOp)}


def _is_pure(op: Operation) -> bool:
    return is_side_effect_free(op) and not op.regions


def _commit_after(run: list[Operation]) -> int:
    tokens = [op.token for op in run if isinstance(op, AsyncCopyOp)]
    if isinstance(run[-1].next_op, CommitGroupOp):
        return 0
    Rewriter.insert_op(CommitGroupOp(tokens), InsertPoint.after(run[-1]))
    return 1


@dataclass(frozen=True)
class AsyncCopyPass(ModulePass):
    """Turn global->shared tile copies into cp.async copies, one commit group per run."""

    name = "async-copy"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for function in op.walk():
            if not isinstance(function, func.FuncOp) or function.body.first_block is None:
                continue
            target = target_of(function)
            if not isinstance(target, CudaTarget):
                continue
            PatternRewriteWalker(
                ConvertCopyToAsync(target), apply_recursively=False
            ).rewrite_region(function.body)
            insert_commit_groups(function.body.block)
