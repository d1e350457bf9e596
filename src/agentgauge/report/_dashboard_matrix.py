"""The dashboard of a matrix run, from ``OUT/comparison.json`` (``MatrixComparison``).

Each finished member becomes a :class:`DashboardAgent` whose summary is rebuilt from the
comparison's Quality, Cost, Performance and scenarios (no run directory is read again); the
pairs keep the comparison's own McNemar p-values and Holm adjustment, so the page marks exactly
the differences the console and Markdown reports call significant.
"""

from __future__ import annotations

from pathlib import Path

from ..metrics import (
    Diagnosis,
    MatrixAgentStats,
    MatrixComparison,
    Performance,
    Rate,
    Slice,
    Summary,
    ToolSelection,
)
from ._dashboard import (
    DASHBOARD_FILE,
    DashboardAgent,
    PairDelta,
    PairSignificance,
    render_dashboard,
)
from ._fmt import prompt_text

__all__ = ["matrix_agents", "matrix_dashboard", "write_matrix_dashboard"]


def _summary(member: MatrixAgentStats) -> Summary:
    """The summary fields the dashboard reads, from one member's comparison entry."""
    q = member.quality
    modules = q.modules

    def module(key: str) -> Rate:
        return modules.get(key) or Rate()

    return Summary(
        cases=member.cases,
        overall=Slice(
            results=member.results,
            pass_rate=q.pass_rate,
            error_rate=q.error_rate,
            latency=member.performance.latency,
        ),
        by_category={
            name: Slice(results=s.results, pass_rate=s.pass_rate, latency=s.latency)
            for name, s in member.scenarios.items()
        },
        tool_selection=ToolSelection(accuracy=q.tool_selection),
        arguments_strict=q.arguments,
        arguments_partial=q.arguments_partial,
        behavior=q.behavior,
        task_completion=q.task_completion,
        diagnosis=Diagnosis(
            intent_accuracy=module("intent_accuracy"),
            clarification_rate=module("clarification_rate"),
            routing_accuracy=module("routing_accuracy"),
            skill_accuracy=module("skill_accuracy"),
            call_decision_accuracy=module("call_decision_accuracy"),
            memory_retention=module("memory_retention"),
        ),
        cost=member.cost,
        performance=Performance(
            latency=member.performance.latency,
            ttft=member.performance.ttft,
            latency_mean=member.performance.latency_mean,
            by_category={name: s.latency for name, s in member.scenarios.items()},
        ),
    ).model_copy(update={"scorers": _scorers(member), "modules": _modules(member)})


#: where ``Summary.rate`` reads each module rate of ``summary.json``'s ``modules``
_MODULE_FIELDS = {
    "retrieval_hit_rate": ("retrieval", "hit_rate"),
    "fallback_accuracy": ("fallback", "accuracy"),
    "user_satisfaction": ("satisfaction", "satisfied"),
    "planning_acceptable": ("planning", "acceptable"),
}


def _modules(member: MatrixAgentStats) -> object:
    """``Summary.modules`` holding the member's module rates (only those it measured)."""
    raw: dict[str, dict[str, object]] = {}
    for key, (section, name) in _MODULE_FIELDS.items():
        r = member.quality.modules.get(key)
        if r is not None and r.n:
            raw[section] = {name: r.model_dump()}
    return Summary.model_validate({"modules": raw}).modules if raw else None


def _scorers(member: MatrixAgentStats) -> object:
    """``Summary.scorers`` (only the mean and pass rate are in comparison.json)."""
    q = member.quality
    raw = {
        name: {
            "mean": mean.model_dump(),
            "pass_rate": (q.scorer_pass_rates.get(name) or Rate()).model_dump(),
            "scale": q.scorer_scales.get(name),
        }
        for name, mean in q.scorers.items()
    }
    return Summary.model_validate({"scorers": raw}).scorers


def matrix_agents(
    comparison: MatrixComparison,
) -> tuple[list[DashboardAgent], list[PairSignificance], list[str]]:
    """The dashboard's agents (finished members, in matrix order), pairs and notes (members
    that failed or have not run)."""
    agents: list[DashboardAgent] = []
    notes: list[str] = []
    differ = comparison.prompts_differ()
    for m in comparison.agents:
        if m.status != "done":
            if any(w.startswith(f"{m.label} (") for w in comparison.warnings):
                continue  # compare_matrix has said it
            why = f": {m.error}" if m.error else ""
            state = "failed" if m.status == "failed" else "has not run (resume the matrix)"
            notes.append(f"{m.label} ({m.agent}) {state}{why}")
            continue
        agents.append(
            DashboardAgent(
                name=m.label,
                summary=_summary(m),
                tokens_by_category={
                    name: s.tokens.mean
                    for name, s in m.scenarios.items()
                    if s.tokens.n and s.tokens.mean is not None
                },
                rank=m.rank,
                detail=m.agent if m.agent != m.label else "",
                prompt=prompt_text(m.system, None) if differ else None,
                prompt_short=prompt_text(m.system) if differ else "",
            )
        )
    pairs = [
        PairSignificance(
            a=p.a,
            b=p.b,
            a_only=p.a_only,
            b_only=p.b_only,
            paired=p.shared_cases,
            p_value=p.p_value,
            p_adjusted=p.p_adjusted,
            deltas=tuple(
                PairDelta(
                    metric=d.metric,
                    delta=d.delta,
                    low=d.low,
                    high=d.high,
                    p_value=d.p_value,
                    # a module rate's Holm over the pairs, as comparison.json has it
                    p_adjusted=t.p_adjusted if (t := p.module(d.metric)) is not None else None,
                )
                for d in p.deltas
            ),
        )
        for p in comparison.pairs
    ]
    return agents, pairs, [*notes, *comparison.warnings]


def matrix_dashboard(comparison: MatrixComparison) -> str:
    """The whole page for a matrix run."""
    agents, pairs, notes = matrix_agents(comparison)
    title = f"agentgauge: {comparison.suite}" if comparison.suite else "agentgauge dashboard"
    return render_dashboard(agents, pairs, title=title, alpha=comparison.alpha, notes=notes)


def write_matrix_dashboard(out_dir: Path | str, comparison: MatrixComparison) -> Path:
    """Write ``OUT_DIR/dashboard.html`` (secrets scrubbed) and return its path."""
    from .._secrets import register_env, scrub
    from .._suite_code import open_regular

    register_env()
    path = Path(out_dir) / DASHBOARD_FILE
    with open_regular(path, "wb") as fh:  # a regular file of the folder: never a symlink
        fh.write(scrub(matrix_dashboard(comparison)).encode())
    return path
