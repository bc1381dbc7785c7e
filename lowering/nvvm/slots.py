"""Version slots as rotating counters: ``(k + c) rem n`` in a loop over ``k`` becomes a
loop-carried value that steps by ``step mod n`` and wraps, instead of a remainder
computed every iteration.

The multi-buffered loops that ``inject-software-pipeline`` leaves index each versioned
buffer by ``((k - lb) / step) mod versions``; with ``step = 1`` that is
``arith.remsi (k + c), n``.  For ``n`` = 3 (num_stages 3) LLVM computes it in 64 bits
with a multiply-high by the magic reciprocal and then multiplies the slot by the
version's size in bytes: a dozen integer instructions per iteration, two of them 64-bit
multiplies.  A 32-bit counter costs an add, a compare and a select, and the size
multiply of a value below ``n`` becomes a 32-bit shift or multiply.  Remainders by a
power of two are rotated too: LLVM cannot tell that ``k - c`` is non-negative, so
``remsi`` by 4 costs a sign fix-up (about ten instructions at num_stages 4).

Only remainders whose dividend provably stays non-negative are rotated (constant lower
bound, ``lb + c >= 0``, positive constant step: the dividend only grows), so that
``remsi`` and ``remui`` agree with the counter on every iteration.

The parity of a ring's lap, ``((k + c) div n) rem 2`` -- the phase a warp-specialized
ring's mbarrier waits expect -- is carried the same way in the roles' loops: a bit that
flips when the counter of ``(k + c) rem n`` wraps (a division by 3 and its fix-ups per
iteration otherwise; by a power of two it stays a shift and a mask).
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, i32
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tilepipe.dialects.tile import constant_index
from tilepipe.lowering.nvvm.warp_roles import role_branch

COUNTER = i32
"""A counter stays below its divisor (a number of buffer versions): 32 bits, so that
its update is three 32-bit instructions rather than 64-bit pairs."""


def _offset_from(value: SSAValue, induction: SSAValue) -> int | None:
    """``c`` when ``value`` is ``induction + c`` (``addi``/``subi`` by a constant, or
    the induction variable itself), else None."""
    if value == induction:
        return 0
    owner = value.owner
    if isinstance(owner, arith.AddiOp):
        for var, const in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
            if var == induction and (c := constant_index(const)) is not None:
                return c
    if isinstance(owner, arith.SubiOp) and owner.lhs == induction:
        if (c := constant_index(owner.rhs)) is not None:
            return -c
    return None


def _slot_key(dividend: SSAValue, divisor: SSAValue, induction: SSAValue, lower: int) -> tuple[int, int] | None:
    """``(c, n)`` when ``dividend`` is ``induction + c`` staying non-negative from
    ``lower`` on and ``divisor`` a positive constant ``n``."""
    n = constant_index(divisor)
    c = _offset_from(dividend, induction)
    if n is None or n <= 0 or c is None or lower + c < 0:
        return None
    return c, n


def _rotatable(op: Operation, induction: SSAValue, lower: int) -> tuple[int, int] | None:
    """``(c, n)`` when ``op`` is ``(induction + c) rem n`` with a dividend that stays
    non-negative from ``lower`` on."""
    if not isinstance(op, arith.RemSIOp | arith.RemUIOp):
        return None
    return _slot_key(op.lhs, op.rhs, induction, lower)


def _lap_parity(op: Operation, induction: SSAValue, lower: int) -> tuple[int, int] | None:
    """``(c, n)`` when ``op`` is ``((induction + c) div n) rem 2``: the parity of the
    lap of a ring of ``n`` slots, the phase an mbarrier wait of a warp-specialized
    ring expects (``warp_specialize._lap``).  Not for a power of two ``n``: a shift
    and a mask are cheaper than carrying a bit."""
    if not isinstance(op, arith.RemSIOp | arith.RemUIOp) or constant_index(op.rhs) != 2:
        return None
    lap = op.lhs.owner
    if not isinstance(lap, arith.DivSIOp | arith.DivUIOp):
        return None
    key = _slot_key(lap.lhs, lap.rhs, induction, lower)
    if key is None or key[1] & (key[1] - 1) == 0:
        return None
    return key


def _in_warp_role(loop: Operation) -> bool:
    """Is ``loop`` a warp-specialized role's (``warp_roles.split_roles``)?  There the
    carried phase bit pays; in a one-loop pipeline ptxas already folds the unrolled
    lap divisions (sm_90's bulk-copy loops: 0.7-1.3 instructions more with the bit)."""
    return role_branch(loop) is not None


class RotateSlotCounters(RewritePattern):
    """Carry each ``(k + c) rem n`` of a loop's body as a rotating counter, and each
    ``((k + c) div n) rem 2`` as a bit that flips when that counter wraps."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, loop: scf.ForOp, rewriter: PatternRewriter) -> None:
        lower, step = constant_index(loop.lb), constant_index(loop.step)
        if lower is None or step is None or step <= 0:
            return
        body = loop.body.block
        induction = body.args[0]
        remainders = [
            (op, key)
            for op in body.ops
            if (key := _rotatable(op, induction, lower)) is not None
        ]
        parities = [
            (op, key)
            for op in body.ops
            if (key := _lap_parity(op, induction, lower)) is not None
        ] if _in_warp_role(loop) else []
        if not remainders and not parities:
            return
        counters: dict[tuple[int, int], int] = {}  # (c, n) -> its iter_arg position
        for _, key in remainders + parities:
            counters.setdefault(key, len(counters))
        phases = list(dict.fromkeys(key for _, key in parities))
        first_new = len(loop.iter_args)

        def constant(value: int) -> SSAValue:
            op = arith.ConstantOp.from_int_and_width(value, COUNTER)
            rewriter.insert(op, InsertPoint.before(loop))
            return op.result

        initial = [constant((lower + c) % n) for c, n in counters]
        initial += [constant((lower + c) // n % 2) for c, n in phases]
        # Appended after the loop's own arguments, in order of first appearance: the
        # counters, then the phase bits.
        new_args = [body.insert_arg(COUNTER, len(body.args)) for _ in counters]
        phase_args = [body.insert_arg(COUNTER, len(body.args)) for _ in phases]
        casts = []
        for current in new_args + phase_args:
            cast = arith.IndexCastOp(current, IndexType())
            rewriter.insert(cast, InsertPoint.at_start(body))
            casts.append(cast.result)
        slots, phase_values = casts[: len(new_args)], casts[len(new_args) :]
        for op, key in remainders:
            rewriter.replace(op, [], [slots[counters[key]]])
        for op, key in parities:
            rewriter.replace(op, [], [phase_values[phases.index(key)]])

        yield_op = body.last_op
        assert isinstance(yield_op, scf.YieldOp)
        advanced = []
        wrapped: dict[tuple[int, int], SSAValue] = {}
        for key, current in zip(counters, new_args):
            # r + s wraps to r + s - n = r - (n - s) once r >= n - s (s = step mod n).
            n = key[1]
            stride = step % n
            ops = [
                forward_by := arith.ConstantOp.from_int_and_width(stride, COUNTER),
                back_by := arith.ConstantOp.from_int_and_width(n - stride, COUNTER),
                wraps := arith.CmpiOp(current, back_by, "uge"),
                forward := arith.AddiOp(current, forward_by),
                back := arith.SubiOp(current, back_by),
                select := arith.SelectOp(wraps, back, forward),
            ]
            rewriter.insert(ops, InsertPoint.before(yield_op))
            advanced.append(select.result)
            wrapped[key] = wraps.result
        for key, current in zip(phases, phase_args):
            # The lap grows by step div n, and by one more when the counter wraps
            # (never, when n divides the step: then r + s - n < r never holds).
            n = key[1]
            flips = (step // n) % 2
            phase_ops: list[Operation] = []
            toggle: SSAValue | None = None
            if step % n:
                phase_ops.append(bit := arith.ExtUIOp(wrapped[key], COUNTER))
                toggle = bit.result
                if flips:
                    phase_ops.append(one := arith.ConstantOp.from_int_and_width(1, COUNTER))
                    phase_ops.append(flipped := arith.XOrIOp(toggle, one))
                    toggle = flipped.result
            elif flips:
                phase_ops.append(one := arith.ConstantOp.from_int_and_width(1, COUNTER))
                toggle = one.result
            if toggle is None:
                advanced.append(current)
                continue
            phase_ops.append(next_phase := arith.XOrIOp(current, toggle))
            rewriter.insert(phase_ops, InsertPoint.before(yield_op))
            advanced.append(next_phase.result)
        rewriter.replace(yield_op, scf.YieldOp(*yield_op.operands, *advanced))

        new_loop = scf.ForOp(
            loop.lb,
            loop.ub,
            loop.step,
            [*loop.iter_args, *initial],
            loop.detach_region(loop.body),
        )
        new_loop.location = loop.location
        rewriter.replace(loop, new_loop, new_loop.results[:first_new])
