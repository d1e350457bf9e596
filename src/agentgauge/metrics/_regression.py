"""Gate checks against a baseline run: the regression rule (``max_regression_points``, else
the default: a statistically significant drop fails) and what was compared."""

from __future__ import annotations

from ..schema import Gates
from ._compare import Comparison, MetricDelta
from ._gate_model import GateBaseline, GateCheck

__all__ = ["baseline_of", "regression_rule", "regressions"]


def regression_rule(gates: Gates) -> str:
    """The rule a baseline is checked by, in words."""
    sig = f"exact McNemar p < {gates.alpha:g}"
    if gates.max_regression_points is None:
        return (
            f"the default: any statistically significant drop fails ({sig}; no "
            "max_regression_points set)"
        )
    rule = f"max_regression_points {gates.max_regression_points:g}"
    return rule + (f", only when significant ({sig})" if gates.require_significance else "")


def _measured(cmp: Comparison, metric: str) -> bool:
    """The metric has a delta to check: it was measured on the paired cases of both runs."""
    d = cmp.delta(metric)
    return d is not None and d.delta is not None


def baseline_of(cmp: Comparison, gates: Gates) -> GateBaseline:
    """What a gate given a baseline compared."""
    c = cmp.counts
    return GateBaseline(
        base_run=cmp.base_run,
        new_run=cmp.new_run,
        paired=cmp.paired,
        fixed=c.get("fixed", 0),
        broken=c.get("broken", 0),
        unchanged=c.get("unchanged_pass", 0) + c.get("unchanged_fail", 0),
        new=c.get("new", 0),
        removed=c.get("removed", 0),
        mcnemar_p=cmp.mcnemar_p,
        metrics=list(gates.regression_metrics),
        not_compared=[m for m in gates.regression_metrics if not _measured(cmp, m)],
        rule=regression_rule(gates),
        default_rule=gates.max_regression_points is None,
        notes=list(cmp.warnings),
    )


def regressions(cmp: Comparison, gates: Gates) -> list[GateCheck]:
    """One check per gated metric measured in both runs. Without ``max_regression_points``
    the default rule applies: a drop fails when it is statistically significant."""
    if cmp.paired == 0:
        return [
            GateCheck(
                name="regression: baseline",
                threshold="cases in common",
                actual="n/a (0 paired cases)",
                passed=False,
                message=f"the baseline {cmp.base_run} shares no case with this run, so no "
                "regression check could be made (is it a run of this suite?)",
            )
        ]
    explicit = gates.max_regression_points is not None
    limit = gates.max_regression_points if gates.max_regression_points is not None else 0.0
    significance = gates.require_significance or not explicit
    threshold = f"drop ≤ {limit:g} pts" if explicit else "no significant drop"
    out: list[GateCheck] = []
    for metric in gates.regression_metrics:
        d = cmp.delta(metric)
        if d is None or d.delta is None:  # named in GateBaseline.not_compared
            continue
        # a drop is bad, except for the error rate where a rise is bad
        drop = (d.delta if metric == "error_rate" else -d.delta) * 100
        regressed = drop > limit
        note = ""
        if regressed and significance and not _significant(cmp, metric, gates.alpha):
            regressed = False
            note = " (not statistically significant; not failing)"
        elif regressed and not explicit:
            note = f" (statistically significant at alpha {gates.alpha:g})"
        out.append(
            GateCheck(
                name=f"regression: {metric}",
                threshold=threshold,
                actual=_delta_text(d),
                passed=not regressed,
                message=f"{metric} moved {d.delta * 100:+.1f} points against the baseline{note}",
            )
        )
    return out


def _delta_text(d: MetricDelta) -> str:
    text = f"{(d.delta or 0.0) * 100:+.1f} pts"
    if d.low is not None and d.high is not None:
        text += f" [{d.low * 100:+.1f}, {d.high * 100:+.1f}]"
    if d.p_value is not None:
        text += f", McNemar p={d.p_value:.3g}"
    return text


def _significant(cmp: Comparison, metric: str, alpha: float) -> bool:
    """The exact McNemar test on the metric's per-case verdicts rejects "no change" at alpha.

    (The bootstrap interval is shown but not used here: with a handful of cases it is
    degenerate and would call a one-case change significant.)
    """
    d = cmp.delta(metric)
    p = cmp.mcnemar_p if metric == "pass_rate" or d is None or d.p_value is None else d.p_value
    return p < alpha
