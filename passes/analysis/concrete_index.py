"""Evaluating index expressions for concrete loop iterations.

Most hazard questions at the scheduled level are about loops with static bounds and
slots computed from the induction variable (``remsi``/``divsi``); enumerating the
iterations answers them exactly and much faster than a solver.  ``evaluate`` gives the
integer value of an ``index``/``i1`` SSA value once every enclosing loop's induction
variable has a value, or None when the value depends on something only known at run
time (a kernel argument, a block id, a loaded value) -- then the caller asks Z3.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.dialects import arith
from xdsl.ir import BlockArgument, Operation, SSAValue

from tilepipe.dialects.tile import constant_index

from tilepipe.passes.analysis.symbolic_index import LoopOp, enclosing_conditions, enclosing_loops

Env = dict[Operation, int]
MAX_INSTANCES = 4096  # iteration combinations enumerated before falling back to Z3


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _c_rem(a: int, b: int) -> int:
    return a - b * _c_div(a, b)


_BINARY = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.RemSIOp: lambda a, b: _c_rem(a, b) if b else None,
    arith.DivSIOp: lambda a, b: _c_div(a, b) if b else None,
    arith.RemUIOp: lambda a, b: a % b if b > 0 and a >= 0 else None,
    arith.DivUIOp: lambda a, b: a // b if b > 0 and a >= 0 else None,
    arith.FloorDivSIOp: lambda a, b: a // b if b else None,
    arith.CeilDivSIOp: lambda a, b: -((-a) // b) if b else None,
    arith.MinSIOp: min,
    arith.MaxSIOp: max,
}

_CMPI = {
    0: lambda a, b: a == b,
    1: lambda a, b: a != b,
    2: lambda a, b: a < b,
    3: lambda a, b: a <= b,
    4: lambda a, b: a > b,
    5: lambda a, b: a >= b,
    6: lambda a, b: 0 <= a < b,
    7: lambda a, b: 0 <= a <= b,
    8: lambda a, b: a > b >= 0,
    9: lambda a, b: a >= b >= 0,
}


def evaluate(value: SSAValue, env: Env) -> int | None:
    if isinstance(value, BlockArgument):
        owner = value.block.parent_op()
        if isinstance(owner, LoopOp) and value.index == 0:
            return env.get(owner)
        return None
    if (constant := constant_index(value)) is not None:
        return constant
    op = value.owner
    if type(op) in _BINARY:
        lhs, rhs = evaluate(op.lhs, env), evaluate(op.rhs, env)
        if lhs is None or rhs is None:
            return None
        result = _BINARY[type(op)](lhs, rhs)
        return None if result is None else int(result)
    if isinstance(op, arith.IndexCastOp):
        return evaluate(op.input, env)
    if isinstance(op, arith.CmpiOp):
        lhs, rhs = evaluate(op.lhs, env), evaluate(op.rhs, env)
        if lhs is None or rhs is None:
            return None
        return int(_CMPI[op.predicate.value.data](lhs, rhs))
    if isinstance(op, arith.SelectOp):
        cond = evaluate(op.cond, env)
        if cond is None:
            return None
        return evaluate(op.lhs if cond else op.rhs, env)
    if isinstance(op, arith.AndIOp | arith.OrIOp):
        lhs, rhs = evaluate(op.lhs, env), evaluate(op.rhs, env)
        if lhs is None or rhs is None:
            return None
        return int(bool(lhs and rhs) if isinstance(op, arith.AndIOp) else bool(lhs or rhs))
    return None


def loop_range(loop: Operation, env: Env) -> range | None:
    """The induction variable's values, when the bounds are known."""
    lb, ub, step = (evaluate(v, env) for v in loop.operands[:3])
    if lb is None or ub is None or step is None or step <= 0:
        return None
    return range(lb, ub, step)


def executes(op: Operation, env: Env) -> bool | None:
    """Whether every ``scf.if`` around ``op`` takes the branch holding it."""
    for cond, taken in enclosing_conditions(op):
        value = evaluate(cond, env)
        if value is None:
            return None
        if bool(value) != taken:
            return False
    return True


def instances(op: Operation, fixed: Env) -> Iterator[Env] | None:
    """Every iteration combination of the loops around ``op`` not fixed already
    (None when some bound is unknown or there are too many)."""
    loops = [loop for loop in enclosing_loops(op) if loop not in fixed]
    envs: list[Env] = [dict(fixed)]
    for loop in loops:
        grown: list[Env] = []
        for env in envs:
            values = loop_range(loop, env)
            if values is None:
                return None
            grown.extend({**env, loop: v} for v in values)
            if len(grown) > MAX_INSTANCES:
                return None
        envs = grown
    return iter(envs)

