"""The simulated schedule as an SVG Gantt chart.

One lane per unit (copy engine, compute; a block barrier spans both), time on the x
axis in cycles; an async copy's issue is a box, its flight a thin bar until it lands.
The background is shaded by the part of the code each cycle belongs
to (prologue / steady-state loop / epilogue: the phase of the first op that starts in
it), a wait or commit is a tick on its unit, and a barrier is a hatched box across the
lanes it joins.  Several reports side by side (``panels``) share one time scale, so a
``num_stages`` comparison reads at a glance.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from tilepipe.schedule_sim.model import COMPUTE, COPY, ScheduleReport
from tilepipe.schedule_sim.trace import StepKind

_LANES = (COPY, COMPUTE)
_LABEL = 80
_LANE_HEIGHT = 28
_TITLE = 22
_AXIS = 18
_MARGIN = 10
_WIDTH = 900
_UNIT_COLOURS = {COPY: "#4e79a7", COMPUTE: "#59a14f"}
_PHASE_COLOURS = {"prologue": "#e8f0fb", "steady": "#eaf6e6", "epilogue": "#fdf0e3"}
_BARRIER = "#e15759"
_SYNC = "#444444"


def _panel(report: ScheduleReport, title: str, top: float, scale: float) -> list[str]:
    out: list[str] = []
    lanes_top = top + _TITLE
    height = _LANE_HEIGHT * len(_LANES)
    x = lambda t: _MARGIN + _LABEL + t * scale  # noqa: E731

    # Phase shading: from the first start of a phase to the first start of the next.
    starts: list[tuple[int, str]] = []
    for span in sorted(report.timeline, key=lambda s: (s.start, s.item.index)):
        phase = report.phases.get(span.item.index, "steady")
        if not starts or starts[-1][1] != phase:
            starts.append((span.start, phase))
    for (begin, phase), following in zip(starts, [*starts[1:], (report.total_cycles, "")]):
        out.append(
            f'<rect x="{x(begin):.1f}" y="{lanes_top}" width="{(following[0] - begin) * scale:.1f}" '
            f'height="{height}" fill="{_PHASE_COLOURS[phase]}"><title>{phase}</title></rect>'
        )
    out.append(
        f'<text x="{_MARGIN}" y="{top + 15}" font-weight="bold">{escape(title)}: '
        f"{escape(report.summary())}</text>"
    )
    for row, lane in enumerate(_LANES):
        y = lanes_top + row * _LANE_HEIGHT
        out.append(f'<text x="{_MARGIN}" y="{y + 18}">{lane}</text>')
        out.append(
            f'<line x1="{x(0):.1f}" y1="{y + _LANE_HEIGHT}" x2="{x(report.total_cycles):.1f}" '
            f'y2="{y + _LANE_HEIGHT}" stroke="#cccccc"/>'
        )
    for span in report.timeline:
        step = span.item
        tip = escape(
            f"{step.op.name} [{span.start}, {span.end})"
            + "".join(f" {name}={value}" for name, value in step.iteration)
        )
        rows = [_LANES.index(lane) for lane in span.lanes]
        y = lanes_top + min(rows) * _LANE_HEIGHT + 3
        h = (max(rows) - min(rows) + 1) * _LANE_HEIGHT - 6
        if step.kind == StepKind.BARRIER:
            out.append(
                f'<rect x="{x(span.start):.1f}" y="{y}" width="{max(span.end - span.start, 1) * scale:.1f}" '
                f'height="{h}" fill="url(#hatch)" stroke="{_BARRIER}"><title>{tip}</title></rect>'
            )
        elif step.kind in (StepKind.WAIT, StepKind.SIGNAL):
            colour = _BARRIER if step.kind == StepKind.WAIT else _SYNC
            out.append(
                f'<line x1="{x(span.start):.1f}" y1="{y}" x2="{x(span.start):.1f}" y2="{y + h}" '
                f'stroke="{colour}" stroke-width="1.5"><title>{tip}</title></line>'
            )
        else:
            fill = _UNIT_COLOURS[span.lanes[0]]
            landed = report.landed.get(step.index, span.end)
            if landed > span.end:  # an async copy in flight: a thin bar until it lands
                out.append(
                    f'<rect x="{x(span.start):.1f}" y="{y + h - 5}" '
                    f'width="{(landed - span.start) * scale:.1f}" height="4" fill="{fill}" '
                    f'opacity="0.35"><title>{tip} in flight until {landed}</title></rect>'
                )
            out.append(
                f'<rect x="{x(span.start):.1f}" y="{y}" width="{max(span.end - span.start, 1) * scale:.1f}" '
                f'height="{h}" fill="{fill}" stroke="white" stroke-width="0.5"><title>{tip}</title></rect>'
            )
    axis = lanes_top + height + 12
    ticks = max(1, report.total_cycles // 8)
    for t in range(0, report.total_cycles + 1, ticks):
        out.append(f'<text x="{x(t):.1f}" y="{axis}" font-size="9" text-anchor="middle">{t}</text>')
    return out


def schedule_svg(panels: Sequence[tuple[str, ScheduleReport]]) -> str:
    """An SVG with one Gantt panel per (title, report), on a shared time scale."""
    longest = max((r.total_cycles for _, r in panels), default=1) or 1
    scale = (_WIDTH - _LABEL - 2 * _MARGIN) / longest
    panel_height = _TITLE + _LANE_HEIGHT * len(_LANES) + _AXIS + _MARGIN
    body: list[str] = []
    for index, (title, report) in enumerate(panels):
        body.extend(_panel(report, title, _MARGIN + index * panel_height, scale))
    height = 2 * _MARGIN + panel_height * len(panels)
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{height}" '
            'font-family="monospace" font-size="11">',
            '<defs><pattern id="hatch" width="4" height="4" patternUnits="userSpaceOnUse" '
            f'patternTransform="rotate(45)"><rect width="2" height="4" fill="{_BARRIER}" '
            'opacity="0.6"/></pattern></defs>',
            *body,
            "</svg>",
        ]
    ) + "\n"
