"""The Ascend pass pipeline in the chapter's order (§3.5), as one callable.

    prepare multi-buffer -> resolve core -> insert sync -> materialize multi-buffer
    -> lower to the ascend dialect -> flag budget
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

from tilepipe.registry import get_all_passes

ASCEND_PASSES = (
    "ascend-prepare-multi-buffer",
    "ascend-resolve-core",
    "ascend-insert-sync",
    "ascend-materialize-multi-buffer",
    "lower-to-ascend",
    "ascend-flag-budget",
)


def ascend_pipeline_spec(flag_budget_options: str = "") -> str:
    """The pipeline as a ``-p`` argument; ``flag_budget_options`` like
    ``"ids_per_event=2 report=true"`` go to ``ascend-flag-budget``."""
    passes = list(ASCEND_PASSES)
    if flag_budget_options:
        passes[-1] += "{" + flag_budget_options + "}"
    return ",".join(passes)


def compile_ascend(module: ModuleOp, flag_budget_options: str = "") -> ModuleOp:
    """Run the Ascend pipeline on a tile-level module, in place; returns it."""
    available = {name: thunk for name, thunk in get_all_passes().items()}
    pipeline = PassPipeline.parse_spec(available, ascend_pipeline_spec(flag_budget_options))
    pipeline.apply(Context(), module)
    return module
