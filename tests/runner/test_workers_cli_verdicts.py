"""Whole ``agentgauge run`` processes with and without ``--workers``: the verdicts and scores of
``results.jsonl`` are identical case by case on a suite with tools, injected faults, multi-turn
conversations, scripted simulated users, a Python world and scorers (a judge among them); a run
interrupted and resumed with worker processes, and shards run with them and merged, give the
same verdicts as one process from start to end."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

REPO = Path(__file__).resolve().parents[2]
RETAIL = REPO / "examples" / "retail"

#: what makes the suite hard to reproduce: error faults on every tool (seeded per call), two
#: trials, a check of the suite's own and a judge, each wired in every worker process
HARDER = """\
defaults:
  trials: 2
  faults: [{kind: error, rate: 0.15}]
"""
SCORERS = """
scorers:
  - scorer: assert
    args: {not_contains: [sorry]}
  - scorer: relevance
    judge: "mock:judge"
"""
#: fields that time something: they differ between any two runs
TIMINGS = {"latency_ms", "ttft_ms", "start", "end"}


def _untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("workers-cli") / "retail"
    shutil.copytree(RETAIL, folder)
    path = folder / "suite.yaml"
    text = path.read_text()
    assert text.count("\ndefaults:\n") == 1
    path.write_text(text.replace("\ndefaults:\n", "\n" + HARDER, 1) + SCORERS)
    return folder


def _run(suite: Path, out: Path, workers: int, *extra: str, agent: str = "agent") -> Path:
    cmd = [sys.executable, "-m", "agentgauge", "run", str(suite), "-o", str(out)]
    cmd += ["--agent", f"python:{suite / 'oracle_agent.py'}:{agent}", "--allow-suite-code"]
    cmd += ["--no-cache", "--no-history", "--no-progress", "--max-concurrency", "8"]
    cmd += ["--workers", str(workers), *extra]
    env = {**os.environ, "AGENTGAUGE_HISTORY": str(out.parent / "history.sqlite")}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    assert done.returncode in (0, 1), done.stderr
    return out


def _verdicts(run_dir: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """Each (case, trial)'s verdict: status, score, explanation, reply, every score with its
    explanation, the calls made, the conversation, the world's final state and the simulated
    user's record; a pair written twice fails."""
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for line in (run_dir / "results.jsonl").read_bytes().splitlines():
        r = orjson.loads(line)
        key = (r["case_id"], r["trial"])
        assert key not in out, f"{key} written twice"
        out[key] = {
            "status": r["status"],
            "score": r["score"],
            "explanation": r["explanation"],
            "text": r["text"],
            "scores": [(s["name"], s["value"], s["passed"], s["explanation"]) for s in r["scores"]],
            "calls": r["calls"],
            "messages": r["messages"],
            "world": r["world"],
            "user": _untimed(r["user"]),
        }
    return out


def test_verdicts_are_identical_with_and_without_worker_processes(
    suite: Path, tmp_path: Path
) -> None:
    one = _verdicts(_run(suite, tmp_path / "one", 1))
    two = _verdicts(_run(suite, tmp_path / "two", 2))
    assert len(one) == 80  # 40 cases, 2 trials
    assert two == one
    # not trivial: faults fail some pairs, scorers and the judge scored every one
    statuses = Counter(v["status"] for v in one.values())
    assert statuses["passed"] > 10
    assert statuses["failed"] > 0
    names = {s[0] for v in one.values() for s in v["scores"]}
    assert {"assert", "judge.relevance"} <= names
    assert any(len(v["calls"]) > 3 for v in one.values())  # multi-step, multi-turn work


def test_the_comparison_sees_other_verdicts(suite: Path, tmp_path: Path) -> None:
    """The check above can fail: an agent that acts before the user confirms, run with worker
    processes, differs from the right agent's run in verdicts."""
    right = _verdicts(_run(suite, tmp_path / "right", 1, "--limit", "12"))
    hasty = _verdicts(_run(suite, tmp_path / "hasty", 2, "--limit", "12", agent="hasty"))
    assert set(hasty) == set(right)
    assert hasty != right
    assert any(hasty[k]["status"] != right[k]["status"] for k in right)


def test_resume_and_shards_with_worker_processes(suite: Path, tmp_path: Path) -> None:
    whole = _verdicts(_run(suite, tmp_path / "whole", 1))
    # interrupted after 30 results, resumed with two worker processes
    part = _run(suite, tmp_path / "part", 2)
    journal = part / "results.jsonl"
    journal.write_bytes(b"".join(journal.read_bytes().splitlines(keepends=True)[:30]))
    cmd = [sys.executable, "-m", "agentgauge", "run", "--resume", str(part), "--workers", "2"]
    cmd += ["--agent", f"python:{suite / 'oracle_agent.py'}:agent", "--allow-suite-code"]
    cmd += ["--no-history", "--no-progress"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert done.returncode in (0, 1), done.stderr
    assert "30 resumed" in done.stderr
    assert _verdicts(part) == whole
    # shards run with worker processes, merged: the one-process run's verdicts
    for i in (1, 2):
        _run(suite, tmp_path / f"shard{i}", 2, "--shard", f"{i}/2")
    merged = tmp_path / "merged"
    cmd = [sys.executable, "-m", "agentgauge", "merge", str(tmp_path / "shard1")]
    cmd += [str(tmp_path / "shard2"), "-o", str(merged)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert _verdicts(merged) == whole
