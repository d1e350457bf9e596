"""What a run records: the trace of each case, its scores, and the run itself.

``results.jsonl`` holds one :class:`CaseResult` per line (one per case and trial). Its field names
are a public contract read by other tools: add fields, never rename them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from .._factories import factory_of, new_dict, new_list
from ._base import FORMAT_VERSION, JsonValue, Message, Model, ToolCall, Usage
from ._case import Labels
from ._user import UserRecord, UserSimulator
from ._world import StateWrite, WorldRecord

#: ``user_error``: the simulated user broke its instructions (docs/users.md) — neither a pass
#: nor the agent's failure, left out of the agent's rates
Status = Literal["passed", "failed", "error", "user_error"]


class TraceEvent(Model):
    """One step of an agent run: a model call, a tool call, or a simulated user's turn."""

    #: ``user``: a simulated user's message (its model call when it has one), apart from the
    #: agent's steps
    kind: Literal["model", "tool", "user"]
    #: index of the user turn this step belongs to (0 = the case input)
    turn: int = 0
    #: wall-clock start, seconds since the epoch
    start: float
    end: float
    latency_ms: float
    # --- model steps
    model: str | None = None
    usage: Usage | None = None
    ttft_ms: float | None = None
    cached: bool = False
    cost_usd: float | None = None
    attempts: int = 1
    #: the route / skill / intents the agent reported with this response (when it did)
    labels: Labels | None = None
    #: what the API said about its answer, when it said it: the model that answered, the
    #: response's id and why generation stopped (``stop``, ``tool_calls``, ``length`` ...)
    response_model: str | None = None
    response_id: str | None = None
    finish_reason: str | None = None
    # --- tool steps
    tool: str | None = None
    arguments: dict[str, JsonValue] | None = None
    result: JsonValue = None
    fault: str | None = None
    #: what the call changed in the world's state (before -> after)
    writes: list[StateWrite] = Field(default_factory=new_list)
    # --- either
    error: str | None = None


class Score(Model):
    """One score with its explanation. ``passed is None`` means the score was skipped."""

    name: str
    value: float = Field(ge=0, le=1)
    passed: bool | None
    explanation: str = ""
    #: what was expected and what happened, as short labels (e.g. tool names, for a confusion
    #: matrix: "get_weather" vs "<no tool>")
    expected: str | None = None
    actual: str | None = None
    #: finer scores this one is made of (e.g. one per argument)
    parts: list[Score] = Field(default_factory=new_list)
    #: judge scores with ``judge_samples > 1``: the share of the samples that gave the chosen
    #: answer (the lowest over the judge calls behind this score)
    agreement: float | None = Field(default=None, ge=0, le=1)
    #: the samples agreed less than ``judge_agreement``: ``passed`` is the majority verdict,
    #: and a gate's ``uncertain`` option decides whether it counts as a fail, a pass or neither
    uncertain: bool = False
    #: the scale ``value`` maps onto when the scorer has one of its own (a suite rubric's
    #: ``[0, 10]``): ``gates.scorers.NAME.min_mean`` is read on it unless the gate gives a scale
    scale: tuple[float, float] | None = None


class Feedback(Model):
    """A user's feedback on the conversation a result was scored from (online feedback on a
    captured trace: a span attribute, or a feedback file keyed by trace id)."""

    score: float
    #: the feedback's own scale: ``[0, 1]`` for thumbs down / up, ``[1, 5]`` for stars
    scale: tuple[float, float] = (0.0, 1.0)
    #: where it came from (``span user.feedback.score``, ``feedback.jsonl:3``)
    source: str | None = None
    comment: str | None = None

    @model_validator(mode="after")
    def _on_scale(self) -> Feedback:
        lo, hi = self.scale
        if not lo < hi:
            raise ValueError(f"scale [{lo:g}, {hi:g}]: the low end must be below the high end")
        if not lo <= self.score <= hi:
            raise ValueError(f"score {self.score:g} is outside its scale [{lo:g}, {hi:g}]")
        return self

    def share(self) -> float:
        """The score as a share of its scale (0..1)."""
        lo, hi = self.scale
        return (self.score - lo) / (hi - lo)


class CaseResult(Model):
    """The outcome of one case and trial."""

    version: int = FORMAT_VERSION
    case_id: str
    trial: int = 0
    status: Status
    #: overall partial-credit score in [0, 1]
    score: float = Field(default=0.0, ge=0, le=1)
    scores: list[Score] = Field(default_factory=new_list)
    #: the reasons for a failure (or the error), one per line
    explanation: str = ""
    # --- copied from the case so results.jsonl is self-contained for metrics
    category: str = "happy_path"
    difficulty: str | None = None
    tags: list[str] = Field(default_factory=new_list)
    labels: Labels | None = None
    latency_budget_s: float | None = None
    expected_behavior: str | None = None
    expected_tools: list[str] = Field(default_factory=new_list)
    #: tools expected in the scripted turns after the first (``expected_tools`` and
    #: ``expected_behavior`` describe turn 0)
    later_expected_tools: list[str] = Field(default_factory=new_list)
    # --- what the agent did
    calls: list[ToolCall] = Field(default_factory=new_list)
    text: str | None = None
    #: classified behaviour of the agent's final turn (tool_call / answer / clarify / refuse)
    behavior: str | None = None
    messages: list[Message] = Field(default_factory=new_list)
    trace: list[TraceEvent] = Field(default_factory=new_list)
    # --- cost and performance
    usage: Usage = Field(default_factory=factory_of(Usage))
    #: False when the agent's steps report no token counts (a trace whose model spans carry no
    #: ``gen_ai.usage.*``): ``usage`` is then a placeholder, not 0 tokens, and metrics leave the
    #: result out of the token means
    usage_recorded: bool = True
    model_calls: int = 0
    tool_calls: int = 0
    latency_ms: float = 0.0
    ttft_ms: float | None = None
    cost_usd: float | None = None
    #: module-level labels the agent itself reported (its recognised intents, chosen route or
    #: skill: ``ModelResponse.labels``, a ``labels`` key in a python:/http: reply, or ``labels``
    #: in a recorded response), merged over the case's responses (the first route and skill,
    #: every intent); metrics prefer these to inferring intents from the tool calls, and
    #: measure routing and skill accuracy only from them
    predicted_labels: Labels | None = None
    #: why the case errored (provider failure, timeout, scorer crash), kept apart from failure
    error: str | None = None
    #: the agent used up its step limit (model calls per user turn) in some turn
    step_limit_hit: bool = False
    #: the world's final state and the state checks' verdict (None: the suite has no world)
    world: WorldRecord | None = None
    #: the simulated user of the case (None: none): how the conversation ended, why the result
    #: is ``user_error``, the user's own calls and cost (not in ``usage`` / ``cost_usd``)
    user: UserRecord | None = None
    #: copied whole from the cache: an earlier run of the same case, agent, options and
    #: agentgauge code produced it (its trace and latencies are that run's)
    replayed: bool = False
    #: the user's feedback on the conversation this result was scored from (a captured
    #: trace's span attribute or a feedback file entry): the user-satisfaction metric
    feedback: Feedback | None = None
    #: the trace the result was scored from (a captured production trace, ``agentgauge
    #: score`` of OTLP responses): what a feedback file keyed by trace id is matched on
    trace_id: str | None = None


class RunRecord(Model):
    """``run.json``: what was run, with what, when."""

    version: int = FORMAT_VERSION
    run_id: str
    suite: str
    suite_path: str | None = None
    suite_hash: str | None = None
    agent: str
    judge: str | None = None
    started_at: str
    finished_at: str | None = None
    #: the commit checked out in the suite's git repository (None: not in one, or no suite file)
    git_commit: str | None = None
    #: a tracked file of that repository differed from the commit (changed, staged or in
    #: conflict; untracked files do not count); None: not known
    git_dirty: bool | None = None
    agentgauge_version: str
    trials: int = 1
    max_concurrency: int | None = None
    scoring_mode: str = "default"
    case_count: int = 0
    #: the run's options (trials, timeout, filters, base URL ...) so ``run --resume`` can continue
    #: it; never holds secrets
    options: dict[str, JsonValue] = Field(default_factory=new_dict)
    #: ``i/N``: this run holds shard i of N of the run's (case, trial) pairs (``--shard``)
    shard: str | None = None
    #: a hash of what decides the results (suite, agent, judge and the result-changing options;
    #: not the shard, concurrency or cache): every shard of one run has the same one
    config_hash: str | None = None
    #: the run directories ``agentgauge merge`` combined into this run (empty: not a merge)
    merged_from: list[str] = Field(default_factory=new_list)
    #: the simulated users' identity (kinds, models, prompt template, seed): part of the config
    #: hash; ``compare`` and gates refuse a baseline whose users differ (None: no user cases)
    user_simulator: UserSimulator | None = None
