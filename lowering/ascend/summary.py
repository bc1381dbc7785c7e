"""The one-screen summary of a compiled Ascend module that ``tilepipe compile
--target ascend910b`` prints: versions, on-chip bytes, sync points and flag ids per
hard event, lock-pool spills (docs/ascend.md)."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp

from tilepipe.dialects.ascend_pipes import ascend_space, buffer_bytes
from tilepipe.dialects.ascend_sync import GetBufOp, PipeBarrierOp
from tilepipe.passes.ascend.flag_blocks import coalesce, plan_flag_budget
from tilepipe.passes.ascend.buffer_ownership import (
    COUNTER_MODE,
    INDEX_MODE_ATTR,
    VERSIONS_ATTR,
    on_chip_allocs,
)
from tilepipe.core.targets import AscendTarget, target_of


def ascend_summary(module: ModuleOp) -> str:
    """One screen per kernel of a compiled module: versions per buffer, on-chip bytes
    per memory against capacity, sync points and ids per hard event, lock-pool
    spills, barriers and cross-core flags."""
    lines: list[str] = []
    for kernel in module.walk():
        if isinstance(kernel, FuncOp) and kernel.body.blocks:
            lines.extend(_kernel_summary(kernel))
    return "\n".join(lines)


def _kernel_summary(kernel: FuncOp) -> list[str]:
    target = target_of(kernel)
    assert isinstance(target, AscendTarget)
    lines = [f"@{kernel.sym_name.data} on {target.name}"]
    used: dict[str, int] = {}
    versions = []
    for alloc in on_chip_allocs(kernel):
        space = ascend_space(alloc.memref.type).value
        used[space] = used.get(space, 0) + buffer_bytes(alloc.memref.type)
        count = alloc.attributes.get(VERSIONS_ATTR)
        number = count.value.data if isinstance(count, IntegerAttr) else 1
        mode = alloc.attributes.get(INDEX_MODE_ATTR)
        counted = " (counter)" if isinstance(mode, StringAttr) and mode.data == COUNTER_MODE else ""
        versions.append(f"{alloc.memref.name_hint or '?'} x{number}{counted}")
    lines.append("  versions: " + (", ".join(versions) or "-"))
    lines.append(
        "  on-chip: "
        + ", ".join(f"{space} {n} of {target.capacities[space]} B" for space, n in used.items())
    )
    plan = plan_flag_budget(kernel, target.intra_core_event_ids, target.lock_pool_slots)
    for budget in plan.events:
        lines.append(
            f"  {budget.event}: {len(budget.blocks)} sync points, "
            f"{budget.demand} of {target.intra_core_event_ids} ids"
        )
    lock_ops = [op for op in kernel.walk() if isinstance(op, GetBufOp)]
    spilled = coalesce(lock_ops)
    barriers = sum(1 for op in kernel.walk() if isinstance(op, PipeBarrierOp))
    cross = sum(b.size for b in plan.cross_core_blocks)
    lines.append(
        f"  spilled to the lock pool: {len(spilled)} sync points, "
        f"{sum(b.size for b in spilled)} of {target.lock_pool_slots} slots; "
        f"barriers: {barriers}; cross-core flags: {cross} of {target.cross_core_flags}"
    )
    return lines
