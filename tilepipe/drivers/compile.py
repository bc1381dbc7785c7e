"""The compile driver: one :func:`compile_module` for every target and level, used by
``tilepipe compile``, the embedding API and ``tilepipe tune``.

It runs the target's flow (:mod:`tilepipe.core.flows`) pass by pass, verifying and
describing each (:mod:`tilepipe.drivers.stage_reports`); past the flow, CUDA modules go
to upstream MLIR (``lowering/nvvm/upstream.py``) and ``ptxas -v``, Ascend modules to
the AscendC printer.
"""

from __future__ import annotations

import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.utils.exceptions import DiagnosticException

from tilepipe.core.diagnostics import (
    DiagnosedError,
    Diagnostic,
    collect_diagnostics,
    diagnostic_of_exception,
    op_diagnostic,
)
from tilepipe.core.compiler_lock import COMPILER_LOCK
from tilepipe.core.verify_memo import verify_module_if_changed
from tilepipe.core.flows import Flow, flow_for, levels_of
from tilepipe.core.registry import make_context
from tilepipe.core.targets import TARGETS, AscendTarget, CudaTarget, get_target
from tilepipe.dialects.pipeline import ForOp as PipelineForOp
from tilepipe.drivers.stage_reports import describe_stage, shared_buffers

if TYPE_CHECKING:
    from tilepipe.lowering.nvvm.upstream import UpstreamProcess


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
    target: CudaTarget | AscendTarget
    level: str = ""
    stages: list[StageReport] = field(default_factory=list)
    output: str = ""
    """The requested level as text: a module, LLVM IR, PTX or AscendC."""
    module: ModuleOp | None = None
    """The module at the last level tilepipe's own passes reached (in place)."""
    ptx: str | None = None
    ptxas: list = field(default_factory=list)  # PtxasReport per kernel
    dynamic_shared_bytes: dict[str, int] = field(default_factory=dict)
    warnings: list[Diagnostic] = field(default_factory=list)
    target_summary: list[str] = field(default_factory=list)
    """Lines of the target's own account (the Ascend buffers and flags)."""
    parse_seconds: float = 0.0
    upstream_pass_seconds: dict[str, float] = field(default_factory=dict)

    def summary(self, kernel_path: str) -> str:
        """The one-screen account ``tilepipe compile`` prints to stderr: each stage,
        ptxas's registers and shared memory, the target's own lines, warnings."""
        lines = [f"tilepipe compile {kernel_path} --target {self.target.name}"]
        for stage in self.stages:
            time_ = "" if stage.skipped else f"{stage.seconds * 1000:8.1f} ms"
            lines.append(f"  {stage.name:26s} {time_:>11s}  {stage.summary}".rstrip())
        for report in self.ptxas:
            dynamic = self.dynamic_shared_bytes.get(report.kernel)
            shared = f"{report.shared_bytes} B static shared"
            if dynamic is not None:
                shared += f" + {dynamic} B dynamic shared (launch with it)"
            spills = ""
            if report.spill_store_bytes or report.spill_load_bytes:
                spills = f", spills {report.spill_store_bytes}/{report.spill_load_bytes} B"
            lines.append(
                f"  kernel @{report.kernel}: {report.registers} registers, {shared}, "
                f"{report.barriers} barriers{spills} ({report.arch})"
            )
        lines.extend(self.target_summary)
        lines.extend(f"  {warning}" for warning in self.warnings)
        return "\n".join(lines)


KIND_NAMES = {"cuda": "a CUDA target", "ascend": "an Ascend target"}


def named_targets(module: ModuleOp) -> list[str]:
    """The targets the kernels of ``module`` name in ``tile.target``, sorted."""
    from tilepipe.dialects.kernel_attrs import is_kernel

    return sorted(
        {
            op.attributes["tile.target"].data
            for op in module.walk()
            if is_kernel(op) and isinstance(op.attributes.get("tile.target"), StringAttr)
        }
    )


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
    from tilepipe.core.source import functions_with_one_block

    if (diagnostic := functions_with_one_block(module)) is not None:
        raise CompileError([diagnostic])
    with COMPILER_LOCK:
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
    if (diagnostic := verify_module_if_changed(module)) is not None:
        raise CompileError([diagnostic])


def parse_kernel(text: str, file_name: str) -> ModuleOp:
    """Parse and verify a kernel; bad input is a :class:`CompileError`, as every
    failure of :func:`compile_kernel` is."""
    from tilepipe.core.diagnostics import InputError
    from tilepipe.core.source import parse_source

    try:
        return parse_source(text, file_name, make_context())
    except InputError as err:
        raise CompileError(err.diagnostics) from None


def compile_kernel(
    text: str,
    file_name: str,
    target_name: str,
    level: str | None = None,
    num_stages: int | None = None,
    run_ptxas: bool = True,
    **options,
) -> CompileResult:
    """Parse a tile-level kernel and compile it for ``target_name`` to ``level``
    (see :func:`compile_module`)."""
    start = time.perf_counter()
    module = parse_kernel(text, file_name)
    return compile_module(
        module, target_name, level, num_stages, run_ptxas,
        parse_seconds=time.perf_counter() - start, **options,
    )


def compile_module(
    module: ModuleOp,
    target_name: str,
    level: str | None = None,
    num_stages: int | None = None,
    run_ptxas: bool = True,
    *,
    host_launch: bool = False,
    tensor_maps: bool = True,
    warpgroup_mma: bool = True,
    warp_specialize: bool = True,
    index_mode: str = "iteration",
    parse_seconds: float = 0.0,
    debug_info: bool = False,
    isolate_upstream: bool = False,
) -> CompileResult:
    """Compile a parsed, verified tile-level module for ``target_name``, in place, to
    ``level`` (:func:`tilepipe.core.flows.levels_of`: ``scheduled``, ``nvvm``,
    ``llvm``, ``ptx`` (default) for CUDA; ``scheduled``, ``ascend``, ``ascendc``
    (default) for Ascend).  ``host_launch`` (CUDA) leaves a host launcher per kernel;
    ``tensor_maps`` (sm_90a) off keeps the row-wise bulk copies
    (``tma-copy{tensor_maps=false}``); ``warpgroup_mma`` (sm_90a) off keeps the gemms
    on mma.sync (``tile.warpgroup_mma = false`` on every kernel), and so off or
    without tensor maps, ``warp_specialize`` (sm_90a) off keeps the pipelined loops
    unspecialized (``tile.warp_specialize = false``); ``index_mode`` (Ascend) is the multi-buffer slot
    clock of guarded storage;
    ``debug_info`` keeps the source locations in the ``nvvm``/``llvm`` text.
    ``isolate_upstream`` (CUDA) runs the upstream hand-off in a spawned child, so that
    an LLVM abort becomes a :class:`CompileError` instead of ending this process; by
    default it runs in this process, which never forks.  Bad input and failing stages
    raise :class:`CompileError`."""
    try:
        target = get_target(target_name)
    except ValueError as err:
        raise CompileError([Diagnostic("error", str(err))]) from None
    levels = levels_of(target.kind)
    level = level or levels[-1]
    if level not in levels:
        raise CompileError(
            [Diagnostic("error", f"level '{level}' is not one of {', '.join(levels)} for {target.name}")]
        )
    retarget(module, target, num_stages)
    if not warpgroup_mma:
        _turn_off(module, "tile.warpgroup_mma")
    if not (warp_specialize and tensor_maps):
        _turn_off(module, "tile.warp_specialize")
    if isinstance(target, CudaTarget):
        from tilepipe.lowering.nvvm.upstream_dialects import op_upstream_lacks

        if (diagnostic := op_upstream_lacks(module)) is not None:
            raise CompileError([diagnostic])
    flow = flow_for(target)
    result = CompileResult(target, level, module=module, parse_seconds=parse_seconds)
    if isinstance(target, AscendTarget):
        _run_flow(module, flow, level if level in flow.levels else None, result,
                  {"ascend-prepare-multi-buffer": {"index_mode": index_mode}})
        _finish_ascend(module, level, result)
        return result
    copies = {"tma-copy": {"tensor_maps": tensor_maps}}
    if level == "scheduled":
        _run_flow(module, flow, level, result, copies)
        result.output = str(module) + "\n"
        return result
    from tilepipe.lowering.nvvm.upstream import UpstreamProcess

    # Isolated, the child that will run upstream MLIR starts and imports its bindings
    # while the passes run; otherwise upstream runs here, after them.
    with UpstreamProcess() if isolate_upstream else nullcontext() as upstream:
        _run_flow(
            module, flow, "nvvm", result, {**copies, "lower-to-nvvm": {"host_launch": host_launch}}
        )
        _record_dynamic_shared(module, result)
        _hand_off(module, upstream, level, run_ptxas, result, debug_info)
    if run_ptxas and result.ptx is not None:
        _assemble(result)
    return result


def _turn_off(module: ModuleOp, option: str) -> None:
    """``option = false`` on every kernel (``tile.warpgroup_mma``: the passes and the
    lowering ask it of each gemm, passes/cuda/warpgroup_mma.py;
    ``tile.warp_specialize``: warp-specialize asks it of each kernel)."""
    from xdsl.dialects.builtin import IntegerAttr, i1

    from tilepipe.dialects.kernel_attrs import is_kernel

    for op in module.walk():
        if is_kernel(op):
            op.attributes[option] = IntegerAttr(0, i1)


def _run_flow(
    module: ModuleOp,
    flow: Flow,
    level: str | None,
    result: CompileResult,
    options: dict[str, dict[str, object]] | None = None,
) -> None:
    """The flow's passes up to ``level``, each verified and described."""
    ctx = make_context()
    with COMPILER_LOCK, collect_diagnostics() as collector:
        for name, pass_ in flow.instances(level, options):
            before = shared_buffers(module)
            start = time.perf_counter()
            try:
                pass_.apply(ctx, module)
            except DiagnosticException as err:
                raise CompileError([*collector.diagnostics, diagnostic_of_exception(err)]) from None
            if (diagnostic := verify_module_if_changed(module)) is not None:
                raise CompileError([diagnostic])
            seconds = time.perf_counter() - start
            result.stages.append(StageReport(name, describe_stage(name, module, before), seconds))
        result.warnings = list(collector.diagnostics)


def _record_dynamic_shared(module: ModuleOp, result: CompileResult) -> None:
    from tilepipe.lowering.nvvm.kernel import DYNAMIC_SHARED_ATTR

    for op in module.walk():
        if op.name == "gpu.func":
            dynamic = op.attributes.get(DYNAMIC_SHARED_ATTR)
            if isinstance(dynamic, IntegerAttr):
                result.dynamic_shared_bytes[op.attributes["sym_name"].data] = dynamic.value.data


def _finish_ascend(module: ModuleOp, level: str, result: CompileResult) -> None:
    from tilepipe.lowering.ascend.ascendc import emit_ascendc
    from tilepipe.lowering.ascend.summary import ascend_summary

    if level == "ascendc":
        start = time.perf_counter()
        result.output = emit_ascendc(module)
        result.stages.append(StageReport("AscendC", "printed", time.perf_counter() - start))
    else:
        result.output = str(module) + "\n"
    if level != "scheduled":
        result.target_summary = ascend_summary(module).splitlines()


def _hand_off(
    module: ModuleOp,
    upstream: UpstreamProcess | None,
    level: str,
    run_ptxas: bool,
    result: CompileResult,
    debug_info: bool = False,
) -> None:
    """Upstream MLIR lowers the module once, keeping the text ``level`` asks for and
    the PTX ptxas checks: in this process, or in the isolated child ``upstream``.  The
    stage's time is wall time: printing the generic form, the hand-over to the child
    if any and upstream's passes."""
    from tilepipe.lowering.nvvm.upstream import STAGE_ORDER, Stage, UpstreamError, run_upstream

    stage = Stage(level)
    stages = {stage, Stage.PTX} if run_ptxas else {stage}
    run = run_upstream if upstream is None else upstream.run
    start = time.perf_counter()
    try:
        lowered = run(module, result.target, *stages, debug_info=debug_info)
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
