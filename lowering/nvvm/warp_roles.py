"""The roles of a warp-specialized kernel (``pipeline.warp_specialize``, sm_90a) at the
target level:

* the block grows by the producer warpgroups: threads ``[0, C)`` are the consumers,
  the kernel's own ``tile.threads`` for which every tile op is laid out, and
  ``[C, C + P)`` the producers;
* the op becomes ``scf.if tid >= C {producer} else {consumer}``, marked
  ``tilepipe.warp_roles = array<i64: C, P>`` (the interpreter runs the two branches
  as concurrent agents), each branch first setting its role's register budget with
  ``setmaxnreg`` (``nvvm.setmaxregister``);
* the producer's loop -- its waits, tensor copies and arrivals with the bytes
  expected -- runs in one thread, the lane ``elect.sync`` elects in the producers'
  first warp (thread 0 acts for the block outside the roles).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.builder import ImplicitBuilder
from xdsl.dialects import arith, gpu, scf
from xdsl.dialects.builtin import DenseArrayBase, UnitAttr, i64
from xdsl.ir import Block, Operation, Region
from xdsl.rewriter import InsertPoint, Rewriter

from tilepipe.core.diagnostics import op_error
from tilepipe.dialects import nvvm
from tilepipe.dialects.pipeline_ws import WarpSpecializeOp, warp_specialization_of
from tilepipe.lowering.nvvm import emit

WARP_ROLES_ATTR = "tilepipe.warp_roles"
WARP = 32


def producer_threads(kernel: Operation) -> int:
    """The threads a kernel's producer role adds to its block (0: no roles)."""
    ws = warp_specialization_of(kernel)
    return 0 if ws is None else ws.producer_thread_count


MAXNREG_ATTR = "nvvm.maxnreg"  # upstream carries it to PTX's .maxnreg
REGISTER_FILE = 65536


def entry_registers(kernel: Operation, consumers: int) -> int | None:
    """The per-thread registers a warp-specialized kernel starts with (``.maxnreg``):
    ptxas honours ``setmaxnreg`` only where it knows that count (else "setmaxnreg
    ignored; unable to determine register count at entry"), and the consumers'
    ``increase`` must not be below it.  The most the whole block can hold, a multiple
    of 8, at most the consumers' budget."""
    ws = warp_specialization_of(kernel)
    if ws is None:
        return None
    block = consumers + ws.producer_thread_count
    return min(REGISTER_FILE // block // 8 * 8, ws.registers[1])


def split_roles(ws: WarpSpecializeOp, consumers: int) -> scf.IfOp:
    """Replace ``ws`` by the role branch: ``tid >= consumers`` produces."""
    producer_registers, consumer_registers = ws.registers
    branches = []
    for region, action, registers in (
        (ws.producer, "decrease", producer_registers),
        (ws.consumer, "increase", consumer_registers),
    ):
        block = Block()
        block.add_op(_located(nvvm.SetMaxRegisterOp(action, registers), ws))
        body = block
        if region is ws.producer:
            # Only the elected leader runs the producer's loop (the other producer
            # threads have no work and leave): its waits, copies and arrivals need
            # no test of their own inside.
            election = [_located(o, ws) for o in _leader_election(consumers)]
            body = Block()
            block.add_ops([*election, _located(scf.IfOp(election[-1].results[0], [], Region(body)), ws)])
        for op in list(region.block.ops):
            op.detach()
            body.add_op(op)
        if body is not block:
            body.add_op(scf.YieldOp())
        block.add_op(scf.YieldOp())
        branches.append(Region(block))
    tid = _located(gpu.ThreadIdOp(gpu.DimensionAttr(gpu.DimensionEnum.X)), ws)
    bound = _located(arith.ConstantOp.from_int_and_width(consumers, tid.result.type), ws)
    is_producer = _located(arith.CmpiOp(tid.result, bound.result, "uge"), ws)
    branch = _located(scf.IfOp(is_producer.result, [], branches[0], branches[1]), ws)
    branch.attributes[WARP_ROLES_ATTR] = DenseArrayBase.from_list(
        i64, [consumers, ws.producer_thread_count]
    )
    Rewriter.insert_op([tid, bound, is_producer], InsertPoint.before(ws))
    Rewriter.replace_op(ws, branch, [])
    return branch


def role_of(op: Operation) -> tuple[str, int] | None:
    """(``producer`` or ``consumer``, the consumer thread count) for an op inside a
    role branch; None outside the roles."""
    branch = role_branch(op)
    if branch is None:
        return None
    consumers = branch.attributes[WARP_ROLES_ATTR].get_values()[0]  # type: ignore[attr-defined]
    return ("producer" if branch.true_region.is_ancestor(op) else "consumer"), consumers


LEADER_ATTR = "tilepipe.role_leader"


def _leader_election(consumers: int) -> list[Operation]:
    """At the top of the producer role, once (emitted where first needed, so that the
    rewrite walkers' dead-code elimination never sees it unused): is this thread the elected lane
    (``elect.sync``, every lane of every producer warp taking part) of the producers'
    first warp?  The lane stays the leader for the role's life (all its lanes stay
    active), so each copy issue and arrival inside the loop only tests the flag."""
    tid = gpu.ThreadIdOp(gpu.DimensionAttr(gpu.DimensionEnum.X))
    warp_size = arith.ConstantOp.from_int_and_width(WARP, tid.result.type)
    warp = arith.DivUIOp(tid.result, warp_size.result)
    first = arith.ConstantOp.from_int_and_width(consumers // WARP, tid.result.type)
    first_warp = arith.CmpiOp(warp.result, first.result, "eq")
    elected = nvvm.ElectSyncOp()
    leader = arith.AndIOp(first_warp.result, elected.res)
    leader.attributes[LEADER_ATTR] = UnitAttr()
    return [tid, warp_size, warp, first, first_warp, elected, leader]


def on_leader(thread: Callable[[], object], op: Operation, body: Callable[[], None]) -> None:
    """Run ``body`` (emitting at the current insertion point) in the one thread that
    acts for ``op``'s threads: the producers' elected leader inside the producer role,
    else thread 0.  ``thread()`` emits the thread id."""
    role = role_of(op)
    if role is not None and role[0] == "producer":
        branch = role_branch(op)
        assert branch is not None
        block = branch.true_region.block
        leader = next((o for o in block.ops if LEADER_ATTR in o.attributes), None)
        if leader is None:  # the first use elects it, right after the setmaxnreg
            consumers = role[1]
            scratch = Block()  # built apart from the op being lowered
            with ImplicitBuilder(scratch):
                election = _leader_election(consumers)
            for o in election:
                o.detach()
                _located(o, branch)
            assert block.first_op is not None
            Rewriter.insert_op(election, InsertPoint.after(block.first_op))
            leader = election[-1]
        emit.if_then(leader.results[0], body)
        return
    emit.if_then(arith.CmpiOp(thread(), emit.const(0), "eq").result, body)


def role_branch(op: Operation) -> scf.IfOp | None:
    """The role ``scf.if`` (``split_roles``) that holds ``op``, if any."""
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.IfOp) and WARP_ROLES_ATTR in parent.attributes:
            return parent
        parent = parent.parent_op()
    return None


def _located(new: Operation, old: Operation) -> Operation:
    new.location = old.location
    return new


CONSUMER_BARRIER_ID = 1  # bar.sync 0 stays the whole block's (the setup before the roles)


def consumer_barriers(kernel: Operation) -> None:
    """Inside the consumer role the block is the consumers: each ``bar.sync 0`` a tile
    op's lowering emitted there (staging, reductions, relayouts) becomes the named
    barrier ``bar.sync 1, C`` -- the producers never reach it, so barrier 0 would
    wait for them forever."""
    for op in list(kernel.walk()):
        if isinstance(op, nvvm.Barrier0Op) and (role := role_of(op)) is not None:
            if role[0] == "producer":
                raise op_error(op, "is a block-wide barrier in a warp-specialized producer")
            with_count = [
                arith.ConstantOp.from_int_and_width(CONSUMER_BARRIER_ID, 32),
                arith.ConstantOp.from_int_and_width(role[1], 32),
            ]
            barrier = nvvm.BarrierOp(with_count[0].result, with_count[1].result)
            barrier.attributes |= op.attributes
            Rewriter.insert_op(with_count, InsertPoint.before(op))
            Rewriter.replace_op(op, _located(barrier, op))
