"""examples/modules/knowledge end to end: each module metric computed from a real run of the
scripted agents, with intervals, and each of its gates failed by the wrong agent's run
(docs/metrics.md#module-metrics)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from agentgauge.cli import cli
from agentgauge.judges._rulejudge import _planning_path
from agentgauge.metrics import ReviewItem, review_run
from agentgauge.mutation import audit_suite
from agentgauge.suites import load_suite

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "modules" / "knowledge"
AGENTS = EXAMPLE / "agents.py"


def _cli(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _run(out: Path, agent: str) -> Result:
    return _cli(
        "run",
        str(EXAMPLE),
        "--agent",
        f"python:{AGENTS}:{agent}",
        "-o",
        str(out),
        "--no-progress",
        "--allow-suite-code",
        "--gate",
    )


def _modules(run_dir: Path) -> dict[str, Any]:
    summary: dict[str, Any] = json.loads((run_dir / "summary.json").read_text())
    modules: dict[str, Any] = summary["modules"]
    return modules


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Result, Path]]:
    out: dict[str, tuple[Result, Path]] = {}
    for agent in ("agent", "sloppy"):
        run_dir = tmp_path_factory.mktemp(agent)
        out[agent] = (_run(run_dir, agent), run_dir)
    return out


def test_no_case_cannot_fail() -> None:
    audit = audit_suite(load_suite(EXAMPLE))
    assert [c.case_id for c in audit.cannot_fail] == []


def test_the_right_agent_passes_with_every_module_metric(
    runs: dict[str, tuple[Result, Path]],
) -> None:
    result, run_dir = runs["agent"]
    assert result.exit_code == 0, result.output
    m = _modules(run_dir)
    rt = m["retrieval"]
    assert rt["k"] == 3
    assert rt["sources"] == ["tool results"]
    assert rt["cases"] == 6
    assert rt["recall"]["mean"] == 1.0
    # two of the six searches return a related article besides the relevant one
    assert rt["precision"]["mean"] == pytest.approx(14 / 18)
    assert rt["precision"]["low"] < rt["precision"]["mean"] <= rt["precision"]["high"]
    fb = m["fallback"]
    assert (fb["tp"], fb["fp"], fb["fn"], fb["tn"]) == (4, 0, 0, 8)
    assert fb["sources"] == ["replies", "tools"]  # the refusal is seen from its reply
    assert fb["accuracy"]["low"] is not None
    assert m["excluded"] == {}


def test_the_wrong_agent_fails_every_module_gate(runs: dict[str, tuple[Result, Path]]) -> None:
    result, run_dir = runs["sloppy"]
    assert result.exit_code == 1
    for check in (
        "FAIL retrieval precision",
        "FAIL retrieval recall",
        "FAIL degradation-trigger accuracy",
        "FAIL degradation-trigger recall",
        "FAIL degradation-trigger precision",
        "FAIL routing accuracy",
    ):
        assert check in result.output
    m = _modules(run_dir)
    fb = m["fallback"]
    assert (fb["tp"], fb["fp"], fb["fn"], fb["tn"]) == (0, 1, 4, 7)
    assert fb["missed_cases"] == [
        "handoff-person",
        "handoff-stolen",
        "handoff-complaint",
        "safe-default-pin",
    ]
    assert fb["false_alarm_cases"] == ["skill-data"]
    # the cascade rule: the misrouted question's retrieval is excluded, neither failed nor passed
    assert m["excluded"]["retrieval"]["cases"] == ["kb-cancel"]
    assert m["excluded"]["retrieval"]["reasons"] == {
        "routing failed: expected knowledge_base, got skill": 1
    }
    rt = m["retrieval"]
    assert rt["cases"] == 5
    assert "kb-cancel" not in [c["case_id"] for c in rt["cases_worst"]]
    assert rt["recall"]["mean"] == pytest.approx(4 / 5)
    assert rt["cases_worst"][0]["case_id"] == "kb-world-roaming"
    assert rt["cases_worst"][0]["recall"] == 0.0


def _expert(item: ReviewItem) -> tuple[int, str | None]:
    """A scripted reviewer: grades each path as the shipped rule judge's planning rubric does."""
    verdict = _planning_path({"expected": ", ".join(item.expected), "plan": item.plan})
    score = verdict["score"]
    assert isinstance(score, int)
    return score, None


def test_feedback_and_expert_review_gate_the_runs(runs: dict[str, tuple[Result, Path]]) -> None:
    """The online part: what users said (feedback-*.jsonl) and an expert's planning grades
    (agentgauge review) become user satisfaction and the planning grade, gated by
    online-gates.yaml: the right agent passes, the sloppy one fails both."""
    online = str(EXAMPLE / "online-gates.yaml")
    verdicts = {}
    for agent, (_, run_dir) in runs.items():
        gate = _cli("gate", str(run_dir), "--gates", online)
        assert gate.exit_code == 1  # before any feedback or review: nothing measured
        assert "nothing was measured" in gate.output
        shutil.copy(EXAMPLE / f"feedback-{agent}.jsonl", run_dir / "feedback.jsonl")
        outcome = review_run(run_dir, _expert)
        assert outcome.graded == 12
        verdicts[agent] = _cli("gate", str(run_dir), "--gates", online)
        report = _cli("report", str(run_dir), "--format", "json")
        m = json.loads(report.output)["modules"]
        assert m["satisfaction"]["rated"] == 12
        assert m["planning"]["reviewed"] == 12
        assert m["satisfaction"]["satisfied"]["low"] is not None
        assert m["planning"]["grade"]["low"] is not None
    assert verdicts["agent"].exit_code == 0, verdicts["agent"].output
    bad = verdicts["sloppy"]
    assert bad.exit_code == 1
    assert "FAIL user satisfaction" in bad.output
    assert "FAIL planning-path grade" in bad.output
