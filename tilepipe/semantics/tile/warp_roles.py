"""Tile-level execution of ``pipeline.warp_specialize`` (sm_90a).

At the tile level every op is the whole block's, and a copy is issued by the block's
thread 0 (``sync_ops``); the producer role is modelled so too.  The two roles run
interleaved the way the hardware lets the producer run furthest ahead: the
consumers' statements before their loop, then the producer's first S iterations (S:
the ring's depth, the slots of the mbarrier array its wait uses), then, per
iteration k, the consumers' iteration k and the producer's k + S (k + S - 1 when
the consumers release each slot one iteration late), then the
consumers' statements after their loop.  Every mbarrier wait is checked as at any
other point -- a phase that cannot complete is a deadlock -- and the race tracker
orders accesses through the ring's arrivals and waits exactly as it does for any
mbarrier.  So a ring that is too shallow, a missing release or a missing wait is a
deadlock, a race or a wrong result here; the per-thread NVVM interpreter runs the
real roles concurrently (docs/semantics.md, "Warp roles").

A warp-specialized op of another shape than ``warp-specialize`` writes (one loop in
each role, of the same bounds) runs its producer, then its consumers.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.interpreter import Interpreter, impl, register_impls
from xdsl.ir import Operation

from tilepipe.dialects.pipeline_sync import MBarrierWaitParityOp
from tilepipe.dialects.pipeline_ws import WGMMA_IN_FLIGHT_ATTR, WarpSpecializeOp
from tilepipe.semantics.errors import KernelError
from tilepipe.semantics.tile.interpreter_base import RuntimeFunctions


def _loop_of(ops: list[Operation]) -> scf.ForOp | None:
    loops = [op for op in ops if isinstance(op, scf.ForOp)]
    return loops[0] if len(loops) == 1 else None


@register_impls
class WarpRoleFunctions(RuntimeFunctions):
    @impl(WarpSpecializeOp)
    def run_warp_specialize(self, interpreter: Interpreter, op: WarpSpecializeOp, args):
        producer = list(op.producer.block.ops)
        consumer = list(op.consumer.block.ops)
        p_loop, c_loop = _loop_of(producer), _loop_of(consumer)
        if p_loop is None or c_loop is None or len(producer) != 1:
            self._run_ops(interpreter, producer)
            self._run_ops(interpreter, consumer)
            return ()
        bounds = [tuple(interpreter.get_values(loop.operands[:3])) for loop in (p_loop, c_loop)]
        if bounds[0] != bounds[1]:
            raise KernelError(op, "has producer and consumer loops of different bounds")
        lb, ub, step = bounds[0]
        if step <= 0:
            raise KernelError(c_loop, f"has a non-positive step {step}")
        iterations = list(range(lb, ub, step))
        if (problem := self.runtime.work.charge(2 * len(iterations))) is not None:
            raise KernelError(op, problem)
        depth = _ring_depth(p_loop, len(iterations))
        before = consumer[: consumer.index(c_loop)]
        after = consumer[consumer.index(c_loop) + 1 :]
        self._run_ops(interpreter, before)
        for k in iterations[:depth]:
            self._iteration(interpreter, p_loop, k)
        # The producer's iteration k + S reuses the slot of the consumers' iteration k,
        # free once they release it: in that iteration, or the next one where the
        # loop's gemm stays in flight (WGMMA_IN_FLIGHT_ATTR).
        lag = 1 if WGMMA_IN_FLIGHT_ATTR in c_loop.attributes else 0
        for index, k in enumerate(iterations):
            self._iteration(interpreter, c_loop, k)
            ahead = index + depth - lag
            if depth <= ahead < len(iterations):
                self._iteration(interpreter, p_loop, iterations[ahead])
        self._run_ops(interpreter, after)
        return ()

    def _iteration(self, interpreter: Interpreter, loop: scf.ForOp, value: int) -> None:
        induction_var = loop.body.block.args[0]
        name = induction_var.name_hint or "iv"
        self.machine.iteration.append((name, value))
        try:
            interpreter.run_ssacfg_region(loop.body, (value,), name)
        finally:
            self.machine.iteration.pop()

    def _run_ops(self, interpreter: Interpreter, ops: list[Operation]) -> None:
        for inner in ops:
            results = interpreter.run_op(inner, interpreter.get_values(inner.operands))
            interpreter.set_values(zip(inner.results, results))


def _ring_depth(producer_loop: scf.ForOp, trips: int) -> int:
    """How far the producer may run ahead: the slots of the mbarrier array it waits on
    for a free slot (every trip, without one)."""
    for op in producer_loop.body.walk():
        if isinstance(op, MBarrierWaitParityOp):
            return max(1, op.barriers.type.get_shape()[0])  # type: ignore[attr-defined]
    return trips
