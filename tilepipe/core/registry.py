"""The one place that lists tilepipe's dialects and passes.

``tile-opt``, ``tilepipe compile`` and the ``xdsl.universe`` entry point (so the stock
``xdsl-opt`` too) read these tables.  Entries name a module and an attribute and are
imported on first use, so importing the registry stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

from xdsl.context import Context
from xdsl.ir import Dialect
from xdsl.passes import ModulePass, PassPipeline

# Every module that parses or builds IR comes through here: from now on xDSL's implicit
# builders are safe in threads, and hexadecimal float elements read as bits (see the
# modules).
import tilepipe.core.compiler_lock  # noqa: F401
import tilepipe.core.hex_float_elements  # noqa: F401

DIALECTS: dict[str, tuple[str, str]] = {
    "tile": ("tilepipe.dialects.tile", "Tile"),
    "pipeline": ("tilepipe.dialects.pipeline", "Pipeline"),
    "ascend": ("tilepipe.dialects.ascend", "Ascend"),
    "nvgpu": ("tilepipe.dialects.nvgpu", "NVGPU"),
    "nvvm": ("tilepipe.dialects.nvvm", "NVVM"),
}

# Dialects whose xDSL definition tilepipe replaces (same name, upstream MLIR's ops):
# registered by tile-opt and make_context in place of xDSL's, but not announced to
# the xdsl.universe entry point, which refuses a second definition of a name; the
# stock xdsl-opt reads with them through the frontend below (-f tilepipe).
OVERRIDES: dict[str, tuple[str, str]] = {
    "gpu": ("tilepipe.dialects.gpu_upstream", "GPU"),
    "vector": ("tilepipe.dialects.vector_upstream", "VECTOR"),
    "llvm": ("tilepipe.dialects.llvm_upstream", "LLVM"),
    "memref": ("tilepipe.dialects.memref_upstream", "MEMREF"),
}

PASSES: dict[str, tuple[str, str]] = {
    # pipelining: planning, validation, modulo scheduling (docs/pipelining.md)
    "pipeline-validate": ("tilepipe.passes.pipelining.pipeline_validate", "PipelineValidate"),
    "pipeline-planning": ("tilepipe.passes.pipelining.pipeline_planning", "PipelinePlanning"),
    "inject-software-pipeline": (
        "tilepipe.passes.pipelining.inject_software_pipeline",
        "InjectSoftwarePipeline",
    ),
    # on-chip memory arenas (docs/arena.md)
    "merge-shared-memory": ("tilepipe.passes.memory.merge_shared_memory", "MergeSharedMemory"),
    # CUDA synchronization (docs/sync.md) and lowering (docs/nvvm.md)
    "warp-specialize": ("tilepipe.passes.cuda.warp_specialize", "WarpSpecialize"),
    "tma-copy": ("tilepipe.passes.cuda.tma_copy", "TmaCopy"),
    "async-copy": ("tilepipe.passes.cuda.async_copy", "AsyncCopy"),
    "thread-sync": ("tilepipe.passes.cuda.thread_sync", "ThreadSync"),
    "lower-to-nvvm": ("tilepipe.lowering.nvvm.to_nvvm", "LowerToNVVM"),
    # tile-size candidates of `tilepipe tune` (docs/schedule_sim.md)
    "instantiate-tile-params": (
        "tilepipe.passes.tuning.instantiate_tile_params",
        "InstantiateTileParams",
    ),
    # the cycle model of the scheduled level (docs/schedule_sim.md)
    "schedule-sim": ("tilepipe.schedule_sim.flow", "ScheduleSim"),
    # Ascend (docs/ascend.md)
    "ascend-zero-boundary-tiles": (
        "tilepipe.passes.ascend.zero_boundary_tiles",
        "AscendZeroBoundaryTiles",
    ),
    "ascend-prepare-multi-buffer": (
        "tilepipe.passes.ascend.prepare_multi_buffer",
        "AscendPrepareMultiBuffer",
    ),
    "ascend-resolve-core": ("tilepipe.passes.ascend.resolve_core", "AscendResolveCore"),
    "ascend-insert-sync": ("tilepipe.passes.ascend.insert_sync", "AscendInsertSync"),
    "ascend-materialize-multi-buffer": (
        "tilepipe.passes.ascend.materialize_multi_buffer",
        "AscendMaterializeMultiBuffer",
    ),
    "ascend-flag-budget": ("tilepipe.passes.ascend.flag_budget", "AscendFlagBudget"),
    "lower-to-ascend": ("tilepipe.lowering.ascend.lower_to_ascend", "LowerToAscend"),
}


TARGETS: dict[str, tuple[str, str]] = {
    # upstream MLIR's stages after lower-to-nvvm (docs/nvvm.md)
    "ptx": ("tilepipe.lowering.nvvm.output_targets", "PtxTarget"),
    "nvvm-llvm": ("tilepipe.lowering.nvvm.output_targets", "NvvmLlvmTarget"),
}


FRONTENDS: dict[str, tuple[str, str]] = {
    # xdsl-opt -f tilepipe: tilepipe's dialects, its gpu and vector included
    "tilepipe": ("tilepipe.core.source", "TilepipeFrontend"),
}


def _loader(module: str, attribute: str) -> Callable[[], Any]:
    return lambda: getattr(import_module(module), attribute)


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    return {name: _loader(*where) for name, where in DIALECTS.items()}


def get_all_targets() -> dict[str, Callable[[], type]]:
    """Output targets, as xDSL's new-style factories (no parameters)."""
    return {name: _loader(*where) for name, where in TARGETS.items()}


def get_all_frontends() -> dict[str, Callable[[], type]]:
    """Input frontends, as xDSL's new-style factories (no parameters)."""
    return {name: _loader(*where) for name, where in FRONTENDS.items()}


def get_dialect_overrides() -> dict[str, Callable[[], Dialect]]:
    return {name: _loader(*where) for name, where in OVERRIDES.items()}


def register_dialects(ctx: Context, others: dict[str, Callable[[], Dialect]]) -> None:
    """Register ``others`` (e.g. xDSL's or the multiverse's dialects) and tilepipe's
    in ``ctx``; tilepipe's win on a clash, and its overrides replace xDSL's."""
    tilepipe = {**get_all_dialects(), **get_dialect_overrides()}
    for name, factory in {**others, **tilepipe}.items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    return {name: _loader(*where) for name, where in PASSES.items()}


def verifying(pass_class: type[ModulePass]) -> type[ModulePass]:
    """``pass_class``, verifying its input before it runs: tilepipe's passes assume
    verified IR (an op's operand count, a kernel's attributes), and a host that runs
    them in its own pipeline -- the stock ``xdsl-opt``, an embedding compiler -- may
    hand them a module nobody verified.  A malformed module is then a located
    diagnostic, not an ``IndexError`` from deep inside a pass."""

    def apply(self, ctx: Context, op) -> None:
        from xdsl.utils.exceptions import PassFailedException

        from tilepipe.core.diagnostics import verify_module

        if (diagnostic := verify_module(op)) is not None:
            raise PassFailedException(f"{self.name}: input does not verify: {diagnostic}")
        pass_class.apply(self, ctx, op)

    return type(pass_class.__name__, (pass_class,), {"apply": apply, "__doc__": pass_class.__doc__})


def get_verifying_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """The passes for hosts that do not verify between passes (the ``xdsl.universe``
    entry point); tile-opt and the API verify themselves and use :func:`get_all_passes`."""
    return {
        name: (lambda load=load: verifying(load())) for name, load in get_all_passes().items()
    }


def make_context() -> Context:
    """A context with xDSL's dialects and tilepipe's (tilepipe's win on a clash)."""
    from xdsl.dialects import get_all_dialects as xdsl_dialects

    ctx = Context()
    register_dialects(ctx, xdsl_dialects())
    return ctx


def pass_pipeline(spec: str) -> PassPipeline:
    """A pass pipeline from ``tile-opt -p`` syntax over every registered pass; it runs
    under the compiler lock (:mod:`tilepipe.core.compiler_lock`), so threads may share it."""
    from xdsl.transforms import get_all_passes as xdsl_passes

    from tilepipe.core.compiler_lock import serialized

    return serialized(PassPipeline.parse_spec({**xdsl_passes(), **get_all_passes()}, spec))
