"""Run folders of the diagnosis-pairwise tests (tests/metrics/test_diagnosis_pairs.py and the
dashboard's Chromium test): every result passes, so the pass rate separates nobody. Forty cases,
ten per rate; ``right`` gets every verdict right, ``wrong_8`` the last two of each ten only,
``wrong_2`` all but the first two. ``forgetful`` has no memory checks at all (its memory
retention is unknown)."""

from __future__ import annotations

from pathlib import Path

from agentgauge.rundir import write_record
from agentgauge.runner import MatrixManifest, MemberRecord
from agentgauge.schema import CaseResult, Labels, RunRecord, Score, ToolCall

PER_RATE = 10
#: metric -> its label in the reports and on the dashboard
RATES = {
    "intent_accuracy": "intent recognition",
    "clarification_rate": "clarification",
    "call_decision_accuracy": "tool-call decision",
    "memory_retention": "memory retention",
}
WRONG = {"right": 0, "wrong_8": 8, "wrong_2": 2, "forgetful": 0}
#: the tool-call decision is also judged on the ten clarification cases (no call wanted there,
#: and none made): twenty verdicts
N = {m: 2 * PER_RATE if m == "call_decision_accuracy" else PER_RATE for m in RATES}


def results(agent: str) -> list[CaseResult]:
    wrong_below = WRONG[agent]
    out = []
    for i in range(PER_RATE):
        ok = i >= wrong_below
        out += [
            CaseResult(
                case_id=f"intent-{i}",
                status="passed",
                score=1.0,
                labels=Labels(intents=["billing"]),
                predicted_labels=Labels(intents=["billing" if ok else "shipping"]),
            ),
            CaseResult(
                case_id=f"ambiguous-{i}",
                status="passed",
                score=1.0,
                expected_behavior="clarify",
                behavior="clarify" if ok else "answer",
            ),
            CaseResult(
                case_id=f"answer-{i}",
                status="passed",
                score=1.0,
                expected_behavior="answer",
                behavior="answer" if ok else "tool_call",
                calls=[] if ok else [ToolCall(name="lookup_order", arguments={})],
            ),
            CaseResult(
                case_id=f"memory-{i}",
                status="passed",
                score=1.0,
                scores=[]
                if agent == "forgetful"
                else [Score(name="turn[1].arguments", value=float(ok), passed=ok)],
            ),
        ]
    return out


def run_dir(path: Path, agent: str) -> Path:
    path.mkdir(parents=True)
    write_record(
        path,
        RunRecord(
            run_id=f"run-{agent}",
            suite="diagnosis",
            agent=f"mock:{agent}",
            started_at="2026-12-01T00:00:00+00:00",
            agentgauge_version="test",
            case_count=4 * PER_RATE,
            trials=1,
        ),
    )
    lines = "".join(r.model_dump_json() + "\n" for r in results(agent))
    (path / "results.jsonl").write_text(lines, encoding="utf-8")
    return path


def matrix(tmp_path: Path, *agents: str) -> Path:
    out = tmp_path / "out"
    members = []
    for a in agents:
        run_dir(out / a, a)
        members.append(MemberRecord(label=a, agent=f"mock:{a}", run_dir=a, state="done"))
    manifest = MatrixManifest(
        suite="diagnosis",
        suite_path=str(tmp_path / "suite.yaml"),
        started_at="2026-12-01T00:00:00+00:00",
        members=members,
    )
    (out / "matrix.json").write_text(manifest.model_dump_json(), encoding="utf-8")
    return out
