"""The upstream stages as ``tile-opt`` output targets: ``-t ptx{chip=sm_90}`` and
``-t nvvm-llvm`` print a ``lower-to-nvvm`` module as upstream MLIR lowers it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException
from xdsl.utils.target import Target

from tilepipe.core.targets import TARGETS, CudaTarget


@dataclass(frozen=True)
class UpstreamTarget(Target):
    """Print a ``lower-to-nvvm`` module at an upstream stage, for ``chip``.

    The lowered module no longer names its target, hence the ``chip`` argument.
    Upstream failures become a diagnostic, as in ``tilepipe compile``.  Upstream runs
    in this process; with ``isolate=true`` in a spawned child, where an LLVM abort
    becomes a diagnostic too (``tilepipe compile --isolate-upstream``).
    """

    chip: str = "sm_80"
    isolate: bool = False
    stage_name: ClassVar[str]

    def __post_init__(self) -> None:
        if not isinstance(TARGETS.get(self.chip), CudaTarget):
            cuda = ", ".join(n for n, t in TARGETS.items() if isinstance(t, CudaTarget))
            raise ValueError(f"chip '{self.chip}' is not a CUDA target (choose from {cuda})")

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        from tilepipe.lowering.nvvm.upstream import (
            Stage,
            UpstreamError,
            run_upstream,
            run_upstream_isolated,
        )

        target = TARGETS[self.chip]
        assert isinstance(target, CudaTarget)
        run = run_upstream_isolated if self.isolate else run_upstream
        try:
            result = run(module, target, Stage(self.stage_name))
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
