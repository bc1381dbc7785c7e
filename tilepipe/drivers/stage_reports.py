"""What ``tilepipe compile`` tells about each stage: a one-line account per pass, read
off the IR the pass produced (``CompileResult.summary`` prints them)."""

from __future__ import annotations

from collections import Counter
from xdsl.dialects import memref
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, MemRefType, ModuleOp, StringAttr

from tilepipe.dialects.memory_space import MemorySpace, memory_space
from tilepipe.dialects.pipeline import ForOp as PipelineForOp
from tilepipe.dialects.pipeline import op_order, op_stage
from tilepipe.dialects.pipeline_sync import PIPELINE_SYNC_OPS


def shared_buffers(module: ModuleOp) -> dict[str, MemRefType]:
    """Name -> type of the shared buffers (allocs and arena views) of ``module``."""
    buffers: dict[str, MemRefType] = {}
    for op in module.walk():
        if isinstance(op, memref.AllocOp | memref.ViewOp):
            value = op.results[0]
            value_type = value.type
            if isinstance(value_type, MemRefType) and isinstance(
                value_type.memory_space, StringAttr
            ):
                if memory_space(value_type) is MemorySpace.SHARED:
                    buffers[value.name_hint or f"buffer{len(buffers)}"] = value_type
    return buffers


def _describe_validation(module: ModuleOp, before: dict[str, MemRefType]) -> str:
    loops = sum(1 for op in module.walk() if isinstance(op, PipelineForOp))
    return f"{loops} pipelined loop{'s' if loops != 1 else ''}: stage/order valid"


def _describe_bulk_copies(module: ModuleOp, before: dict[str, MemRefType]) -> str:
    copies = [op for op in module.walk() if op.name == "pipeline.bulk_copy"]
    if not copies:
        return "no bulk copies (no kernel for a target with TMA)"
    tensor = sum(1 for op in copies if "tensor_map" in op.properties)
    through_maps = f" ({tensor} through tensor maps)" if tensor else ""
    return _describe_syncs(module, before) + through_maps


def _describe_warp_roles(module: ModuleOp, before: dict[str, MemRefType]) -> str:
    from tilepipe.dialects.pipeline_ws import WGMMA_IN_FLIGHT_ATTR, WarpSpecializeOp

    parts = []
    for op in module.walk():
        if isinstance(op, WarpSpecializeOp):
            rings = {w.barriers for w in op.walk() if w.name == "pipeline.mbarrier_wait_parity"}
            depth = min(r.type.get_shape()[0] for r in rings) if rings else 0
            producer, consumer = op.registers
            in_flight = any(WGMMA_IN_FLIGHT_ATTR in inner.attributes for inner in op.walk())
            parts.append(
                f"{op.producer_thread_count // 128} producer warpgroup ({producer} regs), "
                f"consumers {consumer} regs, ring of {depth}"
                + (", gemm in flight across iterations" if in_flight else "")
            )
    if parts:
        return "; ".join(parts)
    if not any(_warp_specializing(op) for op in module.walk()):
        return "no kernel for a target with warp specialization"
    return "no warp-specialized loop (the remarks say why)"


def _warp_specializing(op) -> bool:
    from tilepipe.core.targets import CudaTarget, UnknownTarget, target_of

    if op.name != "func.func":
        return False
    try:
        target = target_of(op)
    except UnknownTarget:
        return False
    return isinstance(target, CudaTarget) and target.warp_specialization is not None


def _describe_planning(module: ModuleOp, before: dict[str, MemRefType]) -> str:
    parts = []
    for loop in module.walk():
        if not isinstance(loop, PipelineForOp):
            continue
        statements = loop.statements()
        stages = [op_stage(op) for op in statements]
        orders = [op_order(op) for op in statements]
        parts.append(f"depth={loop.int_annotation('depth')} stage={stages} order={orders}")
    return "; ".join(parts) or "no pipelined loop"


def _describe_versions(module: ModuleOp, before: dict[str, MemRefType]) -> str:
    after = shared_buffers(module)
    parts = []
    for name, old in before.items():
        new = after.get(name)
        if new is None:
            continue
        grown = len(new.get_shape()) - len(old.get_shape())
        versions = new.get_shape()[0] if grown == 1 else 1
        parts.append(f"{name} x{versions}")
    return "versions: " + (", ".join(parts) or "none")


def _describe_arena(module: ModuleOp, before: dict[str, MemRefType]) -> str:
    for op in module.walk():
        if isinstance(op, memref.AllocOp) and "arena.layout" in op.attributes:
            layout = op.attributes["arena.layout"]
            assert isinstance(layout, DictionaryAttr)
            total = op.memref.type.element_count()
            peak = layout.data.get("peak_live_bytes")
            budget = layout.data.get("budget")
            extra = ""
            if isinstance(peak, IntegerAttr) and isinstance(budget, IntegerAttr):
                extra = f" (peak live {peak.value.data} B, budget {budget.value.data} B)"
            return f"arena: {total} bytes{extra}"
    return "no shared arena"


def _describe_syncs(module: ModuleOp, before: dict[str, MemRefType]) -> str:
    counts = Counter(
        op.name.removeprefix("pipeline.")
        for op in module.walk()
        if type(op) in PIPELINE_SYNC_OPS
    )
    return "syncs: " + (", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "none")


def _describe_lowering(module: ModuleOp, before: dict[str, MemRefType]) -> str:
    from tilepipe.dialects.tensor_maps import TENSOR_MAPS_ATTR
    from tilepipe.lowering.nvvm.kernel import DYNAMIC_SHARED_ATTR, SWIZZLE_ATTR

    from tilepipe.lowering.nvvm.kernel import GPU_MODULE_NAME

    # Only the kernels this lowering made: a gpu.module the input already held (another
    # code generator's) is not tilepipe's to describe.
    kernels = [
        op
        for module_op in module.ops
        if module_op.name == "gpu.module"
        and getattr(module_op, "sym_name", None) == StringAttr(GPU_MODULE_NAME)
        for op in module_op.walk()
        if op.name == "gpu.func"
    ]
    parts = []
    for kernel in kernels:
        block_size = kernel.properties["known_block_size"].get_values()
        dynamic = kernel.attributes.get(DYNAMIC_SHARED_ATTR)
        shared = (
            f"{dynamic.value.data} B dynamic shared"
            if isinstance(dynamic, IntegerAttr)
            else "static shared"
        )
        name = kernel.attributes["sym_name"].data
        swizzled = [
            op.results[0].name_hint or "?" for op in kernel.walk() if SWIZZLE_ATTR in op.attributes
        ]
        if swizzled:
            shared += ", swizzled " + " ".join(swizzled)
        maps = kernel.attributes.get(TENSOR_MAPS_ATTR)
        if maps is not None:
            shared += f", {len(maps.data)} tensor map{'s' if len(maps.data) != 1 else ''}"
        parts.append(f"gpu.func @{name} ({block_size[0]} threads, {shared})")
    return ", ".join(parts)


DESCRIBE = {
    "pipeline-validate": _describe_validation,
    "warp-specialize": _describe_warp_roles,
    "pipeline-planning": _describe_planning,
    "tma-copy": _describe_bulk_copies,
    "inject-software-pipeline": _describe_versions,
    "merge-shared-memory": _describe_arena,
    "async-copy": _describe_syncs,
    "thread-sync": _describe_syncs,
    "lower-to-nvvm": _describe_lowering,
}


def describe_stage(name: str, module: ModuleOp, before: dict[str, MemRefType]) -> str:
    """One line on what pass ``name`` did to ``module`` (``before``: the shared buffers
    before it ran); passes without an account of their own say nothing."""
    describe = DESCRIBE.get(name)
    return describe(module, before) if describe else ""
