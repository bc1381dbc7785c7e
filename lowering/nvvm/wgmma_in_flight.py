"""A wgmma gemm left in flight across the iterations of a ring consumer loop
(sm_90a; Triton's and CUTLASS's asynchronous mainloop).

``warp-specialize`` marks a consumer loop ``pipeline.wgmma_in_flight`` when its one
gemm's accumulator feeds nothing in the loop but the next iteration's gemm, and it
releases each ring slot one iteration late, after the next gemm is issued.  A gemm
then need not wait for its own wgmmas: it ends with ``wgmma.wait_group 1``, which
retires the previous iteration's group -- whose slot the release right after it
hands back -- and leaves its own running while the loop goes on to wait for the
next slot's copies.

PTX forbids touching a wgmma's accumulator registers before the ``wait_group`` that
retires it, so the accumulators cannot go back to the fragment's registers after
each gemm as they do elsewhere (``wgmma.py``).  They are carried through the loop
instead: loaded into wgmma's register structs before it, passed from one
iteration's wgmma chain to the next as ``scf.for`` iteration arguments, and stored
back after a ``wait_group 0`` that follows the loop.

The gemm's lowering (``lower_on_wgmma``) emits its in-loop part against stand-ins
for the carried structs; :func:`carry_in_flight_accumulators` builds the loop that
carries them once every tile op of the kernel is lowered.  A gemm that cannot stay
in flight (operands staged, K partly on another path, idle warps, the fragment
touched elsewhere in the loop) is lowered as anywhere else: the loop's late release
is then merely conservative.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from xdsl.builder import Builder, ImplicitBuilder
from xdsl.dialects import scf
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tilepipe.dialects.llvm_upstream import PoisonOp
from tilepipe.dialects.nvvm import WgmmaWaitGroupSyncOp
from tilepipe.dialects.nvvm_wgmma import accumulator_struct
from tilepipe.dialects.pipeline_ws import WGMMA_IN_FLIGHT_ATTR
from tilepipe.dialects.tile import GemmOp
from tilepipe.lowering.nvvm.access import TileOperand
from tilepipe.lowering.nvvm.kernel import KernelContext
from tilepipe.lowering.nvvm.wgmma_accumulators import load_struct, store_struct

# wgmma_group N: how many of the newest groups a gemm in flight leaves running.
GROUPS_IN_FLIGHT = 1


@dataclass
class InFlightGemm:
    """The in-loop part of a gemm in flight, waiting for its loop to carry it."""

    c: TileOperand
    registers: list[list[int]]  # per accumulator struct, the fragment registers
    stand_ins: list[SSAValue]  # what the body's first wgmmas read, per struct
    results: list[SSAValue] | None = None  # what the body's last wgmmas return


_PENDING: weakref.WeakKeyDictionary[Operation, InFlightGemm] = weakref.WeakKeyDictionary()


def in_flight_loop(
    op: GemmOp, c: TileOperand, context: KernelContext, has_idle_warps: bool, whole_k: bool
) -> scf.ForOp | None:
    """The marked loop ``op`` may stay in flight in, or None."""
    loop = op.parent_op()
    if not isinstance(loop, scf.ForOp) or WGMMA_IN_FLIGHT_ATTR not in loop.attributes:
        return None
    if has_idle_warps or not whole_k or loop.iter_args or loop in _PENDING:
        return None
    fragment = op.c
    if c.buffer is not fragment or fragment in context.slotted:
        return None
    if isinstance(fragment.owner, Operation) and loop.is_ancestor(fragment.owner):
        return None  # the carried structs are loaded before the loop
    if any(u.operation is not op and loop.is_ancestor(u.operation) for u in fragment.uses):
        return None
    return loop


def enter(loop: scf.ForOp, c: TileOperand, registers: list[list[int]]) -> list[SSAValue]:
    """Stand-ins for the accumulator structs the loop will carry, at the gemm."""
    stand_ins = [
        PoisonOp.build(result_types=[accumulator_struct(2 * len(regs))]).res for regs in registers
    ]
    _PENDING[loop] = InFlightGemm(c, registers, stand_ins)
    return stand_ins


def leave(loop: scf.ForOp, results: list[SSAValue]) -> None:
    """The structs the gemm's wgmmas return: ``GROUPS_IN_FLIGHT`` groups left running."""
    WgmmaWaitGroupSyncOp(GROUPS_IN_FLIGHT)
    _PENDING[loop].results = results


def carry_in_flight_accumulators(kernel: Operation) -> None:
    """Give each marked loop whose gemm stayed in flight its carried accumulators:
    loaded before the loop, passed through it, retired and stored back after it."""
    for loop in [o for o in kernel.walk() if isinstance(o, scf.ForOp)]:
        if loop.attributes.pop(WGMMA_IN_FLIGHT_ATTR, None) is None:
            continue
        gemm = _PENDING.pop(loop, None)
        if gemm is None:  # its gemm retired its wgmmas (lower_on_wgmma's other path)
            continue
        assert gemm.results is not None
        with ImplicitBuilder(Builder(InsertPoint.before(loop))):
            initial = [load_struct(gemm.c, regs) for regs in gemm.registers]
        body = loop.body.block
        for stand_in in gemm.stand_ins:
            argument = body.insert_arg(stand_in.type, len(body.args))
            stand_in.replace_all_uses_with(argument)
            Rewriter.erase_op(stand_in.owner)
        terminator = body.last_op
        assert isinstance(terminator, scf.YieldOp)
        Rewriter.replace_op(terminator, scf.YieldOp(*terminator.operands, *gemm.results))
        carried = scf.ForOp(
            loop.lb, loop.ub, loop.step, [*loop.iter_args, *initial], loop.detach_region(loop.body)
        )
        carried.location = loop.location
        carried.attributes.update(loop.attributes)
        kept = len(loop.results)
        Rewriter.replace_op(loop, carried, carried.results[:kept])
        with ImplicitBuilder(Builder(InsertPoint.after(carried))):
            WgmmaWaitGroupSyncOp(0)
            for result, regs in zip(carried.results[kept:], gemm.registers):
                store_struct(result, gemm.c, regs)
