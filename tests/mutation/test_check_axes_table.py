"""Every check of issue 25 item 1, written in YAML, against the mutation audit — one row each.

For every row the suite is a YAML file loaded as a user's would be, and:

- the audit builds at least one mutant on the row's axis, the right transcript passes and every
  such mutant fails, naming the check (*killed*);
- under a scorer blind to that one check (its failing scores ignored, or, for calls written as
  text, a scorer that reads them anyway), the same mutants pass and the audit reports the case
  (``mutant-passes`` / ``cannot-fail``): a check that cannot fail is found, and the mutant was
  killed by that check and no other.

``test_every_check_axis_and_bullet_has_a_row`` fails when a new check axis, or a bullet of the
issue, has no row (as ``tests/metrics/test_gates_every_field.py`` does for gates).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentgauge.mutation import AuditConfig, CaseAudit, audit_suite, case_findings
from agentgauge.mutation._checks import CHECK_AXES
from agentgauge.scoring import CaseScore, ScoringConfig, score_case
from agentgauge.suites import load_suite

TOOLS = """
tools:
  - {name: get_a, parameters: {type: object, properties: {x: {type: integer}}}}
  - {name: get_b, parameters: {type: object, properties: {y: {type: string}}}}
  - {name: kb_search, mcp: true, parameters: {type: object, properties: {q: {type: string}}}}
  - {name: confirm, parameters: {type: object, properties: {}}}
  - {name: delete_x, parameters: {type: object, properties: {}}}
"""
GET_A = "{name: get_a, arguments: {x: 1}}"
GET_B = "{name: get_b, arguments: {y: k}}"
#: a two-turn case: the same call in each turn (the conversation bounds' rows add ``limits``)
TWO_TURNS = f"""
    expect: {{tool_calls: [{GET_A}], order: superset}}
    turns: [{{user: again, expect: {{tool_calls: [{GET_A}], order: superset}}}}]"""
#: two turns where making no call is right (``order: subset``, ``allow_no_calls``)
OPTIONAL = f"{{tool_calls: [{GET_A}], order: subset, allow_no_calls: true}}"
TWO_OPTIONAL = f"""
    expect: {OPTIONAL}
    turns: [{{user: again, expect: {OPTIONAL}}}]"""
TWO_ANSWERS = """
    expect: {behavior: answer}
    turns: [{user: again, expect: {behavior: answer}}]"""


@dataclass(frozen=True)
class Row:
    """One check: the issue's bullet, the YAML that writes it, its axis and how it fails."""

    id: str
    bullet: str
    axis: str
    #: the case's fields after ``id`` and ``input`` (YAML, indented four spaces)
    case: str
    #: score names (the part after the last ``.``) a scorer blind to the check ignores;
    #: ``None``: the blind scorer reads calls written as text instead
    blind: frozenset[str] | None
    #: words the mutant's explanation holds
    words: tuple[str, ...] = ()
    #: the suite's ``defaults`` (YAML flow mapping)
    defaults: str = "{}"


def _row(
    id: str, bullet: str, axis: str, case: str, blind: str | None, *words: str, defaults: str = "{}"
) -> Row:
    """A row; ``blind``: the score names, space-separated."""
    names = None if blind is None else frozenset(blind.split())
    return Row(id, bullet, axis, case, names, words, defaults)


ROWS: tuple[Row, ...] = (
    _row("expected-type", "call type", "wrong_type",
         'expect: {tool_calls: [{name: "*", type: mcp, args_match: ignore}]}',
         "tool_selection", "expected a call to * (mcp)"),
    _row("forbidden-type", "call type", "forbidden_type",
         f"expect: {{tool_calls: [{GET_A}], order: superset, forbidden_types: [mcp]}}",
         "forbidden_types", "forbidden mcp tool: kb_search"),
    _row("glob-expected", "globs", "wrong_tool",
         'expect: {tool_calls: [{name: "get_*", args_match: ignore}]}',
         "tool_selection", "expected a call to get_*"),
    _row("glob-forbidden", "globs", "forbidden_call",
         f'expect: {{tool_calls: [{GET_A}], order: superset, forbidden_tools: ["delete_*"]}}',
         "forbidden_tools", "delete_x"),
    _row("glob-trajectory", "globs", "reorder_calls",
         'expect: {order: strict, tool_calls: [{name: "get_a*", arguments: {x: 1}}, '
         '{name: "get_b*", arguments: {y: k}}]}',
         "order"),
    _row("allowed-tools", "globs", "disallowed_call",
         f'expect: {{tool_calls: [{GET_A}], order: superset, allowed_tools: ["get_*"]}}',
         "allowed_tools", "not allowed"),
    _row("forbidden-argument", "forbidden argument values", "forbidden_argument",
         "expect: {tool_calls: [{name: get_b, arguments: {y: {any: true}}}], "
         'forbidden_arguments: {get_b: {y: {not: {regex: "ok.*"}}}}}',
         "forbidden_arguments", "forbidden argument value: get_b.y"),
    _row("forbidden-sequence", "forbidden sequences", "forbidden_sequence",
         "expect: {behavior: any_tool, forbidden_sequences: "
         "[{after: get_a, then: delete_x, unless: [confirm]}]}",
         "forbidden_sequences", "delete_x called after get_a with no confirm between"),
    _row("turn-max-calls", "step counts", "extra_call",
         f"expect: {{tool_calls: [{GET_A}], order: superset, max_calls: 1}}",
         "max_calls", "at most 1 allowed"),
    _row("turn-min-calls", "step counts", "too_few_calls",
         "expect: {behavior: any_tool, min_calls: 2}",
         "min_calls", "at least 2 needed"),
    _row("turn-max-steps", "step counts", "extra_steps",
         f"expect: {{tool_calls: [{GET_A}], max_model_steps: 2}}",
         "max_model_steps", "model step(s), at most 2 allowed"),
    _row("turn-min-steps", "step counts", "fewer_steps",
         f"expect: {{tool_calls: [{GET_A}, {GET_B}], order: strict, min_model_steps: 3}}",
         "min_model_steps", "at least 3 needed"),
    _row("suite-max-calls", "step counts", "too_many_calls",
         f"expect: {{tool_calls: [{GET_A}], order: superset}}",
         "max_calls", "at most 1 allowed", defaults="{limits: {max_calls: 1}}"),
    _row("suite-min-calls", "step counts", "too_few_calls",
         "expect: {behavior: any_tool}",
         "min_calls", "at least 2 needed", defaults="{limits: {min_calls: 2}}"),
    _row("suite-max-steps", "step counts", "extra_steps",
         f"expect: {{tool_calls: [{GET_A}]}}",
         "max_model_steps", "at most 2 allowed", defaults="{limits: {max_model_steps: 2}}"),
    _row("suite-min-steps", "step counts", "fewer_steps",
         f"expect: {{tool_calls: [{GET_A}, {GET_B}], order: strict}}",
         "min_model_steps", "at least 3 needed", defaults="{limits: {min_model_steps: 3}}"),
    _row("case-max-calls", "step counts", "too_many_calls",
         "limits: {max_calls: 2}" + TWO_TURNS,
         "max_calls", "in the whole conversation, at most 2 allowed"),
    _row("case-min-calls", "step counts", "too_few_calls",
         "limits: {min_calls: 2}" + TWO_OPTIONAL,
         "min_calls", "in the whole conversation, at least 2 needed"),
    _row("case-max-steps", "step counts", "extra_steps",
         "limits: {max_model_steps: 4}" + TWO_TURNS,
         "max_model_steps", "in the whole conversation, at most 4 allowed"),
    _row("case-min-steps", "step counts", "fewer_steps",
         "limits: {min_model_steps: 2}" + TWO_ANSWERS,
         "min_model_steps", "in the whole conversation, at least 2 needed"),
    _row("not", "not", "negated",
         "expect: {behavior: any_tool, not: {order: superset, "
         "tool_calls: [{name: delete_x, args_match: ignore}]}}",
         "not", "not: expected this not to hold"),
    _row("text-strict", "provider JSON shapes", "text_call",
         f"expect: {{tool_calls: [{GET_A}]}}",
         None, "got <no tool>"),
    _row("text-lenient", "lenient opt-in", "text_call",
         f"expect: {{tool_calls: [{GET_A}]}}",
         "tool_selection", "expected a call to get_a, got get_b",
         defaults="{text_calls: lenient}"),
)  # fmt: skip

#: the sub-bullets of issue 25 item 1 (the case pass threshold has its own tests below)
BULLETS = (
    "call type",
    "globs",
    "forbidden argument values",
    "forbidden sequences",
    "step counts",
    "not",
    "provider JSON shapes",
    "lenient opt-in",
)


def _suite_file(tmp_path: Path, row: Row, **case: Any) -> Path:
    extra = "".join(f"\n    {k}: {v}" for k, v in case.items())
    text = f"""name: checks
{TOOLS}
defaults: {row.defaults}
cases:
  - id: c
    input: q
    {row.case.strip()}{extra}
"""
    path = tmp_path / "suite.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _audit(path: Path) -> CaseAudit:
    (case,) = audit_suite(load_suite(path), AuditConfig()).cases
    return case


def _blind_scorer(row: Row) -> Callable[..., CaseScore]:
    """``score_case`` blind to the row's check."""

    def scorer(case: Any, turns: Any, tools: Any, config: ScoringConfig, **kw: Any) -> CaseScore:
        if row.blind is None:  # reads calls written as text whatever the suite says
            lenient = replace(config, text_calls="lenient")
            return score_case(case, turns, tools, lenient, **kw)
        got = score_case(case, turns, tools, config, **kw)
        left = [s for s in got.scores if s.name.rsplit(".", 1)[-1] not in row.blind]
        ok = all(s.passed is not False for s in left)
        return CaseScore(status="passed" if ok else "failed", score=got.score, scores=left)

    return scorer


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_the_checks_mutant_is_built_and_killed(row: Row, tmp_path: Path) -> None:
    got = _audit(_suite_file(tmp_path, row))
    assert got.reference.passed is True, got.reference.explanation
    mine = [v for v in got.verdicts if v.axis == row.axis and v.passed is not None]
    assert mine, f"no {row.axis} mutant: {[(v.axis, v.detail) for v in got.verdicts]}"
    for v in mine:
        assert v.passed is False, v
        assert all(w in v.explanation for w in row.words), v.explanation
    assert not got.surviving_axes, [v for v in got.verdicts if v.passed]


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_a_scorer_blind_to_the_check_is_reported(
    row: Row, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("agentgauge.mutation._audit.score_case", _blind_scorer(row))
    got = _audit(_suite_file(tmp_path, row))
    assert got.reference.passed is True, got.reference.explanation
    mine = [v for v in got.verdicts if v.axis == row.axis and v.passed is not None]
    assert mine
    assert all(v.passed for v in mine), [v.explanation for v in mine if not v.passed]
    messages = [f.message for f in case_findings(got)]
    assert any(
        f"a wrong transcript passes ({row.axis})" in m or "cannot fail" in m for m in messages
    ), messages


def test_every_check_axis_and_bullet_has_a_row() -> None:
    axes = {r.axis for r in ROWS}
    assert set(CHECK_AXES) <= axes, f"check axes without a row: {set(CHECK_AXES) - axes}"
    bullets = {r.bullet for r in ROWS}
    assert set(BULLETS) == bullets, set(BULLETS) ^ bullets


def _text_row() -> Row:
    return next(r for r in ROWS if r.id == "text-lenient")


def test_the_lenient_reading_reads_every_provider_shape_in_prose(tmp_path: Path) -> None:
    """Under ``text_calls: lenient`` the right calls written inside a sentence, in OpenAI's,
    Anthropic's and Gemini's shape, pass (no mistake, not counted); under the strict default the
    audit writes them as the whole text and they fail."""
    got = _audit(_suite_file(tmp_path, _text_row()))
    benign = {v.detail: v.explanation for v in got.verdicts if v.axis == "text_call"}
    for shape in ("OpenAI tool_calls", "Anthropic tool_use", "Gemini functionCall"):
        (why,) = [w for d, w in benign.items() if shape in d]
        assert why.startswith("not a mistake: the suite reads calls written as text"), why
    strict = _audit(_suite_file(tmp_path, next(r for r in ROWS if r.id == "text-strict")))
    (v,) = [v for v in strict.verdicts if v.axis == "text_call"]
    assert v.passed is False
    assert v.detail == "the calls written as JSON text, not made"


A_THRESHOLD = next(r for r in ROWS if r.id == "forbidden-type")


def test_a_case_pass_threshold_lets_a_mistake_through_and_is_reported(tmp_path: Path) -> None:
    """The case threshold (YAML ``pass_threshold``), both ways: at 0.9 the mistake still fails
    the case; at 0.6 the forbidden_type mutant passes and the audit says so; at 0 the case
    cannot fail (an error)."""
    high = _audit(_suite_file(tmp_path, A_THRESHOLD, pass_threshold="0.9"))
    assert high.reference.passed is True
    assert "forbidden_type" not in high.surviving_axes
    low = _audit(_suite_file(tmp_path, A_THRESHOLD, pass_threshold="0.6"))
    assert "forbidden_type" in low.surviving_axes
    messages = [f.message for f in case_findings(low)]
    assert any("a wrong transcript passes (forbidden_type)" in m for m in messages), messages
    zero = _audit(_suite_file(tmp_path, A_THRESHOLD, pass_threshold="0"))
    assert zero.cannot_fail
    (finding,) = [f for f in case_findings(zero) if f.code == "cannot-fail"]
    assert finding.severity == "error"


def test_the_suite_files_are_plain_yaml(tmp_path: Path) -> None:
    """Every row is YAML a user writes (no Python objects): it parses with a plain loader too."""
    for row in ROWS:
        data = yaml.safe_load(_suite_file(tmp_path, row).read_text(encoding="utf-8"))
        assert data["cases"][0]["id"] == "c"


def test_the_guardrails_example_lets_no_mistake_through_when_lenient() -> None:
    """examples/guardrails read leniently: the text_call mutants of every turn with calls
    (three shapes in prose: not counted, or caught by what the unexecuted call could not give,
    the reply's facts; a wrong call in prose: caught) and no survivor."""
    path = Path(__file__).resolve().parents[2] / "examples" / "guardrails" / "suite.yaml"
    suite = load_suite(path)
    lenient = suite.model_copy(
        update={"defaults": suite.defaults.model_copy(update={"text_calls": "lenient"})}
    )
    audit = audit_suite(lenient, AuditConfig())
    assert not [c.case_id for c in audit.cases if c.survivors or c.reference.passed is not True]
    written = [v for c in audit.cases for v in c.verdicts if v.axis == "text_call"]
    wrong = [v for v in written if v.detail.startswith("a wrong call written inside prose")]
    assert wrong
    assert all(v.passed is False for v in wrong)
    for v in written:
        if v not in wrong:
            assert v.passed is None or v.explanation.startswith("reply does not contain"), v
