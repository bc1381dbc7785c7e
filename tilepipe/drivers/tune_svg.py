"""``tilepipe tune --svg FILE``: the predicted kernel time of every configuration as a
bar chart, in the table's order.

A fitting configuration's bar is its kernel cycles on one scale, split into its waves
(the full waves, then the last one, alternately shaded), and annotated with its
occupancy (blocks per SM and what limits them), its waves with the SMs the last one
leaves idle, and the time; the pick is drawn in its own colour and marked ``*``.  A
rejected configuration shows why, in grey.  No plotting dependency: the SVG is
written as text, like the schedule simulator's Gantt chart
(:mod:`tilepipe.schedule_sim.svg`).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from tilepipe.drivers.tune_evaluate import Outcome
from tilepipe.drivers.tune_report import occupancy_cell
from tilepipe.schedule_sim.machine import wave_segments

_ROW = 22
_BAR_HEIGHT = 14
_MARGIN = 10
_TITLE = 40
_AXIS = 24
_CHAR = 6.7  # a monospace character at font-size 11
_BAR_AREA = 360
_NOTE_AREA = 300
_WAVE_COLOURS = ("#4e79a7", "#7fa6cf")
_CHOSEN_COLOURS = ("#e15759", "#f0989a")
_REJECTED = "#999999"
_MOST_DRAWN_WAVES = 64  # beyond that a run of full waves is one box


def _bar(outcome: Outcome, chosen: bool, left: float, top: float, scale: float) -> list[str]:
    prediction = outcome.prediction
    colours = _CHOSEN_COLOURS if chosen else _WAVE_COLOURS
    out: list[str] = []
    x, index = left, 0
    for count, cycles in wave_segments(prediction):
        runs = [cycles] * count if count <= _MOST_DRAWN_WAVES else [cycles * count]
        for run in runs:
            width = run * scale
            tip = f"wave {index + 1}: {run} cycles" if len(runs) == count else f"{count} waves of {cycles} cycles"
            out.append(
                f'<rect x="{x:.1f}" y="{top}" width="{max(width, 0.5):.1f}" height="{_BAR_HEIGHT}" '
                f'fill="{colours[index % 2]}" stroke="white" stroke-width="0.5">'
                f"<title>{escape(tip)}</title></rect>"
            )
            x += width
            index += 1
    return out


def _note(outcome: Outcome) -> str:
    prediction = outcome.prediction
    parts = [occupancy_cell(prediction), f"{prediction.waves} wave{'s' * (prediction.waves != 1)}"]
    if prediction.idle_in_last_wave:
        parts.append(f"{prediction.idle_in_last_wave} {prediction.processor}s idle")
    if outcome.seconds is not None:
        parts.append(f"{outcome.seconds * 1e6:.1f} µs")
    if outcome.cached:
        parts.append("cached")
    return " · ".join(parts)


def tune_svg(outcomes: Sequence[Outcome], chosen: Outcome | None, title: str) -> str:
    """The chart of ``outcomes`` (``title``: the model line)."""
    labels = [("* " if o is chosen else "  ") + o.config.label for o in outcomes]
    label_width = _MARGIN + _CHAR * max((len(label) for label in labels), default=10)
    width = int(label_width + _BAR_AREA + _NOTE_AREA + 2 * _MARGIN)
    longest = max((o.prediction.cycles for o in outcomes if o.fits and o.prediction), default=0) or 1
    scale = _BAR_AREA / longest
    left = label_width + _MARGIN
    body: list[str] = [
        f'<text x="{_MARGIN}" y="16" font-weight="bold">predicted kernel time per configuration</text>',
        f'<text x="{_MARGIN}" y="32">{escape(title)}</text>',
    ]
    for row, (outcome, label) in enumerate(zip(outcomes, labels)):
        top = _TITLE + row * _ROW
        is_chosen = outcome is chosen
        weight = ' font-weight="bold"' if is_chosen else ""
        body.append(f'<text x="{_MARGIN}" y="{top + 11}"{weight} xml:space="preserve">{escape(label)}</text>')
        if outcome.fits and outcome.prediction is not None:
            body.extend(_bar(outcome, is_chosen, left, top, scale))
            note_x = left + outcome.prediction.cycles * scale + 6
            body.append(f'<text x="{note_x:.1f}" y="{top + 11}">{escape(_note(outcome))}</text>')
        else:
            reason = outcome.rejected or "not predicted"
            reason = reason if len(reason) <= 90 else reason[:87] + "..."
            body.append(
                f'<text x="{left}" y="{top + 11}" fill="{_REJECTED}">rejected: {escape(reason)}'
                f"<title>{escape(outcome.rejected or '')}</title></text>"
            )
    axis = _TITLE + len(outcomes) * _ROW + 4
    body.append(f'<line x1="{left}" y1="{axis}" x2="{left + _BAR_AREA}" y2="{axis}" stroke="#888888"/>')
    for tick in range(5):
        cycles = longest * tick // 4
        x = left + cycles * scale
        body.append(f'<text x="{x:.1f}" y="{axis + 14}" font-size="9" text-anchor="middle">{cycles}</text>')
    body.append(f'<text x="{left + _BAR_AREA + 8}" y="{axis + 14}" font-size="9">kernel cycles</text>')
    height = axis + _AXIS
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        'font-family="monospace" font-size="11">',
        *body,
        "</svg>",
    ]) + "\n"
