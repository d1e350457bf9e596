"""The HTML run report's Scorers section: every suite scorer (judges, ``assert``, ``python:``
checks ...) with its mean on its own scale — the one its gate reads — and its pass rate."""

from __future__ import annotations

from ..metrics import Summary, scorer_scale
from ._dashboard_charts import esc
from ._fmt import rate, scale_text, scored_mean, suite_scorers

__all__ = ["scorers_section"]


def scorers_section(s: Summary) -> str:
    """``<section id="scorers">`` (empty without scorers)."""
    names = suite_scorers(s)
    if not names:
        return ""
    rows = []
    for name in names:
        st = s.scorers[name]
        cells = [
            f"<code>{esc(name)}</code>",
            esc(scored_mean(name, st.mean, st.scale)),
            esc(scale_text(scorer_scale(name, st.scale))),
            esc(rate(st.pass_rate, interval=False)),
            esc(str(st.uncertain or "")),
        ]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>\n")
    head = "".join(
        f"<th>{h}</th>" for h in ("scorer", "mean [95% CI]", "scale", "pass rate", "uncertain")
    )
    note = (
        '<p class="note">Each mean is on the scale its scores are read on (a 1–5 judge, a '
        "rubric's own), the same one its gate uses.</p>"
    )
    return (
        f'<section id="scorers">\n<h2>Scorers</h2>\n{note}<table class="num"><thead><tr>{head}'
        f"</tr></thead>\n<tbody>\n{''.join(rows)}</tbody></table>\n</section>\n"
    )
