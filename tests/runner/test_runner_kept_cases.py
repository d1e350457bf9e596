"""A suite whose case files come to at most ``KEEP_CASE_FILE_BYTES`` (and ``KEEP_CASES`` cases)
is run from the cases its checking pass validated (each case file read and validated once, not
again as the workers take the cases); a larger one is read again. Either way the run's results
are the same, line for line (timings aside)."""

from __future__ import annotations

import gc
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

import agentgauge.runner._file as file_mod
import agentgauge.suites._stream as stream_mod
from agentgauge.cli import cli
from agentgauge.runner._gc import CALL_PHASE_THRESHOLD

REPO = Path(__file__).resolve().parents[2]
COMMON = ("--no-cache", "--no-history", "--no-progress")
#: what differs from one run to the next whatever the cases: the clock
TIMINGS = ("latency_ms", "ttft_ms", "start", "end")


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/quickstart (inline single and multi-turn cases) with three trials, error faults
    and a JSONL case file of 30 more cases (tool calls, answers, refusals)."""
    folder = tmp_path_factory.mktemp("kept") / "quickstart"
    shutil.copytree(REPO / "examples" / "quickstart", folder)
    path = folder / "suite.yaml"
    text = path.read_text()
    harder = "\ndefaults:\n  trials: 3\n  faults: [{kind: error, rate: 0.2}]\n"
    text = text.replace("\ndefaults:\n", harder, 1).replace("\ncases:\n", _FILES, 1)
    path.write_text(text)
    extra = [
        {"id": f"more-{i}", "input": f"Weather in city {i}?", "category": "tool_call"}
        | {"expect": {"tool_calls": [{"name": "get_weather", "arguments": {"city": f"c{i}"}}]}}
        if i % 3 == 0
        else {"id": f"more-{i}", "input": f"Say hi {i}", "expect": {"behavior": "answer"}}
        for i in range(30)
    ]
    (folder / "more.jsonl").write_bytes(b"".join(orjson.dumps(c) + b"\n" for c in extra))
    return path


_FILES = "\ncase_files: [more.jsonl]\ncases:\n"
#: the collector's young threshold at each case validated
thresholds: list[int] = []


@pytest.fixture
def validated(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the case-file cases validated, in order (both passes)."""
    seen: list[str] = []
    thresholds.clear()
    real = stream_mod._validate_case

    def counted(data: Any, *args: Any) -> Any:
        seen.append(str(data.get("id")) if isinstance(data, dict) else "?")
        thresholds.append(gc.get_threshold()[0])
        return real(data, *args)

    monkeypatch.setattr(stream_mod, "_validate_case", counted)
    return seen


def _run(suite: Path, run_dir: Path) -> list[dict[str, Any]]:
    agent = f"python:{suite.parent / 'oracle_agent.py'}:agent"
    args = ["run", str(suite), "-o", str(run_dir), "--agent", agent, "--allow-suite-code"]
    result = CliRunner().invoke(cli, [*args, *COMMON], catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    lines = [orjson.loads(x) for x in (run_dir / "results.jsonl").read_bytes().splitlines()]
    return sorted((_untimed(x) for x in lines), key=lambda r: (r["case_id"], r["trial"]))


def _untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def _summary(run_dir: Path) -> Any:
    return orjson.loads((run_dir / "summary.json").read_bytes())


def test_a_small_suite_runs_from_its_checked_cases_with_the_same_results(
    suite: Path, tmp_path: Path, validated: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = _run(suite, tmp_path / "kept")
    file_ids = [f"more-{i}" for i in range(30)]
    assert validated == file_ids  # the checking pass only: the run took the cases it kept
    # the checking pass that keeps the cases collects at the call phase's pace
    assert set(thresholds) == {CALL_PHASE_THRESHOLD}

    validated.clear()
    monkeypatch.setattr(stream_mod, "KEEP_CASES", 10)  # too many cases to hold: read again
    read_again = _run(suite, tmp_path / "again")
    assert validated == file_ids + file_ids
    assert kept == read_again
    assert {r["status"] for r in kept} == {"passed", "failed"}
    # the summary's counts (its latencies are the clock's, its intervals follow the order)
    counts = [_summary(d)["overall"]["pass_rate"] for d in (tmp_path / "kept", tmp_path / "again")]
    assert counts[0] == counts[1]


def test_case_files_over_the_size_budget_are_read_again(
    suite: Path, tmp_path: Path, validated: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    size = (suite.parent / "more.jsonl").stat().st_size
    monkeypatch.setattr(file_mod, "KEEP_CASE_FILE_BYTES", size - 1)
    _run(suite, tmp_path / "run")
    assert len(validated) == 60
    validated.clear()
    monkeypatch.setattr(file_mod, "KEEP_CASE_FILE_BYTES", size)
    _run(suite, tmp_path / "kept")
    assert len(validated) == 30


def test_the_kept_cases_serve_the_first_iteration_only(suite: Path, validated: list[str]) -> None:
    from agentgauge.suites import load_suite, open_suite

    streamed = open_suite(suite, keep_bytes=2**20)
    assert len(validated) == 30
    first = list(streamed.iter_cases())
    assert len(validated) == 30  # the kept cases: no file read
    assert first == list(streamed.iter_cases()) == load_suite(suite).cases  # then from disk
    assert len(validated) == 60
    list(open_suite(suite).iter_cases())  # keep_bytes 0 (the default): nothing kept
    assert len(validated) == 120
