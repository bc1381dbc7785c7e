"""Thread mappings of the NVVM lowering: which thread touches which tile element.

* **Cooperative chunks** (copies, fills, elementwise ops over shared/global memory):
  the tile, in row-major order, is cut into chunks of ``v`` consecutive elements
  (``v`` = :func:`chunk_elements`, 16 bytes when the row length allows) and chunk
  ``c`` goes to thread ``c mod threads``.  The mapping depends only on the tile shape
  and element type, so two cooperative ops over the same tile agree on which thread
  touches which element (thread-sync's "same thread mapping" exemption stays true).
* **Fragment layouts** say which thread holds which element of a register fragment
  (``"fragment"`` buffers), and at which register index.  A fragment that is the
  accumulator of a tensor-core gemm gets the ``mma.sync`` m16n8k16 accumulator layout
  (PTX ISA, "Matrix Fragments for mma.m16n8k16": c0,c1 at row ``lane/4``, columns
  ``2*(lane%4) + {0,1}``; c2,c3 eight rows below), replicated over the warp's tile of
  16x8 blocks -- over fewer warps than the block has when the tile has too few
  blocks for all of them (the others own none of its elements); every other
  fragment is dealt out cooperatively (element ``e`` to thread ``e mod threads``,
  register ``e div threads``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from xdsl.dialects import gpu
from xdsl.dialects.builtin import BFloat16Type, Float16Type
from xdsl.ir import Attribute, SSAValue

from tilepipe.core.targets import CudaTarget, MmaShape

from tilepipe.lowering.nvvm import emit

WARP_SIZE = 32
MMA_M, MMA_N, MMA_K = 16, 8, 16
WARPGROUP_WARPS = 4  # a wgmma warpgroup: four consecutive warps
WARPGROUP_M = 64  # the rows of one wgmma
# f16 goes through nvgpu.mma.sync; bf16 through nvvm.mma.sync directly, because upstream
# 22.1.8's convert-nvgpu-to-nvvm cannot lower a bf16 nvgpu.mma.sync (see gemm.py).
TENSOR_CORE_INPUTS = (Float16Type, BFloat16Type)

ElementBody = Callable[[SSAValue, list[SSAValue]], None]
"""``body(register_index, tile_coordinates)`` for one element a thread owns."""

RunBody = Callable[[SSAValue, list[SSAValue], int], None]
"""``body(first register, first element's tile coordinates, width)`` for a run of
``width`` consecutive registers holding ``width`` consecutive elements of a tile row
(the run starts at a register index that is a multiple of ``width``)."""


@dataclass(frozen=True)
class ThreadIds:
    """The executing thread's coordinates, emitted where they are used.

    (Emitting them once at the kernel entry would not survive the rewrite walkers'
    dead-code elimination; upstream CSE merges the copies.)
    """

    threads: int

    @property
    def thread(self) -> SSAValue:
        return gpu.ThreadIdOp(gpu.DimensionAttr(gpu.DimensionEnum.X)).result

    @property
    def lane(self) -> SSAValue:
        return emit.rem(self.thread, WARP_SIZE)

    @property
    def warp(self) -> SSAValue:
        return emit.div(self.thread, WARP_SIZE)


def for_each_chunk(
    ids: ThreadIds,
    shape: Sequence[int],
    chunk: int,
    body: Callable[[list[SSAValue]], None],
) -> None:
    """Run ``body(coords of the chunk's first element)`` for the chunks this thread owns."""
    chunks = math.prod(shape) // chunk
    rounds = -(-chunks // ids.threads)
    if rounds > 1 and _whole_rows_per_round(shape, chunk, ids.threads, chunks):
        _for_each_chunk_by_rows(ids, shape, chunk, rounds, body)
        return
    thread = ids.thread

    def one_round(round_index: SSAValue) -> None:
        index = emit.add(emit.mul(round_index, ids.threads), thread)

        def in_bounds() -> None:
            body(emit.delinearize(emit.mul(index, chunk), shape))

        if chunks % ids.threads:
            emit.if_then(emit.less_than(index, chunks), in_bounds)
        else:
            in_bounds()

    if rounds == 1:
        one_round(emit.const(0))
    else:
        emit.for_range(rounds, one_round)


UNROLLED_ROUNDS = 8
"""Rounds of a cooperative access that LLVM is asked to unroll completely."""


def _whole_rows_per_round(shape: Sequence[int], chunk: int, threads: int, chunks: int) -> bool:
    """Does every round cover whole rows (of the leading dimension), with no thread
    idle in the last one?"""
    return chunks % threads == 0 and (threads * chunk) % math.prod(shape[1:]) == 0


def _for_each_chunk_by_rows(
    ids: ThreadIds,
    shape: Sequence[int],
    chunk: int,
    rounds: int,
    body: Callable[[list[SSAValue]], None],
) -> None:
    """``for_each_chunk`` when each round covers whole rows: round ``r`` is the
    thread's first-round chunk ``r * rows_per_round`` rows further down.  The rounds'
    addresses then differ by constants (one address register and immediate offsets,
    where a division of the round's linear index would hide that), and a loop of up to
    ``UNROLLED_ROUNDS`` rounds is marked for LLVM to unroll."""
    rows_per_round = ids.threads * chunk // math.prod(shape[1:])
    first = emit.delinearize(emit.mul(ids.thread, chunk), shape)

    def one_round(row_offset: SSAValue) -> None:
        body([emit.add(first[0], row_offset), *first[1:]])

    unroll = rounds <= UNROLLED_ROUNDS
    emit.for_range(rounds, lambda r: one_round(emit.mul(r, rows_per_round)), unroll=unroll)


class FragmentLayout:
    """Where the elements of a register fragment live."""

    shape: tuple[int, ...]

    @property
    def registers(self) -> int:
        raise NotImplementedError

    def for_each_run(self, ids: ThreadIds, body: RunBody, max_width: int) -> None:
        """Visit the thread's elements in runs of at most ``max_width``."""
        raise NotImplementedError

    def for_each(self, ids: ThreadIds, body: ElementBody) -> None:
        self.for_each_run(ids, lambda register, coords, width: body(register, coords), 1)

    def owners(self) -> np.ndarray:
        """The thread holding each element (an array of ``shape``): what the
        lowering decides at compile time about who must talk to whom."""
        raise NotImplementedError


@dataclass(frozen=True)
class CooperativeLayout(FragmentLayout):
    shape: tuple[int, ...]
    threads: int

    @property
    def registers(self) -> int:
        return -(-math.prod(self.shape) // self.threads)

    def owners(self) -> np.ndarray:
        return (np.arange(math.prod(self.shape)) % self.threads).reshape(self.shape)

    def for_each_run(self, ids: ThreadIds, body: RunBody, max_width: int) -> None:
        """Neighbouring elements belong to neighbouring threads: runs of one."""
        elements = math.prod(self.shape)
        thread = ids.thread
        for register in range(self.registers):
            index = emit.add(thread, register * self.threads)

            def in_bounds(register: int = register, index: SSAValue = index) -> None:
                body(emit.const(register), emit.delinearize(index, self.shape), 1)

            if (register + 1) * self.threads > elements:
                emit.if_then(emit.less_than(index, elements), in_bounds)
            else:
                in_bounds()


@dataclass(frozen=True)
class WarpGrid:
    """How the warps of a block tile an ``m x n`` accumulator.

    ``block_warps``, when set, is the block's warp count where the grid uses fewer
    (``active_warps``): the warps past the grid own no element of the tile."""

    m: int
    n: int
    warps_m: int
    warps_n: int
    block_warps: int = 0

    @property
    def active_warps(self) -> int:
        return self.warps_m * self.warps_n

    @property
    def has_idle_warps(self) -> bool:
        return self.block_warps > self.active_warps

    def if_active(self, warp: SSAValue, body: Callable[[], None]) -> None:
        """``body`` on the grid's warps only (whole warps: warp-collective ops in it
        stay convergent)."""
        if self.has_idle_warps:
            emit.if_then(emit.less_than(warp, self.active_warps), body)
        else:
            body()

    @property
    def warp_m(self) -> int:
        return self.m // self.warps_m

    @property
    def warp_n(self) -> int:
        return self.n // self.warps_n

    @property
    def tiles_m(self) -> int:
        return self.warp_m // MMA_M

    @property
    def tiles_n(self) -> int:
        return self.warp_n // MMA_N

    @property
    def block_rows(self) -> int:
        """Rows from one of a warp's 16-row blocks to the next: its blocks are
        contiguous."""
        return MMA_M

    def warp_origin(self, warp: SSAValue) -> tuple[SSAValue, SSAValue]:
        """(row, column) of the warp's first 16x8 block."""
        row = emit.mul(emit.div(warp, self.warps_n), self.warp_m)
        col = emit.mul(emit.rem(warp, self.warps_n), self.warp_n)
        return row, col

    def warp_of(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """The warp owning each (row, column) of the tile."""
        return (rows // self.warp_m) * self.warps_n + cols // self.warp_n


@dataclass(frozen=True)
class WarpgroupGrid(WarpGrid):
    """How the warpgroups of a block tile an ``m x n`` accumulator for ``wgmma``:
    warpgroup ``g`` owns rows ``[g m / W, (g + 1) m / W)`` and every column, as
    64-row slabs of one ``wgmma .m64nN`` each.  In each slab, warp ``q`` of the
    warpgroup holds rows ``16 q .. 16 q + 15`` in the m16n8 accumulator fragment of
    every 8-column block (PTX ISA, "Register Fragments" of wgmma's D): the m16n8
    layout with a warp's blocks 64 rows apart instead of 16."""

    @staticmethod
    def of(m: int, n: int, warpgroups: int, block_warps: int) -> WarpgroupGrid:
        """The grid of ``warpgroups`` in a block of ``block_warps`` warps."""
        warps = WARPGROUP_WARPS * warpgroups
        return WarpgroupGrid(m, n, warps, 1, block_warps if block_warps > warps else 0)

    @property
    def warpgroups(self) -> int:
        return self.warps_m // WARPGROUP_WARPS

    @property
    def warpgroup_m(self) -> int:
        return self.m // self.warpgroups

    @property
    def block_rows(self) -> int:
        return WARPGROUP_M

    def warp_origin(self, warp: SSAValue) -> tuple[SSAValue, SSAValue]:
        group = emit.mul(emit.div(warp, WARPGROUP_WARPS), self.warpgroup_m)
        return emit.add(group, emit.mul(emit.rem(warp, WARPGROUP_WARPS), MMA_M)), emit.const(0)

    def warp_of(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        return (rows // self.warpgroup_m) * WARPGROUP_WARPS + rows % WARPGROUP_M // MMA_M


def choose_warp_grid(
    m: int, n: int, warps: int, whole_rows: bool = False
) -> WarpGrid | None:
    """The most square warp tiling of ``m x n`` in whole m16n8 blocks, if any.

    With ``whole_rows`` every warp owns whole rows (``warps_n == 1``), so that a row
    reduction stays inside one warp (quad shuffles, no shared memory).
    """
    best: WarpGrid | None = None
    for warps_m in range(1, warps + 1):
        if warps % warps_m or (whole_rows and warps_m != warps):
            continue
        grid = WarpGrid(m, n, warps_m, warps // warps_m)
        if m % (MMA_M * grid.warps_m) or n % (MMA_N * grid.warps_n):
            continue
        if best is None or abs(grid.warp_m - grid.warp_n) < abs(best.warp_m - best.warp_n):
            best = grid
    return best


@dataclass(frozen=True)
class MmaAccumulatorLayout(FragmentLayout):
    """The m16n8k16 accumulator layout, one 16x8 block after another per warp.

    Register ``((i * tiles_n + j) * 4 + r)`` holds row ``warp_row + B i + lane/4 +
    8 (r/2)``, column ``warp_col + 8 j + 2 (lane%4) + r%2``, with ``B`` the grid's
    ``block_rows`` (16; 64 in a warpgroup grid, which is also wgmma's layout).
    """

    grid: WarpGrid

    @property
    def shape(self) -> tuple[int, ...]:  # type: ignore[override]
        return (self.grid.m, self.grid.n)

    @property
    def registers(self) -> int:
        return self.grid.tiles_m * self.grid.tiles_n * 4

    def owners(self) -> np.ndarray:
        rows, cols = np.indices(self.shape)
        warp = self.grid.warp_of(rows, cols)
        lane = (rows % MMA_M % 8) * 4 + (cols % MMA_N) // 2
        return warp * WARP_SIZE + lane

    def register_index(self, tile_m: int, tile_n: int, element: int) -> int:
        return (tile_m * self.grid.tiles_n + tile_n) * 4 + element

    def for_each_run(self, ids: ThreadIds, body: RunBody, max_width: int) -> None:
        """Runs of two: c0,c1 (and c2,c3) are neighbours in a row."""
        width = 2 if max_width >= 2 else 1
        self.grid.if_active(ids.warp, lambda: self._for_each_run(ids, body, width))

    def _for_each_run(self, ids: ThreadIds, body: RunBody, width: int) -> None:
        warp_row, warp_col = self.grid.warp_origin(ids.warp)
        lane = ids.lane
        base_row = emit.add(warp_row, emit.div(lane, 4))
        base_col = emit.add(warp_col, emit.mul(emit.rem(lane, 4), 2))
        for tile_m in range(self.grid.tiles_m):
            for tile_n in range(self.grid.tiles_n):
                for element in range(0, 4, width):
                    row = emit.add(base_row, tile_m * self.grid.block_rows + 8 * (element // 2))
                    col = emit.add(base_col, tile_n * MMA_N + element % 2)
                    register = self.register_index(tile_m, tile_n, element)
                    body(emit.const(register), [row, col], width)


def choose_mma_grid(m: int, n: int, warps: int, whole_rows: bool = False) -> WarpGrid | None:
    """``choose_warp_grid`` over all ``warps`` of the block, else over the most of
    them that tile ``m x n`` in whole m16n8 blocks (the rest idle in the gemm)."""
    for active in range(warps, 0, -1):
        grid = choose_warp_grid(m, n, active, whole_rows)
        if grid is not None:
            return grid if active == warps else replace(grid, block_warps=warps)
    return None


def tensor_core_shape(target: CudaTarget, element_type: Attribute) -> MmaShape | None:
    """The target's ``mma.sync`` for gemm inputs of ``element_type`` that this
    lowering emits (m16n8k16, f32 accumulator), if it offers one."""
    for shape in target.mma_shapes:
        if (
            (shape.m, shape.n, shape.k) == (MMA_M, MMA_N, MMA_K)
            and shape.accumulator == "f32"
            and str(element_type) in shape.inputs
            and isinstance(element_type, TENSOR_CORE_INPUTS)
        ):
            return shape
    return None
