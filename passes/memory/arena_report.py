"""Reports of ``merge-shared-memory``: text and JSON tables, and an SVG picture.

Per arena: every buffer's live interval, versions x bytes, alignment and offset; the
arena size, the no-reuse sum (what ``disable-reuse`` would need, before alignment) and
the peak live bytes (a lower bound for any packing).  ``arena / peak`` is how close the
packing is to that bound; alignment gaps and fragmentation make it exceed 1.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from html import escape
from typing import Any

from tilepipe.passes.memory.arena_layout import ArenaLayout


def layout_record(layout: ArenaLayout) -> dict[str, Any]:
    return {
        "function": layout.function.sym_name.data,
        "space": layout.space.value,
        "target": layout.target,
        "budget": layout.budget,
        "reuse": layout.reuse,
        "arena_bytes": layout.size,
        "no_reuse_bytes": layout.no_reuse_bytes,
        "peak_live_bytes": layout.peak_live_bytes,
        "fits": layout.fits,
        "buffers": [
            {
                "name": b.name,
                "interval": [b.start, b.end],
                "versions": b.versions,
                "bytes_per_version": b.bytes_per_version,
                "bytes": b.bytes,
                "alignment": b.alignment,
                "offset": layout.offset(b),
            }
            for b in layout.buffers
        ],
    }


def json_report(layouts: Sequence[ArenaLayout]) -> str:
    return json.dumps({"arenas": [layout_record(l) for l in layouts]}, indent=2) + "\n"


def text_report(layouts: Sequence[ArenaLayout]) -> str:
    if not layouts:
        return "merge-shared-memory: no on-chip buffers\n"
    lines: list[str] = []
    for layout in layouts:
        record = layout_record(layout)
        ratio = layout.size / layout.peak_live_bytes if layout.peak_live_bytes else 1.0
        lines.append(
            f"arena @{record['function']} {layout.space.value} ({layout.target}"
            f"{'' if layout.reuse else ', reuse disabled'}): {layout.size} B, "
            f"budget {layout.budget} B [{'OK' if layout.fits else 'OVER'}], "
            f"no-reuse sum {layout.no_reuse_bytes} B, peak live "
            f"{layout.peak_live_bytes} B, arena/peak {ratio:.2f}"
        )
        lines.append(
            f"  {'buffer':16} {'live':>11} {'versions x bytes':>20} {'align':>6} "
            f"{'offset':>8}"
        )
        for b in sorted(layout.buffers, key=lambda b: (layout.offset(b), b.start)):
            interval = f"[{b.start}, {b.end}]"
            footprint = f"{b.versions} x {b.bytes_per_version}"
            lines.append(
                f"  {b.name:16} {interval:>11} {footprint:>20} {b.alignment:>6} "
                f"{layout.offset(b):>8}"
            )
    return "\n".join(lines) + "\n"


def render(layouts: Sequence[ArenaLayout], report_format: str) -> str:
    return json_report(layouts) if report_format == "json" else text_report(layouts)


def write(text: str, path: str | None) -> None:
    if path is None:
        sys.stderr.write(text)
    else:
        with open(path, "w") as f:
            f.write(text)


# --------------------------------------------------------------------------- picture

_PANEL_WIDTH = 640
_PANEL_HEIGHT = 320
_MARGIN = 60
_COLOURS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1")


def _panel(layout: ArenaLayout, top: int) -> list[str]:
    """One arena: program position to the right, byte offset upwards."""
    first = min(b.start for b in layout.buffers)
    last = max(b.end for b in layout.buffers) + 1
    height = max(layout.size, 1)  # the budget line shows only when it is exceeded
    x_scale = _PANEL_WIDTH / max(last - first, 1)
    y_scale = _PANEL_HEIGHT / height
    bottom = top + _PANEL_HEIGHT
    title = (
        f"@{layout.function.sym_name.data} {layout.space.value}: arena "
        f"{layout.size} B, peak live {layout.peak_live_bytes} B, budget {layout.budget} B"
    )
    parts = [
        f'<text x="{_MARGIN}" y="{top - 10}" font-size="13">{escape(title)}</text>',
        f'<rect x="{_MARGIN}" y="{top}" width="{_PANEL_WIDTH}" '
        f'height="{_PANEL_HEIGHT}" fill="none" stroke="#999"/>',
        f'<text x="{_MARGIN - 5}" y="{bottom}" font-size="10" '
        f'text-anchor="end">0</text>',
        f'<text x="{_MARGIN - 5}" y="{bottom - layout.size * y_scale + 10:.1f}" '
        f'font-size="10" text-anchor="end">{layout.size}</text>',
        f'<text x="{_MARGIN + _PANEL_WIDTH / 2}" y="{bottom + 18}" font-size="11" '
        f'text-anchor="middle">program position</text>',
    ]
    if layout.budget <= height:
        y = bottom - layout.budget * y_scale
        parts.append(
            f'<line x1="{_MARGIN}" y1="{y:.1f}" x2="{_MARGIN + _PANEL_WIDTH}" '
            f'y2="{y:.1f}" stroke="red" stroke-dasharray="4"/>'
        )
    for index, b in enumerate(layout.buffers):
        x = _MARGIN + (b.start - first) * x_scale
        width = max((b.end + 1 - b.start) * x_scale, 1.0)
        y = bottom - (layout.offset(b) + b.bytes) * y_scale
        box_height = max(b.bytes * y_scale, 1.0)
        label = f"{b.name} {b.versions}x{b.bytes_per_version} @{layout.offset(b)}"
        parts.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" '
            f'height="{box_height:.1f}" fill="{_COLOURS[index % len(_COLOURS)]}" '
            f'fill-opacity="0.6" stroke="black"><title>{escape(label)}</title></rect>'
        )
        parts.append(
            f'<text x="{x + 3:.1f}" y="{y + min(box_height, 14) - 3:.1f}" '
            f'font-size="10">{escape(label)}</text>'
        )
    return parts


def svg_picture(layouts: Sequence[ArenaLayout]) -> str:
    """Every arena as a panel with one box per buffer (x: live interval, y: bytes)."""
    panel_step = _PANEL_HEIGHT + 2 * _MARGIN
    width = _PANEL_WIDTH + 2 * _MARGIN
    height = max(len(layouts), 1) * panel_step
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="monospace">'
    ]
    if not layouts:
        parts.append(f'<text x="{_MARGIN}" y="{_MARGIN}">no on-chip buffers</text>')
    for index, layout in enumerate(layouts):
        parts.extend(_panel(layout, _MARGIN + index * panel_step))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
