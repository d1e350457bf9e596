"""Number and text formatting shared by the reports."""

from __future__ import annotations

from .._messages import printable
from ..metrics import Cost, Latency, Mean, Rate, Summary, mean_on_scale, scorer_scale


def pct(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.1f}%"


def rate(r: Rate, *, interval: bool = True) -> str:
    """``87.5% [80.1–92.4] (140/160)``; ``–`` when nothing was measured."""
    if r.value is None or r.low is None or r.high is None:
        return "–"
    text = f"{r.value * 100:.1f}%"
    if interval:
        text += f" [{r.low * 100:.1f}–{r.high * 100:.1f}]"
    return f"{text} ({r.passed}/{r.n})"


def ms(value: float | None) -> str:
    if value is None:
        return "–"
    if value >= 1000:
        return f"{value / 1000:.2f} s"
    if value < 10:
        return f"{value:.1f} ms"
    return f"{value:.0f} ms"


def mean(m: Mean, *, digits: int = 1, money: bool = False) -> str:
    if m.mean is None or m.low is None or m.high is None:
        return "–"
    if money:
        return f"${m.mean:.4f} [{m.low:.4f}–{m.high:.4f}]"
    return f"{m.mean:.{digits}f} [{m.low:.{digits}f}–{m.high:.{digits}f}]"


def latency(lat: Latency) -> tuple[str, str, str, str]:
    return ms(lat.p50), ms(lat.p90), ms(lat.p95), ms(lat.max)


def one_line(text: str, width: int = 160) -> str:
    # the lines joined, and what is left unprintable (ESC, a tab) shown as its escape
    flat = printable(" / ".join(line.strip() for line in text.splitlines() if line.strip()))
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def unit_value(value: float | None, unit: str) -> str:
    """A metric's value in its unit (rates as percentages)."""
    if value is None:
        return "–"
    if unit == "rate":
        return pct(value)
    if unit == "ms":
        return ms(value)
    if unit == "usd":
        return f"${value:.4f}"
    return f"{value:.0f}"


def unit_delta(value: float | None, unit: str) -> str:
    """A difference in its unit: ``+2.5 pts``, ``-120 ms``, ``+35 tokens``, ``+$0.0012``."""
    if value is None:
        return "–"
    if unit == "rate":
        return f"{value * 100:+.1f} pts"
    if unit == "ms":
        return f"{value:+.0f} ms"
    if unit == "usd":
        return f"{'+' if value >= 0 else '-'}${abs(value):.4f}"
    return f"{value:+.0f} {unit}"


def unit_interval(low: float | None, high: float | None, unit: str) -> str:
    if low is None or high is None:
        return ""
    if unit == "rate":
        return f"[{low * 100:+.1f}, {high * 100:+.1f}]"
    if unit == "usd":
        return f"[{low:+.4f}, {high:+.4f}]"
    return f"[{low:+.0f}, {high:+.0f}]"


def quality_rates(summary: Summary) -> list[tuple[str, Rate]]:
    """The headline quality rates every text report shows, in order, with their labels."""
    d = summary.diagnosis
    return [
        ("tool selection", summary.tool_selection.accuracy),
        ("arguments (strict)", summary.arguments_strict),
        ("behaviour (no-tool / clarify / refuse)", summary.behavior),
        ("task completion (multi-step)", summary.task_completion),
        ("goal completion (final state)", summary.overall.goal_completion),
        ("tool-call decision", d.call_decision_accuracy),
        ("intent recognition", d.intent_accuracy),
        ("clarification rate", d.clarification_rate),
        ("routing", d.routing_accuracy),
        ("skill", d.skill_accuracy),
        ("memory retention", d.memory_retention),
    ]


#: what a report prints for token counts no result reported (never 0)
NO_USAGE = "n/a (no usage reported)"


def tokens_in_out(cost: Cost, results: int) -> tuple[str, str]:
    """``(per result, total)`` of tokens in / out: ``n/a`` when no result reported usage, and
    the number of results that did when only some did (the means are over those)."""
    n = cost.input_tokens.n
    if not n:
        return NO_USAGE, "n/a"
    per = f"{cost.input_tokens.mean or 0:.0f} / {cost.output_tokens.mean or 0:.0f}"
    total = f"{cost.input_tokens.total:.0f} / {cost.output_tokens.total:.0f}"
    if n < results:
        total += f" ({n} of {results} results reported usage)"
    return per, total


#: the expectations' own scores (their rates are the quality rows); every other name in
#: ``summary.scorers`` is a suite scorer (a judge, ``assert``, a ``python:`` check ...)
EXPECTATION_SCORES = frozenset(
    {
        "tool_selection",
        "arguments",
        "order",
        "forbidden_tools",
        "max_calls",
        "behavior",
        "response_contains",
        "state",
        "bfcl",
    }
)


def suite_scorers(summary: Summary) -> list[str]:
    """The names of the suite scorers the run has scores of, sorted."""
    return sorted(n for n in summary.scorers if n not in EXPECTATION_SCORES)


def scale_text(scale: tuple[float, float]) -> str:
    """``1–5``: a scale as the reports name it."""
    return f"{scale[0]:g}–{scale[1]:g}"


def scored_mean(name: str, m: Mean, scale: tuple[float, float] | None, *, digits: int = 2) -> str:
    """A scorer's mean (``m``: of its 0..1 values) on the scale its scores are read on — the
    one gates use: ``3.00 [2.50–3.50] on 1–5`` for a 1..5 judge, ``0.75 [0.60–0.90]`` on 0..1."""
    bounds = scorer_scale(name, scale)
    text = mean(mean_on_scale(m, bounds), digits=digits)
    if text == "–" or bounds == (0.0, 1.0):
        return text
    return f"{text} on {scale_text(bounds)}"


#: a system prompt longer than this is cut in the tables (comparison.md has the full text)
PROMPT_WIDTH = 80


def prompt_text(system: str | None, width: int | None = PROMPT_WIDTH) -> str:
    """A member's system prompt as the reports show it: on one line, cut to ``width``
    characters (None: whole), or what it means when the member set none."""
    if system is None:
        return "(the suite's defaults.system)"
    if not system:
        return "(no system prompt)"
    line = " ".join(system.split())
    if width is None or len(line) <= width:
        return line
    return line[: width - 1] + "…"
