"""The ACEBench importer: categories and behaviours, conversations as history, and the real data."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.errors import UserError
from agentgauge.io import load_suite
from agentgauge.io.importers import ImportOptions, import_suite
from agentgauge.schema import ArgMatcher, Message, Suite, ToolCall
from agentgauge.scoring import score_case
from agentgauge.suites._export import write_suite

_WEATHER = {
    "name": "get_forecast",
    "description": "Weather forecast for a city.",
    "parameters": {
        "type": "dict",
        "properties": {
            "city": {"type": "string", "description": "City name."},
            "days": {"type": "integer", "description": "How many days."},
            "hourly": {"type": "boolean"},
            "window": {
                "type": "object",
                "properties": {"start": {"type": "string"}, "end": {"type": "string"}},
            },
            "ratio": {"type": "float"},
        },
        "required": ["city"],
    },
}
_NEWS = {
    "name": "find_news",
    "description": "News headlines.",
    "parameters": {"type": "object", "properties": {"topic": {"type": "string"}}},
}

# (file category, [(question row, answer row)])
_FILES: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {
    "normal_single_turn_single_function": [
        (
            {
                "id": "normal_single_turn_single_function_0",
                "question": "user: Forecast for Oslo, 3 days, hourly please.\n",
                "function": [_WEATHER, _NEWS],
                "time": "",
            },
            {
                "id": "normal_single_turn_single_function_0",
                "ground_truth": {
                    "get_forecast": {
                        "city": "Oslo",
                        "days": 3,
                        "hourly": True,
                        "window": {"start": "08:00", "end": "18:00"},
                    }
                },
            },
        )
    ],
    "normal_multi_turn_user_adjust": [
        (
            {
                "id": "normal_multi_turn_user_adjust_4_1",
                "question": (
                    "user: What is the weather in Bergen?\n"
                    "system: \n<assistant>For how many days?\n"
                    "user: Two days.\n"
                    'system: [get_forecast(city="Bergen", days=2, hourly=false, ratio=-0.5)]\n'
                    "system: Rain both days,\n"
                    "and wind.\n"
                    "user: And any news on sailing?\n"
                ),
                "function": [_WEATHER, _NEWS],
                "time": "Today is 2024-05-01, Wednesday.",
            },
            {
                "id": "normal_multi_turn_user_adjust_4_1",
                "ground_truth": {"find_news": {"topic": "sailing"}},
            },
        )
    ],
    "special_incomplete": [
        (
            {
                "id": "special_incomplete_0",
                "question": "user: What will the weather be?",
                "function": [_WEATHER],
                "time": "",
            },
            {"id": "special_incomplete_0", "ground_truth": {"get_forecast": ["city "]}},
        )
    ],
    "special_error_param": [
        (
            {
                "id": "special_error_param_0",
                "question": "user: Forecast for city 123!!, for -4 days.",
                "function": [_WEATHER],
                "time": "",
            },
            {"id": "special_error_param_0", "ground_truth": {"city": ["123!!"], "days": [-4]}},
        )
    ],
    "special_irrelevant": [
        (
            {
                "id": "special_irrelevant_0",
                "question": "user: Book me a table for two tonight.\n",
                "function": [_WEATHER],
                "time": "",
            },
            {
                "id": "special_irrelevant_0",
                "ground_truth": "Due to the limitations of the function, I cannot do it.",
            },
        )
    ],
}


def _write_lines(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _dataset(root: Path, files: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]]) -> Path:
    for category, pairs in files.items():
        _write_lines(root / f"data_{category}.json", [q for q, _ in pairs])
        _write_lines(root / "possible_answer" / f"data_{category}.json", [a for _, a in pairs])
    return root


def _import(*sources: Path, **kwargs: Any) -> Suite:
    return import_suite("acebench", list(sources), ImportOptions(**kwargs))


def test_categories_behaviours_and_expectations(tmp_path: Path) -> None:
    suite = _import(_dataset(tmp_path / "ace", _FILES))
    by_id = {c.id: c for c in suite.cases}
    assert len(by_id) == 5
    single = by_id["normal_single_turn_single_function_0"]
    assert (single.category, single.expect.behavior) == ("tool_call", "tool_call")
    assert single.input == "Forecast for Oslo, 3 days, hourly please."
    assert single.system is None
    (call,) = single.expect.tool_calls
    assert call.name == "get_forecast"
    assert call.arguments["city"] == ArgMatcher(value="Oslo", ignore_case=True, ignore_space=True)
    assert call.arguments["window"] == ArgMatcher(
        value={"start": "08:00", "end": "18:00"}, ignore_case=True, ignore_space=True
    )
    assert call.extra_arguments is None  # the suite default: extra arguments fail
    assert single.tags == ["acebench", "normal_single_turn_single_function"]

    incomplete = by_id["special_incomplete_0"]
    assert (incomplete.category, incomplete.expect.behavior) == ("clarify", "clarify")
    assert incomplete.expect.reference == (
        "Missing necessary parameters (city) for the api (get_forecast)"
    )
    wrong = by_id["special_error_param_0"]
    assert (wrong.category, wrong.expect.behavior) == ("error_handling", "clarify")
    assert wrong.expect.reference is not None
    assert "(123!!) for the parameters (city)" in wrong.expect.reference
    assert "(-4) for the parameters (days)" in wrong.expect.reference
    irrelevant = by_id["special_irrelevant_0"]
    assert (irrelevant.category, irrelevant.expect.behavior) == ("not_supported", "refuse")
    assert irrelevant.expect.reference is not None
    assert irrelevant.metadata["acebench_category"] == "special_irrelevant"
    assert irrelevant.metadata["source_file"] == "data_special_irrelevant.json"


def test_python_types_become_json_schema_and_tools_are_pooled(tmp_path: Path) -> None:
    suite = _import(_dataset(tmp_path / "ace", _FILES))
    tools = {t.name: t for t in suite.tools}
    assert set(tools) == {"get_forecast", "find_news"}
    props = tools["get_forecast"].properties()
    assert tools["get_forecast"].parameters["type"] == "object"
    assert props["ratio"] == {"type": "number"}
    assert all(c.tools and all(isinstance(t, str) for t in c.tools) for c in suite.cases)


def test_conversation_becomes_history_with_calls_and_results(tmp_path: Path) -> None:
    suite = _import(_dataset(tmp_path / "ace", _FILES))
    case = next(c for c in suite.cases if c.id == "normal_multi_turn_user_adjust_4_1")
    assert case.system == "Today is 2024-05-01, Wednesday."
    assert isinstance(case.input, list)
    roles = [m.role for m in case.input]
    assert roles == ["user", "assistant", "user", "assistant", "tool", "user"]
    assert case.input[1].content == "For how many days?"  # the generator's stray tag is dropped
    call_turn = case.input[3]
    (made,) = call_turn.tool_calls
    assert made.name == "get_forecast"
    assert made.arguments == {"city": "Bergen", "days": 2, "hourly": False, "ratio": -0.5}
    result = case.input[4]
    assert result.tool_call_id == made.id
    assert result.name == "get_forecast"
    assert result.content == "Rain both days,\nand wind."
    assert case.input[-1].content == "And any news on sailing?"
    (expected,) = case.expect.tool_calls
    assert expected.name == "find_news"
    assert case.metadata["acebench_conversation"] == "normal_multi_turn_user_adjust_4"
    assert case.metadata["acebench_step"] == 1
    assert "multi_turn" in case.tags


def test_round_trip_and_validate(tmp_path: Path) -> None:
    suite = _import(_dataset(tmp_path / "ace", _FILES))
    out = tmp_path / "out"
    write_suite(suite, out)
    assert load_suite(out).cases == suite.cases
    result = CliRunner().invoke(cli, ["validate", str(out)])
    assert result.exit_code == 0, result.output


def test_answer_file_and_limit(tmp_path: Path) -> None:
    root = _dataset(tmp_path / "ace", _FILES)
    answer_file = root / "possible_answer" / "data_special_incomplete.json"
    suite = _import(answer_file)  # an answer file imports its questions
    assert [c.id for c in suite.cases] == ["special_incomplete_0"]
    ((question, answer),) = _FILES["special_irrelevant"]
    second = (dict(question, id="special_irrelevant_1"), dict(answer, id="special_irrelevant_1"))
    _dataset(root, {"special_irrelevant": [(question, answer), second]})
    assert len(_import(root).cases) == 6
    assert len(_import(root, limit=1).cases) == 5  # at most one per file


def test_agent_categories_are_rejected(tmp_path: Path) -> None:
    path = tmp_path / "data_agent_multi_turn.json"
    path.write_text("{}\n", encoding="utf-8")
    with pytest.raises(UserError, match="executable sandbox"):
        _import(path)


def test_pairing_problems_are_reported(tmp_path: Path) -> None:
    files = {"special_irrelevant": _FILES["special_irrelevant"]}
    root = _dataset(tmp_path / "ace", files)
    _write_lines(
        root / "possible_answer" / "data_special_irrelevant.json",
        [{"id": "special_irrelevant_9", "ground_truth": "no"}],
    )
    with pytest.raises(UserError, match="2 problem") as err:
        _import(root)
    assert any("has no answer" in p for p in err.value.problems)


def test_bad_history_is_a_user_error(tmp_path: Path) -> None:
    question, answer = _FILES["normal_multi_turn_user_adjust"][0]
    bad = dict(question, question="user: hi\nsystem: [get_forecast(city=Oslo)]\nsystem: ok\n")
    root = _dataset(tmp_path / "ace", {"normal_multi_turn_user_adjust": [(bad, answer)]})
    with pytest.raises(UserError, match="not a literal value"):
        _import(root)
    missing = dict(question, question="user: hi\nsystem: [get_forecast(city='Oslo')]\nuser: so?")
    root = _dataset(tmp_path / "ace2", {"normal_multi_turn_user_adjust": [(missing, answer)]})
    with pytest.raises(UserError, match="has no result"):
        _import(root)


@pytest.mark.shared_data
def test_real_acebench_data(shared_data: Path, tmp_path: Path) -> None:
    src = shared_data / "acebench"
    rows = {
        p.name: [json.loads(line) for line in p.read_text(encoding="utf-8").splitlines() if line]
        for p in sorted(src.glob("data_*.json"))
    }
    suite = _import(src)
    per_file = Counter(str(c.metadata["source_file"]) for c in suite.cases)
    assert per_file == {name: len(r) for name, r in rows.items()}
    assert per_file == {
        "data_normal_multi_turn_user_adjust.json": 123,
        "data_normal_similar_api.json": 50,
        "data_normal_single_turn_single_function.json": 100,
        "data_special_error_param.json": 50,
        "data_special_incomplete.json": 50,
        "data_special_irrelevant.json": 50,
    }
    assert Counter(c.expect.behavior for c in suite.cases) == {
        "tool_call": 273,
        "clarify": 100,
        "refuse": 50,
    }
    assert Counter(c.category for c in suite.cases) == {
        "tool_call": 273,
        "clarify": 50,
        "error_handling": 50,
        "not_supported": 50,
    }
    # every multi-turn row keeps its history; every earlier call has its result
    multi = [c for c in suite.cases if isinstance(c.input, list)]
    assert len(multi) == 123 + 33
    for case in multi:
        assert isinstance(case.input, list)
        calls = [t.id for m in case.input for t in m.tool_calls]
        results = [m.tool_call_id for m in case.input if m.role == "tool"]
        assert calls == results
    out = tmp_path / "acebench"
    write_suite(suite, out)
    result = CliRunner().invoke(cli, ["validate", str(out)])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    ("arguments", "status"),
    [
        # the ground truth: city "Oslo", days 3, hourly true, window 08:00-18:00
        ({}, "passed"),
        # ACEBench lower-cases and drops spaces before comparing strings: these passed there
        # and failed here
        ({"city": "oslo "}, "passed"),
        ({"city": "OSLO"}, "passed"),
        ({"window": {"start": "08:00 ", "end": "18:00"}}, "passed"),
        # a different value still fails
        ({"city": "Bergen"}, "failed"),
        ({"window": {"start": "09:00", "end": "18:00"}}, "failed"),
        ({"days": 4}, "failed"),
        ({"hourly": False}, "failed"),
    ],
)
def test_call_verdicts(tmp_path: Path, arguments: dict[str, Any], status: str) -> None:
    suite = _import(_dataset(tmp_path / "ace", _FILES))
    case = next(c for c in suite.cases if c.id == "normal_single_turn_single_function_0")
    right = {
        "city": "Oslo",
        "days": 3,
        "hourly": True,
        "window": {"start": "08:00", "end": "18:00"},
    }
    call = ToolCall(name="get_forecast", arguments={**right, **arguments})
    turn = [Message(role="assistant", tool_calls=[call])]
    tools = {t.name: t for t in suite.tools}
    assert score_case(case, [turn], tools).status == status


def _upper(value: Any) -> Any:
    if isinstance(value, str):
        return value.upper() + " "
    if isinstance(value, list):
        return [_upper(v) for v in value]
    if isinstance(value, dict):
        return {k: _upper(v) for k, v in value.items()}
    return value


@pytest.mark.shared_data
def test_real_acebench_calls_ignore_case_and_space_and_still_fail_wrong_values(
    shared_data: Path,
) -> None:
    suite = _import(shared_data / "acebench")
    pooled = {t.name: t for t in suite.tools}
    checked = changed = 0
    for case in suite.cases:
        if not case.expect.tool_calls:
            continue
        tools = dict(pooled)
        for t in case.tools or []:
            if not isinstance(t, str):
                tools[t.name] = t
        right = [
            ToolCall(name=c.name, arguments={k: m.value for k, m in c.arguments.items()})
            for c in case.expect.tool_calls
        ]
        shouted = [ToolCall(name=c.name, arguments=_upper(c.arguments)) for c in right]
        verdict = score_case(case, [[Message(role="assistant", tool_calls=shouted)]], tools)
        assert verdict.status == "passed", (case.id, verdict.explanation)
        checked += 1
        first = right[0]
        key = next((k for k, v in first.arguments.items() if isinstance(v, str)), None)
        if key is None:
            continue
        wrong = first.model_copy(update={"arguments": {**first.arguments, key: "zz-not-it"}})
        turn = [Message(role="assistant", tool_calls=[wrong, *right[1:]])]
        assert score_case(case, [turn], tools).status == "failed", case.id
        changed += 1
    assert (checked, changed) == (273, 187)
