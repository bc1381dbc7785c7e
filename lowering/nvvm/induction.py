"""Loop induction variables in 32 bits: an ``scf.for`` over ``index`` whose constant
bounds fit in ``i32`` counts in ``i32``, its body using ``index_cast`` of it.

Upstream lowers ``index`` to ``i64``, so an ``index`` loop's increment and exit test
are 64-bit: in the SASS of the pipelined k-loop an add with carry and a compare pair
(``ISETP.NE.U32`` + ``ISETP.NE.AND.EX``) per iteration.  With an ``i32`` counter LLVM
still widens the induction variable where the addresses need it (indvars), but tests
the exit in 32 bits: one instruction fewer per iteration of every such loop.

Only loops whose bounds are constants with ``ub + step`` inside ``i32`` are narrowed:
``scf-to-cf`` computes ``iv + step`` before comparing it with ``ub``, so that sum must
not wrap.  A loop over a dynamic extent keeps its ``index`` counter (nothing bounds a
kernel argument to 32 bits).

In a loop that issues ``cp.async`` the body reads the counter through an opaque
32-bit move (``llvm.inline_asm "mov.b32"``, which ptxas deletes), so that LLVM's
loop strength reduction cannot see it.  The chunks' global addresses are
``view base (k) + thread offset + round offset`` (``TileOperand.region_view``);
strength-reduced, each operand became a 64-bit pointer recurrence (an add with carry
and, where ``LDGSTS`` reads it, a two-instruction copy by ptxas), and every copy round
beyond the first a 64-bit add, since ``LDGSTS`` folds only a signed 12-bit offset.  From
the hidden counter the base is one wide multiply-add (``IMAD.WIDE``) per operand and
iteration, and the one counter serves every operand and the exit test: the block_K
32 GEMM runs 112 instead of 117 SASS instructions per k-iteration at num_stages 1 and
3 fewer at 2-4 and in the example GEMM (``bench/bench_sass.py``).  A hidden counter
keeps LLVM from strength-reducing anything else in the loop too, so only loops that
issue ``cp.async`` hide theirs (there, every kernel of the bench gains).  Neither half
helps alone: views over a visible counter are strength-reduced as before (117), a
hidden counter without views recomputes ``(k * 32 + row) * stride`` per chunk (120).
Such a loop is marked not to be unrolled (``.pragma "nounroll"`` in the PTX): with a
plain 32-bit counter and constant bounds ptxas would unroll a short one completely
(the example GEMM at num_stages 1: all 16 k-iterations, 3384 instructions and 228
registers, against a loop of 216 per iteration and 214 registers).
"""

from __future__ import annotations

from xdsl.dialects import arith, llvm, scf
from xdsl.dialects.builtin import IndexType, i32
from xdsl.ir import Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tilepipe.dialects.llvm_upstream import FULL_UNROLL, LOOP_ANNOTATION, NO_UNROLL
from tilepipe.dialects.tile import constant_index

I32_MIN, I32_MAX = -(2**31), 2**31 - 1

OPAQUE_MOVE = ("mov.b32 $0, $1;", "=r,r")
"""A 32-bit register move as inline PTX: the value unchanged, its origin hidden from
LLVM (a call it cannot look into), and deleted by ptxas."""


def _fits_i32(lower: int, upper: int, step: int) -> bool:
    """Every bound, and the last ``iv + step`` the exit test computes, is an i32."""
    return step > 0 and all(I32_MIN <= v <= I32_MAX for v in (lower, upper, upper + step))


class NarrowInductionVariable(RewritePattern):
    """Count a constant-bounded ``index`` loop in ``i32``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, loop: scf.ForOp, rewriter: PatternRewriter) -> None:
        body = loop.body.block
        induction = body.args[0]
        # A loop LLVM unrolls fully leaves no counter behind: its induction variable
        # becomes constants, which a cast would only hide from the address folding.
        if (
            not isinstance(induction.type, IndexType)
            or loop.attributes.get(LOOP_ANNOTATION) == FULL_UNROLL
        ):
            return
        bounds = [constant_index(v) for v in (loop.lb, loop.ub, loop.step)]
        if None in bounds or not _fits_i32(*bounds):
            return
        constants = [arith.ConstantOp.from_int_and_width(b, i32) for b in bounds]
        rewriter.insert(constants, InsertPoint.before(loop))
        narrow = body.insert_arg(i32, 0)
        # The body of a loop issuing cp.async reads the counter through the opaque move.
        hide = _issues_async_copies(body)
        prelude: list[Operation] = []
        read: SSAValue = narrow
        if hide:
            prelude.append(llvm.InlineAsmOp(*OPAQUE_MOVE, [narrow], [i32]))
            read = prelude[-1].results[0]
        widened = arith.IndexCastOp(read, IndexType())
        rewriter.insert([*prelude, widened], InsertPoint.at_start(body))
        induction.replace_all_uses_with(widened.result)
        body.erase_arg(induction)
        new_loop = scf.ForOp(
            *(c.result for c in constants),
            loop.iter_args,
            loop.detach_region(loop.body),
        )
        new_loop.location = loop.location
        if hide:
            new_loop.attributes[LOOP_ANNOTATION] = NO_UNROLL
        rewriter.replace(loop, new_loop, new_loop.results)


def _issues_async_copies(body: Block) -> bool:
    """Does this loop's own body (the rounds LLVM unrolls included, loops of their own
    not) issue ``cp.async``?"""
    for op in body.ops:
        if op.name == "nvgpu.device_async_copy":
            return True
        if isinstance(op, scf.ForOp) and op.attributes.get(LOOP_ANNOTATION) != FULL_UNROLL:
            continue
        if any(_issues_async_copies(block) for region in op.regions for block in region.blocks):
            return True
    return False
