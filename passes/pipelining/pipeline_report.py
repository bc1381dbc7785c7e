"""A per-loop account of what pipelining decided (what the annotations became and
what the buffers got, at a glance): stage and order of each statement, the depth, and each buffer's
versions with its def/use stages and whether the tightening rule applied.

Printed by ``inject-software-pipeline{report=text}`` (or ``report=json``)::

    pipeline.for at gemm.mlir:22:3: depth 3, max stage 2
      statements (stage, order):
        tile.copy  -> %A_s  (0, 0)
        ...
      buffers:
        %A_s  memref<128x64xf16, "shared">  def 0  use 2  use-def+1 3  versions 3
"""

from __future__ import annotations

import json
from typing import Any

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import SSAValue

from tilepipe.core.diagnostics import op_location
from tilepipe.passes.pipelining.barrier_expansion import is_mbarrier_array
from tilepipe.passes.pipelining.pipeline_validate import ValidatedLoop

REPORT_FORMATS = ("none", "text", "json")


def _buffer_name(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else "%<unnamed>"


def describe_loop(validated: ValidatedLoop) -> dict[str, Any]:
    """The report of one loop as plain data (what the JSON format prints)."""
    schedule, analysis = validated.schedule, validated.analysis
    loop = schedule.loop
    location = op_location(loop)
    statements = []
    for op in schedule.statements:
        written = [_buffer_name(a.buffer) for a in analysis.accesses(op) if a.writes and a.buffer]
        statements.append(
            {
                "op": op.name,
                "stage": schedule.stage(op),
                "order": schedule.order(op),
                "writes": written,
            }
        )
    buffers = [
        {
            "buffer": _buffer_name(v.buffer),
            "type": str(v.buffer.type),
            "def_stage": v.def_stage,
            "use_stage": v.use_stage,
            "upper_bound": v.upper_bound,
            "versions": v.versions,
            "tightened": v.tightened,
        }
        for v in validated.versions
    ]
    barrier_arrays = []
    for value in {a.buffer for a in analysis.all_accesses() if a.buffer is not None}:
        if is_mbarrier_array(value, loop):
            assert isinstance(value.type, MemRefType)
            count = value.type.get_shape()[0]
            barrier_arrays.append(
                {"buffer": _buffer_name(value), "slots": count, "expanded": schedule.depth * count}
            )
    return {
        "location": str(location) if location else None,
        "depth": schedule.depth,
        "max_stage": schedule.max_stage,
        "stage": list(schedule.stages),
        "order": list(schedule.orders),
        "statements": statements,
        "buffers": buffers,
        "mbarriers": sorted(barrier_arrays, key=lambda b: b["buffer"]),
    }


def format_report(loops: list[dict[str, Any]], fmt: str) -> str:
    if fmt == "json":
        return json.dumps({"pipelined_loops": loops}, indent=2) + "\n"
    return "".join(_format_text(loop) for loop in loops)


def _format_text(loop: dict[str, Any]) -> str:
    where = f" at {loop['location']}" if loop["location"] else ""
    lines = [
        f"pipeline.for{where}: depth {loop['depth']}, max stage {loop['max_stage']}",
        f"  stage = {loop['stage']}  order = {loop['order']}",
        "  statements (stage, order):",
    ]
    for s in loop["statements"]:
        target = f" -> {', '.join(s['writes'])}" if s["writes"] else ""
        lines.append(f"    {s['op']}{target}  ({s['stage']}, {s['order']})")
    lines.append("  buffers:")
    for b in loop["buffers"]:
        use = "-" if b["use_stage"] is None else b["use_stage"]
        note = "  (tightened: no writer/reader pair crosses stages in order)" if b["tightened"] else ""
        lines.append(
            f"    {b['buffer']}  {b['type']}  def {b['def_stage']}  use {use}  "
            f"use-def+1 {b['upper_bound']}  versions {b['versions']}{note}"
        )
    for m in loop["mbarriers"]:
        lines.append(f"    {m['buffer']}  mbarriers {m['slots']} -> {m['expanded']} (per stage)")
    return "\n".join(lines) + "\n"
