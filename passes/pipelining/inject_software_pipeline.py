"""``inject-software-pipeline``: modulo-schedule pipelined loops, multi-buffer their
buffers and expand their mbarriers per stage (see docs/pipelining.md).

For every ``pipeline.for`` carrying a schedule (run ``pipeline-planning`` first):

1. validate it (``pipeline-validate``'s rules; the transformation is only sound for a
   valid schedule);
2. give each buffer its versions (``use - def + 1``, tightened) as a leading dimension;
3. ring-expand the mbarrier arrays the loop arrives on to ``depth`` slots with parity;
4. emit prologue / steady-state ``scf.for`` / epilogue with the skew ``k - stage``.

The output is the scheduled level: no ``pipeline.for`` is left.  With
``report=text|json`` the pass prints, per loop, what it decided (see
``pipeline_report``) to stderr before rewriting (stdout carries the IR); ``report-svg=FILE`` draws the same
decisions as a space-time diagram of the modulo schedule (``pipeline_schedule_svg``).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import PassFailedException

from tilepipe.dialects.pipeline import ForOp
from tilepipe.core.diagnostics import op_error
from tilepipe.passes.pipelining.barrier_expansion import BarrierExpansion
from tilepipe.passes.pipelining.modulo_schedule import ModuloScheduler
from tilepipe.passes.pipelining.version_dimension import MultiBuffering
from tilepipe.passes.pipelining.pipeline_report import REPORT_FORMATS, describe_loop, format_report
from tilepipe.passes.pipelining.pipeline_schedule_svg import schedule_svg
from tilepipe.passes.pipelining.pipeline_validate import (
    ValidatedLoop,
    check_step,
    validate_pipeline_loop,
)


def pipeline_loop(validated: ValidatedLoop) -> None:
    """Rewrite one validated loop into its scheduled form."""
    schedule = validated.schedule
    step = check_step(schedule.loop)
    rewriter = Rewriter()
    multi_buffering = MultiBuffering(validated.versions)
    barriers = BarrierExpansion(schedule.loop, schedule.depth)
    multi_buffering.materialize(rewriter)
    barriers.materialize(rewriter)
    ModuloScheduler(schedule, step, multi_buffering, barriers).emit(rewriter)
    multi_buffering.finalize(rewriter)
    barriers.finalize(rewriter)


@dataclass(frozen=True)
class InjectSoftwarePipeline(ModulePass):
    """Modulo-schedule pipelined loops with multi-buffering and barrier expansion."""

    name = "inject-software-pipeline"

    report: str = "none"
    """Print a per-loop report before rewriting: none, text or json."""

    report_svg: str | None = None
    """Draw each loop's modulo schedule to this SVG file (quote the path)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.report not in REPORT_FORMATS:
            raise PassFailedException(
                f"inject-software-pipeline: report must be one of "
                f"{', '.join(REPORT_FORMATS)}, got '{self.report}'"
            )
        validated: list[ValidatedLoop] = []
        for loop in [o for o in op.walk() if isinstance(o, ForOp)]:
            result = validate_pipeline_loop(loop)
            if result is None:
                raise op_error(
                    loop,
                    "loop has no stage/order schedule; run pipeline-planning first",
                )
            validated.append(result)
        if self.report != "none" or self.report_svg is not None:
            loops = [describe_loop(v) for v in validated]
            if self.report != "none":
                sys.stderr.write(format_report(loops, self.report))
            if self.report_svg is not None:
                Path(self.report_svg).write_text(schedule_svg(loops))
        for result in validated:
            pipeline_loop(result)
