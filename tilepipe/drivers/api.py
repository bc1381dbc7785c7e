"""tilepipe's public API for embedding (docs/api.md): parse, run a pipeline, compile.

Every function takes a module as text, an xDSL ``ModuleOp`` or an upstream
``mlir.ir.Module``/``Operation`` and gives back the same kind (an upstream module is
parsed in the caller's context); the input is never modified.  Bad input and failing
stages raise :class:`~tilepipe.core.diagnostics.DiagnosedError` (a ``CompileError``) whose
``diagnostics`` carry the caller's locations.  CUDA and Ascend compile to the same
:class:`Compilation` shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

from tilepipe.core.flows import levels_of, presets
from tilepipe.drivers.compile import CompileError, StageReport
from tilepipe.core.diagnostics import Diagnostic, InputError

if TYPE_CHECKING:
    from mlir import ir

    from tilepipe.drivers.kernel_splice import Extraction

Source: TypeAlias = "str | ModuleOp | ir.Module | ir.Operation | ir.OpView"
"""A module as the caller holds it: MLIR text, an xDSL ``ModuleOp``, or an upstream
``mlir.ir.Module`` (or its ``builtin.module`` operation)."""

PRESETS: dict[str, str] = presets()
"""Named pipelines (:func:`tilepipe.core.flows.presets`): ``cuda`` (tile level to the
``lower-to-nvvm`` level), ``ascend`` (tile level to the ``ascend`` dialect), and each
level of each, e.g. ``cuda:scheduled``."""

LEVELS = {kind: levels_of(kind) for kind in ("cuda", "ascend")}
"""What :func:`compile_for` can stop at, per kind of target, in order."""


@dataclass
class Compilation:
    """What :func:`compile_for` produced, for either kind of target.  (Not named
    ``compile``: ``tilepipe.drivers.compile`` is the driver module, and importing it would
    replace the function on the package.)"""

    target: str
    """The target compiled for (an alias such as ``ascend`` resolved: ``ascend910b``)."""
    level: str
    """The level asked for (one of :data:`LEVELS` of the target's kind)."""
    module: Any
    """The module at the last level tilepipe's own passes reach, as the kind given
    (text, xDSL ``ModuleOp``, upstream ``mlir.ir.Module`` in the caller's context):
    for CUDA the ``nvvm`` level (a ``gpu.module`` of the kernels, host code beside
    it, launchers with ``host_launch``), for Ascend the ``ascend`` dialect, or the
    ``scheduled`` level when asked for.  From an upstream module, everything but the
    kernels is the caller's own ops, unchanged."""
    text: str
    """The requested level as text: a module (with the kernels' source locations,
    ``loc(...)``, for CUDA), LLVM-dialect IR, PTX or AscendC.  At the module levels of
    an upstream module it is the whole result module; ``llvm`` and ``ptx`` are the
    kernels' code alone."""
    stages: list[StageReport] = field(default_factory=list)
    """Each pass and hand-off that ran: name, one-line account, seconds."""
    warnings: list[Diagnostic] = field(default_factory=list)
    """Warnings and remarks of the passes, located in the caller's module."""
    summary: str = ""
    """The one-screen account ``tilepipe compile`` prints to stderr."""


def _to_xdsl(source: Any, name: str) -> ModuleOp:
    """A verified xDSL copy of ``source``."""
    from tilepipe.drivers.interop import from_upstream, is_upstream
    from tilepipe.core.source import parse_source

    try:
        if isinstance(source, str):
            return parse_source(source, name)
        if isinstance(source, ModuleOp):
            from tilepipe.core.diagnostics import verify_module

            if (diagnostic := verify_module(source)) is not None:
                raise InputError(diagnostic)
            return source.clone()
        if is_upstream(source):
            return from_upstream(source, name)
    except InputError as err:
        raise CompileError(err.diagnostics) from None
    raise CompileError([Diagnostic(
        "error",
        "expected MLIR text, an xdsl ModuleOp or an mlir.ir Module/Operation, "
        f"got {type(source).__name__}",
    )])


def _like(module: ModuleOp, source: Any) -> Any:
    """``module`` as the kind ``source`` is."""
    from tilepipe.drivers.interop import is_upstream, to_upstream

    if isinstance(source, str):
        return str(module) + "\n"
    if is_upstream(source):
        return to_upstream(module, source)
    return module


def _kernels_of(source: Any, name: str) -> tuple[Extraction | None, ModuleOp]:
    """The xDSL module tilepipe compiles: all of ``source`` (text, xDSL), or only the
    kernels of an upstream module and the functions they call (with the extraction,
    to splice the result back)."""
    from tilepipe.drivers.interop import is_upstream, upstream_operation
    from tilepipe.drivers.kernel_splice import SpliceError, extract_kernels

    if not is_upstream(source):
        return None, _to_xdsl(source, name)
    try:
        extraction = extract_kernels(upstream_operation(source))
    except SpliceError as err:
        raise CompileError(err.diagnostics) from None
    return extraction, _to_xdsl(extraction.text, name)


def _result_like(module: ModuleOp, source: Any, extraction: Extraction | None) -> Any:
    """The result as the kind ``source`` is; an upstream module is ``source`` with its
    kernels replaced by what ``module`` holds for them."""
    if extraction is None:
        return _like(module, source)
    from mlir import ir

    from tilepipe.drivers.interop import upstream_operation
    from tilepipe.drivers.kernel_splice import SpliceError, splice_kernels

    try:
        spliced = splice_kernels(upstream_operation(source), module, extraction)
    except SpliceError as err:
        raise CompileError(err.diagnostics) from None
    return spliced if isinstance(source, ir.Module) else spliced.operation


def parse(source: Source, *, name: str = "<input>") -> ModuleOp:
    """Parse (if text) and verify ``source``; returns an xDSL module (a copy).

    ``name`` is the file name diagnostics give for text.  Raises :class:`CompileError`
    for text that does not parse, a module that does not verify, or a ``source`` of
    another type."""
    return _to_xdsl(source, name)


def verify(source: Source, *, name: str = "<input>") -> None:
    """Raise :class:`CompileError` with located diagnostics unless ``source`` parses
    and verifies."""
    _to_xdsl(source, name)


def pass_pipeline(pipeline: str) -> PassPipeline:
    """An xDSL ``PassPipeline`` for a preset (a key of :data:`PRESETS`: ``cuda``,
    ``cuda:scheduled``, ``ascend``, ...) or a ``-p`` spec in either syntax, for a caller
    that runs its own xDSL pipelines.  It takes tilepipe's compiler lock while it runs,
    so threads may share it.  Raises :class:`CompileError` for an unknown pass, a bad
    option or a malformed spec."""
    from tilepipe.drivers.pipeline_spec import PipelineSpecError, normalize_pipeline
    from tilepipe.core.registry import pass_pipeline as parse_pipeline

    try:
        spec = PRESETS.get(pipeline) or normalize_pipeline(pipeline)
        return parse_pipeline(spec)
    except (PipelineSpecError, ValueError, TypeError) as err:
        raise CompileError([Diagnostic("error", f"bad pass pipeline '{pipeline}': {err}")]) from None


def run_pipeline(source: Source, pipeline: str, *, name: str = "<input>") -> Any:
    """Run ``pipeline`` (a preset of :data:`PRESETS` or a ``-p`` spec) on a copy of
    ``source``; returns the result as the kind given.  Of an upstream module only the
    kernels (and the functions they call) are run through the passes; the other ops
    come back unchanged.  Raises :class:`CompileError` for bad input, a bad pipeline, a
    failing pass, or a host call left dangling by ``lower-to-nvvm`` without
    ``host-launch=true``."""
    from xdsl.utils.exceptions import DiagnosticException

    from tilepipe.core.diagnostics import collect_diagnostics, diagnostic_of_exception
    from tilepipe.core.registry import make_context

    passes = pass_pipeline(pipeline)
    extraction, module = _kernels_of(source, name)
    with collect_diagnostics() as collector:
        try:
            passes.apply(make_context(), module)
        except DiagnosticException as err:
            raise CompileError([*collector.diagnostics, diagnostic_of_exception(err)]) from None
    return _result_like(module, source, extraction)


def compile_for(
    source: Source,
    target: str = "sm_80",
    *,
    level: str | None = None,
    num_stages: int | None = None,
    host_launch: bool = False,
    run_ptxas: bool = False,
    isolate_upstream: bool = False,
    tensor_maps: bool = True,
    warpgroup_mma: bool = True,
    warp_specialize: bool = True,
    name: str = "<input>",
) -> Compilation:
    """Compile the kernels of ``source`` for ``target`` to ``level``.

    ``target``: ``sm_80``, ``sm_90``, ``sm_90a`` or ``ascend910b`` (alias ``ascend``).  ``level``
    (default the last): ``scheduled``, ``nvvm``, ``llvm``, ``ptx`` for CUDA;
    ``scheduled``, ``ascend``, ``ascendc`` for Ascend (:data:`LEVELS`).
    ``num_stages`` overrides every pipelined loop's depth.  ``host_launch`` (CUDA)
    leaves in each kernel's place a host function of its name that
    ``gpu.launch_func``\\ s it; without it, host code that calls a kernel is an error.
    ``run_ptxas`` assembles the PTX (level ``ptx``) and reports registers and shared
    memory in ``stages``.  ``isolate_upstream`` (CUDA) runs upstream's hand-off in a
    child started by ``spawn`` instead of this process (nothing is forked either way),
    so that an LLVM abort is a :class:`CompileError` rather than the caller's end.
    ``tensor_maps`` (sm_90a) off keeps the row-wise bulk copies instead of tensor-map
    copies (whose maps a host must encode, docs/nvvm.md "Tensor maps"); and
    ``warpgroup_mma`` (sm_90a) off keeps the gemms on mma.sync instead of wgmma;
    ``warp_specialize`` (sm_90a) off keeps the pipelined loops unspecialized (no
    producer warpgroup, docs/nvvm.md "Warp specialization").
    ``name`` is the file name diagnostics give for text.

    Returns a :class:`Compilation`.  Raises :class:`CompileError` (``.diagnostics``,
    located in the caller's module) for an unknown target or level, bad input, a
    kernel op tilepipe does not compile, a failing pass (budget exceeded, invalid
    stage/order, ...) or a failing upstream hand-off."""
    from tilepipe.core.targets import TARGET_ALIASES, TARGETS

    target = TARGET_ALIASES.get(target, target)
    if target not in TARGETS:
        known = ", ".join(sorted(TARGETS))
        raise CompileError([Diagnostic("error", f"unknown target '{target}' (known: {known})")])
    kind = TARGETS[target].kind
    level = level or LEVELS[kind][-1]
    if level not in LEVELS[kind]:
        raise CompileError(
            [Diagnostic("error", f"level '{level}' is not one of {', '.join(LEVELS[kind])} for {target}")]
        )
    extraction, module = _kernels_of(source, name)
    from tilepipe.drivers.compile import compile_module

    # The CUDA text carries the kernel's locations, so that a host parsing it points
    # its diagnostics at the source lines.
    result = compile_module(
        module, target, level, num_stages, run_ptxas and level == "ptx",
        host_launch=host_launch, debug_info=True, isolate_upstream=isolate_upstream,
        tensor_maps=tensor_maps, warpgroup_mma=warpgroup_mma,
        warp_specialize=warp_specialize,
    )
    returned = _result_like(module, source, extraction)
    text = result.output
    if extraction is not None and level not in ("llvm", "ptx", "ascendc"):
        # The module level of an upstream module is the whole spliced module.
        text = returned.operation.get_asm(enable_debug_info=True)
    return Compilation(
        target, level, returned, text, result.stages,
        result.warnings, result.summary("<api>"),
    )


__all__ = [
    "LEVELS",
    "PRESETS",
    "Compilation",
    "CompileError",
    "Source",
    "compile_for",
    "parse",
    "pass_pipeline",
    "run_pipeline",
    "verify",
]
