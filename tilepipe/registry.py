"""The one place that lists tilepipe's dialects and passes.

``tile-opt`` and the ``xdsl.universe`` entry point (so the stock ``xdsl-opt`` too) both
read these tables.  Each entry is a thunk so that importing the registry stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Dialect
from xdsl.passes import ModulePass


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


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    return {
        "tile": _tile,
        "pipeline": _pipeline,
        "ascend": _ascend,
        "nvgpu": _nvgpu,
        "nvvm": _nvvm,
    }


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    passes: dict[str, Callable[[], type[ModulePass]]] = {}
    passes["merge-shared-memory"] = _merge_shared_memory
    return passes
