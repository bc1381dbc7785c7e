"""The named pass pipelines ("flows") and the levels they stop at: the one place in
tilepipe that spells a pass list (docs/api.md, "Flows").

A target record names its flow (``CudaTarget.flow``, ``AscendTarget.flow``); the
compile driver, the API presets, ``tune``, the schedule simulator, the lit presets,
the fuzzers and the benches all take their passes from here.  Validation of the
user's stage/order annotations comes first in every flow that pipelines loops, before
any pass adds ops of its own, so that its diagnostics name the user's statements.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from xdsl.passes import ModulePass


@dataclass(frozen=True)
class Flow:
    """An ordered pass list and the levels along it (level -> passes run to reach it)."""

    name: str
    kind: str  # the target kind it compiles for: "cuda" or "ascend"
    passes: tuple[str, ...]
    levels: Mapping[str, int]
    summary: str

    def pass_names(self, level: str | None = None) -> tuple[str, ...]:
        """The passes up to ``level`` (default: the whole flow)."""
        if level is None:
            return self.passes
        if level not in self.levels:
            raise ValueError(
                f"flow '{self.name}' has no level '{level}' (levels: {', '.join(self.levels)})"
            )
        return self.passes[: self.levels[level]]

    def spec(self, level: str | None = None, options: Mapping[str, str] | None = None) -> str:
        """The passes up to ``level`` as a ``-p`` argument; ``options`` maps a pass
        name to its option text, e.g. ``{"ascend-flag-budget": "report=true"}``."""
        options = options or {}
        return ",".join(
            name + ("{" + options[name] + "}" if options.get(name) else "")
            for name in self.pass_names(level)
        )

    def instances(
        self, level: str | None = None, options: Mapping[str, Mapping[str, object]] | None = None
    ) -> list[tuple[str, ModulePass]]:
        """``(name, pass)`` for each pass up to ``level``, built from the registry with
        the keyword ``options`` given per pass name."""
        from tilepipe.core.registry import get_all_passes

        available = get_all_passes()
        options = options or {}
        return [(name, available[name]()(**options.get(name, {}))) for name in self.pass_names(level)]


# tma-copy acts on the kernels of targets with bulk tensor copies (sm_90) and leaves
# the others alone, so one CUDA flow serves every CUDA target and mixed modules;
# warp-specialize likewise acts on sm_90a kernels only, before planning (the
# chapter's 8.3: the pipeline passes see the warp-specialized form).
_CUDA_SCHEDULE = (
    "pipeline-validate",
    "warp-specialize",
    "pipeline-planning",
    "tma-copy",
    "inject-software-pipeline",
    "merge-shared-memory",
    "async-copy",
    "thread-sync",
)

_ASCEND = (
    "ascend-zero-boundary-tiles",
    "ascend-prepare-multi-buffer",
    "ascend-resolve-core",
    "ascend-insert-sync",
    "ascend-materialize-multi-buffer",
    "lower-to-ascend",
    "ascend-flag-budget",
)

FLOWS: dict[str, Flow] = {
    flow.name: flow
    for flow in (
        Flow(
            "cuda", "cuda", (*_CUDA_SCHEDULE, "lower-to-nvvm"),
            {
                "arena": _CUDA_SCHEDULE.index("merge-shared-memory") + 1,
                "scheduled": len(_CUDA_SCHEDULE),
                "nvvm": len(_CUDA_SCHEDULE) + 1,
            },
            "validate, plan, pipeline, pack the arena (arena), insert cp.async/TMA waits "
            "and barriers (scheduled), lower to gpu/nvgpu/nvvm (nvvm)",
        ),
        Flow(
            "ascend", "ascend", _ASCEND,
            {"scheduled": _ASCEND.index("lower-to-ascend"), "ascend": len(_ASCEND)},
            "zero ragged tiles, multi-buffer, place ops on cores and pipes, insert flags "
            "(scheduled), lower to the ascend dialect and budget the flag ids (ascend)",
        ),
    )
}

UPSTREAM_LEVELS = {"cuda": ("llvm", "ptx"), "ascend": ("ascendc",)}
"""The levels past a flow's end, reached by upstream MLIR (CUDA) or the AscendC
printer; with the flow's own levels they are what ``compile`` can stop at."""


def flow_named(name: str) -> Flow:
    if name not in FLOWS:
        raise ValueError(f"unknown flow '{name}' (known: {', '.join(FLOWS)})")
    return FLOWS[name]


def flow_for(target) -> Flow:
    """The flow of a target record (``CudaTarget`` or ``AscendTarget``)."""
    return FLOWS[target.kind]


def levels_of(kind: str) -> tuple[str, ...]:
    """Every level a target of ``kind`` compiles to, in order."""
    return (*FLOWS[kind].levels, *UPSTREAM_LEVELS[kind])


def presets() -> dict[str, str]:
    """Named ``-p`` pipelines: each flow (``cuda``, ``ascend``) and each of its levels
    (``cuda:scheduled``, ...)."""
    named: dict[str, str] = {}
    for flow in FLOWS.values():
        named[flow.name] = flow.spec()
        for level in flow.levels:
            named[f"{flow.name}:{level}"] = flow.spec(level)
    return named


def run_flow(
    module,
    flow: str | Flow,
    level: str | None = None,
    options: Mapping[str, str] | None = None,
):
    """Run ``flow`` up to ``level`` on ``module`` in place and return it; ``options``
    maps a pass name to its option text (``{"ascend-flag-budget": "ids_per_event=2"}``).
    Failures propagate as xDSL diagnostics (the drivers locate and print them)."""
    from xdsl.passes import PassPipeline

    from tilepipe.core.registry import get_all_passes, make_context

    if isinstance(flow, str):
        flow = flow_named(flow)
    from tilepipe.core.compiler_lock import serialized

    pipeline = PassPipeline.parse_spec(get_all_passes(), flow.spec(level, options))
    serialized(pipeline).apply(make_context(), module)
    return module
