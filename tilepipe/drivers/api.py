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
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

from tilepipe.core.flows import levels_of, presets
from tilepipe.drivers.compile import CompileError, StageReport
from tilepipe.core.diagnostics import Diagnostic, InputError

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
        spec = PRESETS.get(pipeline) or normalize_pipeline(pipeline)
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
    from tilepipe.drivers.compile import compile_module
    
    # The CUDA text carries the kernel's locations, so that a host parsing it points
    # its diagnostics at the source lines.
    result = compile_module(
        module, target, level, num_stages, run_ptxas and level == "ptx",
        host_launch=host_launch, debug_info=True,
    )
    return Compilation(
        target, level, _like(module, source), result.output, result.stages,
        result.warnings, result.summary("<api>"),
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
