"""End to end through the command line: validate, run (real runner, real scorer), gate, report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentgauge.io import iter_results, load_suite
from agentgauge.runner import RunConfig, run_suite
from agentgauge.schema import Suite, ToolCall
from agentgauge.testing import MockProvider
from cli_process import run_agentgauge

REPO = Path(__file__).resolve().parents[1]
QUICKSTART = REPO / "examples" / "quickstart"
ORACLE = f"python:{QUICKSTART / 'oracle_agent.py'}:agent"


def test_quickstart_with_the_oracle_agent_passes_every_case_and_the_gate(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    out = run_agentgauge(
        "run", str(QUICKSTART), "--agent", ORACLE, "-o", str(run_dir), "--gate", cwd=tmp_path
    )
    assert out.returncode == 0, out.stdout + out.stderr
    results = list(iter_results(run_dir))
    assert len(results) == 20
    failing = [(r.case_id, r.explanation) for r in results if r.status != "passed"]
    assert failing == []
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["version"] >= 1

    md = run_agentgauge("report", str(run_dir), "--format", "markdown", cwd=tmp_path)
    assert md.returncode == 0, md.stderr
    assert "100.0%" in md.stdout


def test_echo_agent_fails_the_quickstart_gate_with_exit_1(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    out = run_agentgauge(
        "run", str(QUICKSTART), "--agent", "mock:echo", "-o", str(run_dir), cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    gate = run_agentgauge("gate", str(run_dir), cwd=tmp_path)
    assert gate.returncode == 1, gate.stdout + gate.stderr
    baseline = run_agentgauge(
        "compare", str(run_dir), str(run_dir), cwd=tmp_path
    )  # a run compared with itself changes nothing
    assert baseline.returncode == 0, baseline.stderr


def test_bad_suite_gives_file_line_and_exit_2_without_traceback(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: s\ncases:\n  - id: a\n    input: hi\n    expect:\n      behaviour: answer\n"
    )
    out = run_agentgauge(
        "run", str(suite), "--agent", "mock:echo", "-o", str(tmp_path / "r"), cwd=tmp_path
    )
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert f"{suite}:6:" in out.stderr
    assert "behaviour" in out.stderr


@pytest.mark.parametrize(("policy", "status"), [("allow", "passed"), ("fail", "failed")])
def test_suite_default_for_extra_arguments_reaches_the_scorer(
    tmp_path: Path, policy: str, status: str
) -> None:
    suite = Suite.model_validate(
        {
            "name": "extra",
            "defaults": {"extra_arguments": policy},
            "tools": [
                {
                    "name": "get_weather",
                    "parameters": {
                        "type": "object",
                        "properties": {"city": {"type": "string"}, "detail": {"type": "string"}},
                        "required": ["city"],
                    },
                }
            ],
            "cases": [
                {
                    "id": "w",
                    "input": "weather in Paris",
                    "expect": {
                        "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]
                    },
                }
            ],
        }
    )
    agent = MockProvider(
        [ToolCall(name="get_weather", arguments={"city": "Paris", "detail": "full"}), "Sunny."]
    )
    run_suite(suite, RunConfig(cache=False, progress=False), tmp_path / "run", provider=agent)
    (result,) = list(iter_results(tmp_path / "run"))
    assert result.status == status, result.explanation


def test_loaded_quickstart_has_the_documented_mix() -> None:
    suite = load_suite(QUICKSTART)
    counts: dict[str, int] = {}
    for case in suite.cases:
        counts[case.category] = counts.get(case.category, 0) + 1
    assert counts == {"happy_path": 10, "ambiguous": 4, "edge_case": 3, "adversarial": 3}
