"""The dashboard's pictures: the module radar (SVG), horizontal bars and pass-rate progress bars.

Every label is escaped here; values are numbers. Each element drawn for an agent carries
``data-agent="I"`` (I: the agent's position) so the page can hide an agent's marks at once.
A value that was not measured is ``None`` and is drawn as ``n/a``, never as a zero.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..metrics import Rate
from ._escape import html_text

__all__ = [
    "Bar",
    "BarGroup",
    "RadarAxis",
    "RadarSeries",
    "hbars",
    "progress",
    "radar_svg",
]

#: colours of the agents' series (the stylesheet defines ``--agd-c0`` ... ``--agd-c7``)
PALETTE = 8


def esc(value: object) -> str:
    return html_text(value)  # markup as entities, hidden characters (ESC, bidi) visible


def colour(agent: int) -> str:
    return f"agd-c{agent % PALETTE}"


@dataclass(frozen=True, kw_only=True)
class RadarAxis:
    #: the module the axis belongs to (perception, planning, memory, tool)
    group: str
    label: str


@dataclass(frozen=True, kw_only=True)
class RadarSeries:
    agent: int
    name: str
    #: one value in 0..1 per axis, ``None`` where the run measured nothing
    values: tuple[float | None, ...]


def _point(cx: float, cy: float, r: float, i: int, n: int) -> tuple[float, float]:
    angle = -math.pi / 2 + 2 * math.pi * i / n
    return cx + r * math.cos(angle), cy + r * math.sin(angle)


def radar_svg(axes: Sequence[RadarAxis], series: Sequence[RadarSeries]) -> str:
    """One polygon per agent over the axes it has a value on.

    An axis no agent has data for is drawn dashed with ``n/a`` in its label; an agent without a
    value on an axis the others have skips that vertex (its polygon joins the neighbours), and
    the table under the radar says ``n/a`` for it.
    """
    n = len(axes)
    width, height, radius = 620, 400, 140.0
    cx, cy = width / 2, height / 2 + 4
    measured = [any(s.values[i] is not None for s in series) for i in range(n)]
    out = [
        f'<svg class="agd-radar" viewBox="0 0 {width} {height}" role="img" '
        'aria-label="module-level rates per agent" xmlns="http://www.w3.org/2000/svg">'
    ]
    for ring in (0.25, 0.5, 0.75, 1.0):
        pts = " ".join(
            f"{x:.1f},{y:.1f}" for x, y in (_point(cx, cy, radius * ring, i, n) for i in range(n))
        )
        out.append(f'<polygon class="agd-ring" points="{pts}"/>')
        tx, ty = _point(cx, cy, radius * ring, 0, n)
        out.append(f'<text class="agd-tick" x="{tx + 4:.1f}" y="{ty + 4:.1f}">{ring:.0%}</text>')
    for i, axis in enumerate(axes):
        x, y = _point(cx, cy, radius, i, n)
        cls = "agd-axis" if measured[i] else "agd-axis agd-na"
        out.append(f'<line class="{cls}" x1="{cx:.1f}" y1="{cy:.1f}" x2="{x:.1f}" y2="{y:.1f}"/>')
        lx, ly = _point(cx, cy, radius + 22, i, n)
        anchor = "middle" if abs(lx - cx) < 8 else "start" if lx > cx else "end"
        label = f"{axis.group} · {axis.label}" + ("" if measured[i] else " (n/a)")
        out.append(
            f'<text class="{cls.replace("agd-axis", "agd-axis-label")}" x="{lx:.1f}" '
            f'y="{ly + 4:.1f}" text-anchor="{anchor}">{esc(label)}</text>'
        )
    for s in series:
        vertices = [
            (i, v, *_point(cx, cy, radius * v, i, n))
            for i, v in enumerate(s.values)
            if v is not None
        ]
        pts = " ".join(f"{x:.1f},{y:.1f}" for _, _, x, y in vertices)
        c = colour(s.agent)
        out.append(
            f'<g class="agd-series {c}" data-agent="{s.agent}">'
            f'<polygon class="agd-poly" points="{pts}"><title>{esc(s.name)}</title></polygon>'
        )
        for i, v, x, y in vertices:
            tip = f"{s.name}: {axes[i].group} · {axes[i].label} {v * 100:.1f}%"
            out.append(
                f'<circle class="agd-dot" cx="{x:.1f}" cy="{y:.1f}" r="3.5">'
                f"<title>{esc(tip)}</title></circle>"
            )
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)


@dataclass(frozen=True, kw_only=True)
class Bar:
    agent: int
    #: stacked parts (one part for a plain bar); empty when nothing was measured
    parts: tuple[float, ...] = ()
    #: a tick past the bar (the p95 over a p50 bar), or None
    whisker: float | None = None
    #: the numbers shown next to the bar
    text: str = ""
    #: the hover text
    title: str = ""


@dataclass(frozen=True, kw_only=True)
class BarGroup:
    label: str
    bars: list[Bar] = field(default_factory=list)


def hbars(groups: Sequence[BarGroup], *, names: Sequence[str], parts: Sequence[str] = ()) -> str:
    """Horizontal bars on one scale: a label per group, one bar per agent inside it.

    ``parts`` names the stacked parts (a legend is drawn when there are several). A bar with no
    parts reads ``n/a``.
    """
    top = 0.0
    for g in groups:
        for b in g.bars:
            top = max(top, sum(b.parts), b.whisker or 0.0)
    scale = top if top > 0 else 1.0
    rows: list[str] = []
    for g in groups:
        rows.append(f'<div class="agd-bgroup"><div class="agd-blabel">{esc(g.label)}</div>')
        for b in g.bars:
            c = colour(b.agent)
            title = esc(b.title or f"{names[b.agent]}: {b.text}")
            if not b.parts:
                track = '<span class="agd-na">n/a</span>'
            else:
                segs = "".join(
                    f'<span class="agd-seg agd-part{k}" style="width:{p / scale * 100:.2f}%">'
                    "</span>"
                    for k, p in enumerate(b.parts)
                )
                whisker = ""
                if b.whisker is not None:
                    whisker = (
                        f'<span class="agd-whisker" style="left:{b.whisker / scale * 100:.2f}%">'
                        "</span>"
                    )
                track = f'<span class="agd-fillrow">{segs}</span>{whisker}'
            rows.append(
                f'<div class="agd-brow {c}" data-agent="{b.agent}" title="{title}">'
                f'<span class="agd-bname">{esc(names[b.agent])}</span>'
                f'<span class="agd-track">{track}</span>'
                f'<span class="agd-bnum">{esc(b.text)}</span></div>'
            )
        rows.append("</div>")
    legend = ""
    if len(parts) > 1:
        legend = '<div class="agd-parts">' + "".join(
            f'<span><i class="agd-key agd-part{k}"></i>{esc(p)}</span>' for k, p in enumerate(parts)
        )
        legend += "</div>"
    return f'<div class="agd-bars">{legend}{"".join(rows)}</div>'


def progress(r: Rate, agent: int, name: str) -> str:
    """A pass-rate progress bar with its interval drawn over it; ``n/a`` when nothing scored."""
    c = colour(agent)
    head = f'<div class="agd-prow {c}" data-agent="{agent}">'
    label = f'<span class="agd-bname">{esc(name)}</span>'
    if r.value is None or r.low is None or r.high is None:
        return f'{head}{label}<span class="agd-track"><span class="agd-na">n/a</span></span></div>'
    lo, hi = r.low * 100, r.high * 100
    text = f"{r.value * 100:.1f}% ({r.passed}/{r.n})"
    tip = f"{name}: {text}, interval {lo:.1f}–{hi:.1f}%"
    return (
        f'{head}{label}<span class="agd-track" role="img" aria-label="{esc(tip)}" '
        f'title="{esc(tip)}"><span class="agd-seg" style="width:{r.value * 100:.2f}%"></span>'
        f'<span class="agd-ci" style="left:{lo:.2f}%;width:{hi - lo:.2f}%"></span></span>'
        f'<span class="agd-bnum">{esc(text)}</span></div>'
    )


def table(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    cls: str = "agd-table",
    *,
    col_agents: Sequence[int | None] = (),
    row_agents: Sequence[int | None] = (),
) -> str:
    """``rows`` hold escaped cell HTML; header cells are escaped here. ``col_agents`` /
    ``row_agents``: the agent of each header cell / row (``data-agent``, so hiding the agent
    hides its column or row too); None or missing: no agent's."""

    def attr(agents: Sequence[int | None], k: int) -> str:
        agent = agents[k] if k < len(agents) else None
        return "" if agent is None else f' data-agent="{agent}"'

    head = "".join(f"<th{attr(col_agents, k)}>{esc(h)}</th>" for k, h in enumerate(header))
    body = "".join(
        f"<tr{attr(row_agents, k)}>" + "".join(row) + "</tr>" for k, row in enumerate(rows)
    )
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
