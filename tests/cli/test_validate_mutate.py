"""``agentgauge validate --mutate``: the mutation audit in text and JSON, and its exit status."""

from __future__ import annotations

from pathlib import Path

import orjson
from click.testing import CliRunner

from agentgauge.cli import cli

REPO = Path(__file__).resolve().parents[2]

SUITE = """\
name: t
tools:
  - name: b
    parameters: {type: object, properties: {y: {type: string}}, required: [y]}
cases:
  - id: ok
    category: tool_call
    input: q
    expect: {tool_calls: [{name: b, arguments: {y: k}}]}
  - id: weak
    category: clarify
    input: q
    expect: {reference: It is sunny.}
  - id: bad-reference
    category: clarify
    input: Book a flight to Portland.
    expect: {behavior: clarify, reference: Ask which Portland is meant.}
"""


def _suite(tmp_path: Path, text: str = SUITE) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_text_report_and_exit_2_for_a_case_that_cannot_fail(tmp_path: Path) -> None:
    path = _suite(tmp_path)
    result = CliRunner().invoke(cli, ["validate", "--mutate", str(path)])
    assert result.exit_code == 2, result.output
    out = result.output
    assert (
        f"{path}:10: cases[1]: error: case 'weak' cannot fail: all 3 wrong transcripts pass "
        "(text_only, refusal, clarify) [cannot-fail]"
    ) in out
    assert (
        f"{path}:14: cases[2]: warning: the right transcript fails: expected behaviour clarify, "
        "got answer: 'Ask which Portland is meant.' [reference-fails]"
    ) in out
    assert f"{path}: mutation audit: 3 cases" in out
    assert "1 case(s) cannot fail, 1 right transcript(s) fail" in out
    assert "  wrong_tool" not in out  # one tool only: no other tool to call by mistake


def test_without_mutate_nothing_is_audited(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["validate", str(_suite(tmp_path))])
    assert "cannot-fail" not in result.output
    assert "mutation audit" not in result.output


def test_json_report(tmp_path: Path) -> None:
    path = _suite(tmp_path)
    result = CliRunner().invoke(cli, ["validate", "--mutate", "--format", "json", str(path)])
    assert result.exit_code == 2
    data = orjson.loads(result.output)
    assert data["ok"] is False
    [suite] = data["suites"]
    assert suite["ok"] is False
    m = suite["mutation"]
    assert m["cases"] == 3
    assert m["cannot_fail"] == ["weak"]
    assert m["reference_failures"] == ["bad-reference"]
    assert m["axes"]["refusal"] == {"cases": 3, "passed": 1}
    codes = [(f["case_id"], f["code"], f["severity"]) for f in m["findings"]]
    assert codes == [
        ("weak", "cannot-fail", "error"),
        ("bad-reference", "reference-fails", "warning"),
    ]
    weak = next(c for c in m["case_results"] if c["case_id"] == "weak")
    assert weak["cannot_fail"] is True
    assert {p["axis"] for p in weak["passed_mutants"]} == {"text_only", "refusal", "clarify"}


def test_a_failing_reference_alone_is_a_warning(tmp_path: Path) -> None:
    text = SUITE.split("  - id: weak")[0] + SUITE.split("expect: {reference: It is sunny.}\n")[1]
    path = _suite(tmp_path, text)
    result = CliRunner().invoke(cli, ["validate", "--mutate", "-q", str(path)])
    assert result.exit_code == 0, result.output
    assert "reference-fails" not in result.output  # --quiet hides warnings
    strict = CliRunner().invoke(cli, ["validate", "--mutate", "--strict", str(path)])
    assert strict.exit_code == 2
    assert "[reference-fails]" in strict.output


def test_quickstart_audits_clean() -> None:
    result = CliRunner().invoke(
        cli, ["validate", "--mutate", "--strict", str(REPO / "examples" / "quickstart")]
    )
    assert result.exit_code == 0, result.output
    assert "0 case(s) cannot fail, 0 right transcript(s) fail" in result.output


def test_a_suite_with_problems_is_not_audited(tmp_path: Path) -> None:
    path = _suite(
        tmp_path, SUITE.replace("input: q\n    expect: {ref", "inputt: q\n    expect: {ref")
    )
    result = CliRunner().invoke(cli, ["validate", "--mutate", str(path)])
    assert result.exit_code == 2
    assert "mutation audit" not in result.output
