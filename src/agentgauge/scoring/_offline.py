"""Score recorded responses against a suite, without calling any model ("bring your own responses").

This is what ``agentgauge score SUITE --responses FILE -o RUN_DIR [--mode default|bfcl]`` runs.
``SUITE`` is a suite file (or folder), or BFCL data (a ``BFCL_v*_<category>.json`` question file
or a folder of them), imported on the fly. ``FILE`` holds one response per line, in
agentgauge's form or as BFCL result lines (docs/bfcl.md). Writes ``RUN_DIR/results.jsonl``,
``summary.json`` and ``run.json``, like ``agentgauge run``.

"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from ..io._responses import RecordedResponse
    from ..schema import Case, Score, Suite, ToolCall, ToolSpec
    from ..scoring import CaseScore, ScoringConfig

__all__ = ["ScoreOutcome", "load_suite_any", "score_responses"]

_BFCL_FILE: Final = re.compile(r"^BFCL_v\d+_.+\.json$")
_V3_SIMPLE: Final = re.compile(r"^simple_(\d+)$")
_NO_RESPONSE: Final = "no response"
_BATCH: Final = 256


@dataclass(frozen=True, kw_only=True)
class ScoreOutcome:
    """What ``score_responses`` did: counts per status and category, and unmatched responses."""

    run_dir: Path
    total: int
    statuses: Mapping[str, int]
    #: category -> (passed, scored)
    categories: Mapping[str, tuple[int, int]]
    #: case ids of responses that match no case in the suite
    unknown_case_ids: Sequence[str] = field(default_factory=list)
    #: responses that could not be decoded into calls (BFCL results), counted as "no call"
    undecodable: int = 0
    #: cases left out because they had no response (``skip_missing``)
    skipped: int = 0


def looks_like_bfcl(path: Path) -> bool:
    if path.is_dir():
        has_suite = any((path / n).exists() for n in ("suite.yaml", "suite.yml", "suite.json"))
        return not has_suite and any(path.glob("BFCL_v*_*.json"))
    return bool(_BFCL_FILE.match(path.name)) or path.parent.name == "possible_answer"


def load_suite_any(path: Path) -> Suite:
    """A suite file / folder (``agentgauge.io.load_suite``), or BFCL data imported on the fly."""
    if looks_like_bfcl(path):
        from ..io.importers import import_suite

        return import_suite("bfcl", [path])
    from ..io import load_suite

    return load_suite(path)


def _tool_lookup(suite: Suite) -> dict[str, ToolSpec]:
    return {t.name: t for t in suite.tools}


def _case_tools(case: Case, suite_tools: Mapping[str, ToolSpec]) -> dict[str, ToolSpec]:
    from ..schema import ToolSpec

    if case.tools is None:
        return dict(suite_tools)
    out: dict[str, ToolSpec] = {}
    for t in case.tools:
        if isinstance(t, ToolSpec):
            out[t.name] = t
        elif t in suite_tools:
            out[t] = suite_tools[t]
    return out


def _score_dict(score: Score) -> dict[str, Any]:
    return {
        "name": score.name,
        "value": score.value,
        "passed": score.passed,
        "explanation": score.explanation,
        "expected": score.expected,
        "actual": score.actual,
        "parts": [_score_dict(p) for p in score.parts],
    }


def _result_line(
    template: dict[str, Any],
    case: Case,
    trial: int,
    response: RecordedResponse | None,
    calls: Sequence[ToolCall],
    verdict: CaseScore | None,
    error: str | None,
) -> dict[str, Any]:
    """One ``CaseResult`` as plain data (same field names; validated by the tests)."""
    line = dict(template)
    line["case_id"] = case.id
    line["trial"] = trial
    line["category"] = case.category
    line["difficulty"] = case.difficulty
    line["tags"] = case.tags
    line["labels"] = case.labels.model_dump(mode="json") if case.labels is not None else None
    line["latency_budget_s"] = case.latency_budget_s
    line["expected_behavior"] = case.expect.behavior
    line["expected_tools"] = [c.name for c in case.expect.tool_calls]
    line["later_expected_tools"] = case.later_expected_tools()
    if response is not None:
        line["calls"] = [{"name": c.name, "arguments": c.arguments, "id": c.id} for c in calls]
        line["text"] = response.text
        line["tool_calls"] = len(calls)
        if response.messages is not None:
            line["messages"] = [m.model_dump(mode="json") for m in response.messages]
        if response.labels is not None:
            line["predicted_labels"] = response.labels.model_dump(mode="json")
    if verdict is None:
        line["status"] = "error"
        line["score"] = 0.0
        line["error"] = error
        line["explanation"] = error or ""
        return line
    line["status"] = verdict.status
    line["score"] = verdict.score
    line["scores"] = [_score_dict(s) for s in verdict.scores]
    explanation = verdict.explanation
    if response is not None and response.decode_error and verdict.status != "passed":
        explanation = f"{explanation}\n(response not decodable: {response.decode_error})".strip()
    line["explanation"] = explanation
    line["behavior"] = verdict.behavior
    return line


def _write_run_record(
    run_dir: Path, suite: Suite, suite_path: Path | None, responses_path: Path, started: str,
    mode: str, cases: int, options: dict[str, Any],
) -> None:  # fmt: skip
    from .._version import __version__
    from ..io import suite_hash, write_record
    from ..schema import RunRecord

    record = RunRecord(
        run_id=run_dir.name,
        suite=suite.name,
        # absolute, as `run` records it: `gate` may run from another folder; None when the
        # suite was given as an object (its gates are then not on disk to read)
        suite_path=str(suite_path.resolve()) if suite_path is not None else None,
        suite_hash=suite_hash(suite),
        agent=f"responses:{responses_path}",
        started_at=started,
        finished_at=datetime.now(UTC).isoformat(timespec="seconds"),
        agentgauge_version=__version__,
        trials=int(options.get("trials", 1)),
        scoring_mode=mode,
        case_count=cases,
        options=options,
    )
    write_record(run_dir, record)


def _write_summary(run_dir: Path, suite: Suite, lines: Sequence[tuple[str, str]]) -> None:
    """``summary.json`` from agentgauge.metrics; a minimal one if metrics is not available."""
    try:
        from ..metrics import summarize, write_summary
        from ..schema import Gates
    except ImportError:  # pragma: no cover - metrics ships with the package
        import orjson

        by_cat: dict[str, list[int]] = {}
        passed = 0
        for category, status in lines:
            entry = by_cat.setdefault(category, [0, 0])
            entry[1] += 1
            if status == "passed":
                entry[0] += 1
                passed += 1
        minimal = {
            "version": 1,
            "overall": {"passed": passed, "total": len(lines)},
            "by_category": {k: {"passed": v[0], "total": v[1]} for k, v in by_cat.items()},
        }
        (run_dir / "summary.json").write_bytes(orjson.dumps(minimal, option=orjson.OPT_INDENT_2))
        return
    # the suite's gates are given here so that metrics does not load the suite file again
    write_summary(run_dir, summarize(run_dir, gates=suite.gates or Gates()))


def score_responses(
    suite: Suite,
    responses: Sequence[RecordedResponse],
    run_dir: Path,
    config: ScoringConfig,
    *,
    suite_path: Path | None = None,
    responses_path: Path | None = None,
    skip_missing: bool = False,
) -> ScoreOutcome:
    """Score recorded responses against ``suite`` and write ``run_dir`` (results, summary, run).

    The run directory is locked as ``agentgauge run`` locks it: while a run (or another score)
    writes to it, this raises :class:`~agentgauge.errors.UserError` and changes nothing.
    """
    from ..io import run_dir_lock

    with run_dir_lock(run_dir):
        return _score_locked(
            suite,
            responses,
            run_dir,
            config,
            suite_path=suite_path,
            responses_path=responses_path,
            skip_missing=skip_missing,
        )


def _score_locked(
    suite: Suite,
    responses: Sequence[RecordedResponse],
    run_dir: Path,
    config: ScoringConfig,
    *,
    suite_path: Path | None = None,
    responses_path: Path | None = None,
    skip_missing: bool = False,
) -> ScoreOutcome:
    """:func:`score_responses` once the run directory's lock is held.

    Every case gets one result per trial it has a response for; a case with no response at all
    is recorded with status ``error`` ("no response"), or left out with ``skip_missing`` (to
    score a result file that covers part of a suite). Responses for unknown case ids are
    reported in the outcome (and in ``run.json``), not scored.
    """
    import orjson

    from ..errors import ScorerError
    from ..io import ResultsWriter
    from ..schema import CaseResult
    from ..scoring import score_case

    config = config.for_suite(suite)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    run_dir.mkdir(parents=True, exist_ok=True)
    by_case: dict[str, list[RecordedResponse]] = {}
    for r in responses:
        by_case.setdefault(r.case_id, []).append(r)
    case_ids = {c.id for c in suite.cases}
    for cid in [c for c in by_case if c not in case_ids]:
        alias = _V3_SIMPLE.sub(
            r"simple_python_\1", cid
        )  # BFCL v3's "simple" is v4's "simple_python"
        if alias != cid and alias in case_ids and alias not in by_case:
            by_case[alias] = by_case.pop(cid)
    unknown = sorted(cid for cid in by_case if cid not in case_ids)
    template = CaseResult(case_id="-", status="error").model_dump(mode="json")
    suite_tools = _tool_lookup(suite)
    statuses: Counter[str] = Counter()
    categories: dict[str, list[int]] = {}
    pairs: list[tuple[str, str]] = []
    undecodable = 0
    skipped = 0
    with ResultsWriter(run_dir, fresh=True) as writer:
        out: list[bytes] = []
        for case in suite.cases:
            recorded = by_case.get(case.id)
            trials: list[tuple[int, RecordedResponse | None]]
            if recorded:
                trials = sorted(((r.trial, r) for r in recorded), key=lambda x: x[0])
            elif skip_missing:
                skipped += 1
                continue
            else:
                trials = [(0, None)]
            tools = _case_tools(case, suite_tools)
            for trial, response in trials:
                verdict = None
                error: str | None = _NO_RESPONSE
                calls: list[ToolCall] = []
                if response is not None:
                    if response.decode_error:
                        undecodable += 1
                    turns = response.turns(tools.keys())
                    calls = response.calls if response.messages else turns[0][0].tool_calls
                    try:
                        verdict = score_case(case, turns, tools, config)
                    except ScorerError as exc:
                        error = f"scorer error: {exc}"
                line = _result_line(template, case, trial, response, calls, verdict, error)
                status = line["status"]
                statuses[status] += 1
                cat = categories.setdefault(case.category, [0, 0])
                cat[1] += 1
                cat[0] += status == "passed"
                pairs.append((case.category, status))
                out.append(orjson.dumps(line, default=repr))
                if len(out) >= _BATCH:  # stream: a few hundred lines per write
                    writer.write_line(b"\n".join(out) + b"\n", flush=False)
                    out.clear()
        if out:
            writer.write_line(b"\n".join(out) + b"\n", flush=False)
    options: dict[str, Any] = {
        "mode": config.mode,
        "trials": max((r.trial for r in responses), default=0) + 1,
    }
    if responses_path is not None:
        options["responses"] = str(responses_path)
    if skipped:
        options["skipped_without_response"] = skipped
    if unknown:
        options["unknown_case_ids"] = unknown[:100]
        options["unknown_case_count"] = len(unknown)
    _write_run_record(
        run_dir,
        suite,
        suite_path,
        responses_path or Path("-"),
        started,
        config.mode,
        len(suite.cases),
        options,
    )
    _write_summary(run_dir, suite, pairs)
    return ScoreOutcome(
        run_dir=run_dir,
        total=len(pairs),
        statuses=dict(statuses),
        categories={k: (v[0], v[1]) for k, v in categories.items()},
        unknown_case_ids=unknown,
        undecodable=undecodable,
        skipped=skipped,
    )
