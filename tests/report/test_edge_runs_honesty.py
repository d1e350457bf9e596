"""Edge-case runs through every report format: a report never overstates.

Each row of ``EDGES`` is a run built offline (mock and python agents) that some report once
overstated: a gate "passed" over a run with no verdict at all, an unknown error rate written as
"0.0%", a latency of 2.9 ms written as "0.00 s". Every run goes through the gate (console and
``--json``), the Markdown, HTML, JSON and JUnit reports, and what they say must agree with each
other and with ``results.jsonl``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.metrics import evaluate_gates, summarize
from agentgauge.schema import Gates

SUITE = """name: edge
cases:
  - {id: a, category: c1, input: please say word1, expect: {response_contains: [word1]}}
  - {id: b, category: c1, input: please say word2, expect: {response_contains: [word2]}}
  - {id: c, category: c2, input: hi, expect: {response_contains: [mock reply]}}
"""
GATES = "max_error_rate: 0.5\nmax_user_error_rate: 0.5\nmax_latency_s: {p95: 5}\n"
RAISES = "def agent(messages, tools):\n    raise RuntimeError('boom')\n"
#: answers every other call, so the trials of a case disagree
FLIPS = (
    "import itertools\n_n = itertools.count()\n"
    "def agent(messages, tools):\n"
    "    return messages[-1].content if next(_n) % 2 == 0 else 'nope'\n"
)
NOTHING = "nothing was scored"


@dataclass(frozen=True)
class Edge:
    name: str
    agent: str
    args: tuple[str, ...]
    #: the warning every gate report must carry (None: a run with verdicts carries none)
    nothing_scored: str | None


EDGES = [
    Edge("all-errored", "python:{dir}/raises.py:agent", (), "none of the 3 results has a verdict"),
    Edge("zero-after-filter", "mock:echo", ("--filter", "nomatch"), "the run has no results"),
    Edge("one-case", "mock:echo", ("--filter", "a"), None),
    Edge("mixed-trials", "python:{dir}/flips.py:agent", ("--trials", "4"), None),
]


def _build(tmp_path: Path, edge: Edge) -> tuple[Path, Path]:
    (tmp_path / "suite.yaml").write_text(SUITE)
    (tmp_path / "raises.py").write_text(RAISES)
    (tmp_path / "flips.py").write_text(FLIPS)
    gates = tmp_path / "gates.yaml"
    gates.write_text(GATES)
    run = tmp_path / "run"
    args = ["run", str(tmp_path / "suite.yaml"), "-o", str(run), "--no-cache"]
    args += ["--agent", edge.agent.format(dir=tmp_path), "--allow-suite-code", *edge.args]
    out = CliRunner().invoke(cli, [*args, "--max-concurrency", "1"])
    assert out.exit_code == 0, out.output
    return run, gates


def _cli(*args: str) -> str:
    out = CliRunner().invoke(cli, list(args))
    assert out.exit_code in (0, 1), out.output
    return " ".join(out.output.split())  # the console wraps long lines


def _cli_raw(*args: str) -> str:
    out = CliRunner().invoke(cli, list(args))
    assert out.exit_code == 0, out.output
    return out.output


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


@pytest.mark.parametrize("edge", EDGES, ids=[e.name for e in EDGES])
def test_every_format_says_what_was_measured(tmp_path: Path, edge: Edge) -> None:
    run, gates = _build(tmp_path, edge)
    lines = (run / "results.jsonl").read_text().splitlines()
    results = [json.loads(x) for x in lines]
    scored = [r for r in results if r["status"] in ("passed", "failed")]
    errors = sum(r["status"] == "error" for r in results)

    gate_json = json.loads(_cli("gate", str(run), "--gates", str(gates), "--json"))
    texts = {
        "gate": _cli("gate", str(run), "--gates", str(gates)),
        "markdown": _cli("report", str(run), "--format", "markdown", "--gates", str(gates)),
        "html": _text(_cli("report", str(run), "--format", "html", "--gates", str(gates))),
        "gate --json": " ".join(gate_json["warnings"]),
    }
    for fmt, text in texts.items():
        if edge.nothing_scored is None:
            assert NOTHING not in text, fmt
        else:
            assert f"{NOTHING}: {edge.nothing_scored}" in text, fmt
        if not results:  # an unmeasured error rate is never a measured 0 %
            assert "error rate 0.0%" not in text, fmt
        # a latency of a few milliseconds is never written as zero seconds
        assert "0.00 s" not in text, fmt
        assert "latency p95: latency p95" not in text, fmt

    summary = json.loads(_cli("report", str(run), "--format", "json"))
    assert summary["overall"]["results"] == len(results)
    assert summary["overall"]["pass_rate"]["n"] == len(scored)
    if not scored:
        assert summary["overall"]["pass_rate"]["value"] is None
    rows = _cli_raw("report", str(run), "--format", "csv").splitlines()[1:]
    assert len(rows) == len(results)
    ordered = sorted(results, key=lambda r: (r["case_id"], r["trial"]))
    for row, r in zip(sorted(rows), ordered, strict=True):
        cells = row.split(",")
        assert cells[5] == r["status"]
        # a result that was not graded has no score, never 0 or its scorers' partial mean
        assert (cells[6] == "") == (r["status"] == "error"), row
    junit = _cli("report", str(run), "--format", "junit")
    assert f'tests="{len(results)}"' in junit
    assert f'errors="{errors}"' in junit
    assert f'failures="{sum(r["status"] == "failed" for r in results)}"' in junit


def test_an_unmeasured_maximum_is_not_checked_and_says_so(tmp_path: Path) -> None:
    run, gates = _build(tmp_path, EDGES[1])
    report = json.loads(_cli("gate", str(run), "--gates", str(gates), "--json"))
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["error rate"]["actual"] == "n/a (no results)"
    assert checks["error rate"]["message"] == "nothing was measured (no results); not checked"
    assert "error rate: nothing was measured (no results); not checked" in report["warnings"]
    assert "latency p95: no latencies recorded; not checked" in report["warnings"]


@pytest.mark.parametrize(
    ("p95_ms", "shown"), [(2.9, "2.9 ms"), (0.15, "0.15 ms"), (4100, "4.10 s")]
)
def test_a_latency_of_milliseconds_is_shown_in_milliseconds(
    tmp_path: Path, p95_ms: float, shown: str
) -> None:
    run, _ = _build(tmp_path, EDGES[2])
    summary = summarize(run)
    latency = summary.performance.latency
    assert latency is not None
    performance = summary.performance.model_copy(
        update={"latency": latency.model_copy(update={"p95": p95_ms})}
    )
    summary = summary.model_copy(update={"performance": performance})
    report = evaluate_gates(summary, Gates(max_latency_s={"p95": 5}))
    p95 = next(c for c in report.checks if c.name == "latency p95")
    assert p95.actual == shown
    assert (
        p95.message
        == f"latency p95 {shown} {'within' if p95_ms < 5000 else 'exceeds'} the limit 5 s"
    )


def test_a_gate_given_a_baseline_says_what_it_compared_in_every_format(tmp_path: Path) -> None:
    """Runs that share only some cases: every format says how many pairs were compared and
    which gated metrics were not measured in both runs, so not checked."""
    (tmp_path / "suite.yaml").write_text(SUITE)
    base, new = tmp_path / "base", tmp_path / "new"
    common = ["run", str(tmp_path / "suite.yaml"), "--agent", "mock:echo", "--no-cache"]
    for run, extra in ((base, ["--filter", "a", "--filter", "b"]), (new, [])):
        out = CliRunner().invoke(cli, [*common, "-o", str(run), *extra])
        assert out.exit_code == 0, out.output
    pairs = "compared with the baseline {}: 2 paired cases (0 fixed, 0 broken, 2 unchanged"
    unchecked = (
        "metrics: pass_rate, error_rate (not checked, not measured in both runs: "
        "tool_selection_accuracy, argument_accuracy, behavior_accuracy, task_completion)"
    )
    report = json.loads(_cli("gate", str(new), "--baseline", str(base), "--json"))
    assert report["compared"]["paired"] == 2
    assert report["compared"]["new"] == 1
    assert report["compared"]["not_compared"] == [
        "tool_selection_accuracy",
        "argument_accuracy",
        "behavior_accuracy",
        "task_completion",
    ]
    checked = {c["name"] for c in report["checks"] if c["name"].startswith("regression")}
    assert checked == {"regression: pass_rate", "regression: error_rate"}
    for fmt, text in {
        "gate": _cli("gate", str(new), "--baseline", str(base)),
        "markdown": _cli("report", str(new), "--baseline", str(base), "--format", "markdown"),
        "html": _text(_cli("report", str(new), "--baseline", str(base), "--format", "html")),
    }.items():
        # the console names the path given, a report read elsewhere the run's folder
        assert pairs.format(base if fmt == "gate" else "base") in text, fmt
        assert "1 new case(s) not compared" in text, fmt
        assert unchecked in text, fmt


def _shards(tmp_path: Path) -> list[Path]:
    (tmp_path / "suite.yaml").write_text(SUITE)
    runs = []
    for i in (1, 2):
        run = tmp_path / f"shard{i}"
        args = ["run", str(tmp_path / "suite.yaml"), "--agent", "mock:echo", "--no-cache"]
        out = CliRunner().invoke(cli, [*args, "-o", str(run), "--shard", f"{i}/2"])
        assert out.exit_code == 0, out.output
        runs.append(run)
    return runs


@pytest.mark.parametrize("merged", [1, 2])
def test_a_run_missing_results_says_so_in_every_format(tmp_path: Path, merged: int) -> None:
    """A merge of one shard of two holds some of the run: every format says how much; the
    shards themselves and a complete merge carry no such warning."""
    shards = _shards(tmp_path)
    run = tmp_path / "merged"
    out = CliRunner().invoke(cli, ["merge", *map(str, shards[:merged]), "-o", str(run)])
    assert out.exit_code == (1 if merged == 1 else 0), out.output
    have = len((run / "results.jsonl").read_text().splitlines())
    warning = (
        f"incomplete: {have} of 3 (case, trial) pairs have a result ({3 - have} missing: "
        "merged from 1 run(s) without all the shards); every figure is over the results present"
    )
    texts = {
        "console": _cli("report", str(run)),
        "gate": _cli("gate", str(run)),
        "markdown": _cli("report", str(run), "--format", "markdown"),
        "html": _text(_cli("report", str(run), "--format", "html")),
        "json": " ".join(json.loads(_cli("report", str(run), "--format", "json"))["warnings"]),
        "junit": _cli("report", str(run), "--format", "junit"),
    }
    for fmt, text in texts.items():
        if merged == 2:
            assert "incomplete" not in text, fmt
        elif fmt == "junit":
            assert f'<property name="incomplete" value="{warning[12:]}"/>' in text
        else:
            assert warning in text, fmt
    for shard in shards:  # a shard holds its part by design
        assert "incomplete" not in _cli("report", str(shard), "--format", "markdown")


def test_a_run_whose_results_went_missing_says_so(tmp_path: Path) -> None:
    run, _ = _build(tmp_path, EDGES[3])
    journal = run / "results.jsonl"
    journal.write_text("".join(journal.read_text().splitlines(keepends=True)[:-2]))
    text = _cli("report", str(run), "--format", "markdown")
    assert (
        "incomplete: 10 of 12 (case, trial) pairs have a result (2 missing: results are missing "
        "from the run directory); every figure is over the results present"
    ) in text
