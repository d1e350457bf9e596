"""Console and Markdown renderings of a pairwise judge comparison (``compare --judge``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..judges import PairwiseCase, PairwiseComparison

#: what each outcome is called in reports
OUTCOME_WORDS = {
    "win": "new better",
    "loss": "base better",
    "tie": "tie",
    "position_biased": "tie (position-biased)",
    "inconsistent": "tie (inconsistent)",
    "error": "judge error",
}


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.0%}"


def _headline(p: PairwiseComparison) -> str:
    return (
        f"{p.wins} wins, {p.ties} ties, {p.losses} losses for the new run"
        f" ({p.judged} cases judged in both orders"
        + (f", {p.errors} judge errors" if p.errors else "")
        + ")"
    )


def _share(p: PairwiseComparison) -> str:
    if p.win_share is None:
        return "no decisive case: no win or loss is claimed"
    return (
        f"new run preferred in {_pct(p.win_share)} of decisive cases "
        f"({p.confidence:.0%} CI {_pct(p.low)}-{_pct(p.high)}), sign test p = {p.p_value:.3g}"
    )


def _bias(p: PairwiseComparison) -> str:
    side = ""
    if p.position_biased:
        side = f" ({p.favoured_first} for position A, {p.favoured_second} for B)"
    return (
        f"position bias {_pct(p.position_bias_rate)}: {p.position_biased} cases where the "
        f"verdict followed the position{side}; {p.inconsistent} inconsistent"
    )


def _scope(p: PairwiseComparison) -> str:
    what = "all shared cases" if p.scope == "all" else "cases whose verdict changed"
    cut = f", first {p.judged} judged" if p.judged < p.in_scope else ""
    return f"{p.in_scope} of {p.shared} shared cases in scope ({what}{cut})"


def _case_line(c: PairwiseCase) -> str:
    if c.outcome == "error":
        return f"{c.case_id}: judge error: {c.error}"
    return (
        f"{c.case_id}: {OUTCOME_WORDS[c.outcome]} "
        f"[base as A: {c.base_first}, new as A: {c.new_first}]"
    )


def pairwise_lines(p: PairwiseComparison, *, listed: int = 30) -> list[str]:
    """The comparison as console lines; the first ``listed`` decided or odd cases listed."""
    lines = [
        f"pairwise judge {p.judge}: {_headline(p)}",
        f"  {_share(p)}",
        f"  {_bias(p)}",
        f"  {_scope(p)}",
    ]
    shown = [c for c in p.cases if c.outcome != "tie"]
    for c in shown[:listed]:
        lines.append(f"  {_case_line(c)}")
    if len(shown) > listed:
        lines.append(f"  (+{len(shown) - listed} more)")
    return lines


def _md(text: str) -> str:
    from ._escape import md_cell

    return md_cell(text)


def pairwise_markdown(p: PairwiseComparison, *, listed: int = 30) -> str:
    """The comparison as a Markdown section (for a pull-request comment)."""
    out = [
        f"### Pairwise judge: `{_md(p.judge)}`",
        "",
        f"**{_headline(p)}**",
        "",
        f"- {_share(p)}",
        f"- {_bias(p)}",
        f"- {_scope(p)}",
    ]
    shown = [c for c in p.cases if c.outcome != "tie"]
    if shown:
        out += [
            "",
            "| case | outcome | base as A | new as A | new reply |",
            "|---|---|---|---|---|",
        ]
        for c in shown[:listed]:
            out.append(
                f"| `{_md(c.case_id)}` | {OUTCOME_WORDS[c.outcome]} | {c.base_first or '-'} "
                f"| {c.new_first or '-'} | {_md(c.error or c.new_reply)} |"
            )
        if len(shown) > listed:
            out.append(f"\n{len(shown) - listed} more cases not listed.")
    return "\n".join(out) + "\n"


__all__ = ["OUTCOME_WORDS", "pairwise_lines", "pairwise_markdown"]
