"""The register budget of a kernel, checked before ptxas: a warning when the register
fragments a thread holds cannot fit in the target's registers per thread.

A thread holds every register fragment of the kernel (``memref.alloca`` of the
elements its layout gives it: accumulators, their elementwise companions) for the
kernel's whole run -- tilepipe does not shrink their live ranges -- and, while a
tensor-core gemm runs, the A and B fragments of one 16-wide k-step (four 32-bit
registers per 16 rows of A, two per 8 columns of B).  When that alone exceeds the
budget, ptxas will spill (local memory traffic in the steady state) or fail; the
warning names the fragments and their registers, so the tile or the warp grid can be
changed before that.  Address arithmetic, loop counters and pointers need registers
too: a kernel near the budget may spill without this warning.
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import SSAValue

from tilepipe.dialects.tile import FillOp, GemmOp, TileOp
from tilepipe.core.diagnostics import emit_warning
from tilepipe.core.targets import CudaTarget

from tilepipe.lowering.nvvm.fragment_slots import slot_count
from tilepipe.lowering.nvvm.layout import FragmentLayout, MmaAccumulatorLayout

REGISTER_BITS = 32


def _words(layout: FragmentLayout, buffer: SSAValue) -> int:
    """32-bit registers of a thread's part of ``buffer`` (narrow elements packed)."""
    buffer_type = buffer.type
    assert isinstance(buffer_type, MemRefType)
    bits = buffer_type.element_type.bitwidth * layout.registers * slot_count(buffer)
    return -(-bits // REGISTER_BITS)


def _operand_words(gemms: Iterable[GemmOp], layouts: dict[SSAValue, FragmentLayout]) -> int:
    """Registers of the A and B fragments of one k-step of the largest tensor-core gemm."""
    words = 0
    for gemm in gemms:
        layout = layouts.get(gemm.c)
        if isinstance(layout, MmaAccumulatorLayout):
            words = max(words, layout.grid.tiles_m * 4 + layout.grid.tiles_n * 2)
    return words


def _constant_splat(buffer: SSAValue) -> bool:
    """Whether every write of ``buffer`` is a ``tile.fill`` of one constant: a splat
    (the ReLU's zero, a softmax scale) that LLVM folds into the instructions reading
    it, so it holds no registers."""
    values = set()
    for use in buffer.uses:
        op = use.operation
        if not isinstance(op, TileOp):
            return False
        writes = any(role == "dst" and value is buffer for role, value, _ in op.tile_regions())
        if writes and not (isinstance(op, FillOp) and isinstance(op.value.owner, arith.ConstantOp)):
            return False
        if writes:
            values.add(op.value.owner.value)  # type: ignore[union-attr]
    return len(values) == 1


def check_register_budget(
    kernel: func.FuncOp, layouts: dict[SSAValue, FragmentLayout], target: CudaTarget
) -> None:
    """Warn on ``kernel`` when its fragments need more registers than ``target`` has
    (constant splats excepted: :func:`_constant_splat`)."""
    fragments = [(buffer, _words(layout, buffer)) for buffer, layout in layouts.items()
                 if not _constant_splat(buffer)]
    operands = _operand_words((op for op in kernel.walk() if isinstance(op, GemmOp)), layouts)
    needed = sum(words for _, words in fragments) + operands
    if needed <= target.registers_per_thread:
        return
    held = ", ".join(
        f"{buffer.name_hint or 'fragment'} {words}" for buffer, words in fragments
    )
    emit_warning(
        kernel,
        f"its register fragments need {needed} registers per thread ({held}"
        + (f", gemm operands {operands}" if operands else "")
        + f"), more than the {target.registers_per_thread} of {target.name}: "
        "ptxas will spill to local memory",
    )
