"""Copies: ``tile.copy`` as per-thread 16-byte vector loads/stores where aligned (and
a register fragment in the runs of neighbouring elements its layout gives a thread;
unpredicated in blocks whose global region lies inside its array, predicated at the
edges: ``with_interior_fast_path``),
``pipeline.async_copy`` as ``nvgpu.device_async_copy`` (``cp.async``) chunks (zero-filling
past the edge of a global array), and
``pipeline.bulk_copy`` (sm_90) as one ``cp.async.bulk`` per tile row, issued by
thread 0 and completing its bytes on the named mbarrier (guarded at an array's edge,
where the tile is copied with predicated loads instead), or, as a tensor-map copy
(sm_90a), as one ``cp.async.bulk.tensor`` of the whole tile."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import i32
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tilepipe.dialects.nvgpu import DeviceAsyncCopyOp
from tilepipe.dialects import nvvm
from tilepipe.dialects.nvvm import CP_ASYNC_BYTES
from tilepipe.dialects.pipeline_sync import AsyncCopyOp, BulkCopyOp
from tilepipe.dialects.tile import CopyOp
from tilepipe.dialects.tile_base import chunk_elements, element_bytes
from tilepipe.core.diagnostics import op_error

from tilepipe.lowering.nvvm import emit
from tilepipe.lowering.nvvm.access import (
    Operands,
    TileOperand,
    for_each_run,
    tile_operands,
    with_interior_fast_path,
)
from tilepipe.lowering.nvvm.boundary import if_else
from tilepipe.lowering.nvvm.kernel import KernelContext
from tilepipe.lowering.nvvm.layout import for_each_chunk
from tilepipe.lowering.nvvm.sync import mbarrier_pointer, on_thread_zero

ASYNC_COPY_BYTES = sorted(CP_ASYNC_BYTES, reverse=True)  # widest first; 16 may bypass L1


def _chunk_offsets(coords: list[SSAValue], start: int) -> list[SSAValue]:
    return [*coords[:-1], emit.add(coords[-1], start)]


class LowerCopy(RewritePattern):
    def __init__(self, context: KernelContext):
        self.context = context

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CopyOp, rewriter: PatternRewriter) -> None:
        def copy(operands: Operands) -> None:
            src, dst = operands["src"], operands["dst"]
            if src.is_fragment or dst.is_fragment:
                for_each_run(
                    op,
                    self.context,
                    [src, dst],
                    op.tile_shape,
                    src.element_type,
                    lambda coords, reg, width: dst.store_run(
                        src.load_run(coords, reg, width), coords, reg
                    ),
                )
            else:
                _cooperative_copy(op, self.context, src, dst)

        with emit.emitting(rewriter, op):
            with_interior_fast_path(tile_operands(op, self.context), copy)
        rewriter.erase(op)


def _cooperative_copy(
    op: CopyOp | AsyncCopyOp | BulkCopyOp,
    context: KernelContext,
    src: TileOperand,
    dst: TileOperand,
) -> None:
    """Each thread copies its cooperative chunks: one vector per chunk where both
    sides allow it, else element by element (predicated at an array's edge)."""
    chunk = chunk_elements(op.tile_shape, src.element_type)
    vectorized = chunk > 1 and src.vector_accessible(chunk) and dst.vector_accessible(chunk)

    def copy_chunk(coords: list[SSAValue]) -> None:
        if vectorized:
            dst.store_run(src.load_run(coords, None, chunk), coords, None)
            return
        for element in range(chunk):
            at = _chunk_offsets(coords, element)
            dst.store(src.load(at, None), at, None)

    for_each_chunk(context.ids, op.tile_shape, chunk, copy_chunk)


class LowerAsyncCopy(RewritePattern):
    """Each thread issues ``cp.async`` for its chunks, as wide as both sides provably
    allow (16 bytes when aligned).  At an edge of the global array a chunk reads only
    its elements inside the array and zero-fills the rest (``srcElements``,
    ``boundary.py``).  A copy no 4-byte piece of which is provably aligned (hand
    written: ``async-copy`` keeps those synchronous) is copied synchronously, element
    by element -- landing early is a legal completion of an asynchronous copy."""

    def __init__(self, context: KernelContext):
        self.context = context

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AsyncCopyOp, rewriter: PatternRewriter) -> None:
        operands = tile_operands(op, self.context)
        src, dst = operands["src"], operands["dst"]
        chunk = chunk_elements(op.tile_shape, src.element_type)
        size = element_bytes(src.element_type)
        piece = next(
            (
                n // size
                for n in ASYNC_COPY_BYTES
                if n // size >= 1
                and chunk % (n // size) == 0
                and src.vector_aligned(n // size)
                and dst.vector_aligned(n // size)
            ),
            None,
        )
        if piece is None:
            with emit.emitting(rewriter, op):
                _cooperative_copy(op, self.context, src, dst)
            rewriter.erase(op)
            return

        def copy_chunk(source: TileOperand, coords: list[SSAValue]) -> None:
            for start in range(0, chunk, piece):
                at = _chunk_offsets(coords, start)
                dst_indices = dst.indices(at)
                src_indices = source.indices(at)
                DeviceAsyncCopyOp(
                    dst.buffer,
                    dst_indices,
                    source.buffer,
                    src_indices,
                    piece,
                    bypass_l1=piece * size == 16,
                    src_elements=(
                        source.edges.elements_inside(src_indices, piece)
                        if source.edges is not None
                        else None
                    ),
                )

        with emit.emitting(rewriter, op):
            # A region proven inside its array is read through a view at its origin:
            # per k-iteration one base address, per chunk a loop-invariant offset.
            source = src.region_view()
            for_each_chunk(
                self.context.ids, op.tile_shape, chunk, lambda at: copy_chunk(source, at)
            )
        rewriter.erase(op)


BULK_COPY_ALIGNMENT = 16  # cp.async.bulk: 16-byte aligned addresses and sizes


class LowerBulkCopy(RewritePattern):
    """Thread 0 issues ``cp.async.bulk`` for each row of the tile (rows are the
    contiguous runs of a row-major tile; no tensor map is needed), or, for a
    tensor-map copy, one ``cp.async.bulk.tensor`` for the whole tile."""

    def __init__(self, context: KernelContext):
        self.context = context

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BulkCopyOp, rewriter: PatternRewriter) -> None:
        target = self.context.target
        if not target.has_bulk_tensor_copy:
            raise op_error(
                op, f"bulk (TMA) copies need sm_90; target {target.name} has no TMA"
            )
        if op.is_tensor_copy:
            if not target.has_tensor_map_copy:
                raise op_error(
                    op, f"tensor-map copies need sm_90a; target {target.name} has none"
                )
            with emit.emitting(rewriter, op):
                _tensor_copy(op, self.context)
            rewriter.erase(op)
            return
        operands = tile_operands(op, self.context)
        src, dst = operands["src"], operands["dst"]
        size = element_bytes(src.element_type)
        row_elements = op.tile_shape[-1]
        aligned = BULK_COPY_ALIGNMENT // size
        if (row_elements * size) % BULK_COPY_ALIGNMENT or not (
            src.vector_aligned(aligned) and dst.vector_aligned(aligned)
        ):
            raise op_error(
                op,
                "bulk copies move 16-byte aligned rows; cannot prove that for rows of "
                f"{row_elements} x {size} bytes at these offsets",
            )
        rows_shape = op.tile_shape[:-1] or (1,)
        rows = 1
        for extent in rows_shape:
            rows *= extent

        def issue_row(row: SSAValue) -> None:
            coords = [*emit.delinearize(row, rows_shape)[: len(op.tile_shape) - 1], emit.const(0)]
            nvvm.CpAsyncBulkSharedClusterGlobalOp(
                emit.element_pointer(
                    dst.buffer, dst.indices(coords), nvvm.SHARED_CLUSTER_ADDRESS_SPACE
                ),
                emit.element_pointer(src.buffer, src.indices(coords), nvvm.GLOBAL_ADDRESS_SPACE),
                mbarrier_pointer(op.barriers, op.barrier_slot),
                emit.const_i32(row_elements * size),
            )

        def bulk() -> None:
            on_thread_zero(self.context, lambda: emit.for_range(rows, issue_row), op)

        def at_the_edge() -> None:
            _cooperative_copy(op, self.context, src, dst)
            # A later bulk copy may write these bytes through the async proxy.
            nvvm.FenceProxyOp()
            nvvm.Barrier0Op()
            on_thread_zero(
                self.context,
                lambda: nvvm.MBarrierCompleteTxOp(
                    mbarrier_pointer(op.barriers, op.barrier_slot),
                    emit.const_i32(rows * row_elements * size),
                ),
                op,
            )

        with emit.emitting(rewriter, op):
            if src.edges is None:
                bulk()
            else:
                if_else(src.edges.region_inside(src.offsets, op.tile_shape), bulk, at_the_edge)
        rewriter.erase(op)


def _tensor_copy(op: BulkCopyOp, context: KernelContext) -> None:
    """Thread 0 copies the tile's box (or each of its panels) at the tile's global
    origin (coordinates innermost first, as i32) into the slice of the shared buffer:
    the hardware zero-fills what lies past the array, so there is no edge path, and
    it lands each box in the map's swizzle, the permutation the buffer's other
    accesses use (a panel starts where the tile's element (0, first column) is
    stored)."""
    lowered = context.tensor_copies[op]
    dst = tile_operands(op, context)["dst"]
    rank = len(op.tile_shape)
    src_rank = len(op.src.type.get_shape())  # type: ignore[attr-defined]
    # A region without offsets starts at the array's origin.
    *outer, innermost = list(op.src_offsets) or [emit.const(0)] * src_rank

    def issue() -> None:
        for panel in range(lowered.panels):
            first = panel * lowered.panel_columns
            origin = dst.indices([emit.const(0)] * (rank - 1) + [emit.const(first)])
            coordinates = [emit.add(innermost, first), *reversed(outer)]
            nvvm.CpAsyncBulkTensorSharedClusterGlobalOp(
                emit.element_pointer(dst.buffer, origin, nvvm.SHARED_CLUSTER_ADDRESS_SPACE),
                lowered.tensor_map,
                [arith.IndexCastOp(c, i32).result for c in coordinates],
                mbarrier_pointer(op.barriers, op.barrier_slot),
            )

    on_thread_zero(context, issue, op)
