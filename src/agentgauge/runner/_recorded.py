"""Scoring recorded responses: a run whose agent already answered ("bring your own responses").

What ``agentgauge score SUITE --responses FILE -o RUN_DIR`` runs. No model is called; every
response becomes the case's transcript and is scored exactly as ``agentgauge run`` scores a
driven case: the same result building, the same deterministic verdict and the suite's
``scorers:`` section (similarity, numeric grounding, judges ...). The run directory is written
through :mod:`agentgauge.io` (results, ``run.json``); the summary is the caller's (metrics).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

import anyio

from .._suite_code import SuiteCodePolicy
from .._version import __version__
from ..exchange import RecordedResponse
from ..rundir import ResultsWriter, run_dir_lock, suite_hash, write_record
from ..schema import (
    Case,
    CaseResult,
    JsonValue,
    Message,
    RunRecord,
    Suite,
    ToolSpec,
    TraceEvent,
    UserSpec,
)
from ..scoring import ScoringConfig
from ..users import recorded_user_error
from ..worlds import WorldBuilder
from ._case import build_result, grade_with_user, score_result
from ._config import ExtraScorer, RunConfig
from ._file import located
from ._loop import Transcript
from ._plan import git_fields
from ._suite_setup import with_suite_scorers
from ._world import recorded_world

__all__ = ["ScoreOutcome", "score_responses"]

_V3_SIMPLE: Final = re.compile(r"^simple_(\d+)$")
_NO_RESPONSE: Final = "no response"


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


def _by_case(
    suite: Suite, responses: Sequence[RecordedResponse]
) -> dict[str, list[RecordedResponse]]:
    by_case: dict[str, list[RecordedResponse]] = {}
    for r in responses:
        by_case.setdefault(r.case_id, []).append(r)
    case_ids = {c.id for c in suite.cases}
    for cid in [c for c in by_case if c not in case_ids]:
        alias = _V3_SIMPLE.sub(r"simple_python_\1", cid)  # BFCL v3's "simple" is v4's
        if alias != cid and alias in case_ids and alias not in by_case:
            by_case[alias] = by_case.pop(cid)
    return by_case


async def _recorded_result(
    case: Case,
    trial: int,
    response: RecordedResponse | None,
    tools: dict[str, ToolSpec],
    scoring: ScoringConfig,
    extra: Sequence[ExtraScorer],
    world: tuple[WorldBuilder, SuiteCodePolicy] | None = None,
    user: UserSpec | None = None,
) -> CaseResult:
    """The result of one recorded response, built and scored as the runner does for a driven
    case (a case without a response is an ``error``: "no response"). With a suite world, the
    recorded calls are applied to a fresh one, turn by turn, and its state graded. A case with
    a simulated user (``user``) is graded as a run grades it: the recorded conversation's user
    messages checked against the user's instructions, ``expect`` on the whole conversation."""
    if response is None:
        result = build_result(case, trial, Transcript(), 0.0)
        result.error = result.explanation = _NO_RESPONSE
        return result
    turns = response.turns(tools.keys(), 1 + len(case.turns))
    whole = response.conversation if response.conversation is not None else response.messages
    messages = list(whole) if whole is not None else []
    user_error = None
    if user is not None:  # one turn: every agent message after the opening
        turns = [_agent_part(messages) if messages else turns[0]]
        opening = [case.input] if isinstance(case.input, str) else []
        user_error = recorded_user_error(user, opening, messages)
    tr = Transcript(messages=messages, turns=turns, labels=response.labels)
    if response.trace is not None:
        _steps_into(tr, response.trace)
    result = build_result(case, trial, tr, response.latency_ms or 0.0)
    result.text = response.text
    result.trace_id, result.feedback = response.trace_id, response.feedback
    if not any(e.kind == "tool" for e in tr.trace):
        result.tool_calls = len(result.calls)
    models = [e for e in tr.trace if e.kind == "model"]
    result.usage_recorded = not models or any(e.usage is not None for e in models)
    outcome = None
    if world is not None:
        run, outcome, problem = recorded_world(case, world[0], turns, world[1])
        if problem is not None:
            result.error = result.explanation = problem
            return result
        assert run is not None
        result.world = run.record()
    if user is not None:
        await grade_with_user(case, result, turns, user, user_error, tools, scoring, extra, outcome)
    else:
        await score_result(case, result, turns, tools, scoring, extra, world=outcome)
    if response.decode_error and result.status != "passed":
        note = f"(response not decodable: {response.decode_error})"
        result.explanation = f"{result.explanation}\n{note}".strip()
    return result


def _agent_part(conversation: list[Message]) -> list[Message]:
    """The agent's messages (and the tool results) after the first user message."""
    first = next((i for i, m in enumerate(conversation) if m.role == "user"), -1)
    return [m for m in conversation[first + 1 :] if m.role not in ("user", "system")]


def _steps_into(tr: Transcript, steps: Sequence[TraceEvent]) -> None:
    """A traced response's steps as the transcript's performance record (what a driven run
    counts): the steps, model and tool call counts, tokens summed over the model steps that
    report usage, and the first time to first token. A step without usage adds nothing."""
    tr.trace = list(steps)
    for e in steps:
        if e.kind == "tool":
            tr.tool_calls += 1
            continue
        tr.model_calls += 1
        if e.usage is not None:
            tr.input_tokens += e.usage.input_tokens
            tr.output_tokens += e.usage.output_tokens
        if tr.ttft_ms is None and e.ttft_ms is not None:
            tr.ttft_ms = e.ttft_ms


def _options(
    config: ScoringConfig, responses: Sequence[RecordedResponse], responses_path: Path | None,
    skipped: int, unknown: list[str],
) -> dict[str, JsonValue]:  # fmt: skip
    options: dict[str, JsonValue] = {
        "mode": config.mode,
        "trials": max((r.trial for r in responses), default=0) + 1,
    }
    if responses_path is not None:
        options["responses"] = str(responses_path)
    if skipped:
        options["skipped_without_response"] = skipped
    if unknown:
        options["unknown_case_ids"] = list(unknown[:100])
        options["unknown_case_count"] = len(unknown)
    return options


def score_responses(
    suite: Suite,
    responses: Sequence[RecordedResponse],
    run_dir: Path,
    config: ScoringConfig,
    *,
    suite_path: Path | None = None,
    responses_path: Path | None = None,
    skip_missing: bool = False,
    run_config: RunConfig | None = None,
) -> ScoreOutcome:
    """Score recorded responses against ``suite`` and write ``run_dir`` (results, run.json).

    Every case gets one result per trial it has a response for; a case with no response at all
    is recorded with status ``error`` ("no response"), or left out with ``skip_missing``.
    Responses for unknown case ids are reported in the outcome (and in ``run.json``). The
    suite's ``scorers:`` are wired as for a run (``run_config``: their judge cache, suite-code
    opt-in). The run directory is locked as ``agentgauge run`` locks it.
    """
    run_dir = Path(run_dir)
    with run_dir_lock(run_dir):
        return anyio.run(
            lambda: _score_locked(
                suite, responses, run_dir, config, suite_path, responses_path, skip_missing,
                run_config,
            )
        )  # fmt: skip


def _world(suite: Suite, base: RunConfig) -> tuple[WorldBuilder, SuiteCodePolicy] | None:
    """The suite's world builder (a Python world's class checked as suite code, then
    imported) and the policy to build under; None without a world."""
    if suite.world is None:
        return None
    policy = base.code_policy()
    builder = WorldBuilder(suite.world)
    builder.load(policy)
    return builder, policy


async def _score_locked(
    suite: Suite, responses: Sequence[RecordedResponse], run_dir: Path, config: ScoringConfig,
    suite_path: Path | None, responses_path: Path | None, skip_missing: bool,
    run_config: RunConfig | None,
) -> ScoreOutcome:  # fmt: skip
    started = datetime.now(UTC).isoformat(timespec="seconds")
    path = str(suite_path.resolve()) if suite_path is not None else None
    base = run_config or RunConfig(suite_path=path)
    wired = (  # the suite's judges and scorers pass the policy (refusals with file:line)
        located(suite_path, base, lambda: with_suite_scorers(base, suite))
        if suite_path is not None
        else with_suite_scorers(base, suite)
    )
    scoring = config.for_suite(suite)
    by_case = _by_case(suite, responses)
    world = _world(suite, base)
    unknown = sorted(cid for cid in by_case if cid not in {c.id for c in suite.cases})
    statuses: Counter[str] = Counter()
    categories: dict[str, list[int]] = {}
    undecodable = skipped = 0
    try:
        with ResultsWriter(run_dir, fresh=True) as writer:
            for case in suite.cases:
                recorded = sorted(by_case.get(case.id, []), key=lambda r: r.trial)
                if not recorded and skip_missing:
                    skipped += 1
                    continue
                tools = _case_tools(case, suite)
                pairs: list[tuple[int, RecordedResponse | None]] = [
                    (r.trial, r) for r in recorded
                ] or [(0, None)]
                for trial, response in pairs:
                    undecodable += bool(response is not None and response.decode_error)
                    result = await _recorded_result(
                        case, trial, response, tools, scoring, wired.extra_scorers, world,
                        suite.user_for(case),
                    )  # fmt: skip
                    writer.write(result)
                    statuses[result.status] += 1
                    cat = categories.setdefault(case.category, [0, 0])
                    cat[1] += 1
                    cat[0] += result.status == "passed"
    finally:
        for scorer in wired.extra_scorers:  # judges hold provider sessions
            aclose = getattr(scorer, "aclose", None)
            if aclose is not None:
                await aclose()
    options = _options(config, responses, responses_path, skipped, unknown)
    if base.judge_samples is not None:
        options["judge_samples"] = base.judge_samples
    commit, dirty = git_fields(path)
    record = RunRecord(
        run_id=run_dir.name,
        suite=suite.name,
        # absolute, as `run` records it: `gate` may run from another folder
        suite_path=path,
        suite_hash=suite_hash(suite),
        agent=f"responses:{responses_path or '-'}",
        judge=wired.judge,
        started_at=started,
        finished_at=datetime.now(UTC).isoformat(timespec="seconds"),
        git_commit=commit,
        git_dirty=dirty,
        agentgauge_version=__version__,
        trials=max((r.trial for r in responses), default=0) + 1,
        scoring_mode=config.mode,
        case_count=len(suite.cases),
        options=options,
    )
    write_record(run_dir, record)
    return ScoreOutcome(
        run_dir=run_dir,
        total=sum(statuses.values()),
        statuses=dict(statuses),
        categories={k: (v[0], v[1]) for k, v in categories.items()},
        unknown_case_ids=unknown,
        undecodable=undecodable,
        skipped=skipped,
    )


def _case_tools(case: Case, suite: Suite) -> dict[str, ToolSpec]:
    """The tools the case offers, by name (its own list, else every suite tool)."""
    suite_tools = {t.name: t for t in suite.tools}
    if case.tools is None:
        return suite_tools
    out: dict[str, ToolSpec] = {}
    for t in case.tools:
        if isinstance(t, ToolSpec):
            out[t.name] = t
        elif t in suite_tools:
            out[t] = suite_tools[t]
    return out
