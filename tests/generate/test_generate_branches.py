"""Each multi-turn branch ``agentgauge generate`` writes, one by one: the scripted user says the
branch (the fact when asked, the change of mind, the switch, the correction), the expectations
follow it, and the agent that gets that branch wrong fails it — with the reason named."""

from __future__ import annotations

import collections
from pathlib import Path
from typing import Any

import pytest
from generate_helpers import QUICKSTART

from agentgauge.generate import (
    FAMILIES,
    FAMILY_CATEGORY,
    MULTI_TURN,
    GenerateConfig,
    IgnoringAgent,
    OracleAgent,
    generate_suite,
    write_generated,
)
from agentgauge.providers import ModelRequest, ModelResponse
from agentgauge.rundir import iter_results
from agentgauge.runner import RunConfig, run_suite
from agentgauge.schema import Case, CaseResult, Message, Suite, ToolCall
from agentgauge.suites import load_suite


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Suite, Path]:
    result = generate_suite(QUICKSTART, GenerateConfig(seed=11))
    out = write_generated(result, tmp_path_factory.mktemp("branches") / "g.yaml")[0]
    return load_suite(out), out


def _meta(case: Case) -> dict[str, Any]:
    meta = case.metadata["generate"]
    assert isinstance(meta, dict)
    return meta


def _of(suite: Suite, family: str) -> list[Case]:
    cases = [c for c in suite.cases if _meta(c)["family"] == family]
    assert cases, f"no {family} case"
    return cases


def _lines(suite: Suite, case: Case) -> list[str]:
    spec = suite.user_for(case)
    assert spec is not None
    said = spec.otherwise
    return [said] if isinstance(said, str) else list(said or [])


def _values(case: Case) -> dict[str, Any]:
    """The expected call's arguments that have a value (an optional one may have none)."""
    args = case.expect.tool_calls[0].arguments
    return {n: m.value for n, m in args.items() if "value" in m.model_fields_set}


def _changed(case: Case) -> dict[str, tuple[Any, Any]]:
    """The arguments whose expected value differs from the opening's call: name -> (then, now)."""
    first = _meta(case)["opening_call"]["arguments"]
    want = _values(case)
    return {n: (first.get(n), v) for n, v in want.items() if first.get(n) != v}


def _play(suite: Suite, path: Path, agent: object, tmp: Path) -> dict[str, CaseResult]:
    config = RunConfig(cache=False, progress=False, suite_path=str(path))
    run_suite(suite, config, tmp / "run", provider=agent)  # type: ignore[arg-type]
    return {r.case_id: r for r in iter_results(tmp / "run")}


def test_every_category_and_every_branch_is_written(generated: tuple[Suite, Path]) -> None:
    suite, path = generated
    families = collections.Counter(_meta(c)["family"] for c in suite.cases)
    assert set(families) == set(FAMILIES)
    cats = collections.Counter(c.category for c in suite.cases)
    five = ("happy_path", "ambiguous", "edge_case", "error_recovery", "adversarial")
    assert set(cats) == set(five)
    tally = "# Cases per category: " + ", ".join(f"{k} {cats[k]}" for k in five)
    assert tally in path.read_text(encoding="utf-8").splitlines()  # the header says so
    for case in suite.cases:
        family = _meta(case)["family"]
        assert case.category == FAMILY_CATEGORY[family]
        assert f"family:{family}" in case.tags
        assert case.expect.tool_calls, case.id  # every case has its expectation
        spec = suite.user_for(case)
        if family in MULTI_TURN:
            assert "multi_turn" in case.tags
            assert spec is not None
            assert spec.kind == "scripted"  # offline and the same every time
            assert spec.max_turns is not None
        else:
            assert case.user is None


def test_missing_fact_user_gives_the_fact_only_when_asked(generated: tuple[Suite, Path]) -> None:
    suite, _ = generated
    for case in _of(suite, "missing_fact"):
        spec = suite.user_for(case)
        assert spec is not None
        assert len(spec.facts) == 1
        (fact,) = spec.facts.values()
        assert fact.asked_by
        assert fact.text not in str(case.input)  # not in the opening
        changed = _changed(case)
        assert len(changed) == 1  # the opening's call guesses exactly that value
        ((_, (guess, want)),) = changed.items()
        assert str(want) == fact.text or fact.text in str(want)
        assert guess != want


def test_switch_intent_user_switches_and_the_first_goal_is_forbidden(
    generated: tuple[Suite, Path],
) -> None:
    suite, _ = generated
    for case in _of(suite, "switch_intent"):
        first = _meta(case)["opening_call"]["name"]
        want = case.expect.tool_calls[0]
        assert want.name != first
        assert case.expect.forbidden_tools == [first]
        line = _lines(suite, case)[0]
        assert line.startswith("Actually, never mind that. Instead,")
        for value in _values(case).values():
            assert str(value).lower() in line.lower()


@pytest.mark.parametrize(("family", "words"), [
    ("change_mind", "I've changed my mind"), ("correction", "I made a mistake"),
])  # fmt: skip
def test_change_and_correction_users_say_the_new_value(
    family: str, words: str, generated: tuple[Suite, Path]
) -> None:
    suite, _ = generated
    for case in _of(suite, family):
        changed = _changed(case)
        assert len(changed) == 1, case.id  # one value changes, the rest stay
        ((_, (then, now)),) = changed.items()
        line = _lines(suite, case)[0]
        assert words in line
        assert str(now) in line
        if family == "correction":
            # the right value, then the slip: 'the title is "Quarterly review", not "Team offsite".'
            right, _, slip = line.partition(", not ")
            assert str(now) in right
            assert str(then) in slip
        assert case.expect.order == "superset"  # acting before the change is not failed


class _DoesBoth(OracleAgent):
    """Does what the user first asked (with a guess) before what they switched to."""

    async def generate(self, request: ModelRequest) -> ModelResponse:
        users = [m for m in request.messages if m.role == "user"]
        made = any(m.tool_calls for m in request.messages if m.role == "assistant")
        case = self._cases.get(users[0].content or "")
        if len(users) == 1 and not made and case is not None:
            call = self.opening_call(case)
            if call is not None:
                return ModelResponse(message=Message(role="assistant", tool_calls=[call]))
        return await super().generate(request)

    def after_tool(self, case: Case, messages: Any) -> str | list[ToolCall]:
        if len([m for m in messages if m.role == "user"]) == 1:
            return "Done. Anything else?"
        return super().after_tool(case, messages)


def test_each_branch_fails_the_agent_that_misses_it(
    generated: tuple[Suite, Path], tmp_path: Path
) -> None:
    suite, path = generated
    ignoring = _play(suite, path, IgnoringAgent(suite), tmp_path / "ignoring")
    for family in ("missing_fact", "change_mind", "correction"):
        for case in _of(suite, family):
            r = ignoring[case.id]
            assert r.status == "failed", (case.id, r.explanation)
            ((name, (_, want)),) = _changed(case).items()
            assert f"{name}: expected" in (r.explanation or ""), r.explanation
            assert str(want) in (r.explanation or "")
    both = _play(suite, path, _DoesBoth(suite), tmp_path / "both")
    for case in _of(suite, "switch_intent"):
        r = both[case.id]
        assert r.status == "failed", (case.id, r.explanation)
        assert "forbidden" in (r.explanation or "")
    # acting first and then on the change passes a change of mind and a correction (superset):
    # the agent listened; only the expected call with the new value is required
    for family in ("change_mind", "correction"):
        assert {both[c.id].status for c in _of(suite, family)} == {"passed"}, [
            (c.id, both[c.id].explanation) for c in _of(suite, family)
        ]


def test_a_list_named_in_the_plural_is_said_with_are(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "suite.yaml").write_text(
        "name: s\ntools:\n  - name: return_items\n    description: Return items of an order\n"
        "    parameters:\n      type: object\n      properties:\n"
        "        item_ids: {type: array, items: {type: string}, maxItems: 1, minItems: 1}\n"
        "      required: [item_ids]\n    simulation: {result: {ok: true}}\n",
        encoding="utf-8",
    )
    result = generate_suite(folder, GenerateConfig(seed=0, families=("direct",)))
    (case,) = result.suite.cases
    assert "the item ids are " in str(case.input).lower(), case.input
