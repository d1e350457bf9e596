"""The audit as a whole: cannot-fail cases, failing references, multi-turn cases, result
references, sampling, findings, and the project's own example suite."""

from __future__ import annotations

from pathlib import Path

import pytest
from _mutation_helpers import TOOLS, audit, axis

import agentgauge.mutation as mutation
import agentgauge.mutation._audit as audit_module
from agentgauge.io import read_suite
from agentgauge.mutation import AuditConfig, audit_findings, audit_suite, mutate_case
from agentgauge.schema import Suite

REPO = Path(__file__).resolve().parents[2]
QUICKSTART = REPO / "examples" / "quickstart"


def test_public_surface() -> None:
    public = {n for n in vars(mutation) if n[0].isalpha() and n != "annotations"}
    assert set(mutation.__all__) == public


def test_a_case_every_mutant_passes_cannot_fail() -> None:
    # only a reference text, which no deterministic scorer reads: nothing can fail
    got = audit({"id": "c", "input": "q", "expect": {"reference": "It is sunny."}})["c"]
    assert got.cannot_fail
    assert got.surviving_axes == ["text_only", "refusal", "clarify"]
    [finding] = [f for f in mutation.case_findings(got) if f.code == "cannot-fail"]
    assert finding.severity == "error"
    assert "cannot fail: all 3 wrong transcripts pass (text_only, refusal, clarify)" in (
        finding.message
    )


def test_a_good_case_can_fail() -> None:
    got = audit(
        {"id": "c", "input": "q", "expect": {"tool_calls": [{"name": "a", "arguments": {"x": 1}}]}}
    )["c"]
    assert not got.cannot_fail
    assert got.survivors == []
    assert got.reference.passed is True
    assert got.reference.defined
    assert mutation.case_findings(got) == []


def test_a_failing_reference_is_a_warning() -> None:
    # the reference text is an instruction to a judge, not a clarifying question
    case = {
        "id": "c",
        "input": "Book a flight to Portland.",
        "expect": {"behavior": "clarify", "reference": "Ask which Portland is meant."},
    }
    got = audit(case)["c"]
    assert got.reference.passed is False
    assert "expected behaviour clarify, got answer" in got.reference.explanation
    [finding] = mutation.case_findings(got)
    assert (finding.severity, finding.code) == ("warning", "reference-fails")


def test_an_expectation_accepting_no_value_fails_its_reference() -> None:
    # BFCL's ground truth sometimes lists no acceptable value for a required argument
    case = {
        "id": "c",
        "input": "q",
        "expect": {"tool_calls": [{"name": "a", "arguments": {"x": {"one_of": []}}}]},
    }
    got = audit(case)["c"]
    assert got.reference.passed is False
    assert "accepts no value" in got.reference.explanation


def test_multi_turn_mutants_change_one_turn_and_keep_the_others_right() -> None:
    loaded = read_suite(QUICKSTART)
    case = next(c for c in loaded.suite.cases if c.id == "flights-portland")
    made = mutate_case(case, loaded.suite)
    assert made.reference is not None
    assert len(made.reference) == 2
    turn1 = [m for m in made.mutants if m.turn == 1]
    assert {m.axis for m in turn1} >= {"wrong_tool", "perturb_argument", "drop_argument"}
    for m in turn1:
        assert m.detail.startswith("turn 1: ")
        # turn 0 keeps the right reply: the clarifying question
        assert m.turns[0] == made.reference[0]
    got = audit_suite(loaded.suite.model_copy(update={"cases": [case]})).cases[0]
    assert got.reference.passed is True
    assert {v.turn for v in got.verdicts} == {0, 1}
    assert got.survivors == []


def test_result_references_take_the_value_from_the_simulated_result() -> None:
    tools = [
        *TOOLS,
        {
            "name": "find",
            "parameters": {
                "type": "object",
                "properties": {"q": {"type": "string"}},
                "required": ["q"],
            },
            "simulation": {"result": {"items": [{"id": "C-42"}]}},
        },
    ]
    suite = Suite.model_validate(
        {
            "name": "t",
            "tools": tools,
            "cases": [
                {
                    "id": "chain",
                    "input": "q",
                    "expect": {
                        "order": "strict",
                        "tool_calls": [
                            {"name": "find", "arguments": {"q": {"any": True}}},
                            {
                                "name": "b",
                                "arguments": {
                                    "y": {"ref": {"tool": "find", "path": "items[0].id"}}
                                },
                            },
                        ],
                    },
                }
            ],
        }
    )
    [got] = audit_suite(suite).cases
    assert got.reference.passed is True
    wrong = [v for v in got.verdicts if v.axis == "perturb_argument"]
    assert [v.detail for v in wrong] == ["b[1].y: not the value of find.items[0].id"]
    assert wrong[0].passed is False
    made = mutate_case(suite.cases[0], suite)
    assert made.reference is not None
    sent = [c.arguments for m in made.reference[0] for c in m.tool_calls]
    assert sent[1] == {"y": "C-42"}


def test_tool_results_are_played_in_order_across_calls() -> None:
    case = {
        "id": "c",
        "input": "q",
        "tool_results": {"a": [{"error": "503 try again"}, {"result": {"ok": 1}}]},
        "expect": {
            "behavior": "recover",
            "order": "superset",
            "tool_calls": [{"name": "a", "arguments": {"x": 1}}],
        },
    }
    suite = Suite.model_validate({"name": "t", "tools": TOOLS, "cases": [case]})
    made = mutate_case(suite.cases[0], suite)
    assert made.reference is not None
    tool_msgs = [m.content for m in made.reference[0] if m.role == "tool"]
    assert tool_msgs == ['{"error":"503 try again"}', '{"ok":1}']


def test_sampling_is_seeded_and_keeps_suite_order() -> None:
    cases = [{"id": f"c{i}", "input": "q", "expect": {"behavior": "answer"}} for i in range(30)]
    suite = Suite.model_validate({"name": "t", "tools": TOOLS, "cases": cases})
    one = audit_suite(suite, AuditConfig(sample=5, seed=3))
    two = audit_suite(suite, AuditConfig(sample=5, seed=3))
    ids = [c.case_id for c in one.cases]
    assert ids == [c.case_id for c in two.cases]
    assert len(ids) == 5
    assert ids == sorted(ids, key=lambda s: int(s[1:]))
    assert one.total_cases == 30
    assert one == two  # deterministic, verdict for verdict


def test_skipped_scorers_are_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    # the similarity scorer runs when its offline embedding model is installed: here it is not
    monkeypatch.setattr(audit_module, "_embedding_problem", lambda: "needs the embedding model")
    suite = Suite.model_validate(
        {
            "name": "t",
            "tools": TOOLS,
            "defaults": {"judge": "mock:x"},
            "scorers": [{"scorer": "equivalence"}, {"scorer": "similarity"}, {"scorer": "safety"}],
            "cases": [{"id": "c", "input": "q", "expect": {"behavior": "answer"}}],
        }
    )
    got = audit_suite(suite)
    assert [(s.scorer, s.reason) for s in got.skipped_scorers] == [
        ("equivalence", "needs a judge model"),
        ("similarity", "needs the embedding model"),
    ]


REFERENCE_ONLY = {
    "id": "capital",
    "input": "What is the capital of France?",
    "expect": {"reference": "The capital of France is Paris."},
}


def test_the_similarity_scorer_is_audited_with_its_offline_model() -> None:
    # the only check of the case is the similarity to its reference: with the embedding model
    # installed the audit runs it, and the stock replies fail it (no false "cannot fail")
    pytest.importorskip("onnxruntime")
    if audit_module._embedding_problem():
        pytest.skip("the embedding model is not installed")
    scorers = [{"scorer": "similarity", "args": {"threshold": 0.7}}]
    suite = Suite.model_validate({"name": "t", "cases": [REFERENCE_ONLY], "scorers": scorers})
    got = audit_suite(suite)
    assert got.skipped_scorers == ()
    [case] = got.cases
    assert case.reference.passed is True  # the reference itself is similar to itself
    assert not case.cannot_fail
    assert {v.axis: v.passed for v in case.verdicts} == {
        "text_only": False,
        "refusal": False,
        "clarify": False,
    }
    assert all("cosine similarity to the reference" in v.explanation for v in case.verdicts)


def test_a_reply_a_skipped_scorer_reads_is_not_decided(monkeypatch: pytest.MonkeyPatch) -> None:
    # the reply is checked only by a scorer the audit cannot run: the stock replies are not
    # decided either way, so the case is not reported as one that cannot fail
    monkeypatch.setattr(audit_module, "_embedding_problem", lambda: "needs the embedding model")
    for scorer in ("equivalence", "similarity"):
        suite = Suite.model_validate(
            {
                "name": "t",
                "defaults": {"judge": "mock:x"},
                "scorers": [{"scorer": scorer}],
                "cases": [REFERENCE_ONLY],
            }
        )
        got = audit_suite(suite)
        [case] = got.cases
        assert [v.passed for v in case.verdicts] == [None, None, None], scorer
        assert all(f"{scorer} (skipped) reads it" in v.explanation for v in case.verdicts)
        assert not case.cannot_fail
        assert not got.failed
        assert "0 wrong transcripts, 0 passed, 3 not decided;" in mutation.audit_summary(got)[0]


def test_a_skipped_reply_scorer_leaves_mistakes_outside_the_reply_counted() -> None:
    # an argument any string matches: the changed argument passes, and a judge of the reply
    # (skipped) would see the same reply as the right transcript's: still a surviving mutant
    case = {
        "id": "c",
        "input": "q",
        "expect": {
            "tool_calls": [{"name": "b", "arguments": {"y": {"regex": ".*"}}}],
            "reference": "Done.",
        },
    }
    got = audit(case, defaults={"judge": "mock:x"}, scorers=[{"scorer": "equivalence"}])["c"]
    assert axis(got, "perturb_argument") == [True]
    assert axis(got, "wrong_tool") == [False]
    assert not got.cannot_fail


def test_quickstart_has_no_case_that_cannot_fail() -> None:
    loaded = read_suite(QUICKSTART)
    got = audit_suite(loaded.suite)
    assert len(got.cases) == 20
    assert got.cannot_fail == []
    assert got.reference_failures == []
    assert [(c.case_id, c.surviving_axes) for c in got.cases if c.survivors] == []
    assert audit_findings(got, loaded) == []
    applied = {a.axis for a in got.axes()}
    assert applied >= {"wrong_tool", "perturb_argument", "forbidden_call", "error_echo"}


def test_findings_point_at_the_case_line(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: t\n"
        "tools:\n"
        "  - name: b\n"
        "    parameters: {type: object, properties: {y: {type: string}}, required: [y]}\n"
        "cases:\n"
        "  - id: ok\n"
        "    input: q\n"
        "    expect: {tool_calls: [{name: b, arguments: {y: k}}]}\n"
        "  - id: weak\n"
        "    input: q\n"
        "    expect: {reference: It is sunny.}\n",
        encoding="utf-8",
    )
    loaded = read_suite(suite)
    findings = audit_findings(audit_suite(loaded.suite), loaded)
    assert [f.format() for f in findings] == [
        f"{suite}:9: cases[1]: error: case 'weak' cannot fail: all 3 wrong transcripts pass "
        "(text_only, refusal, clarify) [cannot-fail]"
    ]


def test_axis_helper_sees_mutants() -> None:
    got = audit({"id": "c", "input": "q", "expect": {"behavior": "refuse"}})["c"]
    assert axis(got, "text_only") == [False]
    assert "refusal" not in {v.axis for v in got.verdicts}


def test_parallel_calls_go_out_in_one_message_ordered_calls_one_by_one() -> None:
    calls = [{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {"y": "k"}}]
    suite = Suite.model_validate(
        {
            "name": "t",
            "tools": TOOLS,
            "cases": [
                {"id": "par", "input": "q", "expect": {"tool_calls": calls}},
                {"id": "seq", "input": "q", "expect": {"order": "strict", "tool_calls": calls}},
            ],
        }
    )
    par, seq = (mutate_case(c, suite).reference for c in suite.cases)
    assert par is not None
    assert seq is not None
    assert [len(m.tool_calls) for m in par[0] if m.role == "assistant"] == [2, 0]
    assert [len(m.tool_calls) for m in seq[0] if m.role == "assistant"] == [1, 1, 0]


EXAMPLE_SUITES = sorted(
    p.parent
    for n in ("suite.yaml", "suite.yml", "suite.json")
    for p in REPO.glob(f"examples/*/{n}")
)


def test_every_example_suite_can_fail_everywhere() -> None:
    assert QUICKSTART in EXAMPLE_SUITES
    for folder in EXAMPLE_SUITES:
        loaded = read_suite(folder)
        got = audit_suite(loaded.suite)
        assert got.cannot_fail == [], folder
        assert [f.format() for f in audit_findings(got, loaded)] == [], folder


def test_allow_no_calls_makes_silent_replies_right_not_mutants() -> None:
    case = {
        "id": "c",
        "input": "q",
        "expect": {
            "order": "subset",
            "allow_no_calls": True,
            "forbidden_tools": ["b"],
            "tool_calls": [{"name": "a", "arguments": {"x": 1}}],
        },
    }
    got = audit(case)["c"]
    tried = {v.axis for v in got.verdicts}
    assert tried.isdisjoint({"no_call", "text_only", "refusal", "clarify"})
    assert {"perturb_argument", "forbidden_call"} <= tried
    assert got.survivors == []


def test_calls_of_one_step_share_a_message() -> None:
    steps = [
        {"name": "a", "step": 0, "arguments": {"x": 1}},
        {"name": "a", "step": 0, "arguments": {"x": 2}},
        {"name": "b", "step": 1, "arguments": {"y": "k"}},
    ]
    suite = Suite.model_validate(
        {
            "name": "t",
            "tools": TOOLS,
            "cases": [
                {
                    "id": "c",
                    "input": "q",
                    "expect": {"order": "strict", "strict_steps": True, "tool_calls": steps},
                }
            ],
        }
    )
    made = mutate_case(suite.cases[0], suite)
    assert made.reference is not None
    assert [len(m.tool_calls) for m in made.reference[0] if m.role == "assistant"] == [2, 1, 0]
    [got] = audit_suite(suite).cases
    assert got.reference.passed is True
    assert axis(got, "reorder_calls") == [False]


def test_arguments_the_case_ignores_are_not_mutated() -> None:
    call = {"name": "a", "args_match": "ignore", "arguments": {"x": 1}}
    got = audit({"id": "c", "input": "q", "expect": {"tool_calls": [call]}})["c"]
    tried = {v.axis for v in got.verdicts}
    assert tried.isdisjoint({"drop_argument", "perturb_argument"})
    assert "wrong_tool" in tried
    assert got.survivors == []
    per_suite = audit(
        {"id": "c", "input": "q", "expect": {"tool_calls": [{"name": "a", "arguments": {"x": 1}}]}},
        defaults={"args_match_overrides": {"a": "ignore"}},
    )["c"]
    assert "perturb_argument" not in {v.axis for v in per_suite.verdicts}


def test_a_reference_that_needs_a_python_fake_is_not_decided() -> None:
    # the decline comes from the fake, which the audit does not run
    tools = [{**TOOLS[0], "simulation": {"function": "fakes.py:charge"}}]
    case = {"id": "c", "input": "q", "expect": {"behavior": "recover"}}
    suite = Suite.model_validate({"name": "t", "tools": tools, "cases": [case]})
    made = mutate_case(suite.cases[0], suite)
    assert made.uses_fakes
    [got] = audit_suite(suite).cases
    assert got.reference.passed is None
    assert "Python fakes" in got.reference.explanation
    assert mutation.case_findings(got) == []


def test_a_scorer_crash_is_reported_not_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentgauge.scoring import score_case

    def crashes_on_refusals(case, turns, tools, config):  # type: ignore[no-untyped-def]
        if any("can't help" in (m.content or "") for t in turns for m in t):
            raise RuntimeError("boom")
        return score_case(case, turns, tools, config)

    monkeypatch.setattr("agentgauge.mutation._audit.score_case", crashes_on_refusals)
    got = audit({"id": "c", "input": "q", "expect": {"behavior": "answer"}})["c"]
    [refusal] = [v for v in got.verdicts if v.axis == "refusal"]
    assert refusal.passed is None
    assert not got.cannot_fail
    [finding] = mutation.case_findings(got)
    assert finding.code == "scorer-error"
    assert "scorer crashed: RuntimeError: boom" in finding.message
