"""The one place that lists tilepipe's dialects and passes.

``tile-opt`` and the ``xdsl.universe`` entry point (so the stock ``xdsl-opt`` too) both
read these tables.  Each entry is a thunk so that importing the registry stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.context import Context
from xdsl.ir import Dialect
from xdsl.passes import ModulePass, PassPipeline


def _tile() -> Dialect:
    from tilepipe.dialects.tile import Tile

    return Tile


def _pipeline() -> Dialect:
    from tilepipe.dialects.pipeline import Pipeline

    return Pipeline


def _ascend() -> Dialect:
    from tilepipe.dialects.ascend import Ascend

    return Ascend


def _nvgpu() -> Dialect:
    from tilepipe.dialects.nvgpu import NVGPU

    return NVGPU


def _nvvm() -> Dialect:
    from tilepipe.dialects.nvvm import NVVM

    return NVVM


def _merge_shared_memory() -> type[ModulePass]:
    from tilepipe.passes.merge_shared_memory import MergeSharedMemory

    return MergeSharedMemory


def _lower_to_nvvm() -> type[ModulePass]:
    from tilepipe.lowering.to_nvvm import LowerToNVVM

    return LowerToNVVM


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    return {
        "tile": _tile,
        "pipeline": _pipeline,
        "ascend": _ascend,
        "nvgpu": _nvgpu,
        "nvvm": _nvvm,
    }


def _ascend_flag_budget() -> type[ModulePass]:
    from tilepipe.passes.ascend_flag_budget import AscendFlagBudget

    return AscendFlagBudget


def _pipeline_validate() -> type[ModulePass]:
    from tilepipe.passes.pipeline_validate import PipelineValidate

    return PipelineValidate


def _pipeline_planning() -> type[ModulePass]:
    from tilepipe.passes.pipeline_planning import PipelinePlanning

    return PipelinePlanning


def _inject_software_pipeline() -> type[ModulePass]:
    from tilepipe.passes.inject_software_pipeline import InjectSoftwarePipeline

    return InjectSoftwarePipeline


def _ascend_prepare_multi_buffer() -> type[ModulePass]:
    from tilepipe.passes.ascend_prepare_multi_buffer import AscendPrepareMultiBuffer

    return AscendPrepareMultiBuffer


def _ascend_resolve_core() -> type[ModulePass]:
    from tilepipe.passes.ascend_resolve_core import AscendResolveCore

    return AscendResolveCore


def _ascend_insert_sync() -> type[ModulePass]:
    from tilepipe.passes.ascend_insert_sync import AscendInsertSync

    return AscendInsertSync


def _ascend_materialize_multi_buffer() -> type[ModulePass]:
    from tilepipe.passes.ascend_materialize_multi_buffer import AscendMaterializeMultiBuffer

    return AscendMaterializeMultiBuffer


def _lower_to_ascend() -> type[ModulePass]:
    from tilepipe.lowering.lower_to_ascend import LowerToAscend

    return LowerToAscend


def _async_copy() -> type[ModulePass]:
    from tilepipe.passes.async_copy import AsyncCopyPass

    return AsyncCopyPass


def _tma_copy() -> type[ModulePass]:
    from tilepipe.passes.tma_copy import TmaCopyPass

    return TmaCopyPass


def _thread_sync() -> type[ModulePass]:
    from tilepipe.passes.thread_sync import ThreadSyncPass

    return ThreadSyncPass


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    passes: dict[str, Callable[[], type[ModulePass]]] = {}
    passes["merge-shared-memory"] = _merge_shared_memory
    passes["ascend-flag-budget"] = _ascend_flag_budget
    passes["ascend-prepare-multi-buffer"] = _ascend_prepare_multi_buffer
    passes["ascend-resolve-core"] = _ascend_resolve_core
    passes["ascend-insert-sync"] = _ascend_insert_sync
    passes["ascend-materialize-multi-buffer"] = _ascend_materialize_multi_buffer
    passes["lower-to-ascend"] = _lower_to_ascend
    passes["pipeline-validate"] = _pipeline_validate
    passes["pipeline-planning"] = _pipeline_planning
    passes["inject-software-pipeline"] = _inject_software_pipeline
    passes["lower-to-nvvm"] = _lower_to_nvvm
    passes["async-copy"] = _async_copy
    passes["thread-sync"] = _thread_sync
    passes["tma-copy"] = _tma_copy
    return passes


def make_context() -> Context:
    """A context with xDSL's dialects and tilepipe's (tilepipe's win on a clash)."""
    from xdsl.dialects import get_all_dialects as xdsl_dialects

    ctx = Context()
    for name, factory in {**xdsl_dialects(), **get_all_dialects()}.items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)
    return ctx


def pass_pipeline(spec: str) -> PassPipeline:
    """A pass pipeline from ``tile-opt -p`` syntax over every registered pass."""
    from xdsl.transforms import get_all_passes as xdsl_passes

    return PassPipeline.parse_spec({**xdsl_passes(), **get_all_passes()}, spec)
