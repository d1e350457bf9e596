"""Lint a loaded suite: problems that validate as data but make a case wrong or useless.

Each finding has a severity (``error``: the suite cannot be scored as written, e.g. two cases
share an id; ``warning``: almost certainly a mistake, e.g. an expected argument the tool does
not have), a short code, a message, and the ``file:line`` and field it points at when the suite
was read from files. ``agentgauge validate --strict`` treats warnings as errors.

Codes:

==========================  =========================================================
``duplicate-id``            two cases share an id (error)
``duplicate-tool``          two tools share a name (error)
``bad-regex``               a ``regex`` matcher that does not compile (error)
``bad-date``                a ``date: true`` value that does not parse as a date
``unknown-tool``            an expected call (error), forbidden tool, simulated result or
                            ``ref`` names a tool that is not defined
``tool-not-offered``        an expected call names a suite tool that the case does not offer
                            (error); both call errors are reported even when the suite has
                            loading problems
``unknown-argument``        an expected argument the tool's schema does not have
``missing-argument``        a required argument of the tool has no expectation
``optional-required``       an argument marked ``optional`` that the tool requires
``wrong-type``              an expected value whose JSON type does not fit the schema
``not-in-enum``             an expected value outside the schema's ``enum``
``forbidden-expected``      a tool is both expected and forbidden (the case cannot pass)
``never-fails``             the case expects nothing that could fail
``weak-expectation``        the case only checks that its only tool is called at all
``unused-tool``             a suite tool no case expects
``no-adversarial-case``     a suite with red-team cases has a tool none of them covers
``category-mix``            a standard stratum (common / edge / adversarial) has no case
``unknown-scorer``          a ``scorers:`` entry names no known scorer (error)
``bad-scorer-args``         a scorer argument it does not take, or of the wrong type (error)
``no-judge``                a scorer needs a judge and none is configured
``unused-judge``            a ``judge:`` on a scorer that never uses one
``unmatched-cases``         a scorer's ``cases`` glob matches no case
``unknown-provider``        ``defaults.agent``, ``defaults.judge`` or a ``matrix`` agent names
                            no known kind of provider (error)
``matrix-of-one``           a ``matrix:`` with a single agent (nothing to compare)
==========================  =========================================================

The checks of what must not happen and how much may (globs, call types, forbidden arguments
and sequences, bounds, the pass threshold) have their codes in :mod:`._lint_checks`. The other
sections' checks live beside it, each returning its findings for :class:`_Linter` to place:
argument values (``_lint_values``), ``scorers:`` (``_lint_scorers``), the agent, judge and
matrix specs (``_lint_specs``), module metrics (``_lint_modules``), worlds (``_lint_worlds``),
red-team coverage (``_lint_redteam``). Loading and linting a suite file together, what
``agentgauge validate`` prints, is :func:`._check.check_suite`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from .._messages import did_you_mean, format_path
from ..files import FixedLocator, PathElem
from ..formats import tool_name_problem
from ..schema import (
    CATEGORY_STRATA,
    CallExpectation,
    Case,
    Expectation,
    Suite,
    ToolSpec,
    is_pattern,
    name_matches,
)
from ._lint_checks import call_tool_issue, check_findings, matches_any
from ._lint_modules import module_findings
from ._lint_redteam import uncovered_tools
from ._lint_scorers import scorer_findings
from ._lint_specs import spec_findings
from ._lint_values import _constrains, matcher_issues, structural_issues
from ._lint_worlds import world_findings
from ._loader import LoadedSuite, Origin
from ._mix import STRATA_TARGETS, CategoryCount, CategoryMix, category_mix

__all__ = [
    "STRATA_TARGETS",
    "CategoryCount",
    "CategoryMix",
    "LintFinding",
    "Severity",
    "category_mix",
    "lint_suite",
]

Severity = Literal["warning", "error"]

#: more unused tools than this are reported as one summary finding
_MAX_UNUSED_LISTED: Final = 10


@dataclass(frozen=True, kw_only=True)
class LintFinding:
    """One lint finding, printable as ``file:line: field: severity: message [code]``."""

    severity: Severity
    code: str
    message: str
    file: str | None = None
    line: int | None = None
    #: field path inside the file (``cases[2].expect.tool_calls[0].arguments.city``)
    field: str = ""
    case_id: str | None = None

    def format(self) -> str:
        where = self.file or "<suite>"
        if self.line is not None:
            where = f"{where}:{self.line}"
        field_part = f" {self.field}:" if self.field else ""
        return f"{where}:{field_part} {self.severity}: {self.message} [{self.code}]"


# ------------------------------------------------------------------------------------- linting


class _Linter:
    def __init__(self, loaded: LoadedSuite, judge: str | None = None) -> None:
        self.loaded = loaded
        self.judge = judge
        self.suite = loaded.suite
        self.findings: list[LintFinding] = []
        self.tools = self.suite.tool_map()

    def add(
        self,
        severity: Severity,
        code: str,
        message: str,
        origin: Origin,
        sub: tuple[PathElem, ...] = (),
        case: Case | None = None,
    ) -> None:
        path = (*origin.path, *sub)
        if code == "unknown-tool" and self.suite.tools_from is not None:
            # the tool may be one the suite's MCP server serves: validate never starts it
            severity = "warning"
            message += " in the suite (it may come from tools_from.mcp, not started by validate)"
        self.findings.append(
            LintFinding(
                severity=severity,
                code=code,
                message=message,
                file=origin.file,
                line=origin.locator.line(path),
                field=format_path(path),
                case_id=case.id if case else None,
            )
        )

    def run(self) -> list[LintFinding]:
        self.duplicate_tools()
        for i, tool in enumerate(self.suite.tools):  # a name no provider would take
            why = tool_name_problem(tool.name)
            if why is not None:
                at = self.loaded.tool_origins[i]
                self.add("warning", "tool-name", why, at, ("name",) if at.path else ())
        self.duplicate_ids()
        for case, origin in zip(self.suite.cases, self.loaded.case_origins, strict=True):
            self.case(case, origin)
        self.unused_tools()
        for gap in uncovered_tools(self.suite):
            at = self.loaded.tool_origins[gap.index]
            self.add(
                "warning", "no-adversarial-case", gap.message, at, ("name",) if at.path else ()
            )
        self.mix()
        for pf in spec_findings(self.suite):
            self.add(pf.severity, pf.code, pf.message, self.loaded.origin, pf.path)
        for sf in scorer_findings(self.suite, self.judge):
            self.add(sf.severity, sf.code, sf.message, self.loaded.origin, sf.path)
        for cf in check_findings(self.suite):
            if cf.case is None:
                self.add(cf.severity, cf.code, cf.message, self.loaded.origin, cf.path)
            else:
                at = self.loaded.case_origins[cf.case]
                self.add(cf.severity, cf.code, cf.message, at, cf.path, self.suite.cases[cf.case])
        for mf in module_findings(self.suite):
            self.add("warning", mf.code, mf.message, self.loaded.origin, mf.path)
        for wf in world_findings(self.suite):
            if wf.case is None:
                self.add(wf.severity, wf.code, wf.message, self.loaded.origin, wf.path)
            else:
                case = self.suite.cases[wf.case]
                at = self.loaded.case_origins[wf.case]
                self.add(wf.severity, wf.code, wf.message, at, wf.path, case)
        files: dict[str | None, int] = {}
        for f in self.findings:
            files.setdefault(f.file, len(files))
        return sorted(
            self.findings,
            key=lambda f: (files[f.file], f.line if f.line is not None else 1 << 30),
        )

    def duplicate_tools(self) -> None:
        first: dict[str, Origin] = {}
        for tool, origin in zip(self.suite.tools, self.loaded.tool_origins, strict=True):
            if tool.name in first:
                self.add(
                    "error",
                    "duplicate-tool",
                    f"tool '{tool.name}' is defined twice (first at {first[tool.name].where()})",
                    origin,
                    ("name",),
                )
            else:
                first[tool.name] = origin

    def duplicate_ids(self) -> None:
        first: dict[str, Origin] = {}
        for case, origin in zip(self.suite.cases, self.loaded.case_origins, strict=True):
            if case.id in first:
                self.add(
                    "error",
                    "duplicate-id",
                    f"case id '{case.id}' is used twice (first at {first[case.id].where()})",
                    origin,
                    ("id",),
                    case,
                )
            else:
                first[case.id] = origin

    def case(self, case: Case, origin: Origin) -> None:
        defined = dict(self.tools)
        offered: set[str] | None = None
        if case.tools is not None:
            offered = set()
            for i, t in enumerate(case.tools):
                if isinstance(t, ToolSpec):
                    defined[t.name] = t
                    offered.add(t.name)
                elif t in self.tools:
                    offered.add(t)
                else:
                    self.add(
                        "warning",
                        "unknown-tool",
                        f"case offers tool '{t}', which the suite does not define"
                        + did_you_mean(t, self.tools),
                        origin,
                        ("tools", i),
                        case,
                    )
        expectations: list[tuple[tuple[PathElem, ...], Expectation]] = [(("expect",), case.expect)]
        expectations += [
            (("turns", i, "expect"), t.expect) for i, t in enumerate(case.turns) if t.expect
        ]
        for at, expect in expectations:
            self.expectation(case, origin, at, expect, defined, offered)
        for name in case.tool_results:
            if name not in defined:
                self.add(
                    "warning",
                    "unknown-tool",
                    f"simulated result for '{name}', which is not defined"
                    + did_you_mean(name, defined),
                    origin,
                    ("tool_results", name),
                    case,
                )
        self.strength(case, origin, [e for _, e in expectations], defined, offered)

    def expectation(
        self,
        case: Case,
        origin: Origin,
        at: tuple[PathElem, ...],
        expect: Expectation,
        defined: dict[str, ToolSpec],
        offered: set[str] | None,
    ) -> None:
        expected_names = {c.name for c in expect.tool_calls}
        for i, name in enumerate(expect.forbidden_tools):
            if matches_any(name, expected_names):
                self.add(
                    "warning",
                    "forbidden-expected",
                    f"'{name}' is both expected and forbidden: the case cannot pass",
                    origin,
                    (*at, "forbidden_tools", i),
                    case,
                )
            elif name not in defined and not is_pattern(name):  # globs: _lint_checks
                self.add(
                    "warning",
                    "unknown-tool",
                    f"forbidden tool '{name}' is not defined (so it can never be called)"
                    + did_you_mean(name, defined),
                    origin,
                    (*at, "forbidden_tools", i),
                    case,
                )
        for j, call in enumerate(expect.tool_calls):
            call_at = (*at, "tool_calls", j)
            for name, matcher in call.arguments.items():
                for issue in structural_issues(matcher, (name,), defined):
                    severity: Severity = "error" if issue.code == "bad-regex" else "warning"
                    self.add(
                        severity,
                        issue.code,
                        issue.message,
                        origin,
                        (*call_at, "arguments", *issue.path),
                        case,
                    )
            offer_issue = call_tool_issue(call.name, defined, offered)
            if offer_issue is not None:
                code, message = offer_issue
                self.add("error", code, message, origin, (*call_at, "name"), case)
            tool = defined.get(call.name)
            if tool is not None:
                self.call_arguments(case, origin, call_at, call, tool)

    def call_tools(self) -> list[LintFinding]:
        """Only the expected calls to tools a case does not offer (undefined, or not in its
        ``tools``): what :func:`check_suite` reports beside loading problems."""
        for case, origin in zip(self.suite.cases, self.loaded.case_origins, strict=True):
            defined, offered = self.offer(case)
            for at, expect in _expectations(case):
                for j, call in enumerate(expect.tool_calls):
                    issue = call_tool_issue(call.name, defined, offered)
                    if issue is not None:
                        code, message = issue
                        where = (*at, "tool_calls", j, "name")
                        self.add("error", code, message, origin, where, case)
        return self.findings

    def offer(self, case: Case) -> tuple[dict[str, ToolSpec], set[str] | None]:
        """The tools defined for ``case`` (suite tools and its inline ones) and the names it
        offers (None: every suite tool)."""
        defined = dict(self.tools)
        if case.tools is None:
            return defined, None
        offered: set[str] = set()
        for t in case.tools:
            if isinstance(t, ToolSpec):
                defined[t.name] = t
                offered.add(t.name)
            elif t in self.tools:
                offered.add(t)
        return defined, offered

    def call_arguments(
        self,
        case: Case,
        origin: Origin,
        call_at: tuple[PathElem, ...],
        call: CallExpectation,
        tool: ToolSpec,
    ) -> None:
        props = tool.properties()
        required = tool.required()
        open_schema = tool.parameters.get("additionalProperties") not in (None, False) or (
            not props and "properties" not in tool.parameters
        )
        args_at = (*call_at, "arguments")
        for name, matcher in call.arguments.items():
            if name not in props:
                if not open_schema:
                    known = ", ".join(props) or "none"
                    self.add(
                        "warning",
                        "unknown-argument",
                        f"'{tool.name}' has no argument '{name}'"
                        + (did_you_mean(name, props) or f" (it has: {known})"),
                        origin,
                        (*args_at, name),
                        case,
                    )
                continue
            if matcher.optional and name in required:
                self.add(
                    "warning",
                    "optional-required",
                    f"'{name}' is marked optional but '{tool.name}' requires it",
                    origin,
                    (*args_at, name),
                    case,
                )
            for issue in matcher_issues(matcher, props[name], (name,)):
                self.add(
                    "warning", issue.code, issue.message, origin, (*args_at, *issue.path), case
                )
        for name in required:
            if name not in call.arguments:
                self.add(
                    "warning",
                    "missing-argument",
                    f"'{tool.name}' requires '{name}' but the expectation does not say what it "
                    "should be (write `{any: true}` to accept any value)",
                    origin,
                    (*call_at, "arguments") if call.arguments else call_at,
                    case,
                )

    def strength(
        self,
        case: Case,
        origin: Origin,
        expectations: list[Expectation],
        defined: dict[str, ToolSpec],
        offered: set[str] | None,
    ) -> None:
        if case.latency_budget_s is not None:
            return
        user = self.suite.user_for(case)
        if user is not None and (user.tell or user.must_not_obtain):
            return  # the user's facts to tell and secrets to keep are checks (docs/users.md)
        if not any(_constrains(e) for e in expectations):
            self.add(
                "warning",
                "never-fails",
                "the case expects nothing that could fail (no behavior, tool_calls, "
                "forbidden_tools, response_contains or reference)",
                origin,
                (),
                case,
            )
            return
        available = offered if offered is not None else set(defined)
        expect = case.expect
        if (
            len(available) == 1
            and not case.turns
            and expect.tool_calls
            and not expect.forbidden_tools
            and not expect.response_contains
            and expect.max_calls is None
            and all(self._call_is_loose(c) for c in expect.tool_calls)
        ):
            self.add(
                "warning",
                "weak-expectation",
                f"only checks that '{expect.tool_calls[0].name}' is called: it is the only tool "
                "offered, every argument is 'any value' and extra arguments are allowed",
                origin,
                ("expect",),
                case,
            )

    def _call_is_loose(self, call: CallExpectation) -> bool:
        extra = call.extra_arguments or self.suite.defaults.extra_arguments
        return extra == "allow" and all(m.any for m in call.arguments.values())

    def unused_tools(self) -> None:
        if not self.suite.cases:
            return
        used: set[str] = set()
        for case in self.suite.cases:
            for e in [case.expect, *(t.expect for t in case.turns if t.expect)]:
                used.update(c.name for c in e.tool_calls)
                used.update(e.forbidden_tools)
                if e.state is not None:  # a world case's reference actions use tools too
                    used.update(c.name for c in e.state.reference or [])
        globs = [u for u in used if is_pattern(u)]
        unused = [
            (tool, origin)
            for tool, origin in zip(self.suite.tools, self.loaded.tool_origins, strict=True)
            if tool.name not in used and not any(name_matches(g, tool.name) for g in globs)
        ]
        if len(unused) > _MAX_UNUSED_LISTED:
            # distractor tools (BFCL's multiple, irrelevance ...): one summary, not hundreds
            names = ", ".join(t.name for t, _ in unused[:5])
            self.add(
                "warning",
                "unused-tool",
                f"{len(unused)} of {len(self.suite.tools)} tools are never expected (or "
                f"forbidden) by any case, e.g. {names}",
                Origin(self.loaded.file, FixedLocator(None)),
            )
            return
        for tool, origin in unused:
            self.add(
                "warning",
                "unused-tool",
                f"no case expects (or forbids) a call to '{tool.name}'",
                origin,
                ("name",) if origin.path else (),
            )

    def mix(self) -> None:
        mix = category_mix(self.suite)
        if mix.total == 0:
            return
        where = Origin(self.loaded.file, FixedLocator(None))
        if all(c.stratum == "other" for c in mix.categories):
            shown = ", ".join(f"{c.name} {c.count}" for c in mix.categories[:5])
            self.add(
                "warning",
                "category-mix",
                f"no case uses a standard category ({shown}), so the usual 60/25/15 mix of "
                "common / edge / adversarial cases cannot be checked",
                where,
            )
            return
        for name, target in STRATA_TARGETS.items():
            stratum = mix.stratum(name)
            if stratum is not None and stratum.count == 0:
                members = ", ".join(k for k, v in CATEGORY_STRATA.items() if v == name)
                self.add(
                    "warning",
                    "category-mix",
                    f"no {name} cases (a golden set is commonly about {target:.0%} {name}: "
                    f"categories {members})",
                    where,
                )


def _expectations(case: Case) -> list[tuple[tuple[PathElem, ...], Expectation]]:
    found: list[tuple[tuple[PathElem, ...], Expectation]] = [(("expect",), case.expect)]
    found += [(("turns", i, "expect"), t.expect) for i, t in enumerate(case.turns) if t.expect]
    return found


def lint_suite(suite: Suite | LoadedSuite, *, judge: str | None = None) -> list[LintFinding]:
    """Lint a suite. Give a :class:`LoadedSuite` (from ``read_suite``) for file:line positions.

    ``judge`` is the judge spec a run will be given (``--judge``); without it (and without
    ``defaults.judge``) a scorer that needs a judge is reported (``no-judge``)."""
    if isinstance(suite, Suite):
        nowhere = FixedLocator(None)
        suite = LoadedSuite(
            suite,
            "<suite>",
            Origin("<suite>", nowhere),
            [Origin("<suite>", nowhere, ("cases", i)) for i in range(len(suite.cases))],
            [Origin("<suite>", nowhere, ("tools", i)) for i in range(len(suite.tools))],
        )
    return _Linter(suite, judge).run()
