"""A test case and a suite of them."""

from __future__ import annotations

from typing import Final, Literal

from pydantic import Field, field_validator, model_validator

from .._factories import factory_of, new_dict, new_list
from ._base import FORMAT_VERSION, JsonValue, Message, Model
from ._checks import StepLimits
from ._expect import ArgsMatch, Expectation, ExtraArguments
from ._gates import Gates
from ._load import LoadProfile
from ._matrix import Matrix
from ._modules import ModuleSettings
from ._sources import ConnectorServer, ToolMode, ToolSource
from ._tool import FaultRate, ToolSim, ToolSpec
from ._user import UserSpec, merge_user
from ._world import CaseWorld, WorldSpec

#: how tool calls written as text are read (``defaults.text_calls``)
TextCalls = Literal["strict", "lenient"]

#: categories agentgauge knows; users may use their own names too
KNOWN_CATEGORIES: Final = (
    "happy_path",
    "ambiguous",
    "edge_case",
    "adversarial",
    "error_recovery",
    "tool_call",
    "no_tool",
    "clarify",
    "error_handling",
    "not_supported",
)

#: how the common categories group into the usual 60 / 25 / 15 stratification
CATEGORY_STRATA: Final = {
    "happy_path": "common",
    "tool_call": "common",
    "no_tool": "common",
    "ambiguous": "edge",
    "edge_case": "edge",
    "clarify": "edge",
    "error_recovery": "edge",
    "error_handling": "edge",
    "not_supported": "edge",
    "adversarial": "adversarial",
}


class Labels(Model):
    """Module-level labels, for the module metrics (docs/metrics.md#diagnosis and
    #module-metrics). On a case: what is expected; reported by an agent: what it did."""

    intents: list[str] = Field(default_factory=new_list)
    route: str | None = None
    skill: str | None = None
    #: a case's relevant knowledge items (their ids); an agent's: the items it retrieved, best
    #: first (retrieval precision / recall @k)
    knowledge: list[str] = Field(default_factory=new_list)
    #: a case's: whether the agent should fall back (hand off to a person, give the safe
    #: default) — ``false`` says it should not; an agent's: whether it did (degradation-trigger
    #: accuracy)
    fallback: bool | None = None


class Turn(Model):
    """A scripted user turn after the first, with what is expected of the agent's reply to it."""

    user: str
    expect: Expectation | None = None
    #: tools of the case held back until this turn: offered from this turn on, not before
    #: (BFCL's miss_func turns add the functions the earlier turns lacked)
    add_tools: list[str] = Field(default_factory=new_list)


class Case(Model):
    """One test case: an input, the tools on offer, and what should happen."""

    id: str = Field(min_length=1)
    category: str = "happy_path"
    difficulty: str | None = None
    tags: list[str] = Field(default_factory=new_list)
    description: str | None = None
    #: one user message, or a whole conversation (system/user/assistant/tool turns)
    input: str | list[Message]
    #: system prompt for this case (overrides the suite default)
    system: str | None = None
    #: tools offered: names of suite tools or inline definitions; ``None`` offers every suite tool
    tools: list[str | ToolSpec] | None = None
    expect: Expectation = Field(default_factory=factory_of(Expectation))
    #: later scripted user turns (multi-turn cases); the conversation carries across them
    turns: list[Turn] = Field(default_factory=new_list)
    #: grounding passages the answer should be based on
    context: list[str] = Field(default_factory=new_list)
    labels: Labels | None = None
    #: latency budget for the whole case, seconds
    latency_budget_s: float | None = Field(default=None, gt=0)
    #: simulated results per tool name; a list gives successive calls successive results
    tool_results: dict[str, ToolSim | list[ToolSim]] = Field(default_factory=new_dict)
    #: faults injected at a rate for this case
    faults: list[FaultRate] = Field(default_factory=new_list)
    max_steps: int | None = Field(default=None, ge=1)
    #: ``mock`` or ``real`` tool calls for this case (None: ``defaults.tool_mode``)
    tool_mode: ToolMode | None = None
    #: the case's own starting state of the suite's ``world`` (a whole state, or a patch)
    world: CaseWorld | None = None
    #: free-form data kept with the case (importers record the source here)
    metadata: dict[str, JsonValue] = Field(default_factory=new_dict)
    #: run context for a framework agent (over ``defaults.agent_context``): LangGraph's
    #: ``configurable``, pydantic-ai's ``deps``, the OpenAI Agents SDK's ``context``
    #: (docs/bring-your-agent.md, "Run context")
    agent_context: dict[str, JsonValue] = Field(default_factory=new_dict)
    #: the case passes when its score (the mean of its expectations' weighted scores) is at
    #: least this, even with a failed check (None: every check must pass; docs/scoring.md)
    pass_threshold: float | None = Field(default=None, ge=0, le=1)
    #: a simulated user who answers the agent (docs/users.md): ``input`` is its opening, and
    #: ``expect`` applies to the whole conversation
    user: UserSpec | None = None
    #: bounds on the whole conversation (every turn's calls and model steps together), beside
    #: each turn's own (docs/scoring.md, "Suite-wide bounds")
    limits: StepLimits | None = None

    def later_expected_tools(self) -> list[str]:
        """Tools expected in the scripted turns after the first (``expect`` is turn 0's)."""
        return [c.name for t in self.turns if t.expect is not None for c in t.expect.tool_calls]

    @field_validator("input")
    @classmethod
    def _input_not_empty(cls, value: str | list[Message]) -> str | list[Message]:
        if isinstance(value, list) and not value:
            raise ValueError("a conversation needs at least one message")
        return value

    @model_validator(mode="after")
    def _user_or_turns(self) -> Case:
        if self.user is not None and self.turns:
            raise ValueError(
                "a case with 'user:' is played with its simulated user: drop 'turns' "
                "(the user's rules answer the agent instead)"
            )
        if self.tools is not None:
            offered = {t if isinstance(t, str) else t.name for t in self.tools}
            for i, turn in enumerate(self.turns):
                unknown = [n for n in turn.add_tools if n not in offered]
                if unknown:
                    raise ValueError(
                        f"turns[{i}].add_tools: {unknown} not among the case's tools "
                        "(list a held-back tool in 'tools' too)"
                    )
        return self

    def tools_held_back(self, turn: int) -> frozenset[str]:
        """The tools not offered yet in ``turn`` (0 = the input): those a later turn adds."""
        return frozenset(n for t in self.turns[turn:] for n in t.add_tools)


class ScorerRef(Model):
    """An extra scorer run on every case, by name: ``{scorer: groundedness, args: {min_score: 4}}``.

    Names and arguments are documented in docs/judges.md; nothing here is executable.
    """

    scorer: str = Field(min_length=1)
    args: dict[str, JsonValue] = Field(default_factory=new_dict)
    #: judge spec for this scorer (default: ``--judge``, then ``defaults.judge``)
    judge: str | None = None
    #: judgements per question for this scorer (majority vote; default ``defaults.judge_samples``)
    judge_samples: int | None = Field(default=None, ge=1, le=25)
    #: the least share of samples that must agree for a sure verdict (default
    #: ``defaults.judge_agreement``); below it the score is ``uncertain``
    judge_agreement: float | None = Field(default=None, gt=0, le=1)
    #: run only on cases whose id, category or a tag matches one of these globs (empty: all)
    cases: list[str] = Field(default_factory=new_list)


class Defaults(Model):
    """Suite-wide defaults applied to every case."""

    system: str | None = None
    max_steps: int = Field(default=8, ge=1)
    extra_arguments: ExtraArguments = "fail"
    #: how expected calls' arguments are compared: exact, ignore, subset or superset
    #: (a call's own ``args_match`` wins; see docs/scoring.md)
    args_match: ArgsMatch = "exact"
    #: per-tool argument comparison, overriding ``args_match``: ``{search: ignore}``
    args_match_overrides: dict[str, ArgsMatch] = Field(default_factory=new_dict)
    timeout_s: float = Field(default=60.0, gt=0)
    trials: int = Field(default=1, ge=1)
    #: agent spec used when ``--agent`` is not given
    agent: str | None = None
    #: judge spec used when ``--judge`` is not given
    judge: str | None = None
    #: judgements per question of every judge scorer (temperature 0, seeds ``seed + i``):
    #: more than 1 takes a majority vote and records the spread (docs/judges.md)
    judge_samples: int = Field(default=1, ge=1, le=25)
    #: the least share of the samples that must agree; below it a score is ``uncertain``
    judge_agreement: float = Field(default=2 / 3, gt=0, le=1)
    faults: list[FaultRate] = Field(default_factory=new_list)
    #: how tool calls are answered: ``mock`` (the suite's simulations) or ``real`` (an MCP
    #: server of ``tools_from``, a framework agent's own tools); docs/bring-your-agent.md
    tool_mode: ToolMode = "mock"
    #: run context every case hands a framework agent (a case's own keys win)
    agent_context: dict[str, JsonValue] = Field(default_factory=new_dict)
    #: call and model-step bounds for every turn with an expectation (a turn's own win)
    limits: StepLimits | None = None
    #: every case's pass threshold (a case's own ``pass_threshold`` wins)
    pass_threshold: float | None = Field(default=None, ge=0, le=1)
    #: how tool calls an agent writes as text are read: ``strict`` (only recorded responses
    #: whose whole text is a call) or ``lenient`` (also calls written inside prose, in any
    #: reply); docs/scoring.md, "Tool calls written as text"
    text_calls: TextCalls = "strict"
    #: the simulated user's defaults, under every case's own ``user:`` (docs/users.md)
    user: UserSpec | None = None


def _empty(value: list[ConnectorServer]) -> bool:
    return not value


class Suite(Model):
    """A named set of tools and cases, with defaults and gate thresholds."""

    version: int = FORMAT_VERSION
    name: str = Field(min_length=1)
    description: str = ""
    tools: list[ToolSpec] = Field(default_factory=new_list)
    #: tool files (OpenAI / Anthropic / Gemini / MCP / native format), relative to the suite file
    tool_files: list[str] = Field(default_factory=new_list)
    #: more tools from a running MCP server, listed when the suite runs (docs/bring-your-agent.md)
    tools_from: ToolSource | None = None
    #: remote MCP servers the agent's vendor calls for the model (Anthropic's MCP connector,
    #: the Responses API's mcp tool); docs/bring-your-agent.md, "MCP servers the vendor calls"
    #: (left out of a dump when empty: a suite without servers hashes as it did before)
    mcp_servers: list[ConnectorServer] = Field(
        default_factory=new_list, max_length=16, exclude_if=_empty
    )
    defaults: Defaults = Field(default_factory=factory_of(Defaults))
    cases: list[Case] = Field(default_factory=new_list)
    #: JSONL (or YAML/JSON list) files of cases, relative to the suite file
    case_files: list[str] = Field(default_factory=new_list)
    gates: Gates | None = None
    #: extra scorers (LLM judges, similarity, safety ...) run after the deterministic ones
    scorers: list[ScorerRef] = Field(default_factory=new_list)
    #: the state the agent changes through its tools, graded by ``expect.state``
    #: (docs/worlds.md)
    world: WorldSpec | None = None
    #: several agents compared in one run (docs/running.md, "Many agents in one run")
    matrix: Matrix | None = None
    #: the load profile of ``agentgauge load`` (docs/load.md); bounded further by the command
    load: LoadProfile | None = None
    #: where the module metrics read what the agent did: its retrieval tool and the field of
    #: the item ids, its fallback tools and replies (docs/metrics.md#module-metrics)
    modules: ModuleSettings | None = None

    @field_validator("mcp_servers")
    @classmethod
    def _unique_servers(cls, servers: list[ConnectorServer]) -> list[ConnectorServer]:
        seen: set[str] = set()
        for server in servers:
            if server.name in seen:
                raise ValueError(f"two servers are named {server.name!r}")
            seen.add(server.name)
        return servers

    def tool_map(self) -> dict[str, ToolSpec]:
        return {t.name: t for t in self.tools}

    def user_for(self, case: Case) -> UserSpec | None:
        """The case's simulated user, ``defaults.user`` merged under its own (None: none)."""
        return merge_user(self.defaults.user, case.user)

    def tools_for(self, case: Case) -> list[ToolSpec]:
        """The tools offered in ``case`` (unknown names are skipped; lint reports them)."""
        if case.tools is None:
            return list(self.tools)
        by_name = self.tool_map()
        out: list[ToolSpec] = []
        for t in case.tools:
            if isinstance(t, ToolSpec):
                out.append(t)
            elif t in by_name:
                out.append(by_name[t])
        return out
