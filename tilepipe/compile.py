"""The CUDA compilation driver behind ``tilepipe compile``: tile level to PTX.

It runs the registered passes of the CUDA flow in order (``pipeline-planning``,
``tma-copy`` (sm_90), ``inject-software-pipeline``, ``merge-shared-memory``, ``async-copy``, ``thread-sync``,
``lower-to-nvvm``), hands the result to upstream MLIR (``lowering/nvvm/upstream.py``) and
checks the PTX with ``ptxas -v``.  Each stage leaves a one-line account of what it did
(:class:`StageReport`), read off the IR it produced.

The same upstream stages are ``tile-opt`` output targets (:data:`UPSTREAM_TARGETS`):
``-t ptx{chip=sm_90}`` and ``-t nvvm-llvm`` after a pipeline ending in ``lower-to-nvvm``.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, ClassVar

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    DictionaryAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    i64,
)
from xdsl.utils.exceptions import DiagnosticException
from xdsl.utils.target import Target

from tilepipe.dialects.memory_space import MemorySpace, memory_space
from tilepipe.dialects.pipeline import ForOp as PipelineForOp
from tilepipe.dialects.pipeline import op_order, op_stage
from tilepipe.dialects.pipeline_sync import PIPELINE_SYNC_OPS
from tilepipe.diagnostics import (
    DiagnosedError,
    Diagnostic,
    collect_diagnostics,
    diagnostic_of_exception,
    op_diagnostic,
    verify_module,
)
from tilepipe.registry import get_all_passes, make_context
from tilepipe.targets import TARGETS, AscendTarget, CudaTarget, get_target

if TYPE_CHECKING:
    from tilepipe.lowering.nvvm.upstream import UpstreamProcess

CUDA_FLOW = (
    "pipeline-planning",
    "tma-copy",
    "inject-software-pipeline",
    "merge-shared-memory",
    "async-copy",
    "thread-sync",
    "lower-to-nvvm",
)


class CompileError(DiagnosedError):
    """Bad input or a failing stage; ``diagnostics`` say what and where."""


@dataclass
class StageReport:
    name: str
    summary: str
    seconds: float = 0.0
    skipped: bool = False


@dataclass
class CompileResult:
    target: CudaTarget
    stages: list[StageReport] = field(default_factory=list)
    output: str = ""
    ptx: str | None = None
    ptxas: list = field(default_factory=list)  # PtxasReport per kernel
    dynamic_shared_bytes: dict[str, int] = field(default_factory=dict)
    warnings: list[Diagnostic] = field(default_factory=list)
    parse_seconds: float = 0.0
    upstream_pass_seconds: dict[str, float] = field(default_factory=dict)


def _shared_buffers(module: ModuleOp) -> dict[str, MemRefType]:
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
    after = _shared_buffers(module)
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
    from tilepipe.lowering.nvvm.kernel import DYNAMIC_SHARED_ATTR, SWIZZLE_ATTR

    kernels = [op for op in module.walk() if op.name == "gpu.func"]
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
        parts.append(f"gpu.func @{name} ({block_size[0]} threads, {shared})")
    return ", ".join(parts)


DESCRIBE = {
    "pipeline-planning": _describe_planning,
    "tma-copy": _describe_syncs,
    "inject-software-pipeline": _describe_versions,
    "merge-shared-memory": _describe_arena,
    "async-copy": _describe_syncs,
    "thread-sync": _describe_syncs,
    "lower-to-nvvm": _describe_lowering,
}


KIND_NAMES = {"cuda": "a CUDA target", "ascend": "an Ascend target"}


def retarget(
    module: ModuleOp, target: CudaTarget | AscendTarget, num_stages: int | None = None
) -> None:
    """Make every kernel of ``module`` name ``target`` (the driver's ``--target``) and
    check it is one: a kernel written for another target of the same kind (sm_80 vs
    sm_90) is compiled for ``target``, one for another kind of target (CUDA vs Ascend)
    is an error, and so is a buffer in a memory space ``target`` does not have.  This
    runs before any pass, so that nothing unlowerable reaches upstream MLIR.  A kernel
    that declares tile-size candidates (``tile.tune``) is compiled at the sizes it is
    written at: its declarations are dropped (``instantiate-tile-params``)."""
    from tilepipe.passes.tuning.instantiate_tile_params import InstantiateTileParams
    from tilepipe.source import functions_with_one_block

    if (diagnostic := functions_with_one_block(module)) is not None:
        raise CompileError([diagnostic])
    InstantiateTileParams().apply(make_context(), module)
    from tilepipe.dialects.kernel_attrs import is_kernel

    for op in module.walk():
        if is_kernel(op):
            named = op.attributes.get("tile.target")
            if isinstance(named, StringAttr) and named.data in TARGETS:
                if TARGETS[named.data].kind != target.kind:
                    raise CompileError(
                        [
                            op_diagnostic(
                                op,
                                "error",
                                f"is a kernel for '{named.data}' (tile.target, "
                                f"{KIND_NAMES[TARGETS[named.data].kind]}) and cannot be compiled for "
                                f"'{target.name}' (--target, {KIND_NAMES[target.kind]})",
                            )
                        ]
                    )
            op.attributes["tile.target"] = StringAttr(target.name)
        if isinstance(op, PipelineForOp) and num_stages is not None:
            op.num_stages = IntegerAttr(num_stages, i64)
    if (diagnostic := verify_module(module)) is not None:
        raise CompileError([diagnostic])


def parse_kernel(text: str, file_name: str) -> ModuleOp:
    """Parse and verify a kernel; bad input is a :class:`CompileError`, as every
    failure of :func:`compile_kernel` is."""
    from tilepipe.diagnostics import InputError
    from tilepipe.source import parse_source

    try:
        return parse_source(text, file_name, make_context())
    except InputError as err:
        raise CompileError(err.diagnostics) from None


def compile_kernel(
    text: str,
    file_name: str,
    target_name: str,
    emit: str = "ptx",
    num_stages: int | None = None,
    run_ptxas: bool = True,
    *,
    debug_info: bool = False,
) -> CompileResult:
    """Compile a tile-level kernel for ``target_name`` down to ``emit``."""
    start = time.perf_counter()
    module = parse_kernel(text, file_name)
    return compile_module(
        module, target_name, emit, num_stages, run_ptxas,
        parse_seconds=time.perf_counter() - start, debug_info=debug_info,
    )


def compile_module(
    module: ModuleOp,
    target_name: str,
    emit: str = "ptx",
    num_stages: int | None = None,
    run_ptxas: bool = True,
    *,
    host_launch: bool = False,
    parse_seconds: float = 0.0,
    debug_info: bool = False,
) -> CompileResult:
    """Compile a parsed, verified tile-level module for ``target_name`` down to
    ``emit``, in place (it ends at the ``lower-to-nvvm`` level); ``host_launch``
    leaves a host launcher per kernel (``lower-to-nvvm{host-launch=true}``);
    ``debug_info`` keeps the source locations in the ``nvvm``/``llvm`` text."""
    from tilepipe.lowering.nvvm.upstream import UpstreamProcess
    from tilepipe.lowering.nvvm.upstream_dialects import op_upstream_lacks

    target = get_target(target_name)
    if not isinstance(target, CudaTarget):
        raise CompileError([Diagnostic("error", f"'{target_name}' is not a CUDA target")])
    retarget(module, target, num_stages)
    if (diagnostic := op_upstream_lacks(module)) is not None:
        raise CompileError([diagnostic])
    result = CompileResult(target, parse_seconds=parse_seconds)
    # The child that will run upstream MLIR imports its bindings meanwhile.
    with UpstreamProcess() as upstream:
        _run_passes(module, result, host_launch)
        _hand_off(module, upstream, emit, run_ptxas, result, debug_info)
    if run_ptxas and result.ptx is not None:
        _assemble(result)
    return result


def _run_passes(module: ModuleOp, result: CompileResult, host_launch: bool = False) -> None:
    """The CUDA flow's tilepipe passes, each verified and summarised."""
    from tilepipe.lowering.nvvm.kernel import DYNAMIC_SHARED_ATTR

    available = get_all_passes()
    options = {"lower-to-nvvm": {"host_launch": host_launch}}
    ctx = make_context()
    with collect_diagnostics() as collector:
        for name in CUDA_FLOW:
            if name not in available:
                result.stages.append(StageReport(name, "not registered: skipped", skipped=True))
                continue
            before = _shared_buffers(module)
            start = time.perf_counter()
            try:
                available[name]()(**options.get(name, {})).apply(ctx, module)
            except DiagnosticException as err:
                raise CompileError([*collector.diagnostics, diagnostic_of_exception(err)]) from None
            if (diagnostic := verify_module(module)) is not None:
                raise CompileError([diagnostic])
            seconds = time.perf_counter() - start
            result.stages.append(StageReport(name, DESCRIBE[name](module, before), seconds))
        result.warnings = list(collector.diagnostics)
    for op in module.walk():
        if op.name == "gpu.func":
            dynamic = op.attributes.get(DYNAMIC_SHARED_ATTR)
            if isinstance(dynamic, IntegerAttr):
                result.dynamic_shared_bytes[op.attributes["sym_name"].data] = dynamic.value.data


def _hand_off(
    module: ModuleOp,
    upstream: UpstreamProcess,
    emit: str,
    run_ptxas: bool,
    result: CompileResult,
    debug_info: bool = False,
) -> None:
    """Upstream MLIR lowers the module once, keeping the text ``emit`` asks for and
    the PTX ptxas checks.  The stage's time is wall time: printing the generic form,
    the hand-over to the child and upstream's passes."""
    from tilepipe.lowering.nvvm.upstream import STAGE_ORDER, Stage, UpstreamError

    stage = Stage(emit)
    stages = {stage, Stage.PTX} if run_ptxas else {stage}
    start = time.perf_counter()
    try:
        lowered = upstream.run(module, result.target, *stages, debug_info=debug_info)
    except UpstreamError as err:
        raise CompileError([Diagnostic("error", str(err))]) from None
    result.upstream_pass_seconds = lowered.pass_seconds
    furthest = max(stages, key=STAGE_ORDER.index)
    result.stages.append(
        StageReport(
            "upstream MLIR",
            f"{len(lowered.pass_seconds)} passes to {furthest.value}",
            time.perf_counter() - start,
        )
    )
    result.ptx = lowered.texts.get(Stage.PTX)
    result.output = lowered.texts[stage]


def _assemble(result: CompileResult) -> None:
    from tilepipe.lowering.nvvm.ptxas import PtxasError, PtxasNotFound, run_ptxas

    assert result.ptx is not None
    start = time.perf_counter()
    try:
        result.ptxas = run_ptxas(result.ptx, result.target.name)
        summary = "accepted"
    except PtxasNotFound as err:
        summary = f"skipped ({err})"
    except PtxasError as err:
        raise CompileError([Diagnostic("error", str(err))]) from None
    result.stages.append(StageReport("ptxas", summary, time.perf_counter() - start))


# -- the upstream stages as tile-opt output targets (``-t ptx{chip=sm_90}``)


@dataclass(frozen=True)
class UpstreamTarget(Target):
    """Print a ``lower-to-nvvm`` module at an upstream stage, for ``chip``.

    The lowered module no longer names its target, hence the ``chip`` argument.
    Upstream failures (and LLVM aborts, isolated in a child process) become a
    diagnostic, as in ``tilepipe compile``.
    """

    chip: str = "sm_80"
    stage_name: ClassVar[str]

    def __post_init__(self) -> None:
        if not isinstance(TARGETS.get(self.chip), CudaTarget):
            cuda = ", ".join(n for n, t in TARGETS.items() if isinstance(t, CudaTarget))
            raise ValueError(f"chip '{self.chip}' is not a CUDA target (choose from {cuda})")

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        from tilepipe.lowering.nvvm.upstream import Stage, UpstreamError, run_upstream_isolated

        target = TARGETS[self.chip]
        assert isinstance(target, CudaTarget)
        try:
            result = run_upstream_isolated(module, target, Stage(self.stage_name))
        except UpstreamError as err:
            hint = " (-t " + self.name + " prints the output of lower-to-nvvm)"
            raise DiagnosticException(str(err) + (hint if err.stage == "parsing" else "")) from None
        output.write(result.text if result.text.endswith("\n") else result.text + "\n")


@dataclass(frozen=True)
class PtxTarget(UpstreamTarget):
    """PTX from upstream's gpu-module-to-binary (what tilepipe compile --emit ptx writes)"""

    name = "ptx"
    stage_name = "ptx"


@dataclass(frozen=True)
class NvvmLlvmTarget(UpstreamTarget):
    """the LLVM-dialect module after upstream's conversions (tilepipe compile --emit llvm)"""

    name = "nvvm-llvm"
    stage_name = "llvm"


UPSTREAM_TARGETS: dict[str, type[UpstreamTarget]] = {
    target.name: target for target in (PtxTarget, NvvmLlvmTarget)
}
