"""Register-fragment operands of ``tile.gemm`` (``P`` of flash attention's ``P V``),
through shared memory.

A gemm reads every element of A and B, but a thread holds only its own elements of
a register fragment.  So ``lower-to-nvvm`` gives each fragment operand of a gemm a
shared tile of the operand's shape (``staging_tiles.add_staging_buffers``, allocated at the
kernel's entry before the shared layout is made, so that it is counted like any
shared buffer), and the gemm, lowered, first has every thread store its elements
there under the fragment's layout, then reads the tile like a shared operand (on
tensor cores where ldmatrix can read it, as any other).

Two barriers order the staging tile, each only where it is needed:

* after the stores, before the reads: other threads' elements are read
  (always needed);
* before the stores, when the gemm runs again (an enclosing loop) and no block-wide
  barrier of the loop body on every path separates its reads from the next
  iteration's stores (the write-after-read on the tile).
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.ir import Block, Operation

from tilepipe.core.diagnostics import op_error
from tilepipe.dialects import nvvm
from tilepipe.dialects.tile import GemmOp
from tilepipe.lowering.nvvm import emit
from tilepipe.lowering.nvvm.access import TileOperand
from tilepipe.lowering.nvvm.kernel import KernelContext

def stage_register_operands(
    op: GemmOp, context: KernelContext, operands: list[TileOperand]
) -> list[TileOperand]:
    """``operands`` with each register fragment replaced by its staging tile, the
    stores and barriers emitted (at the emitter's insertion point).  A fragment with
    no staging tile (an A wgmma reads from registers) stays as it is."""
    tiles = context.gemm_staging.get(op, {})
    fragments = [operand for operand in operands if operand.is_fragment and operand.role in tiles]
    if not fragments:
        return operands
    if _runs_again_without_barrier(op, context):
        nvvm.Barrier0Op()
    staged = {}
    for operand in fragments:
        staged[operand.role] = _stage(op, context, operand)
    nvvm.Barrier0Op()
    return [staged.get(operand.role, operand) for operand in operands]


def _stage(op: GemmOp, context: KernelContext, operand: TileOperand) -> TileOperand:
    from tilepipe.lowering.nvvm import access  # not at import: see above

    layout = operand.layout
    assert layout is not None
    shape = op.operand_tile_shape(operand.role)
    if tuple(layout.shape) != tuple(shape):
        raise op_error(
            op,
            f"a register fragment gemm operand must be exactly the {'x'.join(map(str, shape))} "
            f"tile, got {getattr(op, operand.role).type}",
        )
    view = context.shared_view(*context.gemm_staging[op][operand.role])

    def store(register, coords) -> None:
        emit.store(emit.load(operand.buffer, [register]), view, coords)

    layout.for_each(context.ids, store)
    return access.TileOperand(operand.role, view, (), tuple(shape), None)


def _runs_again_without_barrier(op: Operation, context: KernelContext) -> bool:
    """Is ``op`` in a loop whose body, on some path from ``op`` around to ``op``,
    holds no block-wide barrier?  (A barrier counts when it is an op of the loop
    body's block itself, which every iteration executes.)"""
    inner: Operation = op
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.ForOp | scf.WhileOp):
            block = inner.parent_block()
            assert isinstance(block, Block)
            return not any(
                _is_barrier(other, context) for other in block.ops if other is not inner
            )
        inner, parent = parent, parent.parent_op()
    return False


def _is_barrier(op: Operation, context: KernelContext) -> bool:
    """A block-wide barrier, or a gemm that stages an operand and so will hold one
    (lowered later in the walk)."""
    if isinstance(op, nvvm.Barrier0Op | nvvm.BarrierOp):
        return True
    return isinstance(op, GemmOp) and any(
        getattr(op, role) in context.fragments and role in context.gemm_staging.get(op, {})
        for role in ("a", "b")
    )
