"""``tile.atomic_add``: accumulate an on-chip tile into global memory atomically.

``tile.atomic_add<shape> %src[offs] -> %dst[offs] : S -> D`` adds every element of the
source region to the destination element at the same tile coordinates,
``dst[region] += src[region]``.  Each element's read-modify-write is one atomic
operation: atomic adds of the same element from different threads or blocks never
lose an update, in whatever order they run.  It is *not* atomic with respect to plain
reads and writes of the element: those race with it unless ordered (docs/sync.md).

This is how several blocks accumulate into one global tile (split-K GEMM, attention
backward's dQ) without a reduction kernel.  The destination follows tile.copy's
boundary rules for global regions (adds past the array's edge are dropped).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import Float16Type, Float32Type, IntegerType
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition
from xdsl.utils.exceptions import VerifyException

from tilepipe.dialects.memory_space import MemorySpace
from tilepipe.dialects.tile_base import ON_CHIP, TileOp
from tilepipe.dialects.tile_forms import SrcDstForm

OFF_CHIP = frozenset({MemorySpace.GLOBAL, MemorySpace.GM})


def is_atomic_add_element(element: Attribute) -> bool:
    """f32, f16 and i32: the element types every target adds atomically in one
    instruction with the interpreters' rounding (``red``/``atom.add`` on CUDA,
    ``SetAtomicAdd`` on Ascend)."""
    if isinstance(element, Float32Type | Float16Type):
        return True
    return isinstance(element, IntegerType) and element.width.data == 32


@irdl_op_definition
class AtomicAddOp(SrcDstForm, TileOp):
    """``dst[region] += src[region]``, each element's update atomic with respect to
    other atomic adds (not to plain accesses); src on chip, dst in global memory."""

    name = "tile.atomic_add"

    LEGAL_SPACES: ClassVar = {"src": ON_CHIP, "dst": OFF_CHIP}
    # The destination is read and written by one atomic update per element: two
    # such updates of one element never race (hazards, race detectors).
    ATOMIC_ROLES: ClassVar = frozenset({"dst"})

    def reads_and_writes(self, role: str) -> tuple[bool, bool]:
        return (True, role == "dst")

    def verify_tile_op(self) -> None:
        src, dst = self.element_type("src"), self.element_type("dst")
        if src != dst:
            raise VerifyException(
                f"source and destination element types differ ({src} vs {dst}); "
                "use tile.cast to convert"
            )
        if not is_atomic_add_element(dst):
            raise VerifyException(f"atomic add is defined for f32, f16 and i32, not {dst}")
