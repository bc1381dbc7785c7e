"""Which layout each register fragment of a kernel gets (``layout.py`` has the layouts):
the accumulator of a tensor-core gemm gets an mma accumulator layout -- the warpgroup
one where the gemm runs on wgmma (``passes/cuda/warpgroup_mma.py``), else the most
square warp grid, with whole rows per warp where a row reduction combines with it --
and the fragments combined with it take the same; every other fragment is dealt out
cooperatively."""

from __future__ import annotations

from xdsl.dialects import func, memref
from xdsl.ir import Operation, SSAValue

from tilepipe.core.diagnostics import op_error
from tilepipe.core.targets import CudaTarget
from tilepipe.dialects.memory_space import MemorySpace, memory_space
from tilepipe.dialects.tile import ElementMapping, GemmOp, ReduceOp, TileOp
from tilepipe.passes.cuda.warpgroup_mma import kernel_warpgroups

from tilepipe.lowering.nvvm.fragment_slots import tile_shape_of
from tilepipe.lowering.nvvm.layout import (
    WARP_SIZE,
    CooperativeLayout,
    FragmentLayout,
    MmaAccumulatorLayout,
    WarpGrid,
    WarpgroupGrid,
    choose_mma_grid,
    choose_warp_grid,
    tensor_core_shape,
)


def is_alloc_in(op: Operation, spaces: tuple[MemorySpace, ...]) -> bool:
    return isinstance(op, memref.AllocOp) and memory_space(op.memref.type) in spaces


def fragment_layouts(
    kernel: func.FuncOp, threads: int, target: CudaTarget
) -> dict[SSAValue, FragmentLayout]:
    """The layout of every register fragment of ``kernel`` (see ``layout.py``)."""
    layouts: dict[SSAValue, FragmentLayout] = {}
    links = _fragment_links(kernel)
    for op in kernel.walk():
        if not is_alloc_in(op, (MemorySpace.FRAGMENT, MemorySpace.LOCAL)):
            continue
        buffer = op.memref
        # The layout of one slot (fragment_slots.py): the shape the tiles touch.
        shape = tile_shape_of(buffer)
        grid = _accumulator_grid(buffer, shape, links, threads // WARP_SIZE, target)
        layouts[buffer] = (
            MmaAccumulatorLayout(grid) if grid is not None else CooperativeLayout(shape, threads)
        )
    _propagate_accumulator_layouts(links, layouts)
    return layouts


def _accumulator_grid(
    buffer: SSAValue,
    shape: tuple[int, ...],
    links: list[list[SSAValue]],
    warps: int,
    target: CudaTarget,
) -> WarpGrid | None:
    """The warp grid of the mma accumulator layout ``buffer`` gets, when a gemm into it
    has tensor-core inputs on ``target`` and an accumulator of whole m16n8 blocks.

    Every gemm into the buffer then runs over that one layout: on tensor cores where
    its K and operands allow, on the scalar path otherwise (``gemm.py``).  ``shape`` is
    the shape of one slot of a versioned fragment."""
    for use in buffer.uses:
        gemm = use.operation
        if not isinstance(gemm, GemmOp) or gemm.c != buffer:
            continue
        if tensor_core_shape(target, gemm.element_type("a")) is None:
            continue
        m, n, _ = gemm.mnk
        grid: WarpGrid | None
        if warpgroups := kernel_warpgroups(gemm):
            grid = WarpgroupGrid.of(m, n, warpgroups, block_warps=warps)
        elif any(_reduced_along_rows(f) for f in _combined_with(links, buffer)):
            # The shuffle reductions (reduce.py) want whole rows per warp, and every
            # warp of the block in the grid.
            grid = choose_warp_grid(m, n, warps, True) or choose_warp_grid(m, n, warps)
        else:
            grid = choose_mma_grid(m, n, warps)
        if grid is None:
            continue
        if shape != (m, n):
            raise op_error(
                gemm,
                f"a tensor-core accumulator must be exactly the {m}x{n} tile, "
                f"got {buffer.type}",
            )
        return grid
    return None


def _fragment_links(kernel: func.FuncOp) -> list[list[SSAValue]]:
    """The register fragments each tile op touches together, for the ops that run
    all their operands in one layout (every tile op but the warp-tiled gemm)."""
    links = []
    for op in kernel.walk():
        if not isinstance(op, TileOp) or op.ELEMENT_MAPPING is ElementMapping.WARP_TILED:
            continue
        fragments = [
            b
            for _, b, _ in op.tile_regions()
            if is_alloc_in(b.owner, (MemorySpace.FRAGMENT, MemorySpace.LOCAL))
        ]
        if len(fragments) > 1:
            links.append(fragments)
    return links


def _propagate_accumulator_layouts(
    links: list[list[SSAValue]], layouts: dict[SSAValue, FragmentLayout]
) -> None:
    """A fragment no gemm accumulates into takes the layout of the accumulator it is
    combined with (``O * broadcast(alpha)``), so that every op over fragments runs in
    one layout; fragments meeting two different accumulator layouts keep theirs and
    the op combining them is diagnosed by the lowering."""
    fixed = {b for b, layout in layouts.items() if isinstance(layout, MmaAccumulatorLayout)}
    changed = True
    while changed:
        changed = False
        for fragments in links:
            chosen = {layouts[b] for b in fragments if b in fixed}
            if len(chosen) != 1:
                continue
            (layout,) = chosen
            for buffer in fragments:
                if buffer not in fixed and tuple(layouts[buffer].shape) == tuple(layout.shape):
                    layouts[buffer] = layout
                    fixed.add(buffer)
                    changed = True


def _combined_with(links: list[list[SSAValue]], accumulator: SSAValue) -> set[SSAValue]:
    """The fragments that will share ``accumulator``'s layout: those of its shape that
    a tile op combines with it, transitively (``P = exp(S - m)`` for ``S``), itself
    included -- the reach of ``_propagate_accumulator_layouts``."""
    shape = tile_shape_of(accumulator)
    group = {accumulator}
    changed = True
    while changed:
        changed = False
        for fragments in links:
            same_shape = {b for b in fragments if tile_shape_of(b) == shape}
            if same_shape & group and not same_shape <= group:
                group |= same_shape
                changed = True
    return group


def _reduced_along_rows(buffer: SSAValue) -> bool:
    """Is the fragment the source of a row reduction (keep rows inside one warp)?"""
    return any(
        isinstance(use.operation, ReduceOp)
        and use.operation.src == buffer
        and use.operation.reduce_axis == 1
        for use in buffer.uses
    )
