"""Lint of a suite's ``scorers:`` section: names, arguments, judges and case globs."""

from __future__ import annotations

from pathlib import Path

from agentgauge.io import lint_suite, read_suite
from agentgauge.schema import ScorerRef, Suite

HEAD = """\
name: judged
tools:
  - name: get_weather
    parameters: {type: object, properties: {city: {type: string}}, required: [city]}
cases:
  - id: weather-ny
    category: happy_path
    tags: [rag_weather]
    input: Weather in New York?
    expect: {tool_calls: [{name: get_weather, arguments: {city: New York}}]}
"""

SCORER_CODES = {"unknown-scorer", "bad-scorer-args", "no-judge", "unused-judge", "unmatched-cases"}


def scorer_findings(
    tmp_path: Path, scorers: str, judge: str | None = None
) -> list[tuple[int | None, str, str, str, str]]:
    path = tmp_path / "suite.yaml"
    path.write_text(HEAD + scorers, encoding="utf-8")
    return [
        (f.line, f.severity, f.code, f.field, f.message)
        for f in lint_suite(read_suite(path), judge=judge)
        if f.code in SCORER_CODES
    ]


def test_unknown_scorer_is_an_error_with_its_line_and_a_suggestion(tmp_path: Path) -> None:
    scorers = "scorers:\n  - scorer: numeric_grounding\n  - scorer: groundednes\n"
    assert scorer_findings(tmp_path, scorers, judge="mock:judge") == [
        (
            13,
            "error",
            "unknown-scorer",
            "scorers[1].scorer",
            "unknown scorer 'groundednes' (did you mean 'groundedness'?)",
        )
    ]


def test_bad_arguments_point_at_the_argument(tmp_path: Path) -> None:
    scorers = """\
scorers:
  - scorer: similarity
    args:
      treshold: 0.5
  - scorer: task_completion
    args: {required: [get_weather, 3]}
"""
    assert scorer_findings(tmp_path, scorers) == [
        (
            14,
            "error",
            "bad-scorer-args",
            "scorers[0].args.treshold",
            "scorer 'similarity' has no argument 'treshold' (did you mean 'threshold'?)",
        ),
        (
            16,
            "error",
            "bad-scorer-args",
            "scorers[1].args.required[1]",
            "3 is an integer; 'required' must be a list of strings",
        ),
    ]


def test_a_valid_scorers_section_has_no_findings(tmp_path: Path) -> None:
    scorers = """\
defaults: {judge: "mock:judge"}
scorers:
  - scorer: equivalence
    args: {always: true}
  - scorer: groundedness
    args: {min_score: 3}
    cases: ["rag_*"]
  - scorer: similarity
    args: {threshold: 0.75}
  - scorer: safety
    args: {use_judge: false, leak_words: 6}
  - scorer: instruction_following
    args: {max_words: 60}
"""
    assert scorer_findings(tmp_path, scorers) == []


def test_a_judge_scorer_without_any_judge_is_a_warning(tmp_path: Path) -> None:
    scorers = "scorers:\n  - scorer: relevance\n  - scorer: task_completion\n"
    [(line, severity, code, field, message)] = scorer_findings(tmp_path, scorers)
    assert (line, severity, code, field) == (12, "warning", "no-judge", "scorers[0].scorer")
    assert message.startswith("scorer 'relevance' needs a judge and none is set")
    # a judge from the command line, from defaults.judge or on the entry settles it
    assert scorer_findings(tmp_path, scorers, judge="openai:gpt-4o") == []
    assert scorer_findings(tmp_path, 'defaults: {judge: "mock:judge"}\n' + scorers) == []
    own = "scorers:\n  - scorer: relevance\n    judge: mock:judge\n"
    assert scorer_findings(tmp_path, own) == []


def test_judge_on_a_deterministic_scorer_and_globs_matching_nothing(tmp_path: Path) -> None:
    scorers = """\
scorers:
  - scorer: numeric_grounding
    judge: mock:judge
  - scorer: similarity
    cases: ["rag_*", "capitals"]
  - scorer: similarity
    args: {cases: [nothing_here]}
"""
    found = scorer_findings(tmp_path, scorers)
    assert [(line, code, field) for line, _, code, field, _ in found] == [
        (13, "unused-judge", "scorers[0].judge"),
        (15, "unmatched-cases", "scorers[1].cases[1]"),
        (17, "unmatched-cases", "scorers[2].args.cases[0]"),
    ]
    assert found[1][4] == "'capitals' matches no case id, category or tag"
    assert found[2][4] == (
        "'nothing_here' matches no case id, category or tag, so scorer 'similarity' runs on no case"
    )
    assert all(severity == "warning" for _, severity, *_ in found)


def test_lint_of_a_suite_object_has_fields_but_no_lines() -> None:
    suite = Suite(name="s", scorers=[ScorerRef(scorer="fluensy", judge="mock:judge")])
    [f] = [f for f in lint_suite(suite) if f.code in SCORER_CODES]
    assert f.format() == (
        "<suite>: scorers[0].scorer: error: unknown scorer 'fluensy' (did you mean 'fluency'?) "
        "[unknown-scorer]"
    )


def test_provider_specs_of_defaults_and_scorer_judges_are_checked(tmp_path: Path) -> None:
    text = HEAD.replace(
        "name: judged\n", "name: judged\ndefaults:\n  agent: opnai:gpt-4o\n  judge: gpt-4o\n"
    )
    text += "scorers:\n  - {scorer: groundedness, judge: 'antropic:claude-3'}\n"
    path = tmp_path / "suite.yaml"
    path.write_text(text, encoding="utf-8")
    found = [
        (f.line, f.severity, f.field, f.message)
        for f in lint_suite(read_suite(path))
        if f.code == "unknown-provider"
    ]
    assert found == [
        (
            3,
            "error",
            "defaults.agent",
            "unknown provider spec 'opnai:gpt-4o' (did you mean 'openai:'?)",
        ),
        (
            4,
            "error",
            "defaults.judge",
            "unknown provider spec 'gpt-4o' (expected one of openai:, azure:, anthropic:, "
            "gemini:, local:, python:, http:, https:, mock:, openai-agents:, langgraph:, "
            "pydantic-ai:)",
        ),
        (
            15,
            "error",
            "scorers[0].judge",
            "unknown provider spec 'antropic:claude-3' (did you mean 'anthropic:'?)",
        ),
    ]
    good = text.replace("opnai:", "openai:").replace("judge: gpt-4o", "judge: 'mock:judge'")
    path.write_text(good.replace("antropic:", "anthropic:"), encoding="utf-8")
    assert not [f for f in lint_suite(read_suite(path)) if f.code == "unknown-provider"]
