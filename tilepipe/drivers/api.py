"""tilepipe's public API for embedding (docs/api.md): parse, run a pipeline, compile.

Every function takes a module as text, an xDSL ``ModuleOp`` or an upstream
``mlir.ir.Module``/``Operation`` and gives back the same kind (an upstream module is
parsed in the caller's context); the input is never modified.  Bad input and failing
stages raise :class:`~tilepipe.core.diagnostics.DiagnosedError` (a ``CompileError``) whose
``diagnostics`` carry the caller's locations.  CUDA and Ascend compile to the same
:class:`Compilation` shape.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

from tilepipe.drivers.compile import CompileError, StageReport
from tilepipe.core.diagnostics import Diagnostic, InputError

PRESETS: dict[str, str] = {}
"""Named pipelines: ``cuda`` (tile level to the ``lower-to-nvvm`` level) and
``ascend`` (tile level to the ``ascend`` dialect); filled on first use."""

LEVELS = {"cuda": ("nvvm", "llvm", "ptx"), "ascend": ("ascend", "ascendc")}
"""What :func:`compile_for` can stop at, per kind of target (the first is the module
level tilepipe's own passes end at)."""


def _presets() -> dict[str, str]:
    if not PRESETS:
        from tilepipe.drivers.compile import CUDA_FLOW
        from tilepipe.lowering.ascend.pipeline import ascend_pipeline_spec

        PRESETS["cuda"] = ",".join(CUDA_FLOW)
        PRESETS["ascend"] = ascend_pipeline_spec()
    return PRESETS


@dataclass
class Compilation:
    """What :func:`compile_for` produced, for either kind of target.  (Not named
    ``compile``: ``tilepipe.drivers.compile`` is the driver module, and importing it would
    replace the function on the package.)"""

    target: str
    level: str
    module: Any
    """The module at the last level tilepipe owns (``nvvm``: the ``gpu.module`` and
    the host functions; ``ascend``: the ascend dialect), as the kind given."""
    text: str
    """The requested level as text: the module, LLVM-dialect IR, PTX or AscendC.  The
    CUDA module levels (``nvvm``, ``llvm``) are upstream's text with the locations of
    the kernel's source (``loc(...)``)."""
    stages: list[StageReport] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
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
    raise TypeError(
        "expected MLIR text, an xdsl ModuleOp or an mlir.ir Module/Operation, "
        f"got {type(source).__name__}"
    )


def _like(module: ModuleOp, source: Any) -> Any:
    """``module`` as the kind ``source`` is."""
    from tilepipe.drivers.interop import is_upstream, to_upstream

    if isinstance(source, str):
        return str(module) + "\n"
    if is_upstream(source):
        return to_upstream(module, source)
    return module


def parse(source: Any, *, name: str = "<input>") -> ModuleOp:
    """Parse (if text) and verify ``source``; returns an xDSL module (a copy)."""
    return _to_xdsl(source, name)


def verify(source: Any, *, name: str = "<input>") -> None:
    """Raise ``CompileError`` with located diagnostics unless ``source`` verifies."""
    _to_xdsl(source, name)


def pass_pipeline(pipeline: str) -> PassPipeline:
    """An xDSL ``PassPipeline`` for a preset name (``cuda``, ``ascend``) or a ``-p``
    spec, for a caller that runs its own xDSL pipelines."""
    from tilepipe.drivers.pipeline_spec import PipelineSpecError, normalize_pipeline
    from tilepipe.core.registry import pass_pipeline as parse_pipeline

    try:
        spec = _presets().get(pipeline) or normalize_pipeline(pipeline)
        return parse_pipeline(spec)
    except (PipelineSpecError, ValueError, TypeError) as err:
        raise CompileError([Diagnostic("error", f"bad pass pipeline '{pipeline}': {err}")]) from None


def run_pipeline(source: Any, pipeline: str, *, name: str = "<input>") -> Any:
    """Run ``pipeline`` (a preset or a ``-p`` spec) on a copy of ``source``; returns
    the result as the kind given."""
    from xdsl.utils.exceptions import DiagnosticException

    from tilepipe.core.diagnostics import collect_diagnostics, diagnostic_of_exception
    from tilepipe.core.registry import make_context

    passes = pass_pipeline(pipeline)
    module = _to_xdsl(source, name)
    with collect_diagnostics() as collector:
        try:
            passes.apply(make_context(), module)
        except DiagnosticException as err:
            raise CompileError([*collector.diagnostics, diagnostic_of_exception(err)]) from None
    return _like(module, source)


def compile_for(
    source: Any,
    target: str = "sm_80",
    *,
    level: str | None = None,
    num_stages: int | None = None,
    host_launch: bool = False,
    run_ptxas: bool = False,
    name: str = "<input>",
) -> Compilation:
    """Compile ``source`` for ``target`` (``sm_80``, ``sm_90``, ``ascend910b``) to
    ``level`` (default: ``ptx`` / ``ascendc``).  ``host_launch`` (CUDA) replaces each
    kernel by a host function of its name that ``gpu.launch_func``\\ s it."""
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
    module = _to_xdsl(source, name)
    if kind == "cuda":
        return _compile_cuda(module, source, target, level, num_stages, host_launch, run_ptxas)
    return _compile_ascend(module, source, target, level, num_stages)


def _compile_cuda(module, source, target, level, num_stages, host_launch, run_ptxas):
    from tilepipe.drivers.cli import format_summary
    from tilepipe.drivers.compile import compile_module

    # The text carries the kernel's locations, so that a host parsing it points its
    # diagnostics at the source lines.
    result = compile_module(
        module, target, level, num_stages, run_ptxas and level == "ptx",
        host_launch=host_launch, debug_info=True,
    )
    text = result.output
    return Compilation(
        target, level, _like(module, source), text, result.stages, result.warnings,
        format_summary(result, "<api>"),
    )


def _compile_ascend(module, source, target, level, num_stages):
    from xdsl.utils.exceptions import DiagnosticException

    from tilepipe.drivers.compile import retarget
    from tilepipe.core.diagnostics import collect_diagnostics, diagnostic_of_exception
    from tilepipe.lowering.ascend.pipeline import ascend_summary, compile_ascend
    from tilepipe.lowering.ascend.ascendc import emit_ascendc
    from tilepipe.core.targets import TARGETS

    retarget(module, TARGETS[target], num_stages)
    start = time.perf_counter()
    with collect_diagnostics() as collector:
        try:
            compile_ascend(module)
        except DiagnosticException as err:
            raise CompileError([*collector.diagnostics, diagnostic_of_exception(err)]) from None
    stages = [StageReport("ascend passes", "done", time.perf_counter() - start)]
    text = str(module) + "\n" if level == "ascend" else emit_ascendc(module)
    return Compilation(
        target, level, _like(module, source), text, stages, list(collector.diagnostics),
        ascend_summary(module),
    )


__all__ = [
    "LEVELS",
    "PRESETS",
    "Compilation",
    "compile_for",
    "parse",
    "pass_pipeline",
    "run_pipeline",
    "verify",
]
