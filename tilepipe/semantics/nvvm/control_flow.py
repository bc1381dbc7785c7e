"""NVVM interpreter handlers of control flow: ``scf.for``/``scf.if``/``scf.while``
run their regions under a mask of the active threads, and ``gpu.return``."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import VectorType
from xdsl.ir import Attribute

from tilepipe.semantics.work_limit import trip_count
from tilepipe.semantics.nvvm import roles, wgmma
from tilepipe.semantics.nvvm.execution import NvvmExecutionError, handles, numpy_dtype

WHILE_LIMIT = 100_000


@handles("gpu.return")
def _return(ex, op, mask):
    return None


@handles("scf.for")
def _for(ex, op, mask):
    lb, ub, step = (ex.uniform(op, v) for v in op.operands[:3])
    carried = [ex[v] for v in op.operands[3:]]
    body = op.regions[0].block
    if step > 0 and (problem := ex.work.charge(trip_count(lb, ub, step))) is not None:
        raise NvvmExecutionError(op, problem)
    carried_from = list(op.operands[3:])  # what the carried values are (wgmma.forward)
    for i in range(lb, ub, step):
        ex.values[body.args[0]] = np.full(ex.threads, i, np.int64)
        for arg, value in zip(body.args[1:], carried):
            ex.values[arg] = value
        wgmma.forward(ex, body.args[1:], carried_from)
        yielded = ex.run_block(body, mask)
        carried = [np.where(_lanes(mask, y), y, c) for y, c in zip(yielded, carried)]
        carried_from = list(body.last_op.operands)
    wgmma.forward(ex, op.results, carried_from)
    return carried


def _lanes(mask: np.ndarray, value: np.ndarray) -> np.ndarray:
    return mask.reshape(mask.shape + (1,) * (np.ndim(value) - 1))


@handles("scf.if")
def _if(ex, op, mask):
    """Both branches run under their masks, one after the other -- or, with
    ``tilepipe.warp_roles``, concurrently (``roles``); a result takes, per thread, the
    value its branch yielded (a predicated load: the loaded element inside, else 0)."""
    condition = ex[op.operands[0]].astype(bool)
    results = [None] * len(op.results)
    branches = [(op.regions[0], mask & condition), (op.regions[1], mask & ~condition)]
    branches = [(r, taken) for r, taken in branches if r.blocks and taken.any()]
    if roles.ROLES_ATTR in op.attributes:
        outcomes = roles.run_roles(ex, op, branches)
    else:
        outcomes = [ex.run_block(region.block, taken) for region, taken in branches]
    for (_, taken), yielded in zip(branches, outcomes):
        results = [
            y if r is None else np.where(_lanes(taken, y), y, r)
            for y, r in zip(yielded, results)
        ]
    if op.results:
        return [
            r if r is not None else _undefined(ex, result.type)
            for r, result in zip(results, op.results)
        ]


def _undefined(ex, result_type: Attribute) -> np.ndarray:
    """The value of an ``scf.if`` result no active thread computed."""
    shape = result_type.get_shape() if isinstance(result_type, VectorType) else ()
    dtype = numpy_dtype(getattr(result_type, "element_type", result_type))
    return np.zeros((ex.threads, *shape), dtype)


@handles("scf.while")
def _while(ex, op, mask):
    """Masked loop.  A polling loop (empty body) whose threads all keep polling is a
    deadlock in lockstep, where nothing else can run meanwhile to change the answer;
    under warp roles it lets the other roles run until an mbarrier changes."""
    active = mask.copy()
    polling = len(op.regions[1].block.ops) == 1
    for _ in range(WHILE_LIMIT):
        (condition, *_rest) = ex.run_block(op.regions[0].block, active)
        still = active & condition.astype(bool)
        if not still.any():
            return []
        if polling and (still == active).all():
            message = "polls a condition that can never change (deadlock)"
            if ex.roles is None:
                raise NvvmExecutionError(op, message)
            ex.roles.block_until_progress(op, message)
        active = still
        ex.run_block(op.regions[1].block, active)
    raise NvvmExecutionError(op, f"did not terminate in {WHILE_LIMIT} iterations")
