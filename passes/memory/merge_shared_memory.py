"""``merge-shared-memory``: one arena per on-chip memory, packed by liveness, checked
against the target's budget at compile time (docs/arena.md).

For every kernel and every on-chip memory its target budgets (CUDA ``shared``; Ascend
``ub``, ``l1``, ``l0a``, ``l0b``, ``l0c``, each its own arena) the pass

1. computes the buffers' live intervals (:mod:`tilepipe.passes.memory.liveness`),
2. packs them (:mod:`tilepipe.passes.memory.arena_packing`), without reuse under
   ``disable-reuse``,
3. checks the arena against the target record; over budget is one error on the
   function naming every buffer's versions x bytes, the arena, the budget and the knob
   that would fit (the largest ``num_stages``, else the tile size),
4. rewrites the allocations into one ``memref<N x i8, space>`` arena and typed
   ``memref.view``\\ s at constant byte offsets.  The arena alloc carries the whole layout
   as ``arena.layout`` (see :mod:`tilepipe.passes.memory.arena_aliasing` for reading it back).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StringAttr,
    i8,
    i64,
)
from xdsl.dialects.func import FuncOp
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tilepipe.core.diagnostics import op_error
from tilepipe.dialects.memory_space import space_attr
from tilepipe.passes.memory import arena_report
from tilepipe.passes.memory.arena_aliasing import ARENA_ATTR
from tilepipe.passes.memory.arena_layout import ArenaLayout
from tilepipe.passes.memory.arena_packing import pack
from tilepipe.passes.memory.liveness import liveness_intervals, on_chip_allocs, pipeline_depth
from tilepipe.core.targets import AscendTarget, CudaTarget, UnknownTarget, target_of

KiB = 1024


def kernel_target(func_op: FuncOp) -> CudaTarget | AscendTarget:
    try:
        return target_of(func_op)
    except UnknownTarget as err:
        raise op_error(func_op, str(err)) from None


def plan_arenas(func_op: FuncOp, reuse: bool = True) -> list[ArenaLayout]:
    """Liveness and packing of every budgeted on-chip memory of ``func_op``."""
    target = kernel_target(func_op)
    depth = pipeline_depth(func_op)
    layouts: list[ArenaLayout] = []
    for space, buffers in liveness_intervals(func_op, target.alignments).items():
        fresh = [b for b in buffers if ARENA_ATTR not in b.alloc.attributes]
        if len(fresh) < len(buffers) and fresh:
            raise op_error(
                fresh[0].alloc,
                f"{space.value} buffer {fresh[0].name} is allocated next to an arena "
                "that merge-shared-memory already packed; run the pass once, after "
                "every allocation exists",
            )
        if not fresh:
            continue  # packed before: the pass is idempotent
        plan = pack([b.interval() for b in fresh], reuse=reuse)
        layouts.append(
            ArenaLayout(
                func_op,
                space,
                target.name,
                target.capacities[space.value],
                reuse,
                tuple(fresh),
                plan,
                depth,
            )
        )
    return layouts


# --------------------------------------------------------------------------- budget


def largest_fitting_num_stages(layout: ArenaLayout) -> tuple[int, int] | None:
    """``(num_stages, arena bytes)`` for the largest smaller pipeline depth whose arena
    fits, re-sizing the multi-version buffers (each loses one version per stage
    dropped, keeping at least one); None when no depth fits or nothing is versioned."""
    versioned = [b for b in layout.buffers if b.versioned]
    if not versioned:
        return None
    depth = layout.pipeline_depth or max(b.versions for b in versioned)
    for stages in range(depth - 1, 0, -1):
        dropped = depth - stages
        intervals = [
            b.interval(max(1, b.versions - dropped)) if b.versioned else b.interval()
            for b in layout.buffers
        ]
        size = pack(intervals, reuse=layout.reuse).size
        if size <= layout.budget:
            return stages, size
    return None


def _bytes(count: int) -> str:
    return f"{count} bytes ({count / KiB:.1f} KiB)"


def budget_message(layout: ArenaLayout) -> str:
    footprints = ", ".join(
        f"{b.name} {b.versions} x {b.bytes_per_version} B" for b in layout.buffers
    )
    message = (
        f"{layout.space.value} arena of {_bytes(layout.size)} exceeds the "
        f"{layout.target} budget of {_bytes(layout.budget)} per block: {footprints} "
        f"(no-reuse sum {layout.no_reuse_bytes} B, peak live {layout.peak_live_bytes} B)"
    )
    if (fitting := largest_fitting_num_stages(layout)) is not None:
        stages, size = fitting
        return f"{message}; num_stages = {stages} fits ({size} B)"
    excess = layout.size - layout.budget
    largest = max(layout.buffers, key=lambda b: (b.bytes, b.name))
    return (
        f"{message}; no smaller num_stages fits: reduce the tile size so that the "
        f"arena loses at least {excess} B (largest buffer: {largest.name}, "
        f"{largest.bytes} B)"
    )


# --------------------------------------------------------------------------- rewrite


def layout_attribute(layout: ArenaLayout) -> DictionaryAttr:
    """The buffer table the arena alloc carries: who lives where, and when."""
    buffers = [
        DictionaryAttr(
            {
                "name": StringAttr(b.name),
                "offset": IntegerAttr(layout.offset(b), i64),
                "bytes": IntegerAttr(b.bytes, i64),
                "versions": IntegerAttr(b.versions, i64),
                "alignment": IntegerAttr(b.alignment, i64),
                "live": DenseArrayBase.from_list(i64, (b.start, b.end)),
            }
        )
        for b in layout.buffers
    ]
    return DictionaryAttr(
        {
            "budget": IntegerAttr(layout.budget, i64),
            "no_reuse_bytes": IntegerAttr(layout.no_reuse_bytes, i64),
            "peak_live_bytes": IntegerAttr(layout.peak_live_bytes, i64),
            "reuse": BoolAttr.from_bool(layout.reuse),
            "buffers": ArrayAttr(buffers),
        }
    )


def rewrite_into_arena(layout: ArenaLayout, where: InsertPoint) -> memref.AllocOp:
    """Replace the layout's allocations by byte-offset views of one arena allocated at
    ``where`` (which must dominate the whole function: its entry block's top)."""
    arena_type = MemRefType(i8, [layout.size], NoneAttr(), space_attr(layout.space))
    arena = memref.AllocOp([], [], arena_type, IntegerAttr(layout.alignment, i64))
    arena.attributes[ARENA_ATTR] = layout_attribute(layout)
    arena.memref.name_hint = f"{layout.space.value}_arena"
    Rewriter.insert_op(arena, where)
    for buffer in layout.buffers:
        alloc = buffer.alloc
        for use in list(alloc.memref.uses):
            if isinstance(use.operation, memref.DeallocOp):
                Rewriter.erase_op(use.operation)  # the arena outlives its buffers
        offset = arith.ConstantOp(IntegerAttr(layout.offset(buffer), IndexType()))
        offset.result.name_hint = f"{buffer.name}_offset"
        view = memref.ViewOp(arena.memref, offset.result, [], alloc.memref.type)
        view.result.name_hint = buffer.name
        Rewriter.replace_op(alloc, [offset, view], [view.result])
    return arena


def erase_unused_allocs(func_op: FuncOp) -> None:
    """Drop budgeted allocations nothing touches: they need no bytes, and no arena."""
    for alloc, _ in list(on_chip_allocs(func_op, kernel_target(func_op).capacities)):
        if not alloc.memref.uses:
            Rewriter.erase_op(alloc)


# --------------------------------------------------------------------------- pass


REPORT_FORMATS = ("text", "json")


@dataclass(frozen=True)
class MergeSharedMemory(ModulePass):
    """Pack each kernel's on-chip buffers into one arena per memory and check its budget.

    Options: ``disable-reuse`` gives every buffer its own bytes (how much reuse saves);
    ``report=text|json`` prints the layout (to ``report-file`` if given, else stderr);
    ``report-svg=<path>`` draws it (offset against program position).
    """

    name = "merge-shared-memory"

    disable_reuse: bool = False
    report: str | None = None
    report_file: str | None = None
    report_svg: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.report is not None and self.report not in REPORT_FORMATS:
            raise op_error(
                op,
                f"merge-shared-memory: unknown report format '{self.report}' "
                f"(expected {' or '.join(REPORT_FORMATS)})",
            )
        layouts: list[ArenaLayout] = []
        for func_op in op.walk():
            if isinstance(func_op, FuncOp) and func_op.body.blocks:
                erase_unused_allocs(func_op)
                layouts.extend(plan_arenas(func_op, reuse=not self.disable_reuse))
        # Report before checking budgets: an over-budget layout is what one wants to see.
        if self.report is not None:
            arena_report.write(
                arena_report.render(layouts, self.report), self.report_file
            )
        if self.report_svg is not None:
            Path(self.report_svg).write_text(arena_report.svg_picture(layouts))
        for layout in layouts:
            if not layout.fits:
                raise op_error(layout.function, budget_message(layout))
        # The arenas of a function go to the top of its entry block, in layout order.
        last_arena: dict[FuncOp, memref.AllocOp] = {}
        for layout in layouts:
            previous = last_arena.get(layout.function)
            where = (
                InsertPoint.after(previous)
                if previous is not None
                else InsertPoint.at_start(layout.function.body.block)
            )
            last_arena[layout.function] = rewrite_into_arena(layout, where)

