"""The shared tiles register-fragment operands of ``tile.gemm`` are staged in
(staging.py), allocated at the kernel's entry before the shared layout is made, so
that they are counted like any shared buffer."""

from __future__ import annotations

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import MemRefType, StringAttr
from xdsl.rewriter import InsertPoint, Rewriter

from tilepipe.dialects.memory_space import MemorySpace, memory_space
from tilepipe.dialects.tile import GemmOp

REGISTER_SPACES = (MemorySpace.FRAGMENT, MemorySpace.LOCAL)


def add_staging_buffers(kernel: func.FuncOp) -> dict[GemmOp, dict[str, memref.AllocOp]]:
    """A shared ``memref.alloc`` of the operand's tile shape for every register
    fragment A or B of a gemm of ``kernel``, at the start of its entry block."""
    staging: dict[GemmOp, dict[str, memref.AllocOp]] = {}
    entry = kernel.body.block
    for gemm in [op for op in kernel.walk() if isinstance(op, GemmOp)]:
        for role in ("a", "b"):
            buffer_type = getattr(gemm, role).type
            assert isinstance(buffer_type, MemRefType)
            if memory_space(buffer_type) not in REGISTER_SPACES:
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
