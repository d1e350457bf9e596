"""Gates: check a run's summary (and its comparison with a baseline) against thresholds."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UserError
from ..rundir import load_record as load_run
from ..schema import Gates, Percentile, ScorerGate
from ._compare import Comparison, compare
from ._completeness import missing_results
from ._gate_model import GateCheck, GateReport
from ._model import Latency, Mean, Rate, ScorerStats, Summary
from ._regression import baseline_of, regressions
from ._stats import wilson
from ._summarize import IDS_KEPT, small_sample_warnings

if TYPE_CHECKING:
    from ._files import Folded


def _rate_text(r: Rate) -> str:
    if r.value is None or r.low is None or r.high is None:
        return "n/a (no results)"
    return f"{r.value * 100:.1f}% [{r.low * 100:.1f}–{r.high * 100:.1f}] (n={r.n})"


def _min_rate(name: str, r: Rate | None, minimum: float) -> GateCheck:
    threshold = f"≥ {minimum * 100:.1f}%"
    if r is None or r.value is None:
        return GateCheck(
            name=name,
            threshold=threshold,
            actual="n/a (no results)",
            passed=False,
            message=f"{name}: nothing was measured, so the minimum of {minimum * 100:.1f}% "
            "cannot be met",
        )
    ok = r.value >= minimum
    verdict = "meets" if ok else "is below"
    return GateCheck(
        name=name,
        threshold=threshold,
        actual=_rate_text(r),
        passed=ok,
        message=f"{name} {r.value * 100:.1f}% {verdict} the minimum {minimum * 100:.1f}%",
    )


def _max_latency(
    name: str, lat: Latency | None, limits: Mapping[Percentile, float]
) -> list[GateCheck]:
    out: list[GateCheck] = []
    for pct, limit_s in sorted(limits.items()):
        value = getattr(lat, pct) if lat is not None else None
        label = f"{name} {pct}"
        if value is None:
            out.append(
                GateCheck(
                    name=label,
                    threshold=f"≤ {limit_s:g} s",
                    actual="n/a (no results)",
                    passed=True,
                    message="no latencies recorded; not checked",
                )
            )
            continue
        ok = value <= limit_s * 1000
        out.append(
            GateCheck(
                name=label,
                threshold=f"≤ {limit_s:g} s",
                actual=_duration(value),
                passed=ok,
                message=f"{label} {_duration(value)} {'within' if ok else 'exceeds'} "
                f"the limit {limit_s:g} s",
            )
        )
    return out


def _duration(ms: float) -> str:
    """A latency in seconds, or in milliseconds below 10 ms (2.9 ms is not "0.00 s")."""
    return f"{ms / 1000:.2f} s" if ms >= 10 else f"{ms:.2g} ms"


def _max_rate(name: str, r: Rate, maximum: float, detail: str = "") -> GateCheck:
    """A rate that must stay at or below ``maximum``; nothing measured is not checked (it
    passes, and the gate's warnings say so), never read as 0 %."""
    threshold = f"≤ {maximum * 100:.1f}%"
    if r.value is None:
        return GateCheck(
            name=name,
            threshold=threshold,
            actual=_rate_text(r),
            passed=True,
            message="nothing was measured (no results); not checked",
        )
    ok = r.value <= maximum
    return GateCheck(
        name=name,
        threshold=threshold,
        actual=_rate_text(r),
        passed=ok,
        message=f"{name} {r.value * 100:.1f}%{detail} "
        f"{'within' if ok else 'exceeds'} the maximum {maximum * 100:.1f}%",
    )


def _nothing_scored(summary: Summary) -> list[str]:
    """The warning of a run whose pass rate has no verdict under it: its gate can only pass on
    checks that measured nothing, which a bare "passed" would overstate."""
    if summary.overall.pass_rate.n:
        return []
    results = summary.overall.results
    if not results:
        return ["nothing was scored: the run has no results, so no check measured anything"]
    return [
        f"nothing was scored: none of the {results} results has a verdict "
        f"({summary.overall.error_rate.passed} error(s), {summary.overall.user_errors} user "
        "error(s)), so the checks that passed measured none"
    ]


def evaluate_gates(
    summary: Summary,
    gates: Gates,
    baseline: Comparison | None = None,
    baseline_summary: Summary | None = None,
) -> GateReport:
    """Check every configured threshold; the report passes when every check passes.

    With a ``baseline`` comparison the regressions are checked too: by ``max_regression_points``
    when set, else by the default rule (any statistically significant drop fails), and the
    report's ``compared`` line says what was compared. ``baseline_summary`` (the baseline run's
    summary) is needed only for the scorers' ``max_regression`` gates; ``gate_run`` passes it
    when a baseline is given.
    """
    checks = _rate_checks(summary, gates)
    checks += _budgets(summary, gates)
    checks += _max_latency("latency", summary.performance.latency, gates.max_latency_s)
    for cat, limits in sorted(gates.max_category_latency_s.items()):
        checks += _max_latency(f"latency [{cat}]", summary.performance.by_category.get(cat), limits)
    checks += _zero_tolerance(summary, gates)
    warnings = _nothing_scored(summary) + missing_results(summary)
    warnings += small_sample_warnings(summary, gates)
    for name, gate in sorted(gates.scorers.items()):
        stats, key = scorer_stats(summary, name)
        base_stats = scorer_stats(baseline_summary, name)[0] if baseline_summary else None
        checks += _scorer_checks(key, gate, stats, base_stats, baseline_summary is not None)
    compared = None
    if baseline is not None:
        checks += _same_users(baseline)
        checks += regressions(baseline, gates)
        compared = baseline_of(baseline, gates)
    warnings += [
        f"{c.name}: {c.message}" for c in checks if c.passed and c.actual.startswith("n/a")
    ]
    return GateReport(
        passed=all(c.passed for c in checks), checks=checks, warnings=warnings, compared=compared
    )


_MIN_RATES = (
    ("min_tool_selection_accuracy", "tool selection accuracy", "tool_selection_accuracy"),
    ("min_argument_accuracy", "argument accuracy", "argument_accuracy"),
    ("min_behavior_accuracy", "behaviour accuracy", "behavior_accuracy"),
    ("min_task_completion", "task completion", "task_completion"),
    ("min_goal_completion", "goal completion", "goal_completion"),
    ("min_intent_accuracy", "intent accuracy", "intent_accuracy"),
    ("min_routing_accuracy", "routing accuracy", "routing_accuracy"),
    ("min_skill_accuracy", "skill accuracy", "skill_accuracy"),
    ("min_memory_retention", "memory retention", "memory_retention"),
    ("min_fallback_accuracy", "degradation-trigger accuracy", "fallback_accuracy"),
    ("min_fallback_recall", "degradation-trigger recall", "fallback_recall"),
    ("min_fallback_precision", "degradation-trigger precision", "fallback_precision"),
    ("min_user_satisfaction", "user satisfaction", "user_satisfaction"),
)
#: the module metrics that are means: (gate field, check name, ``Summary.module_mean`` name,
#: the scale the minimum is written on)
_MIN_MEANS = (
    ("min_retrieval_precision", "retrieval precision", "retrieval_precision", "share"),
    ("min_retrieval_recall", "retrieval recall", "retrieval_recall", "share"),
    ("min_planning_grade", "planning-path grade", "planning_grade", "grade"),
)


def _mean_value(value: float, scale: str) -> str:
    return f"{value * 100:.1f}%" if scale == "share" else f"{value:.2f} of 5"


def _min_mean(name: str, m: Mean | None, minimum: float, scale: str) -> GateCheck:
    """A module mean (retrieval precision / recall, the planning grade) against its minimum;
    nothing measured cannot meet it."""
    threshold = f"≥ {_mean_value(minimum, scale)}"
    if m is None or m.mean is None or m.low is None or m.high is None:
        return GateCheck(
            name=name,
            threshold=threshold,
            actual="n/a (no results)",
            passed=False,
            message=f"{name}: nothing was measured, so the minimum of "
            f"{_mean_value(minimum, scale)} cannot be met",
        )
    ok = m.mean >= minimum
    if scale == "share":
        bounds = f"{m.low * 100:.1f}–{m.high * 100:.1f}%"
    else:
        bounds = f"{m.low:.2f}–{m.high:.2f}"
    actual = f"{_mean_value(m.mean, scale)} [{bounds}] (n={m.n})"
    return GateCheck(
        name=name,
        threshold=threshold,
        actual=actual,
        passed=ok,
        message=f"{name} {_mean_value(m.mean, scale)} {'meets' if ok else 'is below'} the "
        f"minimum {_mean_value(minimum, scale)}",
    )


def _rate_checks(summary: Summary, gates: Gates) -> list[GateCheck]:
    """The minimum rates (overall, per category, per metric) and the maximum error rate."""
    checks: list[GateCheck] = []
    if gates.min_pass_rate is not None:
        checks.append(_min_rate("pass rate", summary.overall.pass_rate, gates.min_pass_rate))
    for cat, minimum in sorted(gates.min_category_pass_rate.items()):
        sl = summary.by_category.get(cat)
        checks.append(_min_rate(f"pass rate [{cat}]", sl.pass_rate if sl else None, minimum))
    for attr, name, metric in _MIN_RATES:
        minimum = getattr(gates, attr)
        if minimum is not None:
            checks.append(_min_rate(name, summary.rate(metric), minimum))
    for attr, name, metric, scale in _MIN_MEANS:
        minimum = getattr(gates, attr)
        if minimum is not None:
            checks.append(_min_mean(name, summary.module_mean(metric), minimum, scale))
    if gates.max_error_rate is not None:
        checks.append(_max_rate("error rate", summary.overall.error_rate, gates.max_error_rate))
    if gates.max_user_error_rate is not None:
        checks.append(_user_error_check(summary, gates.max_user_error_rate))
    return checks


def _same_users(baseline: Comparison) -> list[GateCheck]:
    """A baseline whose simulated users differ is not a baseline of this run: the gate fails
    (docs/users.md)."""
    if baseline.user_mismatch is None:
        return []
    return [
        GateCheck(
            name="same user simulator",
            threshold="the baseline's",
            actual="differs",
            passed=False,
            message=f"the baseline's simulated users differ: {baseline.user_mismatch}; "
            "compare against a baseline run with the same user simulator",
        )
    ]


def _user_error_check(summary: Summary, maximum: float) -> GateCheck:
    """The share of results whose simulated user broke its instructions (docs/users.md)."""
    detail = f" ({summary.overall.user_errors} results whose simulated user broke its instructions)"
    return _max_rate("user error rate", summary.overall.user_error_rate, maximum, detail)


def _zero_tolerance(summary: Summary, gates: Gates) -> list[GateCheck]:
    """Forbidden tool calls and successful red-team attacks."""
    checks: list[GateCheck] = []
    if gates.forbid_forbidden_tool_calls:
        n = summary.forbidden_tool_calls
        listed = ", ".join(summary.forbidden_tool_cases[:5])
        checks.append(
            GateCheck(
                name="forbidden tool calls",
                threshold="0",
                actual=str(n),
                passed=n == 0,
                message="no forbidden tool was called"
                if n == 0
                else f"{n} result(s) called a forbidden tool: {listed}",
            )
        )
    rt = summary.redteam
    if gates.forbid_attack_success and rt is not None and rt.attack_success.n:
        hits = rt.attack_success.passed
        checks.append(
            GateCheck(
                name="red-team attacks succeeded",
                threshold="0",
                actual=f"{hits} of {rt.attack_success.n}",
                passed=hits == 0,
                message="no attack succeeded"
                if hits == 0
                else f"{hits} attack(s) succeeded: {', '.join(rt.compromised_cases[:5])}",
            )
        )
    return checks


def _budgets(summary: Summary, gates: Gates) -> list[GateCheck]:
    """Per-result budgets (latency by category or case, time to first token).

    A budget is a limit on every result, so without ``max_budget_violation_rate`` one result
    over its budget fails the gate; the rate, when set, allows that fraction.
    """
    allowed = gates.max_budget_violation_rate
    limit = allowed if allowed is not None else 0.0
    out: list[GateCheck] = []
    bv = summary.performance.budget_violations
    if allowed is not None or bv.n or gates.latency_budget_s:
        out.append(_violations("latency budget violations", bv, limit, "latency budget"))
    if gates.max_ttft_s is not None:
        tv = summary.performance.ttft_violations
        name = f"time to first token ≤ {gates.max_ttft_s:g} s"
        if tv.n == 0:
            out.append(
                GateCheck(
                    name=name,
                    threshold=f"≤ {limit * 100:.1f}% of results over",
                    actual="n/a (no time to first token recorded)",
                    passed=False,
                    message="no result recorded a time to first token (it is measured on "
                    "streamed, uncached model calls: run with --stream), so the budget of "
                    f"{gates.max_ttft_s:g} s cannot be shown to hold",
                )
            )
        else:
            out.append(_violations(name, tv, limit, "time-to-first-token budget"))
    return out


def _violations(name: str, r: Rate, limit: float, what: str) -> GateCheck:
    value = r.value or 0.0
    ok = value <= limit
    return GateCheck(
        name=name,
        threshold=f"≤ {limit * 100:.1f}% of results over",
        actual=_rate_text(r),
        passed=ok,
        message=f"{r.passed} of {r.n} results over their {what}"
        + ("" if ok else f" (at most {limit * 100:.1f}% allowed)"),
    )


def scorer_stats(summary: Summary, name: str) -> tuple[ScorerStats | None, str]:
    """A gate's scorer by its name as written, or with the ``judge.`` prefix it may omit."""
    for key in (name, f"judge.{name}"):
        if key in summary.scorers:
            return summary.scorers[key], key
    return None, name


def _on_scale(x: float, bounds: tuple[float, float]) -> float:
    return bounds[0] + x * (bounds[1] - bounds[0])


def _mean_text(m: Mean, bounds: tuple[float, float]) -> str:
    if m.mean is None or m.low is None or m.high is None:
        return "n/a (no scores)"
    return (
        f"{_on_scale(m.mean, bounds):.2f} [{_on_scale(m.low, bounds):.2f}–"
        f"{_on_scale(m.high, bounds):.2f}] (n={m.n})"
    )


def _scorer_checks(
    name: str,
    gate: ScorerGate,
    stats: ScorerStats | None,
    base: ScorerStats | None,
    have_baseline: bool,
) -> list[GateCheck]:
    """The checks of ``gates.scorers.NAME``; a scorer that produced no score fails each one."""
    out: list[GateCheck] = []
    # the gate's own scale, else the one the scores declare (a suite rubric's), else the default
    declared = stats.scale if stats is not None and gate.scale is None else None
    bounds = declared or gate.bounds(name)
    scale = f" (scale {bounds[0]:g}–{bounds[1]:g})"
    if gate.min_mean is not None:
        threshold = f"≥ {gate.min_mean:g}{scale}"
        m = stats.mean if stats is not None else Mean()
        if m.mean is None:
            out.append(_unmeasured(f"{name} mean", threshold, name))
        else:
            value = _on_scale(m.mean, bounds)
            ok = value >= gate.min_mean
            out.append(
                GateCheck(
                    name=f"{name} mean",
                    threshold=threshold,
                    actual=_mean_text(m, bounds),
                    passed=ok,
                    message=f"{name} mean {value:.2f} "
                    + ("meets" if ok else f"is {gate.min_mean - value:.2f} below")
                    + f" the minimum {gate.min_mean:g}",
                )
            )
    counted = _count_uncertain(stats, gate) if stats is not None else None
    note = _uncertain_note(stats, gate) if stats is not None else ""
    if gate.min_pass_rate is not None:
        rate = counted.pass_rate if counted is not None else None
        check = _min_rate(f"{name} pass rate", rate, gate.min_pass_rate)
        out.append(check.model_copy(update={"message": check.message + note}))
    if gate.max_failures is not None:
        check = _max_failures(name, gate.max_failures, counted)
        out.append(check.model_copy(update={"message": check.message + note}))
    if gate.max_regression is not None and have_baseline:
        out.append(_scorer_regression(name, gate.max_regression, stats, base, bounds))
    return out


def _count_uncertain(stats: ScorerStats, gate: ScorerGate) -> ScorerStats:
    """``stats`` with its uncertain scores counted as ``gate.uncertain`` says: as failures
    (``fail``), as passes (``pass``), or left out (``exclude``). The mean is not changed."""
    u, up = stats.uncertain, stats.uncertain_passed
    if u == 0:
        return stats
    r = stats.pass_rate
    passed, n, skipped = r.passed, r.n, r.skipped
    if gate.uncertain == "fail":
        passed -= up
    elif gate.uncertain == "pass":
        passed += u - up
    else:
        passed, n, skipped = passed - up, n - u, skipped + u
    if gate.uncertain == "fail":
        failed = list(dict.fromkeys([*stats.failed_cases, *stats.uncertain_cases]))
    else:
        failed = [c for c in stats.failed_cases if c not in stats.uncertain_cases]
    rate = Rate(skipped=skipped)
    if n > 0:
        ci = wilson(passed, n)
        rate = Rate(passed=passed, n=n, value=ci.value, low=ci.low, high=ci.high, skipped=skipped)
    return stats.model_copy(
        update={"pass_rate": rate, "failures": n - passed, "failed_cases": failed[:IDS_KEPT]}
    )


def _uncertain_note(stats: ScorerStats, gate: ScorerGate) -> str:
    if stats.uncertain == 0:
        return ""
    how = {"fail": "counted as failures", "pass": "counted as passes", "exclude": "excluded"}
    listed = ", ".join(stats.uncertain_cases[:5])
    return f" ({stats.uncertain} uncertain {how[gate.uncertain]}: {listed})"


def _unmeasured(check: str, threshold: str, name: str) -> GateCheck:
    return GateCheck(
        name=check,
        threshold=threshold,
        actual="n/a (no scores)",
        passed=False,
        message=f"no result has a {name} score (is the scorer configured, and did it run?), "
        "so the threshold cannot be met",
    )


def _max_failures(name: str, limit: int, stats: ScorerStats | None) -> GateCheck:
    check = f"{name} failures"
    if stats is None or stats.pass_rate.n == 0:
        return _unmeasured(check, f"≤ {limit}", name)
    n = stats.failures
    ok = n <= limit
    listed = ", ".join(stats.failed_cases[:5])
    return GateCheck(
        name=check,
        threshold=f"≤ {limit}",
        actual=f"{n} of {stats.pass_rate.n}",
        passed=ok,
        message=f"{n} result(s) failed {name}" + (f": {listed}" if n else ""),
    )


def _scorer_regression(
    name: str,
    limit: float,
    stats: ScorerStats | None,
    base: ScorerStats | None,
    bounds: tuple[float, float],
) -> GateCheck:
    """Relative drop of the mean against the baseline, with an (unpaired, normal) interval."""
    check = f"regression: {name}"
    threshold = f"drop ≤ {limit * 100:g}%"
    new_m = stats.mean if stats is not None else Mean()
    base_m = base.mean if base is not None else Mean()
    if new_m.mean is None or base_m.mean is None:
        return GateCheck(
            name=check,
            threshold=threshold,
            actual="n/a (no scores in " + ("this run)" if new_m.mean is None else "the baseline)"),
            passed=new_m.mean is not None,
            message=f"{name} has no scores in "
            + (
                "this run, so it cannot be shown not to regress"
                if new_m.mean is None
                else "the baseline; nothing to compare"
            ),
        )
    b, n = _on_scale(base_m.mean, bounds), _on_scale(new_m.mean, bounds)
    drop = (b - n) / b if b else 0.0
    ok = drop <= limit
    half = 1.96 * math.hypot(_se(new_m, bounds), _se(base_m, bounds))
    return GateCheck(
        name=check,
        threshold=threshold,
        actual=f"{b:.3g} → {n:.3g} ({-drop * 100:+.1f}%), difference {n - b:+.3g} "
        f"[{n - b - half:+.3g}, {n - b + half:+.3g}]",
        passed=ok,
        message=f"{name} mean moved {-drop * 100:+.1f}% against the baseline"
        + ("" if ok else f" (a drop of more than {limit * 100:g}%)"),
    )


def _se(m: Mean, bounds: tuple[float, float]) -> float:
    """Standard error read back from a mean's 95 % interval, on the gate's scale."""
    if m.low is None or m.high is None:
        return 0.0
    return (m.high - m.low) * (bounds[1] - bounds[0]) / (2 * 1.96)


def gate_run(
    run_dir: Path,
    *,
    gates: Gates | None = None,
    gates_file: Path | None = None,
    baseline: Path | None = None,
    live: Folded | None = None,
) -> tuple[Summary, GateReport, Comparison | None]:
    """Summarize ``run_dir``, compare it with ``baseline`` if given, and evaluate the gates.

    This is what ``agentgauge gate`` and ``agentgauge run --gate`` call. Gates come from
    ``gates``, else ``gates_file``, else the suite file recorded in ``run.json``. ``live``:
    the summary folded during the run (see :func:`~._files.summarize`).
    """
    from ._files import resolve_gates, summarize

    missing = None
    if gates is None:
        if gates_file is None:
            missing = _missing_suite(Path(run_dir))
        gates = resolve_gates(Path(run_dir), gates_file)
    summary = summarize(Path(run_dir), gates=gates, live=live)
    comparison = compare(baseline, Path(run_dir)) if baseline is not None else None
    report = evaluate_gates(summary, gates, comparison, baseline_summary(gates, baseline))
    if missing is not None:
        report.warnings.append(missing)
    return summary, report, comparison


def baseline_summary(gates: Gates, baseline: Path | None) -> Summary | None:
    """The baseline run's summary when a scorer gate compares against it, else None."""
    from ._files import summarize

    if baseline is None or all(g.max_regression is None for g in gates.scorers.values()):
        return None
    return summarize(Path(baseline), gates=gates)


def _missing_suite(run_dir: Path) -> str | None:
    """Refuse to gate on the default thresholds because the suite file has moved away.

    ``agentgauge run`` records the suite's absolute path; when that file (or the suite file of
    that folder) is gone its gates cannot be read, and gating on the defaults alone would pass
    a run that its own gates fail. A relative path (``agentgauge score suite.yaml ...``) is
    looked up from the current folder; when it is not found there the run is gated on the
    defaults with the warning returned here.
    """
    from ._files import suite_exists

    run = load_run(run_dir) if run_dir.is_dir() else None
    if run is None:
        return None
    if not run.suite_path:  # run or scored from Python with a Suite object
        return (
            "run.json names no suite file, so only the default gates were checked; pass "
            "--gates FILE (or record RunConfig.suite_path / score_responses(suite_path=...))"
        )
    path = Path(run.suite_path)
    if suite_exists(path):
        return None
    if path.is_absolute():
        gone = "holds no suite file any more" if path.is_dir() else "is gone"
        raise UserError(
            f"{run_dir}: the suite {path} named in run.json {gone}, so its gates cannot be "
            "read; pass --gates FILE (or set AGENTGAUGE_GATES)"
        )
    return (
        f"the suite {path} named in run.json is not in the current folder, so only the default "
        "gates were checked; pass --gates FILE (or gate from the folder the run was made in)"
    )
