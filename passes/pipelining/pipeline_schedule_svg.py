"""The modulo schedule of pipelined loops as an SVG space-time diagram.

Drawn by ``inject-software-pipeline{report-svg=FILE}`` from the same per-loop records
its ``report=json`` prints (:func:`tilepipe.passes.pipelining.pipeline_report.describe_loop`), so
the picture shows exactly what the pass decided and nothing it would have to re-derive.

One panel per loop: a column per time slot, a row per iteration.  Statement ``s`` of
iteration ``i`` sits in slot ``i + stage(s)``; inside a slot, statements issue by
``order`` (the small number before each name).  A statement that writes a
multi-versioned buffer names the version it writes, ``i mod versions``.  The columns
are shaded by the part of the emitted code that runs them: the unrolled prologue
(slots before ``max stage``), the steady-state loop, the unrolled epilogue.  The
trip count is not part of the report (it may be dynamic), so the picture draws
``max stage + 2`` iterations: enough for every slot kind and two steady-state slots.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

_ROW_LABEL_WIDTH = 96
_MIN_SLOT_WIDTH = 150
_CHAR_WIDTH = 6.2  # of the 10-pixel monospace labels
_LINE = 16  # height of one statement box, and of one text line
_MARGIN = 20
_STAGE_COLOURS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1")
_PHASE_COLOURS = {"prologue": "#e8f0fb", "steady state": "#eaf6e6", "epilogue": "#fdf0e3"}


def _phase(slot: int, max_stage: int, iterations: int) -> str:
    if slot < max_stage:
        return "prologue"
    return "steady state" if slot < iterations else "epilogue"


def _label(statement: dict[str, Any], iteration: int, versions: dict[str, int]) -> str:
    """``copy → %A_s v1``: the op without its dialect, what it writes, which version."""
    targets = []
    for buffer in statement["writes"]:
        count = versions.get(buffer, 1)
        targets.append(f"{buffer} v{iteration % count}" if count > 1 else buffer)
    name = statement["op"].split(".", 1)[-1]
    return f"{name} → {', '.join(targets)}" if targets else name


def _stage_fill(stage: int) -> str:
    colour = _STAGE_COLOURS[stage % len(_STAGE_COLOURS)]
    return f'fill="{colour}" fill-opacity="0.75" stroke="black"'


def _slot_width(loop: dict[str, Any], versions: dict[str, int]) -> int:
    """Wide enough for the longest label (version numbers have one digit or more)."""
    longest = max(
        (len(f"{s['order']}: {_label(s, 0, versions)}") for s in loop["statements"]), default=0
    )
    return max(_MIN_SLOT_WIDTH, round(longest * _CHAR_WIDTH) + 16)


def _slot_columns(
    max_stage: int, iterations: int, grid_top: int, height: int, slot_width: int
) -> list[str]:
    """One shaded column per time slot, each part of the emitted code named once."""
    parts = []
    for slot in range(iterations + max_stage):
        phase = _phase(slot, max_stage, iterations)
        x = _MARGIN + _ROW_LABEL_WIDTH + slot * slot_width
        parts.append(
            f'<rect x="{x}" y="{grid_top}" width="{slot_width}" height="{height}" '
            f'fill="{_PHASE_COLOURS[phase]}" stroke="#bbb"/>'
        )
        parts.append(
            f'<text x="{x + slot_width / 2}" y="{grid_top - 4}" font-size="11" '
            f'text-anchor="middle">slot {slot}</text>'
        )
        if slot == 0 or _phase(slot - 1, max_stage, iterations) != phase:
            parts.append(
                f'<text x="{x + 4}" y="{grid_top - _LINE - 4}" font-size="11" '
                f'font-weight="bold">{phase}</text>'
            )
    return parts


def _iteration_row(
    loop: dict[str, Any], iteration: int, y: int, versions: dict[str, int], slot_width: int
) -> list[str]:
    """Iteration ``iteration``'s statements, each stage's in the slot it runs in."""
    left = _MARGIN + _ROW_LABEL_WIDTH
    parts = [
        f'<text x="{left - 6}" y="{y + _LINE}" font-size="11" '
        f'text-anchor="end">iteration {iteration}</text>'
    ]
    statements = sorted(loop["statements"], key=lambda s: s["order"])
    for stage in range(loop["max_stage"] + 1):
        x = left + (iteration + stage) * slot_width + 4
        in_stage = [s for s in statements if s["stage"] == stage]
        for line, statement in enumerate(in_stage):
            box_y = y + 4 + line * _LINE
            tip = (
                f"{statement['op']} of iteration {iteration}: stage {stage}, "
                f"order {statement['order']}, slot {iteration + stage}"
            )
            parts.append(
                f'<rect x="{x}" y="{box_y}" width="{slot_width - 8}" height="{_LINE - 2}" '
                f"{_stage_fill(stage)}><title>{escape(tip)}</title></rect>"
            )
            parts.append(
                f'<text x="{x + 3}" y="{box_y + _LINE - 6}" font-size="10">'
                f"{statement['order']}: {escape(_label(statement, iteration, versions))}</text>"
            )
    return parts


def _legend(loop: dict[str, Any], y: int) -> tuple[list[str], int]:
    """The stage colours, then the versioned buffers and mbarrier rings; and how many
    lines of text follow the colours."""
    left = _MARGIN + _ROW_LABEL_WIDTH
    parts = []
    for stage in range(loop["max_stage"] + 1):
        x = left + stage * 90
        parts.append(f'<rect x="{x}" y="{y - 10}" width="12" height="12" {_stage_fill(stage)}/>')
        parts.append(f'<text x="{x + 16}" y="{y}" font-size="11">stage {stage}</text>')
    lines = [
        f"{b['buffer']}: {b['versions']} version(s), written in stage {b['def_stage']}, "
        f"read until stage {'-' if b['use_stage'] is None else b['use_stage']}"
        for b in loop["buffers"]
        if b["versions"] > 1
    ]
    lines += [
        f"{m['buffer']}: {m['slots']} mbarrier(s) -> {m['expanded']} "
        f"(a ring of depth {loop['depth']})"
        for m in loop["mbarriers"]
    ]
    for index, text in enumerate(lines, 1):
        parts.append(
            f'<text x="{left}" y="{y + index * _LINE + 4}" font-size="11">{escape(text)}</text>'
        )
    return parts, len(lines)


def _panel(loop: dict[str, Any], top: int) -> tuple[list[str], int, int]:
    """The parts of one loop's diagram, and the width and height it takes."""
    max_stage = loop["max_stage"]
    iterations = max_stage + 2
    # A write names its version: i mod versions for a buffer, i mod depth for a ring.
    versions = {b["buffer"]: b["versions"] for b in loop["buffers"]}
    versions.update({m["buffer"]: loop["depth"] for m in loop["mbarriers"]})
    slot_width = _slot_width(loop, versions)
    per_stage = [sum(s["stage"] == st for s in loop["statements"]) for st in range(max_stage + 1)]
    row_height = max(per_stage) * _LINE + 8
    grid_top = top + 4 * _LINE
    grid_bottom = grid_top + iterations * row_height
    where = f" at {loop['location']}" if loop["location"] else ""
    title = (
        f"pipeline.for{where}: depth {loop['depth']}, max stage {max_stage}, "
        f"stage = {loop['stage']} order = {loop['order']}"
    )
    parts = [f'<text x="{_MARGIN}" y="{top + _LINE}" font-size="13">{escape(title)}</text>']
    parts += _slot_columns(max_stage, iterations, grid_top, grid_bottom - grid_top, slot_width)
    for iteration in range(iterations):
        y = grid_top + iteration * row_height
        parts += _iteration_row(loop, iteration, y, versions, slot_width)
    legend, text_lines = _legend(loop, grid_bottom + _LINE + 4)
    parts += legend
    width = 2 * _MARGIN + _ROW_LABEL_WIDTH + (iterations + max_stage) * slot_width
    return parts, width, (grid_bottom - top) + (text_lines + 2) * _LINE + 2 * _MARGIN


def schedule_svg(loops: Sequence[dict[str, Any]]) -> str:
    """Every loop of a ``describe_loop`` report as one space-time panel."""
    panels, top = [], _MARGIN
    width = 2 * _MARGIN + _ROW_LABEL_WIDTH + _MIN_SLOT_WIDTH
    for loop in loops:
        parts, panel_width, height = _panel(loop, top)
        panels.extend(parts)
        top += height
        width = max(width, panel_width)
    if not loops:
        panels.append(f'<text x="{_MARGIN}" y="{_MARGIN + _LINE}">no pipelined loops</text>')
        top += 2 * _LINE
    header = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{top}" '
        f'font-family="monospace">'
    )
    return "\n".join([header, *panels, "</svg>"]) + "\n"
