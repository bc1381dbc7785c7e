"""The shared tiles register-fragment operands of ``tile.gemm`` are staged in
(staging.py), allocated at the kernel's entry before the shared layout is made, so
that they are counted like any shared buffer.  A register A that wgmma reads from
registers (``wgmma_register_a.py``) has none."""

from __future__ import annotations

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import MemRefType, StringAttr
from xdsl.ir import SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tilepipe.dialects.memory_space import MemorySpace, memory_space
from tilepipe.dialects.tile import GemmOp
from tilepipe.passes.cuda.warpgroup_mma import kernel_warpgroups

from tilepipe.lowering.nvvm.layout import FragmentLayout
from tilepipe.lowering.nvvm.wgmma_forms import reads_a_from_registers

REGISTER_SPACES = (MemorySpace.FRAGMENT, MemorySpace.LOCAL)


def add_staging_buffers(
    kernel: func.FuncOp, layouts: dict[SSAValue, FragmentLayout]
) -> dict[GemmOp, dict[str, memref.AllocOp]]:
    """A shared ``memref.alloc`` of the operand's tile shape for every register
    fragment A or B of a gemm of ``kernel`` (but an A wgmma reads from registers), at
    the start of its entry block."""
    staging: dict[GemmOp, dict[str, memref.AllocOp]] = {}
    entry = kernel.body.block
    for gemm in [op for op in kernel.walk() if isinstance(op, GemmOp)]:
        for role in ("a", "b"):
            buffer_type = getattr(gemm, role).type
            assert isinstance(buffer_type, MemRefType)
            if memory_space(buffer_type) not in REGISTER_SPACES:
                continue
            if role == "a" and wgmma_reads_registers(gemm, layouts):
                continue
            alloc = memref.AllocOp.get(
                buffer_type.element_type,
                shape=gemm.operand_tile_shape(role),
                memory_space=StringAttr(MemorySpace.SHARED.value),
            )
            alloc.location = gemm.location
            Rewriter.insert_op(alloc, InsertPoint.at_start(entry))
            staging.setdefault(gemm, {})[role] = alloc
    return staging


def wgmma_reads_registers(gemm: GemmOp, layouts: dict[SSAValue, FragmentLayout]) -> bool:
    """Does wgmma read ``gemm``'s register-fragment A from registers?"""
    return kernel_warpgroups(gemm) > 0 and reads_a_from_registers(
        layouts.get(gemm.a), layouts.get(gemm.c)
    )
