"""Lint of the checks of issue 25 (``suites/_lint_checks.py``): each finding on a suite that has
the problem, with its ``file:line`` and field, and none on the same suite written right; bad
values of the new fields are one-line ``file:line: field: message`` errors, exit 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agentgauge.errors import UserError
from agentgauge.io import lint_suite, load_suite, read_suite

TOOLS = """\
name: checks
tools:
  - name: search
    mcp: true
    parameters: {type: object, properties: {q: {type: string}}}
  - name: send_email
    parameters: {type: object, properties: {to: {type: string}, body: {type: string}}}
  - name: get_quote
    parameters: {type: object, properties: {amount: {type: number}}}
  - name: transfer_funds
    parameters: {type: object, properties: {amount: {type: number}}}
"""
SKIP = {"category-mix", "unused-tool", "missing-argument", "weak-expectation"}


def findings(tmp_path: Path, cases: str, head: str = TOOLS) -> list[tuple[int | None, str, str]]:
    path = tmp_path / "suite.yaml"
    path.write_text(head + "cases:\n" + cases, encoding="utf-8")
    return [(f.line, f.code, f.field) for f in lint_suite(read_suite(path)) if f.code not in SKIP]


def case(expect: str, extra: str = "") -> str:
    """One case whose ``expect`` block is ``expect`` (indented six spaces; from line 16, 17
    with an ``extra`` line)."""
    return f"  - id: c\n    input: hi\n{extra}    expect:\n{expect}"


def test_right_checks_have_no_findings(tmp_path: Path) -> None:
    got = findings(
        tmp_path,
        case(
            "      tool_calls: [{name: 'send_*', type: function, args_match: ignore}]\n"
            "      allowed_tools: [send_email, search]\n"
            "      forbidden_types: [mcp]\n"
            "      forbidden_arguments: {send_email: {to: {not: {regex: '.*@acme[.]com'}}}}\n"
            "      forbidden_sequences: [{after: get_quote, then: transfer_funds}]\n"
            "      max_calls: 2\n"
            "      not: {response_contains: [sorry]}\n"
        ),
    )
    assert got == []


def test_names_and_globs_that_match_no_tool(tmp_path: Path) -> None:
    got = findings(
        tmp_path,
        case(
            "      tool_calls: [{name: 'fetch_*', args_match: ignore}]\n"  # line 16
            "      forbidden_tools: ['delete_*']\n"
            "      allowed_tools: [serch]\n"
            "      forbidden_arguments: {send_mail: {to: x}}\n"
            "      forbidden_sequences: [{after: get_quote, then: pay}]\n"
        ),
    )
    at = "cases[0].expect"
    assert (16, "unknown-tool", f"{at}.tool_calls[0].name") in got
    assert (17, "unknown-tool", f"{at}.forbidden_tools[0]") in got
    assert (18, "unknown-tool", f"{at}.allowed_tools[0]") in got
    assert (19, "unknown-tool", f"{at}.forbidden_arguments.send_mail") in got
    assert (20, "unknown-tool", f"{at}.forbidden_sequences[0].then") in got


def test_a_call_the_case_itself_forbids(tmp_path: Path) -> None:
    got = findings(
        tmp_path,
        case(
            "      tool_calls:\n"
            "        - {name: search, type: function, args_match: ignore}\n"  # line 17
            "        - {name: send_email, args_match: ignore}\n"
            "      forbidden_types: [function]\n"
            "      allowed_tools: [search]\n"
        ),
    )
    at = "cases[0].expect.tool_calls"
    assert (17, "wrong-call-type", f"{at}[0].type") in got
    assert (17, "forbidden-expected", f"{at}[0].name") in got  # a function call, forbidden
    assert (18, "forbidden-expected", f"{at}[1].name") in got  # not allowed, and a function


def test_checks_that_cannot_fail_and_bounds_no_turn_meets(tmp_path: Path) -> None:
    got = findings(
        tmp_path,
        case(
            "      tool_calls:\n"
            "        [{name: search, args_match: ignore}, {name: send_email, args_match: ignore}]\n"
            "      max_calls: 1\n"  # line 19
            "      min_model_steps: 0\n"
            "      forbidden_sequences: [{after: get_quote, then: transfer_funds}]\n"
            "      forbidden_arguments: {send_email: {cc: x}}\n",
            extra="    tools: [search, send_email]\n",
        ),
    )
    at = "cases[0].expect"
    assert (19, "bounds-below-expected", f"{at}.max_calls") in got
    assert (20, "cannot-fail-check", f"{at}.min_model_steps") in got
    assert (21, "cannot-fail-check", f"{at}.forbidden_sequences[0]") in got
    assert (22, "unknown-argument", f"{at}.forbidden_arguments.send_email.cc") in got


def test_a_forbidden_type_no_offered_tool_has(tmp_path: Path) -> None:
    got = findings(
        tmp_path,
        case(
            "      behavior: any_tool\n      forbidden_types: [mcp]\n", "    tools: [send_email]\n"
        ),
    )
    assert (18, "cannot-fail-check", "cases[0].expect.forbidden_types[0]") in got
    # the same case offering the MCP tool: no finding
    ok = findings(tmp_path, case("      behavior: any_tool\n      forbidden_types: [mcp]\n"))
    assert not [f for f in ok if f[1] == "cannot-fail-check"]


def test_a_pass_threshold_of_zero(tmp_path: Path) -> None:
    got = findings(tmp_path, case("      behavior: answer\n", "    pass_threshold: 0\n"))
    assert (15, "threshold-passes-all", "cases[0].pass_threshold") in got
    head = TOOLS + "defaults:\n  pass_threshold: 0\n"
    got = findings(tmp_path, case("      behavior: answer\n"), head=head)
    assert (13, "threshold-passes-all", "defaults.pass_threshold") in got
    assert findings(tmp_path, case("      behavior: answer\n", "    pass_threshold: 0.8\n")) == []


def test_a_bad_regex_inside_not_and_forbidden_arguments(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(
        TOOLS
        + "cases:\n"
        + case(
            "      behavior: any_tool\n"
            "      forbidden_arguments: {send_email: {to: {not: {regex: '(['}}}}\n"  # line 17
        ),
        encoding="utf-8",
    )
    (f,) = [f for f in lint_suite(read_suite(path)) if f.code == "bad-regex"]
    assert f.severity == "error"
    assert (f.line, f.field) == (17, "cases[0].expect.forbidden_arguments.send_email.to.not")


@pytest.mark.parametrize(
    ("expect", "field", "message"),
    [
        ("min_calls: 3\n      max_calls: 1", "cases[0].expect", "min_calls 3 is above max_calls 1"),
        ("not: {reference: x}", "cases[0].expect", "'not' cannot invert reference"),
        ("not: {}", "cases[0].expect", "'not' needs at least one check"),
        ("forbidden_types: [grpc]", "cases[0].expect.forbidden_types[0]", "'function' or 'mcp'"),
        ("forbidden_sequences: [{after: a}]", "cases[0].expect.forbidden_sequences[0].then", ""),
        ("max_model_steps: -1", "cases[0].expect.max_model_steps", ""),
    ],
)
def test_bad_values_are_one_line_errors(
    tmp_path: Path, expect: str, field: str, message: str
) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(TOOLS + "cases:\n" + case(f"      {expect}\n"), encoding="utf-8")
    with pytest.raises(UserError) as err:
        load_suite(path)
    line = str(err.value).splitlines()[0]
    assert line.startswith(f"{path}:")
    assert f" {field}: " in line or line.split(": ")[1] == field
    assert message in line


def test_validate_exits_2_on_a_bad_check_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(TOOLS + "cases:\n" + case("      min_calls: 3\n      max_calls: 1\n"))
    done = subprocess.run(
        [sys.executable, "-m", "agentgauge", "validate", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr + done.stdout
    assert (
        f"{path}:15: cases[0].expect: min_calls 3 is above max_calls 1" in done.stdout + done.stderr
    )


def test_not_over_exact_calls_is_a_trap_reported(tmp_path: Path) -> None:
    trap = (
        "      behavior: any_tool\n      not: {tool_calls: [{name: search, args_match: ignore}]}\n"
    )
    got = findings(tmp_path, case(trap))
    assert (17, "not-exact-calls", "cases[0].expect.not.order") in got
    ok = trap.replace("not: {", "not: {order: superset, ")
    assert [f for f in findings(tmp_path, case(ok)) if f[1] == "not-exact-calls"] == []


def test_a_case_limits_minimum_of_zero(tmp_path: Path) -> None:
    got = findings(tmp_path, case("      behavior: answer\n", "    limits: {min_calls: 0}\n"))
    assert (15, "cannot-fail-check", "cases[0].limits.min_calls") in got
