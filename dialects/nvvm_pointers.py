"""The address spaces and pointer types of the ``nvvm`` subset (``dialects/nvvm.py``
re-exports them), apart so that the op modules share them."""

from __future__ import annotations

from xdsl.dialects.builtin import I32, IntAttr, IntegerAttr, i32
from xdsl.dialects.llvm import LLVMPointerType

SHARED_ADDRESS_SPACE = 3  # NVPTX addrspace(3): CTA shared memory
GLOBAL_ADDRESS_SPACE = 1
# addrspace(7): the cluster's shared memory window; a CTA's own shared::cta address is
# a valid shared::cluster address (PTX ISA, "State spaces").
SHARED_CLUSTER_ADDRESS_SPACE = 7


def shared_ptr_type() -> LLVMPointerType:
    return LLVMPointerType(IntAttr(SHARED_ADDRESS_SPACE))


def global_ptr_type() -> LLVMPointerType:
    return LLVMPointerType(IntAttr(GLOBAL_ADDRESS_SPACE))


def _i32(value: int) -> IntegerAttr[I32]:
    return IntegerAttr(value, i32)
