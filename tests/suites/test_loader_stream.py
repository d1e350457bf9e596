"""Streaming a suite (``open_suite``): the same cases and the same problems as ``load_suite``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from agentgauge.errors import UserError
from agentgauge.io import StreamedSuite, load_suite, open_suite
from agentgauge.schema import Case, Suite

FIXTURES = Path(__file__).parent / "fixtures"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

SUITE = """\
name: mixed
tools:
  - name: get_weather
    description: weather in a city
    parameters: {type: object, properties: {city: {type: string}}, required: [city]}
tool_files: [more_tools.json]
defaults: {system: Be brief.}
gates: {min_pass_rate: 0.5}
cases:
  - id: inline-1
    input: weather in Paris?
    expect: {tool_calls: [{name: get_weather, arguments: {city: Paris}}]}
case_files: [a.jsonl, b.yaml, c.jsonl]
"""


def jsonl(*records: object) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)


def case(i: int, **more: object) -> dict[str, object]:
    return {"id": f"c{i}", "input": f"question {i}", "expect": {"behavior": "answer"}, **more}


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    (tmp_path / "suite.yaml").write_text(SUITE)
    (tmp_path / "more_tools.json").write_text(
        json.dumps([{"type": "function", "function": {"name": "lookup", "parameters": {}}}])
    )
    (tmp_path / "a.jsonl").write_text(
        jsonl("# a comment", case(1, tags=["x"]), "", "// another", case(2, category="cat"))
    )
    (tmp_path / "b.yaml").write_text(
        "cases:\n  - id: y1\n    input: hi\n  - id: y2\n    input: hello again\n"
    )
    # a BOM and Windows line ends
    (tmp_path / "c.jsonl").write_bytes(
        b"\xef\xbb\xbf" + jsonl(case(3), case(4)).replace("\n", "\r\n").encode()
    )
    return tmp_path / "suite.yaml"


def problems(fn: object, path: Path) -> list[str]:
    assert callable(fn)
    with pytest.raises(UserError) as info:
        fn(path)
    return info.value.problems


def test_streamed_cases_equal_load_suite(mixed: Path) -> None:
    loaded = load_suite(mixed)
    streamed = open_suite(mixed)
    assert isinstance(streamed, StreamedSuite)
    cases = list(streamed.iter_cases())
    assert [c.id for c in cases] == ["inline-1", "c1", "c2", "y1", "y2", "c3", "c4"]
    assert cases == loaded.cases
    assert streamed.count == len(loaded.cases)
    # the header: inline cases only, tools merged, case files resolved
    assert [c.id for c in streamed.suite.cases] == ["inline-1"]
    assert streamed.suite.case_files == []
    assert streamed.suite.model_copy(update={"cases": cases}) == loaded
    assert streamed.file == str(mixed)
    assert list(streamed.iter_cases()) == cases  # read again from disk, the same


@pytest.mark.parametrize("name", ["quickstart"])
def test_examples_stream_like_they_load(name: str) -> None:
    path = EXAMPLES / name / "suite.yaml"
    if not path.exists():
        pytest.skip("example not present")
    loaded = load_suite(path)
    streamed = open_suite(path)
    assert streamed.suite.model_copy(update={"cases": list(streamed.iter_cases())}) == loaded


def test_jsonl_and_list_files_as_suites(tmp_path: Path) -> None:
    bare = tmp_path / "only.jsonl"
    bare.write_text(jsonl(case(1), case(2)))
    listed = tmp_path / "list.yaml"
    listed.write_text("- id: a\n  input: hi\n- id: b\n  input: ho\n")
    for path in (bare, listed):
        loaded = load_suite(path)
        streamed = open_suite(path)
        assert streamed.suite.name == path.stem
        assert list(streamed.iter_cases()) == loaded.cases
        assert streamed.count == 2


def test_every_problem_of_a_case_file_is_reported_like_load_suite(mixed: Path) -> None:
    (mixed.parent / "a.jsonl").write_text(
        jsonl(
            case(1),
            {"id": "c2"},  # line 2: no input
            "{not json",  # line 3
            case(3, expect={"behavior": "sing"}),  # line 4
            case(4, max_steps="many"),  # line 5
            case(5),
        )
    )
    (mixed.parent / "c.jsonl").write_text(jsonl(case(6), "[1, 2"))  # line 2
    got = problems(open_suite, mixed)
    assert got == problems(load_suite, mixed)
    where = [p.split(": ")[0].replace(str(mixed.parent) + "/", "") for p in got]
    assert where == ["a.jsonl:2", "a.jsonl:3", "a.jsonl:4", "a.jsonl:5", "c.jsonl:2"]
    assert ": invalid JSON: " in got[1]


def test_the_broken_fixture_gives_the_same_problems() -> None:
    path = FIXTURES / "broken"
    assert problems(open_suite, path) == problems(load_suite, path)


def test_header_and_case_file_problems_come_together(mixed: Path) -> None:
    text = SUITE.replace("name: mixed", "name: mixed\nbogus: 1")
    mixed.write_text(text)
    (mixed.parent / "b.yaml").write_text("cases:\n  - id: y1\n")
    got = problems(open_suite, mixed)
    assert got == problems(load_suite, mixed)
    assert len(got) == 2
    assert "bogus" in got[0]
    assert "b.yaml:2" in got[1]


def test_unreadable_and_missing_case_files(mixed: Path) -> None:
    (mixed.parent / "a.jsonl").write_bytes(jsonl(case(1), "{x").encode() + b'{"id": "\xff"}\n')
    (mixed.parent / "c.jsonl").unlink()
    got = problems(open_suite, mixed)
    assert got == problems(load_suite, mixed)
    assert [p.split(": ", 2)[-1].split(" ")[0] for p in got] == ["not", "no"]
    assert "case_files[2]: no such file" in got[1]


def test_duplicate_ids_are_problems(mixed: Path) -> None:
    (mixed.parent / "c.jsonl").write_text(jsonl(case(7), case(1), {"id": "y2", "input": "x"}))
    got = problems(open_suite, mixed)
    base = str(mixed.parent)
    assert got == [
        f"{base}/c.jsonl:2: id: case id 'c1' is used twice (first at {base}/a.jsonl:2)",
        f"{base}/c.jsonl:3: id: case id 'y2' is used twice (first at {base}/b.yaml:4)",
    ]
    load_suite(mixed)  # load_suite itself leaves duplicates to `agentgauge lint`


def test_visit_sees_the_header_then_every_case_in_order(mixed: Path) -> None:
    seen: list[str] = []
    headers: list[Suite] = []

    def visit(header: Suite) -> Callable[[Case], object]:
        headers.append(header)

        def on_case(c: Case) -> None:
            seen.append(c.id)

        return on_case

    streamed = open_suite(mixed, visit=visit)
    assert headers == [streamed.suite]
    assert seen == [c.id for c in streamed.iter_cases()]


def test_no_visit_when_the_header_is_bad(mixed: Path) -> None:
    mixed.write_text(SUITE.replace("name: mixed", "name: ''"))
    calls: list[Suite] = []

    def visit(header: Suite) -> Callable[[Case], object]:
        calls.append(header)
        return lambda c: None

    with pytest.raises(UserError):
        open_suite(mixed, visit=visit)
    assert calls == []


def test_a_case_file_changed_after_the_check_raises_while_iterating(mixed: Path) -> None:
    streamed = open_suite(mixed)
    (mixed.parent / "c.jsonl").write_text(jsonl(case(3), "{broken"))
    ids: list[str] = []

    def drain() -> None:
        ids.extend(c.id for c in streamed.iter_cases())

    with pytest.raises(UserError, match=r"c\.jsonl:2: invalid JSON"):
        drain()
    assert ids == ["inline-1", "c1", "c2", "y1", "y2", "c3"]


def test_many_problems_stop_at_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("{x\n" * 1500)
    got = problems(open_suite, path)
    assert got == problems(load_suite, path)
    assert got[-1] == "(stopped after 1000 problems)"
