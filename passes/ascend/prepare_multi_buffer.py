"""``ascend-prepare-multi-buffer``: owners, versions and index modes of on-chip storage.

For every on-chip buffer of an Ascend kernel (see :mod:`tilepipe.passes.ascend.buffer_ownership`):

* find its owner loop (one complete epoch per iteration); storage without an owner
  (accumulators, buffers used across loops) keeps one version;
* give owned storage ``num_stages`` versions (the search's upper bound), then, while a
  memory's buffers exceed the target's capacity, take one version away from the owned
  buffers of that memory (largest first) until it fits; a memory that does not fit even
  with one version each is an error naming its buffers;
* record the index mode: ``iteration`` (the slot follows the lexical iteration, also
  across skipped guarded epochs; every ring's set and wait are skipped together, so
  the protocol stays balanced) or ``counter`` (only executed epochs advance the slot:
  consecutive executed epochs get consecutive slots).  The mode comes from
  ``ascend.index_mode`` on the alloc, else on its owner loop, else from the pass option
  ``index_mode`` (default ``iteration``).  The modes differ only on guarded epochs:
  storage whose epochs run in every iteration is recorded as ``iteration``.

The plan is recorded on each ``memref.alloc`` as ``ascend.versions`` and
``ascend.index_mode``; nothing else changes (that is the point of the Ascend order,
docs/ascend.md: sync is inserted on logical storage before the slots are materialized).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from tilepipe.core.diagnostics import op_error
from tilepipe.dialects.ascend_pipes import ascend_space, buffer_bytes
from tilepipe.dialects.pipeline import ForOp
from tilepipe.core.targets import AscendTarget, target_of

from tilepipe.passes.ascend.buffer_ownership import (
    INDEX_MODE_ATTR,
    INDEX_MODES,
    ITERATION_MODE,
    MultiBuffer,
    capacity_problem,
    guarded_branch,
    loop_depth_bound,
    on_chip_allocs,
    owner_of,
    record,
)
from tilepipe.passes.ascend.resolve_core import is_ascend_kernel


def _requested_mode(alloc: Operation, owner: ForOp | None, default: str) -> str:
    """``ascend.index_mode`` of the alloc, else of its owner loop, else ``default``."""
    for holder in (alloc, owner):
        mode = holder.attributes.get(INDEX_MODE_ATTR) if holder is not None else None
        if mode is None:
            continue
        name = mode.data if isinstance(mode, StringAttr) else str(mode)
        if name not in INDEX_MODES:
            raise op_error(holder, f"unknown index mode '{name}' (iteration or counter)")
        return mode.data
    return default


def plan_multi_buffers(
    kernel: FuncOp, target: AscendTarget, default_mode: str = ITERATION_MODE
) -> dict[SSAValue, MultiBuffer]:
    plan: dict[SSAValue, MultiBuffer] = {}
    for alloc in on_chip_allocs(kernel):
        owner = owner_of(alloc.memref)
        versions = loop_depth_bound(owner) if owner is not None else 1
        mode = _requested_mode(alloc, owner, default_mode)
        if owner is None or guarded_branch(alloc.memref, owner) is None:
            mode = ITERATION_MODE  # no guarded epochs: the modes coincide
        plan[alloc.memref] = MultiBuffer(alloc, owner, versions, mode)
    while (problem := capacity_problem(plan, target.capacities)) is not None:
        space, used, capacity = problem
        shrinkable = [
            b for b in plan.values()
            if b.versions > 1 and ascend_space(b.storage.type) == space
        ]
        if not shrinkable:
            names = ", ".join(
                f"{b.storage.name_hint or '?'} ({buffer_bytes(b.storage.type)} B)"
                for b in plan.values()
                if ascend_space(b.storage.type) == space
            )
            raise op_error(
                kernel,
                f"{space.value} needs {used} bytes but {target.name} has {capacity}: {names}",
            )
        largest = max(shrinkable, key=lambda b: buffer_bytes(b.storage.type) * b.versions)
        plan[largest.storage] = replace(largest, versions=largest.versions - 1)
    return plan


@dataclass(frozen=True)
class AscendPrepareMultiBuffer(ModulePass):
    """Choose owners, versions (num_stages bounded by capacity) and index modes.

    Option ``index_mode=iteration|counter``: the mode of storage that names none."""

    name = "ascend-prepare-multi-buffer"

    # The index mode of storage that names none (nor does its owner loop).
    index_mode: str = ITERATION_MODE

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.index_mode not in INDEX_MODES:
            raise op_error(
                op, f"unknown index_mode '{self.index_mode}' (iteration or counter)"
            )
        for kernel in op.walk():
            if isinstance(kernel, FuncOp) and is_ascend_kernel(kernel):
                target = target_of(kernel)
                assert isinstance(target, AscendTarget)
                for buffer in plan_multi_buffers(kernel, target, self.index_mode).values():
                    record(buffer)
