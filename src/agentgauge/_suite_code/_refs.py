"""Every place a suite names code or an agent or judge spec, read from the loaded suite (no file
is opened, nothing imported)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ._code import CodeKind, CodeTarget, SuiteCodePolicy, code_prefix

if TYPE_CHECKING:
    from ..schema import Case, Suite, ToolSim

__all__ = [
    "CodeRef",
    "RefKind",
    "SpecRef",
    "case_code_refs",
    "code_refs",
    "header_code_refs",
    "locate_ref",
    "mcp_code_ref",
    "spec_refs",
    "with_checked_judges",
]

#: what a :class:`CodeRef` names: Python code, or the program of ``tools_from.mcp.command``
RefKind = CodeKind | Literal["mcp server"]


@dataclass(frozen=True, kw_only=True, slots=True)
class CodeRef:
    """One place a suite names code."""

    kind: RefKind
    spec: str
    #: path of the field: inside the suite document (``case_index`` None) or inside the case
    field: tuple[str | int, ...]
    case_index: int | None = None
    case_id: str | None = None
    #: the tool whose fake this is
    tool: str | None = None


def _sim_refs(
    sims: Iterator[tuple[tuple[str | int, ...], str, ToolSim]],
    case_index: int | None,
    case_id: str | None,
) -> Iterator[CodeRef]:
    for path, tool, sim in sims:
        if sim.function is not None:
            yield CodeRef(
                kind="tool function",
                spec=sim.function,
                field=(*path, "function"),
                case_index=case_index,
                case_id=case_id,
                tool=tool,
            )


def _case_sims(case: Case) -> Iterator[tuple[tuple[str | int, ...], str, ToolSim]]:
    from ..schema import ToolSpec

    for name, entry in case.tool_results.items():
        if isinstance(entry, list):
            for j, sim in enumerate(entry):
                yield ("tool_results", name, j), name, sim
        else:
            yield ("tool_results", name), name, entry
    for k, tool in enumerate(case.tools or ()):
        if isinstance(tool, ToolSpec) and tool.simulation is not None:
            yield ("tools", k, "simulation"), tool.name, tool.simulation


def case_code_refs(case: Case, index: int | None = None) -> Iterator[CodeRef]:
    """The code one case names (its ``tool_results`` and inline tools' fakes, its simulated
    user's ``python:`` model)."""
    yield from _sim_refs(_case_sims(case), index, case.id)
    if case.user is not None and case.user.model and code_prefix(case.user.model):
        yield CodeRef(
            kind="user model",
            spec=case.user.model,
            field=("user", "model"),
            case_index=index,
            case_id=case.id,
        )


def header_code_refs(
    suite: Suite, *, agent_given: bool = False, judge_given: bool = False
) -> Iterator[CodeRef]:
    """The code the suite's header names: tool fakes, ``defaults.agent`` and the agents of
    ``matrix`` (unless the command line names the agent), ``defaults.judge`` (unless it names
    the judge), scorer judges."""
    yield from _sim_refs(
        (
            (("tools", i, "simulation"), t.name, t.simulation)
            for i, t in enumerate(suite.tools)
            if t.simulation is not None
        ),
        None,
        None,
    )
    if suite.world is not None and suite.world.class_ is not None:
        yield CodeRef(kind="world class", spec=suite.world.class_, field=("world", "class"))
    if suite.defaults.agent and not agent_given and code_prefix(suite.defaults.agent):
        yield CodeRef(kind="agent", spec=suite.defaults.agent, field=("defaults", "agent"))
    for i, entry in enumerate(suite.matrix.agents if suite.matrix and not agent_given else ()):
        spec = entry if isinstance(entry, str) else entry.agent
        at: tuple[str | int, ...] = ("matrix", "agents", i)
        at += () if isinstance(entry, str) else ("agent",)
        if code_prefix(spec):
            yield CodeRef(kind="agent", spec=spec, field=at)
    if suite.defaults.judge and not judge_given and code_prefix(suite.defaults.judge):
        yield CodeRef(kind="judge", spec=suite.defaults.judge, field=("defaults", "judge"))
    user = suite.defaults.user
    if user is not None and user.model and code_prefix(user.model):
        yield CodeRef(kind="user model", spec=user.model, field=("defaults", "user", "model"))
    for i, ref in enumerate(suite.scorers):
        if ref.judge and code_prefix(ref.judge):
            yield CodeRef(kind="judge", spec=ref.judge, field=("scorers", i, "judge"))
        if ref.scorer.startswith("python:"):
            yield CodeRef(kind="scorer", spec=ref.scorer, field=("scorers", i, "scorer"))


def code_refs(
    suite: Suite, *, agent_given: bool = False, judge_given: bool = False
) -> Iterator[CodeRef]:
    """Every place ``suite`` names code (header first, then case by case)."""
    yield from header_code_refs(suite, agent_given=agent_given, judge_given=judge_given)
    for i, case in enumerate(suite.cases):
        yield from case_code_refs(case, i)


def mcp_code_ref(suite: Suite) -> CodeRef | None:
    """The program ``tools_from: {mcp: {command: ...}}`` starts (None: no MCP source, or a
    ``url``, which runs nothing here). Not among :func:`code_refs`: ``run`` checks it when it
    starts the server (``runner/_mcp.py`` ``check_mcp_command``); ``validate`` lists it."""
    source = suite.tools_from.mcp if suite.tools_from is not None else None
    if source is None or source.command is None:
        return None
    return CodeRef(kind="mcp server", spec=source.target, field=("tools_from", "mcp", "command"))


def locate_ref(policy: SuiteCodePolicy, ref: CodeRef) -> CodeTarget:
    """The file and function ``ref`` names, by the location rule (SuiteCodeRefused otherwise);
    the opt-in is not asked. Imports nothing. Not for an ``mcp server`` (a program, no file)."""
    assert ref.kind != "mcp server"
    if ref.kind in ("tool function", "world class"):
        return policy.locate_function(ref.spec, "world class" if ref.kind == "world class"
                                      else "tool function")  # fmt: skip
    target = policy.locate_spec(ref.spec, ref.kind)
    assert target is not None  # code_refs yields code specs only
    return target


def with_checked_judges(suite: Suite, policy: SuiteCodePolicy, *, judge_given: bool) -> Suite:
    """``suite`` with its judge specs and ``python:`` scorers checked: code as suite code (made
    absolute), the endpoint a judge would send the user's credentials to by the endpoint rule
    (``defaults.judge`` only when the command line names no judge). Raises SuiteCodeRefused."""
    defaults = suite.defaults
    if defaults.judge and not judge_given:
        defaults = defaults.model_copy(update={"judge": policy.check_spec(defaults.judge, "judge")})
    scorers = []
    for ref in suite.scorers:
        update: dict[str, str] = {}
        if ref.judge:
            update["judge"] = policy.check_spec(ref.judge, "judge")
        if ref.scorer.startswith("python:"):
            update["scorer"] = policy.check_spec(ref.scorer, "scorer")
        scorers.append(ref.model_copy(update=update) if update else ref)
    return suite.model_copy(update={"defaults": defaults, "scorers": scorers})


@dataclass(frozen=True, kw_only=True, slots=True)
class SpecRef:
    """One agent or judge spec a suite names, with the provider options it gives it."""

    kind: Literal["agent", "judge", "user model"]
    spec: str
    #: path of the field inside the suite document
    field: tuple[str | int, ...]
    #: the options of a matrix entry (``options:``), passed to the provider with the spec
    options: Mapping[str, object] = dataclasses.field(default_factory=dict)
    #: a case's own spec (a simulated user's model): ``field`` is then inside the case
    case_index: int | None = None


def spec_refs(
    suite: Suite,
    *,
    agent_given: bool = False,
    judge_given: bool = False,
    user_given: bool = False,
) -> Iterator[SpecRef]:
    """Every agent and judge spec the suite names (what a run would resolve): ``defaults.agent``
    and the matrix's agents unless the command line names the agent, ``defaults.judge`` unless
    it names the judge, every scorer's own ``judge`` (which wins over ``--judge``), and the
    simulated users' models unless ``--user-model`` names the model (``user_given``)."""
    if suite.defaults.agent and not agent_given:
        yield SpecRef(kind="agent", spec=suite.defaults.agent, field=("defaults", "agent"))
    for i, entry in enumerate(suite.matrix.agents if suite.matrix and not agent_given else ()):
        if isinstance(entry, str):
            yield SpecRef(kind="agent", spec=entry, field=("matrix", "agents", i))
        else:
            yield SpecRef(
                kind="agent",
                spec=entry.agent,
                field=("matrix", "agents", i, "agent"),
                options=dict(entry.options),
            )
    if suite.defaults.judge and not judge_given:
        yield SpecRef(kind="judge", spec=suite.defaults.judge, field=("defaults", "judge"))
    for i, ref in enumerate(suite.scorers):
        if ref.judge:
            yield SpecRef(kind="judge", spec=ref.judge, field=("scorers", i, "judge"))
    # a simulated user's model (docs/users.md), unless --user-model names it
    if user_given:
        return
    default = suite.defaults.user
    if default is not None and default.model:
        yield SpecRef(kind="user model", spec=default.model, field=("defaults", "user", "model"))
    for i, case in enumerate(suite.cases):
        if case.user is not None and case.user.model:
            yield SpecRef(
                kind="user model", spec=case.user.model, field=("user", "model"), case_index=i
            )
