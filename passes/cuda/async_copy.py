"""``async-copy``: global -> shared tile copies become ``cp.async`` copies, with one
commit group after every run of them, outside any guard (splitting a guard where a
reader of the same time slot follows).  The waits are ``thread-sync``'s.  See
docs/sync.md, "`async-copy`"."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func, scf
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
from xdsl.traits import IsTerminator, is_side_effect_free

from tilepipe.dialects.memory_space import MemorySpace, memory_space
from tilepipe.dialects.pipeline_sync import AsyncCopyOp, CommitGroupOp
from tilepipe.dialects.pipeline_ws import WarpSpecializeOp
from tilepipe.dialects.tile import CopyOp, TileOp
from tilepipe.core.targets import CudaTarget, target_of

from tilepipe.passes.analysis.divisibility import provable_vector_width
from tilepipe.passes.memory.arena_aliasing import may_alias
from tilepipe.passes.cuda.guard_split import can_split, split_guard
from tilepipe.passes.analysis.symbolic_index import LoopOp


def copy_chunk_bytes(op: CopyOp, target: CudaTarget) -> int | None:
    """The widest cp.async chunk every row of the copy provably splits into, aligned
    on both sides (``divisibility.provable_vector_width``: static shapes and offsets,
    divisibility facts), or None when the copy stays a synchronous ``tile.copy``:
    not global -> shared, or no chunk of at least 4 bytes is provable (a dynamic
    row length without a divisibility fact) -- the lowering then copies narrower,
    down to single elements, instead of failing."""
    src_type, dst_type = op.src.type, op.dst.type
    assert isinstance(src_type, MemRefType) and isinstance(dst_type, MemRefType)
    if memory_space(src_type) is not MemorySpace.GLOBAL:
        return None
    if memory_space(dst_type) is not MemorySpace.SHARED:
        return None
    element_bytes = dst_type.element_type.bitwidth // 8  # type: ignore[attr-defined]
    widest = max(1, max(target.async_copy_sizes) // element_bytes)
    width = min(
        provable_vector_width(op.src, op.src_offsets, op.tile_shape[-1], widest),
        provable_vector_width(op.dst, op.dst_offsets, op.tile_shape[-1], widest),
    )
    for chunk in sorted(target.async_copy_sizes, reverse=True):
        if chunk <= width * element_bytes and (width * element_bytes) % chunk == 0:
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


@dataclass
class SplitGuardAfterCopies(RewritePattern):
    """``scf.if c { copies; reader; ... }`` -> ``scf.if c { copies }; scf.if c {
    reader; ... }``, so that the copies' group can be committed before the reader.
    Likewise ``scf.if c { copy to X; copy to X }`` is split between the copies: the
    guard's run of copies ends where a run outside a guard would (``_ends_run``).

    Only what ``guard_split.can_split`` allows is split (the pipeline's stage guards:
    no results, no else branch, only index math crossing)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.IfOp, rewriter: PatternRewriter) -> None:
        split = _end_of_first_run(op.true_region.blocks.first)
        if split is not None and can_split(op, split):
            split_guard(op, split, rewriter)


def _end_of_first_run(block: Block | None) -> int | None:
    """Index of the statement of ``block`` that ends its first run of async-copy
    statements (see ``_ends_run``); None when no run ends before the terminator."""
    written: list[SSAValue] = []
    for index, op in enumerate(block.ops if block is not None else ()):
        if op.has_trait(IsTerminator):
            break
        if written and _ends_run(op, written):
            return index
        if _issues_async_copies(op) and not _has_other_effects(op):
            written.extend(_async_destinations(op))
    return None


def _ends_run(op: Operation, written: list[SSAValue]) -> bool:
    """Whether ``op`` ends a non-empty run of async copies that wrote ``written``: it
    has effects besides issuing async copies, or it copies into bytes the run already
    wrote (the two copies would be in flight together, completing in either order)."""
    if _issues_async_copies(op):
        return _has_other_effects(op) or any(
            may_alias(d, w) for d in _async_destinations(op) for w in written
        )
    return not _is_pure(op)


def _has_other_effects(op: Operation) -> bool:
    """Whether ``op`` (or an op nested in it) has effects besides issuing async copies."""
    return any(
        not isinstance(inner, AsyncCopyOp) and not _is_pure(inner)
        and not inner.has_trait(IsTerminator) and not inner.regions
        for inner in op.walk()
    )


def _issues_async_copies(op: Operation) -> bool:
    if isinstance(op, AsyncCopyOp):
        return True
    return bool(op.regions) and not _is_loop(op) and any(
        isinstance(inner, AsyncCopyOp) for inner in op.walk()
    )


def _is_loop(op: Operation) -> bool:
    return isinstance(op, LoopOp)


def insert_commit_groups(block: Block, in_loop: bool = False) -> int:
    """Commit after every run of async-copy statements of ``block`` (recursively into
    loop bodies); returns the number of commits inserted.

    A run is one pipeline time slot: it ends at the first op with other effects, or
    when a copy writes bytes the run already wrote (the next slot's copy into the
    next version of the same buffer, as in an unrolled prologue, or a buffer the
    arena placed on another's bytes).  A guard with other effects before its copies
    (``SplitGuardAfterCopies`` leaves none after them) ends the run before it and
    starts the next one.  Outside loops, copies before the pipeline's prologue (flash
    attention's Q) belong to no slot: their run stays open across statements that
    neither touch its bytes nor synchronize, up to the prologue's first slot, whose
    group they join -- their consumers come no earlier than that slot's, so a group
    of their own would only be one more commit."""
    inserted = 0
    run: list[Operation] = []
    written: list[SSAValue] = []
    for op in list(block.ops):
        if isinstance(op, WarpSpecializeOp):
            # The consumers' region is their kernel body: its copies commit there
            # (the producer's are tensor copies, on mbarriers).
            if run:
                inserted += _commit_after(run)
                run, written = [], []
            inserted += insert_commit_groups(op.consumer.block)
            continue
        if _is_loop(op):
            for region in op.regions:
                for inner in region.blocks:
                    inserted += insert_commit_groups(inner, in_loop=True)
        keeps_run_open = (
            not in_loop and not _issues_async_copies(op) and _independent_of(op, written)
        )
        if run and _ends_run(op, written) and not keeps_run_open:
            inserted += _commit_after(run)
            run, written = [], []
        if _issues_async_copies(op):
            run.append(op)
            written.extend(_async_destinations(op))
    if run:
        inserted += _commit_after(run)
    return inserted


def _independent_of(op: Operation, written: list[SSAValue]) -> bool:
    """A tile statement without regions that touches none of the ``written`` bytes
    (neither a consumer of the open run nor a sync op)."""
    return (
        isinstance(op, TileOp) and not op.regions
        and not any(
            isinstance(v.type, MemRefType) and may_alias(v, w)
            for v in op.operands for w in written
        )
    )


def _async_destinations(op: Operation) -> list[SSAValue]:
    copies = [op] if isinstance(op, AsyncCopyOp) else op.walk()
    return [copy.dst for copy in copies if isinstance(copy, AsyncCopyOp)]


def _is_pure(op: Operation) -> bool:
    return is_side_effect_free(op) and not op.regions


def _commit_after(run: list[Operation]) -> int:
    tokens = [op.token for op in run if isinstance(op, AsyncCopyOp)]
    if isinstance(run[-1].next_op, CommitGroupOp):
        return 0
    commit = CommitGroupOp(tokens)
    commit.location = run[-1].location  # the copy whose run it closes
    Rewriter.insert_op(commit, InsertPoint.after(run[-1]))
    return 1


@dataclass(frozen=True)
class AsyncCopy(ModulePass):
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
            PatternRewriteWalker(SplitGuardAfterCopies()).rewrite_region(function.body)
            insert_commit_groups(function.body.block)
