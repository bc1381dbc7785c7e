"""Index expressions of the scheduled level as Z3 terms.

Sync insertion asks questions such as "can the slot that ``tile.copy`` writes in
iteration k be the slot that ``tile.gemm`` reads in iteration k + 2?", where slots are
``arith.remsi``/``divsi`` of the induction variable and bounds may be dynamic.  This
module encodes ``index`` SSA values as Z3 integer terms:

* a loop's induction variable is one Z3 variable per *instance* (an instance names one
  execution of each enclosing loop), constrained by the loop's bounds and step;
* values computed from other values are encoded recursively (``arith`` integer ops,
  with C semantics for ``remsi``/``divsi``), so a value defined inside a loop follows
  the instance's induction variable;
* anything else (function arguments, block ids, loaded values) is an opaque symbol,
  one per instance when it is defined inside a loop;
* ``arith.cmpi`` conditions of enclosing ``scf.if`` ops become constraints.

Queries are cached by the caller; the encoding itself is pure.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

import z3
from xdsl.dialects import arith, scf
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from tilepipe.dialects.pipeline import ForOp as PipelineForOp
from tilepipe.dialects.tile import constant_index

LoopOp = scf.ForOp | PipelineForOp

_instance_ids = itertools.count()


@lru_cache(maxsize=None)
def enclosing_loops(op: Operation) -> tuple[Operation, ...]:
    """The loops around ``op``, outermost first (cached; cleared with the program
    point caches when the IR changes)."""
    loops: list[Operation] = []
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, LoopOp):
            loops.append(parent)
        parent = parent.parent_op()
    return tuple(loops[::-1])


def enclosing_conditions(op: Operation) -> list[tuple[SSAValue, bool]]:
    """``(condition, taken branch)`` of every ``scf.if`` around ``op``."""
    conditions: list[tuple[SSAValue, bool]] = []
    child: Operation = op
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.IfOp):
            in_then = child.parent_region() is parent.true_region
            conditions.append((parent.cond, in_then))
        child, parent = parent, parent.parent_op()
    return conditions


def loop_induction_var(loop: Operation) -> SSAValue:
    return loop.regions[0].blocks[0].args[0]


def static_step(loop: Operation) -> int | None:
    return constant_index(loop.step)  # type: ignore[attr-defined]


def static_trip_count(loop: Operation) -> int | None:
    lb, ub, step = (constant_index(v) for v in loop.operands[:3])
    if lb is None or ub is None or step is None or step <= 0:
        return None
    return max(0, -(-(ub - lb) // step))


@dataclass
class Instance:
    """One execution of a set of loops: a Z3 variable per loop induction variable."""

    ivs: dict[Operation, z3.ArithRef] = field(default_factory=dict)
    uid: int = field(default_factory=lambda: next(_instance_ids))

    def derive(self, shifted: dict[Operation, z3.ArithRef]) -> Instance:
        return Instance({**self.ivs, **shifted})


class IndexEncoder:
    """Encodes index values for a set of instances and collects their constraints."""

    def __init__(self) -> None:
        self._opaque: dict[object, z3.ArithRef] = {}
        self._terms: dict[tuple[SSAValue, int], z3.ArithRef] = {}
        self.constraints: list[z3.BoolRef] = []
        # Names of this encoder's own (one query's): a process-wide counter named the
        # same query differently in a second compile, and z3's heuristics, hence how
        # far a search gets within its resource limit, depend on the names (fuzz seed
        # 431135: a second in-process compile rejected what the first accepted).
        self._iv_names = itertools.count()

    # -- instances

    def fresh_iv(self, loop: Operation, tag: str) -> z3.ArithRef:
        var = z3.Int(f"{tag}_{next(self._iv_names)}")
        self.constraints.extend(self._loop_constraints(loop, var, None))
        return var

    def instance_for(self, op: Operation, base: Instance | None = None) -> Instance:
        """An instance covering every loop around ``op`` (reusing ``base``'s ivs)."""
        ivs = dict(base.ivs) if base else {}
        for loop in enclosing_loops(op):
            if loop not in ivs:
                ivs[loop] = self.fresh_iv(loop, "k")
        return Instance(ivs)

    def _loop_constraints(
        self, loop: Operation, var: z3.ArithRef, instance: Instance | None
    ) -> list[z3.BoolRef]:
        lb = self.term(loop.operands[0], instance or Instance())
        ub = self.term(loop.operands[1], instance or Instance())
        constraints = [lb <= var, var < ub]
        if (step := static_step(loop)) is not None and step > 1:
            constraints.append((var - lb) % step == 0)
        return constraints

    # -- terms

    def term(self, value: SSAValue, instance: Instance) -> z3.ArithRef:
        # An instance's ivs never change, so a value's term in it is built once: the
        # bulk-copy and hazard queries encode the same slot and offset expressions in
        # the same instances many times, and building z3 terms is the slow part.
        key = (value, instance.uid)
        if (known := self._terms.get(key)) is None:
            known = self._terms[key] = self._build_term(value, instance)
        return known

    def _build_term(self, value: SSAValue, instance: Instance) -> z3.ArithRef:
        if isinstance(value, BlockArgument):
            owner = value.block.parent_op()
            if isinstance(owner, LoopOp) and value.index == 0:
                if owner in instance.ivs:
                    return instance.ivs[owner]
            return self._symbol(value, instance)
        if (constant := constant_index(value)) is not None:
            return z3.IntVal(constant)
        op = value.owner
        encode = _ENCODERS.get(type(op))
        if encode is None:
            return self._symbol(value, instance)
        return encode(self, op, instance)

    def _symbol(self, value: SSAValue, instance: Instance) -> z3.ArithRef:
        # Values defined inside a loop differ between iterations.
        inside = _defining_block(value)
        per_instance = inside is not None and any(
            _block_inside(inside, loop) for loop in instance.ivs
        )
        key = (value, instance.uid) if per_instance else value
        if key not in self._opaque:
            self._opaque[key] = z3.Int(f"s{len(self._opaque)}")
        return self._opaque[key]

    def condition(self, value: SSAValue, instance: Instance) -> z3.BoolRef | None:
        """The Z3 form of an ``i1`` condition, or None when it is not modelled."""
        op = value.owner
        if isinstance(op, arith.CmpiOp):
            lhs, rhs = self.term(op.lhs, instance), self.term(op.rhs, instance)
            predicate = _CMPI_PREDICATES[op.predicate.value.data]
            return _CMPI[predicate](lhs, rhs)
        if isinstance(op, arith.AndIOp):
            parts = [self.condition(v, instance) for v in (op.lhs, op.rhs)]
            if all(p is not None for p in parts):
                return z3.And(*parts)
        return None

    def path_constraints(self, op: Operation, instance: Instance) -> list[z3.BoolRef]:
        """Bounds of every loop around ``op`` and the conditions of every ``scf.if``."""
        constraints: list[z3.BoolRef] = []
        for loop in enclosing_loops(op):
            constraints.extend(
                self._loop_constraints(loop, instance.ivs[loop], instance)
            )
        for cond, taken in enclosing_conditions(op):
            encoded = self.condition(cond, instance)
            if encoded is not None:
                constraints.append(encoded if taken else z3.Not(encoded))
        return constraints


def _defining_block(value: SSAValue) -> Block | None:
    if isinstance(value, BlockArgument):
        return value.block
    return value.owner.parent_block()


def _block_inside(block: Block, loop: Operation) -> bool:
    region = loop.regions[0]
    parent: Block | None = block
    while parent is not None:
        if parent.parent is region:
            return True
        owner = parent.parent_op()
        parent = owner.parent_block() if owner is not None else None
    return False


def _c_rem(a: z3.ArithRef, b: z3.ArithRef) -> z3.ArithRef:
    """C (truncating) remainder, as ``arith.remsi``."""
    return z3.If(a >= 0, a % z3.If(b >= 0, b, -b), -((-a) % z3.If(b >= 0, b, -b)))


def _c_div(a: z3.ArithRef, b: z3.ArithRef) -> z3.ArithRef:
    """C (truncating) division, as ``arith.divsi``."""
    magnitude = z3.If(a >= 0, a, -a) / z3.If(b >= 0, b, -b)
    return z3.If((a >= 0) == (b >= 0), magnitude, -magnitude)


def _binary(fn):
    def encode(encoder: IndexEncoder, op: Operation, instance: Instance):
        return fn(encoder.term(op.lhs, instance), encoder.term(op.rhs, instance))

    return encode


_ENCODERS = {
    arith.AddiOp: _binary(lambda a, b: a + b),
    arith.SubiOp: _binary(lambda a, b: a - b),
    arith.MuliOp: _binary(lambda a, b: a * b),
    arith.RemSIOp: _binary(_c_rem),
    arith.RemUIOp: _binary(lambda a, b: a % b),
    arith.DivSIOp: _binary(_c_div),
    arith.DivUIOp: _binary(lambda a, b: a / b),
    arith.FloorDivSIOp: _binary(lambda a, b: a / b),  # Z3 '/' floors for b > 0
    arith.CeilDivSIOp: _binary(lambda a, b: -((-a) / b)),
    arith.MinSIOp: _binary(lambda a, b: z3.If(a <= b, a, b)),
    arith.MaxSIOp: _binary(lambda a, b: z3.If(a >= b, a, b)),
    arith.IndexCastOp: lambda enc, op, inst: enc.term(op.input, inst),
    arith.SelectOp: lambda enc, op, inst: _select(enc, op, inst),
}


def _select(encoder: IndexEncoder, op: arith.SelectOp, instance: Instance):
    cond = encoder.condition(op.cond, instance)
    lhs = encoder.term(op.lhs, instance)
    rhs = encoder.term(op.rhs, instance)
    if cond is None:
        return encoder._symbol(op.result, instance)
    return z3.If(cond, lhs, rhs)


# arith.cmpi's predicate property is an index into this list.
_CMPI_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
_CMPI = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "slt": lambda a, b: a < b,
    "sle": lambda a, b: a <= b,
    "sgt": lambda a, b: a > b,
    "sge": lambda a, b: a >= b,
    "ult": lambda a, b: z3.And(a >= 0, a < b),
    "ule": lambda a, b: z3.And(a >= 0, a <= b),
    "ugt": lambda a, b: z3.And(b >= 0, a > b),
    "uge": lambda a, b: z3.And(b >= 0, a >= b),
}


# z3 resource units one query may spend (about two seconds here).  A resource limit,
# unlike a timeout, gives up at the same point on every machine and every load, so
# an "unknown" (hence the syncs placed) never depends on how busy the machine is.
SOLVER_RESOURCES = 5_000_000


def satisfiable(constraints: Iterable[z3.BoolRef]) -> bool:
    """True unless Z3 proves the constraints unsatisfiable (unknown counts as sat:
    the conservative answer for "may these accesses conflict?")."""
    constraints = list(constraints)
    # The answer is a function of the query (below): the same query, asked again by
    # another analysis or another compile, is answered from memory.  An Ascend example
    # asks each of its few distinct queries three to four times, and a fresh z3 context
    # costs about as much as the query.  z3 builds each distinct term once (hash
    # consing), so the terms' ids name the query exactly, without printing it; the
    # memory keeps the terms alive, so that no id is reused by another term meanwhile.
    query = tuple(c.get_id() for c in constraints)
    if (known := _ANSWERS.get(query)) is not None:
        _ANSWERS.move_to_end(query)
        return known[0]
    # The query runs in a context of its own.  In z3's shared main context, every term
    # ever built (earlier queries, earlier compiles of this process) shifts the ids
    # that z3's heuristics order by, so how far a search gets within the resource limit
    # -- unsat or unknown -- and with it the syncs placed, would depend on what the
    # process compiled before.  Translating gives the same ids for the same query.
    context = z3.Context()
    solver = z3.Solver(ctx=context)
    solver.set(rlimit=SOLVER_RESOURCES)
    solver.add(*(c.translate(context) for c in constraints))
    answer = solver.check() != z3.unsat
    _ANSWERS[query] = (answer, constraints)
    if len(_ANSWERS) > REMEMBERED_QUERIES:
        _ANSWERS.popitem(last=False)
    return answer


REMEMBERED_QUERIES = 4096
# query -> (answer, its terms); least recently asked first
_ANSWERS: OrderedDict[tuple[int, ...], tuple[bool, list[z3.BoolRef]]] = OrderedDict()
