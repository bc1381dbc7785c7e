"""Memory spaces of tile buffers.

A buffer's memory space is the memory space of its ``memref`` type, written as a
builtin string attribute: ``memref<128x64xf16, "shared">``.  A builtin string is used,
not a dialect attribute, on purpose: upstream MLIR only accepts builtin attributes (or
attributes of *registered* dialects) as memref memory spaces, and the generic text of a
tile kernel must parse in upstream MLIR with unregistered dialects allowed.  A memref
without a memory space lives in global memory (CUDA) -- the natural default for kernel
arguments.
"""

from __future__ import annotations

from enum import Enum

from xdsl.dialects.builtin import MemRefType, StringAttr
from xdsl.ir import Attribute


class MemorySpace(Enum):
    # CUDA
    GLOBAL = "global"
    SHARED = "shared"
    FRAGMENT = "fragment"  # registers, distributed over the threads of a block
    LOCAL = "local"  # per-thread registers / local memory
    # Ascend
    GM = "gm"
    L1 = "l1"
    L0A = "l0a"
    L0B = "l0b"
    L0C = "l0c"
    UB = "ub"

    @property
    def is_ascend(self) -> bool:
        return self in ASCEND_SPACES

    @property
    def is_off_chip(self) -> bool:
        return self in (MemorySpace.GLOBAL, MemorySpace.GM)

    @property
    def is_thread_private(self) -> bool:
        """Fragments and locals belong to the threads that own their elements: two
        tile ops touching them never race through memory."""
        return self in (MemorySpace.FRAGMENT, MemorySpace.LOCAL)


ASCEND_SPACES = frozenset(
    {
        MemorySpace.GM,
        MemorySpace.L1,
        MemorySpace.L0A,
        MemorySpace.L0B,
        MemorySpace.L0C,
        MemorySpace.UB,
    }
)
ON_CHIP_ASCEND_SPACES = ASCEND_SPACES - {MemorySpace.GM}

VALID_SPACE_NAMES = ", ".join(f'"{s.value}"' for s in MemorySpace)


class UnknownMemorySpace(ValueError):
    pass


def memory_space_of_attr(attr: Attribute) -> MemorySpace:
    """The memory space a memref's ``memory_space`` parameter names."""
    from xdsl.dialects.builtin import NoneAttr

    if isinstance(attr, NoneAttr):
        return MemorySpace.GLOBAL
    if isinstance(attr, StringAttr):
        try:
            return MemorySpace(attr.data)
        except ValueError:
            pass
    raise UnknownMemorySpace(
        f"unknown memory space {attr}; expected one of {VALID_SPACE_NAMES}"
    )


def memory_space(memref_type: Attribute) -> MemorySpace:
    if not isinstance(memref_type, MemRefType):
        raise UnknownMemorySpace(f"expected a memref, got {memref_type}")
    return memory_space_of_attr(memref_type.memory_space)


def space_attr(space: MemorySpace) -> StringAttr:
    return StringAttr(space.value)
