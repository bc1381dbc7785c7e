"""The Ascend pipe model: pipes, cores, hard events and which pipe moves what.

An AI Core issues instructions from the scalar unit into independent in-order queues,
the *pipes*.  Instructions of one pipe execute in order; instructions of two pipes are
ordered only by explicit synchronization:

* ``set_flag``/``wait_flag`` on a *hard event*, i.e. a (producer pipe, consumer pipe)
  pair, with an event id in ``[0, 8)`` per hard event (a single bit: set, then wait
  clears it);
* ``pipe_barrier<PIPE_X>`` for two accesses on the same MTE/FIX pipe (issue order alone
  does not protect overlapping accesses there); S, V and M keep their own order;
* cross-core flags between the cube core (AIC) and the vector cores (AIV).

This module holds the facts; the ``ascend`` dialect, the sync passes, the AscendC
printer and the pipe simulator all read them from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.utils.str_enum import StrEnum

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Attribute

from tilepipe.dialects.memory_space import MemorySpace, memory_space


class Pipe(StrEnum):
    S = "S"  # scalar
    V = "V"  # vector unit (UB -> UB)
    M = "M"  # cube unit (L0A x L0B -> L0C)
    MTE1 = "MTE1"  # L1 -> L0A/L0B
    MTE2 = "MTE2"  # GM -> L1/UB
    MTE3 = "MTE3"  # UB -> GM
    FIX = "FIX"  # fixpipe, L0C -> GM/L1
    ALL = "ALL"  # barrier-only: every pipe

    @property
    def cpp_name(self) -> str:
        return f"PIPE_{self.value}"

    @property
    def keeps_own_order(self) -> bool:
        """Same-pipe dependences the hardware orders by itself (no barrier needed).

        MTE/FIX issue order alone does not protect overlapping accesses (the chapter's
        ``HasImplicitSamePipeOrder``)."""
        return self in (Pipe.S, Pipe.V, Pipe.M)


@irdl_attr_definition
class PipeAttr(EnumAttribute[Pipe], SpacedOpaqueSyntaxAttribute):
    """A pipe of an AI Core: ``#ascend<pipe MTE2>``."""

    name = "ascend.pipe"


class Core(Enum):
    CUBE = "cube"  # AIC: MTE1, M, FIX, and MTE2 into L1
    VECTOR = "vector"  # AIV: V, MTE3, and MTE2 into UB


@dataclass(frozen=True)
class HardEvent:
    """A directed (producer pipe, consumer pipe) pair: AscendC's ``HardEvent``."""

    producer: Pipe
    consumer: Pipe

    @property
    def name(self) -> str:
        return f"{self.producer.value}_{self.consumer.value}"

    def __str__(self) -> str:
        return self.name


# Cube tasks load their operands through MTE1 before M runs, so an M endpoint of a
# dependence on MTE2/MTE3 is synchronized on MTE1 (real AscendC also defines M_MTE3 and
# MTE3_M only on a few architectures).  The chapter's ``GetHardEvent``.
_CANONICAL_ENDPOINTS: dict[tuple[Pipe, Pipe], tuple[Pipe, Pipe]] = {
    (Pipe.MTE2, Pipe.M): (Pipe.MTE2, Pipe.MTE1),
    (Pipe.M, Pipe.MTE2): (Pipe.MTE1, Pipe.MTE2),
    (Pipe.MTE3, Pipe.M): (Pipe.MTE3, Pipe.MTE1),
    (Pipe.M, Pipe.MTE3): (Pipe.MTE1, Pipe.MTE3),
}


def canonical_hard_event(producer: Pipe, consumer: Pipe) -> HardEvent:
    """The hard event that synchronizes ``producer`` -> ``consumer``."""
    return HardEvent(*_CANONICAL_ENDPOINTS.get((producer, consumer), (producer, consumer)))


# AscendC's HardEvent enum (910B), in source -> destination order.
LEGAL_HARD_EVENTS: frozenset[str] = frozenset(
    """MTE2_MTE1 MTE1_MTE2 MTE1_M M_MTE1 MTE2_V V_MTE2 MTE3_V V_MTE3 M_V V_M V_V
    MTE3_MTE1 MTE1_MTE3 MTE1_V MTE2_M M_MTE2 V_MTE1 M_FIX FIX_M MTE3_MTE2 MTE2_MTE3
    S_V V_S S_MTE2 MTE2_S S_MTE3 MTE3_S MTE2_FIX FIX_MTE2 FIX_S M_S FIX_MTE3""".split()
)


def hard_event_problem(event: HardEvent) -> str | None:
    """Why ``event`` may not carry a set_flag/wait_flag, or None when it may."""
    if Pipe.ALL in (event.producer, event.consumer):
        return "PIPE_ALL cannot carry a flag (use pipe_barrier<PIPE_ALL>)"
    canonical = canonical_hard_event(event.producer, event.consumer)
    if canonical != event:
        return f"hard event {event} is not canonical; use {canonical}"
    if event.name not in LEGAL_HARD_EVENTS:
        return f"illegal pipe pair {event}: no such hard event"
    return None


def element_bytes(element: Attribute) -> int:
    """Bytes of one element (index counts as 8)."""
    from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, IntegerType

    if isinstance(element, IntegerType):
        return max(1, element.width.data // 8)
    return {Float16Type: 2, BFloat16Type: 2, Float32Type: 4}.get(type(element), 8)


def buffer_bytes(memref_type: MemRefType) -> int:
    count = 1
    for dim in memref_type.get_shape():
        count *= dim
    return count * element_bytes(memref_type.element_type)


def ascend_space(memref_type: Attribute) -> MemorySpace:
    """The memory a buffer lives in on Ascend: a memref without a space is in GM."""
    space = memory_space(memref_type)
    return MemorySpace.GM if space == MemorySpace.GLOBAL else space


# Which pipe moves data between two memories, and on which core it runs.
COPY_PIPES: dict[tuple[MemorySpace, MemorySpace], Pipe] = {
    (MemorySpace.GM, MemorySpace.UB): Pipe.MTE2,
    (MemorySpace.GM, MemorySpace.L1): Pipe.MTE2,
    (MemorySpace.UB, MemorySpace.GM): Pipe.MTE3,
    (MemorySpace.UB, MemorySpace.UB): Pipe.V,  # a local DataCopy runs on the vector pipe
    (MemorySpace.L1, MemorySpace.L0A): Pipe.MTE1,
    (MemorySpace.L1, MemorySpace.L0B): Pipe.MTE1,
    (MemorySpace.L0C, MemorySpace.GM): Pipe.FIX,
    (MemorySpace.L0C, MemorySpace.L1): Pipe.FIX,
}

CUBE_SPACES = frozenset({MemorySpace.L1, MemorySpace.L0A, MemorySpace.L0B, MemorySpace.L0C})


def pipe_core(pipe: Pipe) -> Core | None:
    """The core a pipe exists on, or None for the pipes of both cores (S, MTE2, ALL)."""
    if pipe in (Pipe.MTE1, Pipe.M, Pipe.FIX):
        return Core.CUBE
    if pipe in (Pipe.V, Pipe.MTE3):
        return Core.VECTOR
    return None


def core_of(pipe: Pipe, spaces: frozenset[MemorySpace]) -> Core:
    """The core that runs an op on ``pipe`` touching ``spaces``.

    MTE2 exists on both cores: it belongs to the core whose memory it fills."""
    if (core := pipe_core(pipe)) is not None:
        return core
    return Core.CUBE if spaces & CUBE_SPACES else Core.VECTOR


# Cross-core flag modes of CrossCoreSetFlag<mode, pipe>: 0 all AI cores, 1 the AIVs of
# one AI Core, 2 AIC <-> both AIVs.
CROSS_CORE_MODES = (0, 1, 2)
