"""The live summary folds the results a run writes from the results in hand (no decode of the
line it just encoded), and that summary is still the file pass's over ``results.jsonl``, byte for
byte; each guard that sends a line back to the reader is shown to matter: without it, the fold
and the file pass differ."""

from __future__ import annotations

import math
import shutil
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

import agentgauge.metrics._files as files_mod
import agentgauge.metrics._live as live_mod
from agentgauge import _secrets
from agentgauge._secrets import scrub_bytes
from agentgauge.cli import cli
from agentgauge.errors import UserError
from agentgauge.metrics import LiveSummary, summarize
from agentgauge.rundir import ResultsWriter
from agentgauge.schema import CaseResult

REPO = Path(__file__).resolve().parents[2]
COMMON = ("--no-cache", "--no-history", "--no-progress")


@pytest.fixture
def counts(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """File passes made (``summarize_results``) and lines the fold decoded."""
    made = {"file": 0, "decoded": 0}
    real_pass, real_decode = files_mod.summarize_results, live_mod.result_from_line

    def file_pass(*args: object, **kwargs: object) -> object:
        made["file"] += 1
        return real_pass(*args, **kwargs)  # type: ignore[arg-type]

    def decode(*args: object, **kwargs: object) -> CaseResult:
        made["decoded"] += 1
        return real_decode(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(files_mod, "summarize_results", file_pass)
    monkeypatch.setattr(live_mod, "result_from_line", decode)
    return made


def _file_pass(run_dir: Path) -> bytes:
    summary = summarize(run_dir)
    data = orjson.dumps(summary.model_dump(mode="json"), option=orjson.OPT_INDENT_2)
    return scrub_bytes(data) + b"\n"


def _run(*args: str) -> str:
    result = CliRunner().invoke(cli, ["run", *args], catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result.output


@pytest.fixture(scope="module")
def varied(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/quickstart (single and multi-turn cases, clarifications, refusals, arguments)
    with error faults, three trials and a scorer that skips a reply with no number in it."""
    folder = tmp_path_factory.mktemp("fold-in-hand") / "quickstart"
    shutil.copytree(REPO / "examples" / "quickstart", folder)
    path = folder / "suite.yaml"
    text = path.read_text()
    harder = "\ndefaults:\n  trials: 3\n  faults: [{kind: error, rate: 0.2}]\n"
    scorers = "\nscorers:\n  - scorer: numeric_grounding\n"
    path.write_text(text.replace("\ndefaults:\n", harder, 1) + scorers)
    return folder


def _lines(run_dir: Path) -> list[dict[str, object]]:
    return [orjson.loads(x) for x in (run_dir / "results.jsonl").read_bytes().splitlines()]


#: a scripted agent: calls, texts and provider errors (and an error on every call once spent)
SCRIPT = [
    {"calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
    {"text": "It is 20 degrees in Paris."},
    {"error": {"status": 400, "message": "bad request"}},
    {"text": "Which Portland do you mean?"},
] * 20


@pytest.mark.parametrize("agent", ["oracle", "script"])
def test_a_varied_run_folds_every_result_in_hand_and_is_the_file_pass(
    varied: Path, tmp_path: Path, counts: dict[str, int], agent: str
) -> None:
    run_dir = tmp_path / "run"
    script = tmp_path / "script.jsonl"
    script.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in SCRIPT))
    spec = f"python:{varied / 'oracle_agent.py'}:agent" if agent == "oracle" else f"mock:{script}"
    _run(str(varied), "-o", str(run_dir), "--agent", spec, "--allow-suite-code", *COMMON)
    assert counts == {"file": 0, "decoded": 0}  # no file pass, no line decoded again
    assert (run_dir / "summary.json").read_bytes() == _file_pass(run_dir)
    results = _lines(run_dir)
    statuses = {str(r["status"]) for r in results}
    assert statuses == (
        {"passed", "failed"} if agent == "oracle" else {"passed", "failed", "error"}
    )
    assert {int(str(r["trial"])) for r in results} == {0, 1, 2}
    scores = [s for r in results for s in r["scores"]]  # type: ignore[attr-defined]
    assert any(s["passed"] is None for s in scores)  # a skipped score (an unknown)
    assert any("." in s["name"] for s in scores)  # a later turn's score: multi-turn cases

    # a resume folds the lines on disk (decoded) and then the new ones (in hand)
    journal = run_dir / "results.jsonl"
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(b"".join(lines[:25]) + lines[25][:30])  # killed mid-write
    (run_dir / "summary.json").unlink()
    out = _run("--resume", str(run_dir), "--agent", spec, "--allow-suite-code", *COMMON[1:])
    assert "25 resumed" in out
    assert counts == {"file": 1, "decoded": 25}  # the one file pass: _file_pass above
    assert (run_dir / "summary.json").read_bytes() == _file_pass(run_dir)


# ------------------------------------------------------------------ the guards, one by one


@pytest.fixture
def journal(tmp_path: Path, varied: Path) -> Iterator[tuple[Path, LiveSummary]]:
    """A run directory of the varied suite (its run.json) whose journal the fold sees."""
    run_dir = tmp_path / "run"
    _run(str(varied), "-o", str(run_dir), "--agent", "mock:echo", "--limit", "2", *COMMON)
    (run_dir / "results.jsonl").write_bytes(b"")
    (run_dir / "summary.json").unlink()
    with LiveSummary() as live:
        yield run_dir, live


def _result(case_id: str, status: str = "failed", **more: object) -> CaseResult:
    data = {"case_id": case_id, "status": status, "score": 1.0 if status == "passed" else 0.0}
    return CaseResult.model_validate(data | more)


def _folded(run_dir: Path, live: LiveSummary, *results: CaseResult) -> object:
    with ResultsWriter(run_dir, observer=live) as writer:
        for r in results:
            writer.write(r)
    return summarize(run_dir, live=live)


def test_a_result_a_secret_was_scrubbed_from_is_folded_as_written(
    journal: tuple[Path, LiveSummary], monkeypatch: pytest.MonkeyPatch, counts: dict[str, int]
) -> None:
    run_dir, live = journal
    monkeypatch.setattr(_secrets, "_values", set(_secrets._values))
    _secrets.register("sk-live-0123456789abcdef")
    try:
        leaked = _result("a", explanation="the key sk-live-0123456789abcdef was refused")
        folded = _folded(run_dir, live, leaked, _result("b", "passed"))
        assert counts["decoded"] == 1  # the scrubbed line, read back; the other in hand
        assert folded == summarize(run_dir)
        assert "sk-live" not in str(folded)
    finally:
        _secrets._reset()
        _secrets.register_env()


def test_floats_json_cannot_carry_are_folded_as_the_reader_reads_them(
    journal: tuple[Path, LiveSummary], counts: dict[str, int]
) -> None:
    """inf and nan are written as null: the reader sees no cost, no latency, no budget."""
    run_dir, live = journal
    odd = [
        _result("a", cost_usd=math.inf),
        _result("c", latency_budget_s=math.inf, latency_ms=20.0),
        _result("d", ttft_ms=math.inf),
    ]
    folded = _folded(run_dir, live, *odd, _result("e", "passed", cost_usd=0.5))
    assert counts["decoded"] == 3
    assert folded == summarize(run_dir)


def test_a_failure_with_state_differences_is_folded_as_the_reader_reads_it(
    journal: tuple[Path, LiveSummary], counts: dict[str, int]
) -> None:
    run_dir, live = journal
    diff = [{"path": "orders.o1.status", "kind": "differs", "expected": "x", "actual": math.nan}]
    world = {"goal_met": False, "diff": diff}
    folded = _folded(run_dir, live, _result("a", world=world), _result("b", "passed"))
    assert counts["decoded"] == 1
    assert folded == summarize(run_dir)


def test_a_result_nested_too_deep_is_refused_as_the_file_pass_refuses_it(
    journal: tuple[Path, LiveSummary],
) -> None:
    run_dir, live = journal
    deep: object = "x"
    for _ in range(120):
        deep = [deep]
    calls = [{"name": "get_weather", "arguments": {"city": deep}}]
    with ResultsWriter(run_dir, observer=live) as writer:
        writer.write(_result("a", calls=calls))
    with pytest.raises(UserError, match="nested deeper") as from_file:
        summarize(run_dir)
    with pytest.raises(UserError) as folded:
        summarize(run_dir, live=live)
    assert str(folded.value) == str(from_file.value)


@pytest.mark.parametrize(
    "odd",
    [
        {"latency_ms": math.nan},
        {"scores": [{"name": "judge.tone", "value": 1, "passed": True, "scale": [0, math.inf]}]},
    ],
    ids=["latency", "scale"],
)
def test_a_float_json_cannot_carry_is_refused_as_the_file_pass_refuses_it(
    journal: tuple[Path, LiveSummary], odd: dict[str, object]
) -> None:
    """nan and inf are written as null, which the reader refuses for a latency or a scale."""
    run_dir, live = journal
    with ResultsWriter(run_dir, observer=live) as writer:
        writer.write(_result("a", **odd))
    with pytest.raises(UserError, match="got None") as from_file:
        summarize(run_dir)
    with pytest.raises(UserError) as folded:
        summarize(run_dir, live=live)
    assert str(folded.value) == str(from_file.value)
