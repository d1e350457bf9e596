"""``agentgauge history`` (per suite and agent, trends, --json) and the ``--history`` /
``--no-history`` options of ``run`` and ``score``."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.metrics import Mean, Rate, Slice, Summary, read_history, record_run, write_summary
from agentgauge.metrics._model import ScorerStats
from agentgauge.schema import RunRecord

FIXTURES = Path(__file__).resolve().parents[1] / "report" / "fixtures"


def _record(path: Path, run_id: str, agent: str, day: int, rate: float, grounded: float) -> None:
    run = RunRecord(
        run_id=run_id,
        suite="rag",
        agent=agent,
        started_at=f"2026-11-{day:02d}T10:00:00Z",
        agentgauge_version="0",
    )
    summary = Summary(
        run=run,
        cases=20,
        overall=Slice(results=20, pass_rate=Rate(passed=10, n=20, value=rate)),
        scorers={"judge.groundedness": ScorerStats(mean=Mean(n=20, mean=grounded))},
    )
    record_run(path, summary, path=path / "h.sqlite")


@pytest.fixture
def history(tmp_path: Path) -> Path:
    """Two agents over five runs; agent b's groundedness falls off in the latest run."""
    for day, (ra, ga, rb, gb) in enumerate(
        [
            (0.70, 0.80, 0.60, 0.90),
            (0.72, 0.81, 0.61, 0.91),
            (0.71, 0.79, 0.62, 0.90),
            (0.73, 0.80, 0.60, 0.92),
            (0.72, 0.80, 0.61, 0.40),
        ],
        1,
    ):
        _record(tmp_path, f"a{day}", "openai:small", day, ra, ga)
        _record(tmp_path, f"b{day}", "openai:large", day, rb, gb)
    return tmp_path / "h.sqlite"


def invoke(*args: str) -> tuple[int, str]:
    out = CliRunner().invoke(cli, list(args))
    return out.exit_code, out.output


def test_history_json_gives_a_trend_per_agent_and_flags_the_drop(history: Path) -> None:
    code, out = invoke(
        "history", "--history", str(history), "--suite", "rag", "--agent", "openai:*",
        "--metric", "groundedness", "--metric", "pass_rate", "--json",
    )  # fmt: skip
    assert code == 0, out
    doc = json.loads(out)
    assert doc["history"] == str(history)
    groups = {g["agent"]: g for g in doc["groups"]}
    assert set(groups) == {"openai:small", "openai:large"}
    large = {t["metric"]: t for t in groups["openai:large"]["trends"]}
    g = large["scorers.judge.groundedness"]
    assert g["label"] == "judge.groundedness"
    assert g["latest"] == 0.40
    assert g["change"] == pytest.approx(-0.52)
    assert g["mean"] == pytest.approx(0.9075)
    assert (g["outside"], g["regressed"]) == ("below", True)
    assert g["compared"].startswith("run b5 against run b4 and the mean of 4 run(s)")
    assert (g["previous_run"], g["mean_runs"]) == ("b4", ["b1", "b2", "b3", "b4"])
    assert large["pass_rate"]["outside"] is None  # steady: no flag
    small = {t["metric"]: t for t in groups["openai:small"]["trends"]}
    assert small["scorers.judge.groundedness"]["outside"] is None
    assert len(groups["openai:large"]["runs"]) == 5


def test_history_text_table_and_agent_filter(history: Path) -> None:
    code, out = invoke("history", "--history", str(history), "--agent", "openai:large")
    assert code == 0, out
    assert "rag · openai:large: 5 run(s)" in out
    assert "openai:small" not in out
    assert "judge.groundedness" in out  # the judges are headline by default
    assert "▼ worse" in out
    assert "below the band (mean ± 2 sd) of up to 5 runs before it" in out
    assert "pass_rate" in out
    code, out = invoke(
        "history", "--history", str(history), "--agent", "openai:small", "--metric", "pass_rate"
    )
    assert "72.0%" in out  # the per-run table of the one metric
    assert "a5" in out
    assert "▼" not in out
    # what "vs prev" and "vs mean" compared: the runs, and that it is no paired test
    assert (
        "compared: run a5 against run a4 and the mean of 4 run(s) before it (a1 to a4): each "
        "value over its own run's results, not paired case by case and not a significance test"
    ) in " ".join(out.split())


def test_history_bad_input_exits_2_in_one_line(history: Path, tmp_path: Path) -> None:
    code, out = invoke("history", "--history", str(history), "--metric", "nope")
    assert code == 2
    assert "--metric nope: not recorded" in out
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE t (x)")
    conn.close()
    code, out = invoke("history", "--history", str(foreign))
    assert code == 2
    assert "not an agentgauge run history" in out
    assert "Traceback" not in out
    assert len(out.strip().splitlines()) == 1
    code, out = invoke("history", "--history", str(tmp_path / "none.sqlite"))
    assert code == 0
    assert "no runs recorded in" in out


def test_history_reads_the_environment_default(tmp_path: Path) -> None:
    runner = CliRunner()
    empty = runner.invoke(cli, ["history"])
    assert empty.exit_code == 0
    assert "no runs recorded" in empty.output
    for name in ("base", "new"):
        shutil.copytree(FIXTURES / name, tmp_path / name)
        write_summary(tmp_path / name)
    result = runner.invoke(cli, ["history", "--suite", "weather-demo", "--metric", "pass_rate"])
    assert result.exit_code == 0, result.output
    assert "55.6%" in result.output
    assert "66.7%" in result.output
    assert "▁█" in result.output
    assert "+11.1pp" in result.output
    result = runner.invoke(cli, ["history", "--metric", "latency_p95_ms", "--limit", "1"])
    assert "4100" in result.output


SUITE = """\
name: hist
tools:
  - name: get_weather
    description: weather in a city
    parameters: {type: object, properties: {city: {type: string}}, required: [city]}
cases:
  - id: paris
    input: What's the weather in Paris?
    expect: {tool_calls: [{name: get_weather, arguments: {city: Paris}}]}
"""


def test_score_and_run_record_where_told_or_not_at_all(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    resp = tmp_path / "r.jsonl"
    row = {"case_id": "paris", "calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}
    resp.write_text(json.dumps(row) + "\n", encoding="utf-8")
    mine = tmp_path / "mine.sqlite"
    code, out = invoke(
        "score", str(suite), "-r", str(resp), "-o", str(tmp_path / "s1"), "--history", str(mine)
    )
    assert code == 0, out
    assert [r.suite for r in read_history(path=mine)] == ["hist"]
    assert read_history() == []  # the environment's file was not touched
    code, out = invoke(
        "score", str(suite), "-r", str(resp), "-o", str(tmp_path / "s2"), "--history", str(mine),
        "--no-history",
    )  # fmt: skip
    assert code == 0, out
    assert len(read_history(path=mine)) == 1
    code, out = invoke(
        "run", str(suite), "--agent", "mock:", "-o", str(tmp_path / "r1"), "--history", str(mine)
    )
    assert code == 0, out
    assert sorted(r.agent for r in read_history(path=mine)) == ["mock:", f"responses:{resp}"]
    code, out = invoke("run", str(suite), "--agent", "mock:", "-o", str(tmp_path / "r2"),
                       "--no-history")  # fmt: skip
    assert code == 0, out
    assert read_history() == []
    assert len(read_history(path=mine)) == 2


def test_a_two_agent_run_records_one_row_per_agent(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    mine = tmp_path / "mine.sqlite"
    code, out = invoke(
        "run", str(suite), "--agent", "mock:", "--agent", "mock:echo", "-o", str(tmp_path / "m"),
        "--history", str(mine), "--no-progress",
    )  # fmt: skip
    assert code in (0, 1), out
    rows = read_history(path=mine)
    assert sorted(r.agent for r in rows) == ["mock:", "mock:echo"]
    assert {r.suite for r in rows} == {"hist"}
    code, out = invoke("history", "--history", str(mine), "--agent", "mock:*", "--json")
    assert code == 0, out
    assert sorted(g["agent"] for g in json.loads(out)["groups"]) == ["mock:", "mock:echo"]


def test_merge_records_where_told(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    mine = tmp_path / "mine.sqlite"
    shard = tmp_path / "shard"
    code, out = invoke(
        "run", str(suite), "--agent", "mock:", "--shard", "1/1", "-o", str(shard),
        "--history", str(mine), "--no-progress",
    )  # fmt: skip
    assert code in (0, 1), out
    assert read_history(path=mine) == []  # a shard is part of a run: never recorded
    code, out = invoke("merge", str(shard), "-o", str(tmp_path / "none"), "--no-history")
    assert code == 0, out
    assert read_history(path=mine) == []
    assert read_history() == []
    code, out = invoke("merge", str(shard), "-o", str(tmp_path / "m"), "--history", str(mine))
    assert code == 0, out
    assert [r.run_dir for r in read_history(path=mine)] == [str((tmp_path / "m").resolve())]
    assert read_history() == []
