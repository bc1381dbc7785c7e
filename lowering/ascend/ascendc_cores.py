"""Which ops of a mixed cube + vector kernel each core executes.

On the 910B the cube unit (AIC) and the vector units (AIV) are separate cores that
run the same kernel entry point; AscendC splits the body with ``if ASCEND_IS_AIC``
and ``if ASCEND_IS_AIV``.  Each section holds the ops of its core -- data movement,
compute and sync ops, on-chip buffers of its memories -- together with the control
flow around them and the scalar code they use, which both cores compute on their own
scalar units.
"""

from __future__ import annotations

from xdsl.dialects import memref
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation

from tilepipe.core.diagnostics import op_error
from tilepipe.dialects import ascend
from tilepipe.dialects.ascend_pipes import CUBE_SPACES, Core, ascend_space
from tilepipe.dialects.ascend_sync import IdOperandOp, PipeBarrierOp, sync_op_core


def tile_op_cores(kernel: FuncOp) -> set[Core]:
    """The cores the kernel's data and compute ops run on."""
    return {op.core for op in kernel.walk() if isinstance(op, ascend.AscendTileOp)}


def core_of_op(op: Operation) -> Core | None:
    """The core an op belongs to, or None for scalar code and control flow."""
    if isinstance(op, ascend.AscendTileOp):
        return op.core
    if isinstance(op, memref.AllocOp):
        return Core.CUBE if ascend_space(op.memref.type) in CUBE_SPACES else Core.VECTOR
    if isinstance(op, IdOperandOp | PipeBarrierOp):
        core = sync_op_core(op)
        if core is None:
            raise op_error(
                op, "runs on a pipe of both cores in a mixed kernel; name its core with "
                "ascend.core"
            )
        return core
    return None


def core_section(kernel: FuncOp, core: Core) -> set[Operation]:
    """The ops the ``core`` section executes: the core's own ops, the loops and
    branches enclosing them, and (transitively) the scalar ops defining their
    operands.  A scalar cell (``memref.alloca``) brings all its stores along."""
    selected: set[Operation] = set()
    work = [op for op in kernel.walk() if core_of_op(op) == core]
    while work:
        op = work.pop()
        if op in selected or op is kernel:
            continue
        selected.add(op)
        work.extend(v.owner for v in op.operands if isinstance(v.owner, Operation))
        if (parent := op.parent_op()) is not None:
            work.append(parent)
        if isinstance(op, memref.AllocaOp):
            work.extend(use.operation for use in op.memref.uses)
    return selected
