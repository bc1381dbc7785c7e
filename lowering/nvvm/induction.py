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
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, i32
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tilepipe.dialects.llvm_upstream import LOOP_ANNOTATION
from tilepipe.dialects.tile import constant_index

I32_MIN, I32_MAX = -(2**31), 2**31 - 1


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
        if not isinstance(induction.type, IndexType) or LOOP_ANNOTATION in loop.attributes:
            return
        bounds = [constant_index(v) for v in (loop.lb, loop.ub, loop.step)]
        if None in bounds or not _fits_i32(*bounds):
            return
        constants = [arith.ConstantOp.from_int_and_width(b, i32) for b in bounds]
        rewriter.insert(constants, InsertPoint.before(loop))
        narrow = body.insert_arg(i32, 0)
        widened = arith.IndexCastOp(narrow, IndexType())
        rewriter.insert(widened, InsertPoint.at_start(body))
        induction.replace_all_uses_with(widened.result)
        body.erase_arg(induction)
        new_loop = scf.ForOp(
            *(c.result for c in constants),
            loop.iter_args,
            loop.detach_region(loop.body),
        )
        new_loop.location = loop.location
        rewriter.replace(loop, new_loop, new_loop.results)
