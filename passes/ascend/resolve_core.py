"""``ascend-resolve-core``: the core and the pipe of every tile op of an Ascend kernel.

The memories an op touches decide where it runs (the hardware model of docs/ascend.md):

* ``tile.copy`` GM -> UB/L1 on MTE2, UB -> GM on MTE3, L1 -> L0A/L0B on MTE1,
  L0C -> GM/L1 on the fixpipe (so does a ``tile.cast`` out of L0C, which converts on
  the way), UB -> UB on V;
* ``tile.gemm`` (A in L0A, B in L0B, C in L0C) on the cube unit M;
* elementwise ops, fills and reductions on UB on the vector unit V; a fill of L0C is
  the cube's "initialize C" (folded into ``mmad`` by ``lower-to-ascend``), so M.

MTE2 belongs to the core whose memory it fills: cube (AIC) for L1, vector (AIV) for
UB.  The results are recorded as discardable attributes ``ascend.pipe`` and
``ascend.core`` that ``ascend-insert-sync`` reads; an op no pipe can execute is an
error.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from tilepipe.core.diagnostics import op_error
from tilepipe.dialects.ascend_pipes import COPY_PIPES, Core, Pipe, PipeAttr, ascend_space, core_of
from tilepipe.dialects.ascend_sync import CORE_ATTR
from tilepipe.dialects.memory_space import MemorySpace
from tilepipe.dialects.tile_atomic import AtomicAddOp
from tilepipe.dialects.tile import CastOp, CopyOp, FillOp, GemmOp, TileOp
from tilepipe.core.targets import AscendTarget, UnknownTarget, target_of

PIPE_ATTR = "ascend.pipe"

_GEMM_SPACES = (MemorySpace.L0A, MemorySpace.L0B, MemorySpace.L0C)


def is_ascend_kernel(func: FuncOp) -> bool:
    try:
        return isinstance(target_of(func), AscendTarget)
    except UnknownTarget:
        return False


def tile_op_pipe(op: TileOp) -> Pipe:
    """The pipe that executes ``op``; raises a located error when none can."""
    spaces = [ascend_space(access.buffer.type) for access in op.buffer_accesses()]
    if isinstance(op, CopyOp) or (isinstance(op, CastOp) and spaces[0] == MemorySpace.L0C):
        # A cast out of L0C is the fixpipe's converting move.
        pipe = COPY_PIPES.get((spaces[0], spaces[1]))
        if pipe is None:
            raise op_error(
                op, f"no Ascend pipe moves {spaces[0].value} -> {spaces[1].value}"
            )
        return pipe
    if isinstance(op, GemmOp):
        if tuple(spaces) != _GEMM_SPACES:
            raise op_error(
                op, "the cube needs A in l0a, B in l0b and C in l0c, got "
                + ", ".join(s.value for s in spaces)
            )
        return Pipe.M
    if isinstance(op, FillOp) and spaces == [MemorySpace.L0C]:
        return Pipe.M
    if all(space == MemorySpace.UB for space in spaces):
        return Pipe.V
    raise op_error(
        op, "the vector unit computes on ub only, got " + ", ".join(s.value for s in spaces)
    )


def op_pipe(op: Operation) -> Pipe | None:
    """The pipe ``ascend-resolve-core`` recorded on ``op`` (None: not a tile op)."""
    attr = op.attributes.get(PIPE_ATTR)
    return attr.data if isinstance(attr, PipeAttr) else None


def op_core(op: Operation) -> Core | None:
    attr = op.attributes.get(CORE_ATTR)
    return Core(attr.data) if isinstance(attr, StringAttr) else None


@dataclass(frozen=True)
class AscendResolveCore(ModulePass):
    """Assign every tile op of an Ascend kernel its core (cube/vector) and pipe."""

    name = "ascend-resolve-core"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in op.walk():
            if isinstance(func, FuncOp) and is_ascend_kernel(func):
                for tile_op in func.walk():
                    if isinstance(tile_op, AtomicAddOp):
                        # AscendC's SetAtomicAdd + DataCopy UB -> GM on MTE3, once the
                        # ascend dialect, the printer and the pipe simulator model it.
                        raise op_error(
                            tile_op, f"is not supported on {target_of(func).name} yet"
                        )
                    if isinstance(tile_op, TileOp):
                        pipe = tile_op_pipe(tile_op)
                        spaces = frozenset(
                            ascend_space(a.buffer.type) for a in tile_op.buffer_accesses()
                        )
                        tile_op.attributes[PIPE_ATTR] = PipeAttr(pipe)
                        tile_op.attributes[CORE_ATTR] = StringAttr(core_of(pipe, spaces).value)
