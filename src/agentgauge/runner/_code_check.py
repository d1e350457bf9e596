"""Every piece of code and every agent or judge spec a loaded suite names, checked against the
suite policy and located in its files (``file:line: field``) — what ``validate`` lists and what
``run`` refuses with.

Nothing is imported and nothing is connected to: files are located and read with :mod:`ast`
only, endpoints judged from the spec and the environment.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._suite_code import (
    NAMED_BY_SUITE,
    CodeRef,
    CodeTarget,
    EndpointUse,
    SpecRef,
    SuiteCodePolicy,
    SuiteCodeRefused,
    Verdict,
    case_code_refs,
    code_prefix,
    defined_names,
    header_code_refs,
    locate_ref,
    mcp_code_ref,
    spec_refs,
)
from ..errors import UserError

if TYPE_CHECKING:
    from ..suites import LoadedSuite, Origin

__all__ = [
    "CodeUse",
    "SpecUse",
    "connector_problems",
    "refuse_located",
    "suite_code_uses",
    "suite_spec_uses",
]


class _Located:
    """``where`` and ``refusal_line`` of a use written at ``file:line``, in ``field``."""

    __slots__ = ()
    file: str
    line: int | None
    field: str
    problem: str | None

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.line is not None else self.file

    def refusal_line(self) -> str:
        """``file:line: field: message`` (the one line ``run`` and ``validate`` print)."""
        return f"{self.where}: {self.field}: {self.problem}"


@dataclass(frozen=True, kw_only=True, slots=True)
class CodeUse(_Located):
    """One place a suite names code, where it is written, and the verdict of the policy."""

    ref: CodeRef
    file: str
    line: int | None
    #: field path as written in ``file`` (``cases[2].tool_results.get_weather.function``)
    field: str
    #: the file and function it would run (None when the location rule refuses it)
    target: CodeTarget | None
    #: why it is refused (None: it would run)
    problem: str | None
    #: a warning about an allowed target (the function is not defined at the file's top level)
    warning: str | None = None

    @property
    def needs_opt_in(self) -> bool:
        """Refused only for want of the user's opt-in (``--allow-suite-code`` would run it)."""
        return self.problem is not None and (
            self.target is not None or self.ref.kind == "mcp server"
        )


def _origin_of(loaded: LoadedSuite, ref: CodeRef) -> Origin:
    if ref.case_index is not None:
        return loaded.case_origins[ref.case_index]
    if ref.field[:1] == ("tools",) and isinstance(ref.field[1], int):
        return loaded.tool_origins[ref.field[1]]
    return loaded.origin


def _use(loaded: LoadedSuite, ref: CodeRef, policy: SuiteCodePolicy) -> CodeUse:
    from .._messages import format_path

    origin = _origin_of(loaded, ref)
    sub = ref.field
    if origin is not loaded.origin and ref.case_index is None:  # a tool: path inside the tool
        sub = ref.field[2:]
    path = (*origin.path, *sub)
    target: CodeTarget | None = None
    problem: str | None = None
    warning: str | None = None
    try:
        if ref.kind == "mcp server":
            from ._mcp import check_mcp_command

            assert loaded.suite.tools_from is not None  # mcp_code_ref found it
            check_mcp_command(loaded.suite.tools_from.mcp, policy)
        else:
            target = locate_ref(policy, ref)
            policy.require_opt_in(target)
    except SuiteCodeRefused as err:
        problem = str(err)
    if target is not None and problem is None:
        names = defined_names(target.file)
        first = target.attr.split(".")[0]
        if names is None:
            warning = f"{target.shown(policy.root)}: the file does not parse as Python"
        elif first not in names:
            warning = (
                f"{target.shown(policy.root)}: no top-level '{first}' in the file "
                "(read without running it)"
            )
    return CodeUse(
        ref=ref,
        file=origin.file,
        line=origin.locator.line(path),
        field=format_path(path),
        target=target,
        problem=problem,
        warning=warning,
    )


def suite_code_uses(
    loaded: LoadedSuite,
    policy: SuiteCodePolicy,
    *,
    agent_given: bool = False,
    judge_given: bool = False,
) -> Iterator[CodeUse]:
    """Every place ``loaded`` names code, with the policy's verdict: its Python code and the
    program of ``tools_from.mcp.command``. ``agent_given`` / ``judge_given``: the command line
    names the agent / judge, so ``defaults.agent`` / ``defaults.judge`` are not used."""
    suite = loaded.suite
    for ref in header_code_refs(suite, agent_given=agent_given, judge_given=judge_given):
        yield _use(loaded, ref, policy)
    server = mcp_code_ref(suite)
    if server is not None:
        yield _use(loaded, server, policy)
    for i, case in enumerate(suite.cases):
        for ref in case_code_refs(case, i):
            yield _use(loaded, ref, policy)


@dataclass(frozen=True, kw_only=True, slots=True)
class SpecUse(_Located):
    """One agent or judge spec the suite names, where, and the verdict of the policy: its code
    (a code spec) or the endpoint it would send the user's credentials to (a vendor spec)."""

    ref: SpecRef
    file: str
    line: int | None
    field: str
    #: the endpoint and credential (None: a spec whose provider sends no credential of yours)
    endpoint: EndpointUse | None
    verdict: Verdict
    problem: str | None


def _spec_use(
    loaded: LoadedSuite, ref: SpecRef, policy: SuiteCodePolicy, user_options: Mapping[str, Any]
) -> SpecUse:
    from .._messages import format_path

    origin = loaded.origin if ref.case_index is None else loaded.case_origins[ref.case_index]
    path = (*origin.path, *ref.field)
    endpoint: EndpointUse | None = None
    verdict: Verdict = "allowed"
    problem: str | None = None
    if code_prefix(ref.spec):
        try:
            target = policy.locate_spec(ref.spec, ref.kind)
            assert target is not None
            verdict = "needs opt-in"
            policy.require_opt_in(target)
            verdict = "allowed"
        except SuiteCodeRefused as err:
            verdict = "needs opt-in" if verdict == "needs opt-in" else "refused"
            problem = str(err)
    else:
        endpoint = policy.endpoint_use(
            ref.spec,
            ref.kind,
            spec_by=NAMED_BY_SUITE,
            options={**user_options, **ref.options},
            options_by=dict.fromkeys(ref.options, NAMED_BY_SUITE),
        )
        if endpoint is not None:
            verdict, problem = endpoint.verdict, endpoint.problem
    return SpecUse(
        ref=ref,
        file=origin.file,
        line=origin.locator.line(path),
        field=format_path(path),
        endpoint=endpoint,
        verdict=verdict,
        problem=problem,
    )


def suite_spec_uses(
    loaded: LoadedSuite,
    policy: SuiteCodePolicy,
    *,
    agent_given: bool = False,
    judge_given: bool = False,
    user_options: Mapping[str, Any] | None = None,
    user_given: bool = False,
) -> Iterator[SpecUse]:
    """Every agent and judge spec ``loaded`` names (what a run would resolve), with the
    verdict of the policy. ``user_options``: the provider options the user gave
    (``--base-url``), which a spec of the suite is resolved with."""
    refs = spec_refs(
        loaded.suite, agent_given=agent_given, judge_given=judge_given, user_given=user_given
    )
    for ref in refs:
        yield _spec_use(loaded, ref, policy, user_options or {})


def refuse_located(
    path: str,
    policy: SuiteCodePolicy,
    *,
    agent_given: bool = False,
    judge_given: bool = False,
    user_options: Mapping[str, Any] | None = None,
    user_given: bool = False,
) -> None:
    """Raise a UserError with one ``file:line: field: message`` line per refused piece of code
    and refused endpoint of the suite at ``path`` (nothing when all of it passes). The MCP
    server command is left to ``run`` itself, which refuses it when it would start it
    (``check_mcp_command``)."""
    from ..suites import read_suite

    loaded = read_suite(path)
    lines = [
        use.refusal_line()
        for use in suite_code_uses(loaded, policy, agent_given=agent_given, judge_given=judge_given)
        if use.problem is not None and use.ref.kind != "mcp server"
    ]
    lines += [
        use.refusal_line()
        for use in suite_spec_uses(
            loaded,
            policy,
            agent_given=agent_given,
            judge_given=judge_given,
            user_options=user_options,
            user_given=user_given,
        )
        if use.problem is not None and use.endpoint is not None
    ]
    lines += _connector_lines(loaded, policy)
    if lines:
        raise UserError(lines[0], problems=lines)


def connector_problems(
    loaded: LoadedSuite, policy: SuiteCodePolicy
) -> list[tuple[str, int | None, str, str]]:
    """``(file, line, field, message)`` per remote MCP server of ``loaded`` (``mcp_servers``)
    whose token would go to the URL the suite names without the user's opt-in, or whose
    ``token_env`` is a vendor's key variable."""
    from .._messages import format_path
    from .._suite_code import connector_use

    out: list[tuple[str, int | None, str, str]] = []
    origin = loaded.origin
    for i, server in enumerate(loaded.suite.mcp_servers):
        use = connector_use(
            server.name, server.url, server.token_env, opt_in=policy.endpoint_opt_in
        )
        if use is not None and use.problem is not None:
            path = (*origin.path, "mcp_servers", i, "token_env")
            out.append((origin.file, origin.locator.line(path), format_path(path), use.problem))
    return out


def _connector_lines(loaded: LoadedSuite, policy: SuiteCodePolicy) -> list[str]:
    """``file:line: mcp_servers[i].token_env: message`` per remote MCP server refused."""
    return [
        f"{file}:{line}: {field}: {problem}" if line is not None else f"{file}: {field}: {problem}"
        for file, line, field, problem in connector_problems(loaded, policy)
    ]
