"""Lint of the checks that say what must not happen and how much may (docs/scoring.md): tool
names and globs that match no tool, call types no tool has, an expected call its own case
forbids or does not allow, bounds no turn can meet or no turn can break, a pass threshold that
passes everything, a ``not`` that inverts nothing.

Codes (``file:line: field: severity: message [code]``):

========================  ========  ===================================================
``unknown-tool``          warning   a glob, allowlist entry, ``forbidden_arguments`` or
                                    ``forbidden_sequences`` name matches no defined tool
``wrong-call-type``       error     an expected call's ``type`` is not its tool's type
``forbidden-expected``    warning   an expected call is forbidden (by type) or outside
                                    ``allowed_tools``: the case cannot pass
``cannot-fail-check``     warning   a check that no transcript can fail (a bound of 0, a
                                    forbidden type no offered tool has, a sequence whose
                                    tools are not offered)
``bounds-below-expected``  warning  ``max_calls`` / ``max_model_steps`` below what the
                                    expected calls need: the case cannot pass
``threshold-passes-all``  warning   ``pass_threshold: 0`` passes every transcript
``not-exact-calls``       warning   ``not`` over expected calls in an order mode that wants
                                    exactly them: the calls plus another one pass
========================  ========  ===================================================
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Literal

from .._messages import did_you_mean
from ..files import PathElem
from ..schema import Case, Expectation, Suite, ToolSpec, is_pattern, name_matches
from ._lint_values import structural_issues

__all__ = ["CheckFinding", "call_tool_issue", "check_findings", "matches_any"]

#: order modes under which every expected call must be made
_ALL_EXPECTED = frozenset({"strict", "in_order", "any_order", "superset"})


@dataclass(frozen=True)
class CheckFinding:
    severity: Literal["error", "warning"]
    code: str
    #: the field inside the case (``case`` given) or inside the suite document
    path: tuple[PathElem, ...]
    message: str
    #: the index of the case (None: the suite's ``defaults``)
    case: int | None = None


def matches_any(pattern: str, names: Mapping[str, ToolSpec] | set[str]) -> bool:
    """Whether ``pattern`` (a name or glob) names at least one of ``names``."""
    if not is_pattern(pattern):
        return pattern in names
    return any(name_matches(pattern, n) for n in names)


def call_tool_issue(
    name: str, defined: Mapping[str, ToolSpec], offered: set[str] | None
) -> tuple[str, str] | None:
    """(code, message) when an expected call names (or globs) no tool the case offers: no
    agent can make that call, so the case cannot pass."""
    if not matches_any(name, defined):
        if is_pattern(name):
            return "unknown-tool", f"expected call pattern '{name}' matches no defined tool"
        return (
            "unknown-tool",
            f"expected call to '{name}', which is not defined" + did_you_mean(name, defined),
        )
    if offered is not None and not matches_any(name, offered):
        if is_pattern(name):
            return (
                "tool-not-offered",
                f"expected call pattern '{name}' matches no tool this case offers",
            )
        return "tool-not-offered", f"expected call to '{name}', which this case does not offer"
    return None


class _CaseChecks:
    def __init__(self, suite: Suite, index: int, case: Case) -> None:
        self.suite, self.index, self.case = suite, index, case
        self.defined: dict[str, ToolSpec] = suite.tool_map()
        offered = suite.tools_for(case)
        for t in case.tools or []:
            if isinstance(t, ToolSpec):
                self.defined[t.name] = t
        self.offered = {t.name: t for t in offered}
        # tools may come from outside the suite: an MCP server it lists, or one its vendor calls
        self.served = suite.tools_from is not None or bool(suite.mcp_servers)

    def finding(
        self, severity: Literal["error", "warning"], code: str, path: tuple[PathElem, ...],
        message: str,
    ) -> CheckFinding:  # fmt: skip
        return CheckFinding(severity, code, path, message, self.index)

    def names(self, at: tuple[PathElem, ...], pattern: str, what: str) -> Iterator[CheckFinding]:
        if not matches_any(pattern, self.defined):
            kind = "pattern" if is_pattern(pattern) else "tool"
            yield self.finding(
                "warning",
                "unknown-tool",
                at,
                f"{what} {kind} '{pattern}' matches no defined tool"
                + did_you_mean(pattern, self.defined),
            )

    def expectation(self, at: tuple[PathElem, ...], e: Expectation) -> Iterator[CheckFinding]:
        for i, name in enumerate(e.forbidden_tools):
            if is_pattern(name):
                yield from self.names((*at, "forbidden_tools", i), name, "forbidden")
        for i, name in enumerate(e.allowed_tools):
            yield from self.names((*at, "allowed_tools", i), name, "allowed")
        yield from self.expected_calls(at, e)
        yield from self.forbidden_arguments(at, e)
        yield from self.sequences(at, e)
        yield from self.bounds(at, e)
        if e.not_ is not None:
            inner = e.not_
            if inner.tool_calls and inner.order not in ("superset", "in_order"):
                yield self.finding(
                    "warning",
                    "not-exact-calls",
                    (*at, "not", "order"),
                    f"'not' with order {inner.order} inverts 'exactly these calls': the same "
                    "calls made together with another one pass; write order: superset to "
                    "forbid them",
                )
            yield from self.expectation((*at, "not"), inner)

    def expected_calls(self, at: tuple[PathElem, ...], e: Expectation) -> Iterator[CheckFinding]:
        for j, call in enumerate(e.tool_calls):
            call_at = (*at, "tool_calls", j)
            tool = self.defined.get(call.name)
            if call.type is not None and tool is not None and tool.call_type() != call.type:
                yield self.finding(
                    "error",
                    "wrong-call-type",
                    (*call_at, "type"),
                    f"expected a {call.type} call to '{call.name}', which is a "
                    f"{tool.call_type()} tool: the case cannot pass",
                )
            banned = [t for t in e.forbidden_types if call.type == t or (
                call.type is None and tool is not None and tool.call_type() == t)]  # fmt: skip
            if banned:
                yield self.finding(
                    "warning",
                    "forbidden-expected",
                    (*call_at, "name"),
                    f"'{call.name}' is expected, but {banned[0]} calls are forbidden: the case "
                    "cannot pass",
                )
            allowed = e.allowed_tools
            if (
                allowed
                and not is_pattern(call.name)
                and not any(name_matches(a, call.name) for a in allowed)
            ):
                yield self.finding(
                    "warning",
                    "forbidden-expected",
                    (*call_at, "name"),
                    f"'{call.name}' is expected but not in allowed_tools: the case cannot pass",
                )

    def forbidden_arguments(
        self, at: tuple[PathElem, ...], e: Expectation
    ) -> Iterator[CheckFinding]:
        for pattern, args in e.forbidden_arguments.items():
            rule_at = (*at, "forbidden_arguments", pattern)
            yield from self.names(rule_at, pattern, "forbidden_arguments")
            for arg, matcher in args.items():
                for issue in structural_issues(matcher, (arg,), self.defined):
                    severity: Literal["error", "warning"] = (
                        "error" if issue.code == "bad-regex" else "warning"
                    )
                    yield self.finding(severity, issue.code, (*rule_at, *issue.path), issue.message)
            if not is_pattern(pattern) and pattern in self.defined:
                tool = self.defined[pattern]
                props = tool.properties()
                open_schema = not props or tool.parameters.get("additionalProperties") not in (
                    None,
                    False,
                )
                for arg in args:
                    if arg not in props and not open_schema:
                        yield self.finding(
                            "warning",
                            "unknown-argument",
                            (*rule_at, arg),
                            f"'{pattern}' has no argument '{arg}', so this value can never "
                            "be passed" + did_you_mean(arg, props),
                        )

    def sequences(self, at: tuple[PathElem, ...], e: Expectation) -> Iterator[CheckFinding]:
        for i, rule in enumerate(e.forbidden_sequences):
            rule_at = (*at, "forbidden_sequences", i)
            for key in ("after", "then"):
                yield from self.names((*rule_at, key), getattr(rule, key), f"sequence '{key}'")
            for k, name in enumerate(rule.unless):
                yield from self.names((*rule_at, "unless", k), name, "sequence 'unless'")
            offered = set(self.offered)
            if not self.served and not (
                matches_any(rule.after, offered) and matches_any(rule.then, offered)
            ):
                yield self.finding(
                    "warning",
                    "cannot-fail-check",
                    rule_at,
                    f"the case does not offer both '{rule.after}' and '{rule.then}': this "
                    "sequence can never happen",
                )
        kinds = {t.call_type() for t in self.offered.values()}
        for i, kind in enumerate(e.forbidden_types):
            if kind not in kinds and not (self.served and kind == "mcp"):
                yield self.finding(
                    "warning",
                    "cannot-fail-check",
                    (*at, "forbidden_types", i),
                    f"no tool the case offers is a {kind} tool, so forbidding {kind} calls "
                    "can never fail",
                )

    def bounds(self, at: tuple[PathElem, ...], e: Expectation) -> Iterator[CheckFinding]:
        for key in ("min_calls", "min_model_steps"):
            if getattr(e, key) == 0:
                yield self.finding(
                    "warning", "cannot-fail-check", (*at, key), f"{key}: 0 can never fail"
                )
        needed = len(e.tool_calls) if e.order in _ALL_EXPECTED else 0
        if e.max_calls is not None and needed > e.max_calls:
            yield self.finding(
                "warning",
                "bounds-below-expected",
                (*at, "max_calls"),
                f"max_calls {e.max_calls} is below the {needed} expected calls: the case "
                "cannot pass",
            )
        if e.max_model_steps is not None and e.tool_calls and e.max_model_steps < 1:
            yield self.finding(
                "warning",
                "bounds-below-expected",
                (*at, "max_model_steps"),
                "max_model_steps 0 leaves no step for the expected calls: the case cannot pass",
            )


def _expectations(case: Case) -> Iterator[tuple[tuple[PathElem, ...], Expectation]]:
    yield ("expect",), case.expect
    for i, t in enumerate(case.turns):
        if t.expect is not None:
            yield ("turns", i, "expect"), t.expect


def check_findings(suite: Suite) -> Iterator[CheckFinding]:
    """The findings of every case's checks, and of ``defaults.limits`` / ``pass_threshold``."""
    d = suite.defaults
    if d.pass_threshold == 0:
        yield CheckFinding(
            "warning",
            "threshold-passes-all",
            ("defaults", "pass_threshold"),
            "pass_threshold 0 passes every case whatever the agent does",
        )
    if d.limits is not None:
        for key in ("min_calls", "min_model_steps"):
            if getattr(d.limits, key) == 0:
                yield CheckFinding(
                    "warning", "cannot-fail-check", ("defaults", "limits", key),
                    f"{key}: 0 can never fail",
                )  # fmt: skip
    for index, case in enumerate(suite.cases):
        if case.pass_threshold == 0:
            yield CheckFinding(
                "warning",
                "threshold-passes-all",
                ("pass_threshold",),
                f"pass_threshold 0: case '{case.id}' passes whatever the agent does",
                index,
            )
        for key in ("min_calls", "min_model_steps"):
            if case.limits is not None and getattr(case.limits, key) == 0:
                yield CheckFinding(
                    "warning", "cannot-fail-check", ("limits", key), f"{key}: 0 can never fail",
                    index,
                )  # fmt: skip
        checks = _CaseChecks(suite, index, case)
        for at, e in _expectations(case):
            yield from checks.expectation(at, e)
