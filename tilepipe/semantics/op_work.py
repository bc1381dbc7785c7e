"""The work of one tile op, which the cycle models divide by a target's rate.

Both cycle models -- the schedule simulator's (CUDA, :mod:`tilepipe.schedule_sim`) and
the pipe simulator's (Ascend) -- charge a tile op ``fixed + work / rate`` cycles
(:class:`tilepipe.core.targets.Latency`).  The work is the op's FLOPs for a matmul
(``2 * M * N * K``: a multiply and an add per term), and otherwise the bytes of its
tile: the tile's elements times the widest element among its operands (a copy moves
them, a vector op streams them through its unit).  So a tile half the size costs half
the variable part, and the ranking of tile shapes follows the bytes they move.
"""

from __future__ import annotations

import math

from xdsl.ir import Operation

from tilepipe.dialects.tile_base import TileOp, element_bytes
from tilepipe.dialects.tile_forms import MatmulForm


def op_work(op: Operation) -> int:
    """FLOPs of a matmul, bytes of any other tile op, 0 for other ops."""
    if not isinstance(op, TileOp):
        return 0
    if isinstance(op, MatmulForm):
        m, n, k = op.mnk
        return 2 * m * n * k
    widest = max(
        (element_bytes(buffer.type.element_type) for _, buffer, _ in op.tile_regions()
         if hasattr(buffer.type, "element_type")),
        default=1,
    )
    return math.prod(op.tile_shape) * widest
