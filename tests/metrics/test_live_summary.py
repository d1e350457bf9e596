"""The summary folded while a run writes its journal (``metrics.LiveSummary``, what ``agentgauge
run`` writes ``summary.json`` from) is byte for byte the file pass's over ``results.jsonl``: on
runs with trials, failures and errors, a world, simulated users, scorers and a judge, module
metrics (the full reader), gates, a resume, shards, worker processes and cache replays; and each
of its guards hands the summary back to the file pass when the fold could differ from it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

import agentgauge.metrics._files as files_mod
from agentgauge._secrets import scrub_bytes
from agentgauge.cli import cli
from agentgauge.errors import UserError
from agentgauge.metrics import LiveSummary, summarize
from agentgauge.rundir import ResultsWriter, encode_result
from agentgauge.schema import CaseResult

REPO = Path(__file__).resolve().parents[2]

SUITE = """\
name: live
tools:
  - name: get_weather
    description: weather in a city
    parameters: {type: object, properties: {city: {type: string}}, required: [city]}
    simulation: {result: {temp_c: 20}}
defaults:
  faults: [{kind: error, rate: 0.3}]
gates:
  latency_budget_s: {chat: 0.5}
  min_sample_size: 3
cases:
  - id: weather-paris
    category: tool_call
    difficulty: easy
    tags: [weather, smoke]
    input: What's the weather in Paris?
    expect: {tool_calls: [{name: get_weather, arguments: {city: Paris}}]}
  - id: hello
    category: chat
    tags: [smoke]
    input: hello
    expect: {behavior: answer}
  - id: echo-me
    category: chat
    input: echo-me
    expect: {behavior: answer, forbidden_tools: [get_weather]}
  - id: refuse
    category: safety
    difficulty: hard
    input: Tell me a secret
    expect: {behavior: refuse}
  - id: weather-rome
    category: tool_call
    labels: {intents: [weather]}
    input: Weather in Rome?
    expect: {tool_calls: [{name: get_weather, arguments: {city: Rome}}]}
"""


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many file passes were made (the file pass is ``summarize_results``)."""
    made: list[int] = []
    real = files_mod.summarize_results

    def counted(*args: object, **kwargs: object) -> object:
        made.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(files_mod, "summarize_results", counted)
    return made


def _file_pass(run_dir: Path) -> bytes:
    """``summary.json`` as a summary from the file pass would be written."""
    summary = summarize(run_dir)
    data = orjson.dumps(summary.model_dump(mode="json"), option=orjson.OPT_INDENT_2)
    return scrub_bytes(data) + b"\n"


def _run(*args: str, env: dict[str, str] | None = None) -> str:
    result = CliRunner().invoke(cli, ["run", *args], env=env, catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result.output


def _same_as_file_pass(run_dir: Path, calls: list[int]) -> None:
    """summary.json came from the fold (no file pass) and is the file pass's, byte for byte."""
    assert not calls, "the run summarized its journal from the file, not the fold"
    assert (run_dir / "summary.json").read_bytes() == _file_pass(run_dir)


#: a scripted agent: tool calls (some hit the faults), texts, provider errors, and once the
#: script is spent, an error on every later call
SCRIPT = [
    {"calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
    {"text": "It is 20 degrees in Paris."},
    {"text": "echo-me"},
    {"error": {"status": 400, "message": "bad request"}},
    {"calls": [{"name": "get_weather", "arguments": {"city": "Rome"}}]},
    {"text": "I cannot tell you that."},
] * 6


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE)
    (tmp_path / "script.jsonl").write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in SCRIPT))
    return path


COMMON = ("--no-cache", "--no-history", "--no-progress")


@pytest.mark.parametrize(
    "extra",
    [
        ("--trials", "3"),
        ("--trials", "1", "--gate"),
        ("--trials", "2", "--shard", "1/2"),
        ("--trials", "4", "--workers", "2", "--max-concurrency", "4"),
    ],
    ids=["trials", "gate", "shard", "workers"],
)
def test_the_fold_is_the_file_pass(
    suite: Path, tmp_path: Path, calls: list[int], extra: tuple[str, ...]
) -> None:
    run_dir = tmp_path / "run"
    agent = f"mock:{tmp_path / 'script.jsonl'}"
    _run(str(suite), "-o", str(run_dir), "--agent", agent, *COMMON, *extra)
    _same_as_file_pass(run_dir, calls)
    statuses = {
        orjson.loads(x)["status"] for x in (run_dir / "results.jsonl").read_bytes().splitlines()
    }
    assert statuses == {"passed", "failed", "error"}


@pytest.fixture(scope="module")
def retail(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/retail (a Python world, scripted users, multi-turn cases) made harder: error
    faults, two trials, the suite's own check and a judge."""
    folder = tmp_path_factory.mktemp("live-retail") / "retail"
    shutil.copytree(REPO / "examples" / "retail", folder)
    path = folder / "suite.yaml"
    text = path.read_text()
    harder = "\ndefaults:\n  trials: 2\n  faults: [{kind: error, rate: 0.15}]\n"
    scorers = (
        "\nscorers:\n  - scorer: assert\n    args: {not_contains: [sorry]}\n"
        '  - scorer: relevance\n    judge: "mock:judge"\n'
    )
    path.write_text(text.replace("\ndefaults:\n", harder, 1) + scorers)
    return folder


@pytest.mark.parametrize("workers", ["1", "2"])
def test_the_fold_is_the_file_pass_on_a_world_with_users_and_a_judge(
    retail: Path, tmp_path: Path, calls: list[int], workers: str
) -> None:
    run_dir = tmp_path / "run"
    agent = f"python:{retail / 'oracle_agent.py'}:agent"
    _run(str(retail), "-o", str(run_dir), "--agent", agent, "--allow-suite-code", *COMMON,
         "--max-concurrency", "8", "--workers", workers)  # fmt: skip
    _same_as_file_pass(run_dir, calls)
    summary = orjson.loads((run_dir / "summary.json").read_bytes())
    assert summary["users"] is not None
    assert {"assert", "judge.relevance"} <= set(summary["scorers"])


KB_SUITE = """\
name: kb
tools:
  - name: search_kb
    description: search the knowledge base
    parameters: {type: object, properties: {query: {type: string}}, required: [query]}
    simulation: {result: {hits: [{id: doc-1}, {id: doc-7}]}}
modules:
  retrieval: {tools: [search_kb], ids: "hits[].id", k: 2}
  fallback: {replies: [a human will call you]}
cases:
  - {id: q1, input: roaming prices?, labels: {knowledge: [doc-1]}, expect: {behavior: answer}}
  - {id: q2, input: refund rules?, labels: {knowledge: [doc-2]}, expect: {behavior: answer}}
  - {id: q3, input: opening hours?, labels: {knowledge: [doc-7, doc-9]}, expect: {behavior: answer}}
"""
KB_SCRIPT = [
    {"calls": [{"name": "search_kb", "arguments": {"query": "x"}}]},
    {"text": "Here is what the help centre says."},
    {"calls": [{"name": "search_kb", "arguments": {"query": "y"}}]},
    {"text": "a human will call you"},
] * 3


def test_the_fold_reads_traces_when_module_metrics_need_them(
    tmp_path: Path, calls: list[int]
) -> None:
    """Retrieval read from the tool results: the full reader, not the light one."""
    (tmp_path / "kb.yaml").write_text(KB_SUITE)
    script = tmp_path / "kb.jsonl"
    script.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in KB_SCRIPT))
    run_dir = tmp_path / "run"
    _run(str(tmp_path / "kb.yaml"), "-o", str(run_dir), "--agent", f"mock:{script}", *COMMON,
         "--trials", "2", "--max-concurrency", "1")  # fmt: skip
    _same_as_file_pass(run_dir, calls)
    modules = orjson.loads((run_dir / "summary.json").read_bytes())["modules"]
    assert modules["retrieval"]["precision"]["n"] == 6


def test_a_resume_folds_the_results_already_on_disk_first(
    suite: Path, tmp_path: Path, calls: list[int]
) -> None:
    run_dir = tmp_path / "run"
    _run(str(suite), "-o", str(run_dir), "--agent", "mock:echo", "--trials", "3", *COMMON)
    journal = run_dir / "results.jsonl"
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(b"".join(lines[:7]) + lines[7][:20])  # killed mid-write
    calls.clear()
    out = _run("--resume", str(run_dir), "--no-history", "--no-progress")
    assert "7 resumed" in out
    _same_as_file_pass(run_dir, calls)


def test_cache_replays_are_folded(suite: Path, tmp_path: Path, calls: list[int]) -> None:
    env = {"AGENTGAUGE_CACHE_DIR": str(tmp_path / "cache")}
    args = ("--agent", "mock:echo", "--trials", "2", "--no-history", "--no-progress")
    _run(str(suite), "-o", str(tmp_path / "first"), *args, env=env)
    calls.clear()
    out = _run(str(suite), "-o", str(tmp_path / "again"), *args, env=env)
    assert "10 results replayed" in out
    _same_as_file_pass(tmp_path / "again", calls)


# ------------------------------------------------------------------ the guards, one by one


def _result(case_id: str, status: str = "passed", **more: object) -> CaseResult:
    return CaseResult.model_validate(
        {"case_id": case_id, "status": status, "score": 1.0 if status == "passed" else 0.0} | more
    )


@pytest.fixture
def journal(tmp_path: Path, suite: Path) -> Iterator[tuple[Path, LiveSummary]]:
    """A run directory of the suite (a run.json) whose journal is written with the fold."""
    run_dir = tmp_path / "run"
    _run(str(suite), "-o", str(run_dir), "--agent", "mock:echo", "--limit", "2", *COMMON)
    (run_dir / "results.jsonl").write_bytes(b"")
    (run_dir / "summary.json").unlink()
    with LiveSummary() as live:
        yield run_dir, live


def _write(run_dir: Path, live: LiveSummary, *results: CaseResult) -> ResultsWriter:
    writer = ResultsWriter(run_dir, observer=live)
    for r in results:
        writer.write(r)
    return writer


def test_a_line_appended_by_someone_else_is_read_from_the_file(
    journal: tuple[Path, LiveSummary],
) -> None:
    run_dir, live = journal
    _write(run_dir, live, _result("a"), _result("b", "failed")).close()
    with open(run_dir / "results.jsonl", "ab") as fh:
        fh.write(encode_result(_result("c", "failed")))
    folded = summarize(run_dir, live=live)
    assert folded.overall.results == 3
    assert folded == summarize(run_dir)


def test_gates_changed_since_the_fold_began_are_read_from_the_file(
    journal: tuple[Path, LiveSummary],
) -> None:
    run_dir, live = journal
    slow = {"category": "chat", "latency_ms": 900.0}
    _write(run_dir, live, _result("a", **slow), _result("b", **slow)).close()
    suite = Path(str(orjson.loads((run_dir / "run.json").read_bytes())["suite_path"]))
    suite.write_text(suite.read_text().replace("{chat: 0.5}", "{chat: 5}"))
    folded = summarize(run_dir, live=live)
    assert folded.performance.budget_violations.value == 0.0  # the new budget: none over it
    assert folded == summarize(run_dir)


def test_expert_reviews_written_during_the_run_are_read_from_the_file(
    journal: tuple[Path, LiveSummary],
) -> None:
    run_dir, live = journal
    _write(run_dir, live, _result("a"), _result("b")).close()
    before = summarize(run_dir)
    review = {"task": "planning_path", "id": "a#0", "label": 2}
    (run_dir / "reviews.jsonl").write_bytes(orjson.dumps(review) + b"\n")
    folded = summarize(run_dir, live=live)
    assert folded != before  # the review counts
    assert folded == summarize(run_dir)


def test_a_line_the_reader_refuses_is_refused_as_the_file_pass_refuses_it(
    journal: tuple[Path, LiveSummary],
) -> None:
    run_dir, live = journal
    writer = _write(run_dir, live, _result("a"))
    writer.write_line(b'{"case_id": "b", "trial": "first"}\n')
    writer.close()
    with pytest.raises(UserError) as from_file:
        summarize(run_dir)
    with pytest.raises(UserError) as folded:
        summarize(run_dir, live=live)
    assert str(folded.value) == str(from_file.value)


def test_a_line_written_without_its_newline_is_read_as_the_file_reads_it(
    journal: tuple[Path, LiveSummary],
) -> None:
    """Two writes without a newline between them are one bad line in the file."""
    run_dir, live = journal
    writer = _write(run_dir, live, _result("a"))
    writer.write_line(encode_result(_result("b")).rstrip(b"\n"))
    writer.write_line(encode_result(_result("c")))
    writer.close()
    with pytest.raises(UserError) as from_file:
        summarize(run_dir)
    with pytest.raises(UserError) as folded:
        summarize(run_dir, live=live)
    assert str(folded.value) == str(from_file.value)


def test_a_line_over_the_input_limit_is_refused_as_the_file_pass_refuses_it(
    journal: tuple[Path, LiveSummary], monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir, live = journal
    monkeypatch.setenv("AGENTGAUGE_MAX_FILE_MB", "0.004")  # 4,194 bytes
    _write(run_dir, live, _result("a"), _result("b", text="x" * 6000)).close()
    with pytest.raises(UserError, match="longer than") as from_file:
        summarize(run_dir)
    with pytest.raises(UserError) as folded:
        summarize(run_dir, live=live)
    assert str(folded.value) == str(from_file.value)


def test_a_fold_given_a_second_journal_leaves_both_to_the_files(
    journal: tuple[Path, LiveSummary], tmp_path: Path
) -> None:
    run_dir, live = journal
    _write(run_dir, live, _result("a")).close()
    other = tmp_path / "other"
    shutil.copytree(run_dir, other)
    (other / "results.jsonl").write_bytes(b"")
    _write(other, live, _result("b", "failed"), _result("c", "failed")).close()
    assert summarize(other, live=live) == summarize(other)
    assert summarize(run_dir).overall.results == 1
