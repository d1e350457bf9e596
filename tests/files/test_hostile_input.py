"""Hostile input: each reproduction of issue 10 (part 2) as a fixed case.

Every case runs in the fuzz worker (test_fuzz.py here), so an input that still hangs is cut off
after the per-input limit and one that still reads without end hits the worker's memory limit —
the test fails instead of taking the machine with it. Each asserts the exact refusal: a
:class:`~agentgauge.errors.UserError` naming ``file:line`` (and the field when there is one).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_fuzz import (  # the worker and inputs of the fuzz (same folder)
    BFCL_ANSWERS,
    BFCL_QUESTIONS,
    CASES_JSONL,
    LOCATED,
    SUITE_YAML,
    Harness,
    Outcome,
    write_base,
)

from agentgauge.errors import UserError
from agentgauge.files import _limits as limits
from agentgauge.io import check_suite, load_suite, read_suite


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    with Harness() as h:
        yield h


@pytest.fixture
def base(tmp_path: Path) -> Path:
    """A valid suite folder (``score`` scores against ``tmp_path/base``)."""
    folder = tmp_path / "base"
    folder.mkdir()
    write_base(folder)
    return folder


def make(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    """A copy of the base inputs with ``files`` replaced."""
    folder = tmp_path / "case"
    folder.mkdir(parents=True)
    write_base(folder)
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return folder


def refused(outcome: Outcome, *expected: str) -> str:
    """The rejection's first line, after checking it is one, every line names file:line, and
    each ``expected`` text is in the first line."""
    assert outcome.status == "rejected", outcome
    assert all(LOCATED.match(line) for line in outcome.lines), outcome.lines
    first = outcome.lines[0]
    for text in expected:
        assert text in first, first
    return first


def both(harness: Harness, folder: Path, *expected: str) -> None:
    """validate and run's loader refuse the suite the same way."""
    lines = [refused(harness.run(op, folder), *expected) for op in ("validate", "run")]
    assert lines[0] == lines[1]


# ------------------------------------------------------------------------------ YAML aliases


def test_recursive_alias_is_refused_with_its_line(tmp_path: Path, harness: Harness) -> None:
    suite = SUITE_YAML.replace("metadata: {note: first", "metadata: &r {self: *r, note: first")
    line = next(i for i, text in enumerate(suite.splitlines(), 1) if "&r" in text)
    both(harness, make(tmp_path, {"suite.yaml": suite}), f"suite.yaml:{line}:", "contains itself")


def test_recursive_alias_in_a_sequence_and_through_a_merge_key(
    tmp_path: Path, harness: Harness
) -> None:
    folder = make(tmp_path, {"more.yaml": "- &c [*c]\n"})
    refused(harness.run("validate", folder), "more.yaml:1:", "contains itself")
    (folder / "more.yaml").write_text("- id: a\n  input: x\n  metadata: &m {<<: *m}\n")
    refused(harness.run("run", folder), "more.yaml:3:", "contains itself")


def test_alias_bomb_is_refused_beyond_the_expansion_limit(tmp_path: Path, harness: Harness) -> None:
    bomb = ["x-bomb:", "  l0: &l0 [x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 9):
        bomb.append(f"  l{level}: &l{level} [{', '.join([f'*l{level - 1}'] * 9)}]")
    suite = SUITE_YAML.replace("gates:", "\n".join(bomb) + "\ngates:")
    folder = make(tmp_path, {"suite.yaml": suite})
    both(harness, folder, "suite.yaml:", "aliases expand", f"{limits.MAX_ALIAS_NODES:,}")


def test_aliases_within_the_limit_still_work(tmp_path: Path) -> None:
    suite = SUITE_YAML.replace("metadata: {note: first", "metadata: &m {note: first").replace(
        "expect: {behavior: no_tool, forbidden_tools: [search]}",
        "expect: {behavior: no_tool, forbidden_tools: [search]}\n    metadata: *m",
    )
    folder = make(tmp_path, {"suite.yaml": suite})
    loaded = load_suite(folder)
    assert loaded.cases[1].metadata == loaded.cases[0].metadata


# ------------------------------------------------------------------------------ tags and numbers


def test_bad_float_tag_is_refused_with_line_and_field(tmp_path: Path, harness: Harness) -> None:
    suite = SUITE_YAML.replace("input: What is the weather in Paris?", "input: !!float abc")
    line = next(i for i, text in enumerate(suite.splitlines(), 1) if "!!float" in text)
    both(harness, make(tmp_path, {"suite.yaml": suite}), f"suite.yaml:{line}: cases[0].input:")


@pytest.mark.parametrize(
    "value",
    [
        "!!int 0b102",
        "!!bool maybe",
        "!!timestamp 2026-13-45",
        "!!binary aGVsbG8=",
        "!!set {a, b}",
        "9" * 5000,
        "0x" + "f" * 17,
    ],
)
def test_odd_tags_and_huge_numbers_are_refused(
    tmp_path: Path, harness: Harness, value: str
) -> None:
    cases = f"- id: odd\n  input: hi\n  metadata:\n    value: {value}\n"
    refused(harness.run("validate", make(tmp_path, {"more.yaml": cases})), "more.yaml:4:")


# ------------------------------------------------------------------------------ special files


@pytest.mark.parametrize(
    ("key", "name"),
    [
        ("case_files", "/dev/zero"),
        ("tool_files", "/dev/zero"),
        ("case_files", "/dev/urandom"),
        ("tool_files", "/dev/urandom"),
    ],
)
def test_device_files_are_refused_not_read(
    tmp_path: Path, harness: Harness, key: str, name: str
) -> None:
    suite = SUITE_YAML.replace(f"{key}: [", f"{key}: [{name}, ")
    line = next(i for i, text in enumerate(suite.splitlines(), 1) if name in text)
    both(
        harness,
        make(tmp_path, {"suite.yaml": suite}),
        f"suite.yaml:{line}: {key}[0]: ",
        "not a regular file",
    )


def test_a_fifo_is_refused_without_blocking(tmp_path: Path, harness: Harness) -> None:
    folder = make(tmp_path, {"suite.yaml": SUITE_YAML.replace("case_files: [", "case_files: [p, ")})
    os.mkfifo(folder / "p")
    both(harness, folder, "case_files[0]: ", "not a regular file")


def test_a_file_over_the_size_limit_is_refused(tmp_path: Path, harness: Harness) -> None:
    # the worker runs with AGENTGAUGE_MAX_FILE_MB=1
    folder = make(tmp_path, {})
    with open(folder / "cases.jsonl", "ab") as fh:
        fh.truncate(2 * 1024 * 1024)
    both(harness, folder, "case_files[0]: ", "larger than the 1 MB limit", "AGENTGAUGE_MAX_FILE_MB")


def test_the_size_limit_is_the_users_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTGAUGE_MAX_FILE_MB", raising=False)
    assert limits.max_file_bytes() == 256 * 1024 * 1024
    big = make(tmp_path, {})
    with open(big / "cases.jsonl", "ab") as fh:
        fh.truncate(limits.max_file_bytes() + 1)  # sparse: nothing is written, nothing is read
    with pytest.raises(UserError, match="larger than the 256 MB limit"):
        load_suite(big)
    monkeypatch.setenv("AGENTGAUGE_MAX_FILE_MB", "0.001")  # about 1 KB: the base suite is more
    with pytest.raises(UserError, match=r"suite.yaml:1: .* larger than the 0.001 MB limit"):
        load_suite(make(tmp_path / "small", {}))
    monkeypatch.setenv("AGENTGAUGE_MAX_FILE_MB", "lots")
    with pytest.raises(UserError, match="AGENTGAUGE_MAX_FILE_MB: expected a number"):
        load_suite(big)


# ------------------------------------------------------------------------------ nesting


def _nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = {"a": value}
    return value


def test_deep_metadata_in_jsonl_is_refused_by_validate_and_run(
    tmp_path: Path, harness: Harness
) -> None:
    record = '{"id": "deep", "input": "hi", "metadata": ' + '{"a": ' * 1000 + "1" + "}" * 1001
    folder = make(tmp_path, {"cases.jsonl": CASES_JSONL + record + "\n"})
    both(
        harness, folder, "cases.jsonl:5: metadata", f"nested deeper than {limits.MAX_DEPTH} levels"
    )


def test_deep_metadata_in_yaml_is_refused_by_validate_and_run(
    tmp_path: Path, harness: Harness
) -> None:
    deep = "[" * 300 + "1" + "]" * 300
    folder = make(tmp_path, {"more.yaml": f"- id: deep\n  input: hi\n  metadata: {{x: {deep}}}\n"})
    both(
        harness,
        folder,
        "more.yaml:3: [0].metadata.x",
        f"nested deeper than {limits.MAX_DEPTH} levels",
    )


def test_nesting_just_within_the_limit_runs(tmp_path: Path, harness: Harness) -> None:
    record = {"id": "deep", "input": "hi", "metadata": _nested(limits.MAX_DEPTH - 3)}
    folder = make(tmp_path, {"cases.jsonl": json.dumps(record) + "\n"})
    assert harness.run("run", folder).status == "ok"


def test_deep_response_is_refused_by_score(tmp_path: Path, base: Path, harness: Harness) -> None:
    folder = make(
        tmp_path, {"responses.jsonl": '{"case_id": "hello", "text": "hi"}\n' + "[" * 100_000 + "\n"}
    )
    refused(harness.run("score", folder), "responses.jsonl:2:", "nested deeper")
    deep_args = {"case_id": "hello", "calls": [{"name": "get_weather", "arguments": _nested(500)}]}
    (folder / "responses.jsonl").write_text(json.dumps(deep_args) + "\n")
    refused(harness.run("score", folder), "responses.jsonl:1:", "nested deeper")


# ------------------------------------------------------------------------------ lines everywhere


@pytest.mark.parametrize(
    ("name", "content", "line"),
    [
        (  # the line of "Paris?" in the base suite (counted: the base suite grows)
            "suite.yaml",
            SUITE_YAML.encode().replace(b"Paris?", b"Par\xffis?"),
            SUITE_YAML[: SUITE_YAML.index("Paris?")].count("\n") + 1,
        ),
        ("suite.yaml", SUITE_YAML.encode("utf-16"), 1),
        ("suite.yaml", SUITE_YAML.encode("utf-32"), 1),
        ("more.yaml", b"\xfe\xff\x00-", 1),
        ("cases.jsonl", CASES_JSONL.encode().replace(b"cats", b"c\xc3ts"), 1),
        ("tools.json", b"\n\n[\xc0\xaf]", 3),
    ],
)
def test_encoding_problems_name_the_line(
    tmp_path: Path, harness: Harness, name: str, content: bytes, line: int
) -> None:
    folder = make(tmp_path, {name: content})
    both(harness, folder, f"{name}:{line}: ")


def test_nul_in_yaml_names_the_line(tmp_path: Path, harness: Harness) -> None:
    folder = make(tmp_path, {"more.yaml": "- id: a\n  input: x\n  description: a\x00b\n"})
    both(harness, folder, "more.yaml:3: ", "#x0000")


def test_duplicate_key_names_line_and_field(tmp_path: Path) -> None:
    suite = SUITE_YAML.replace("    tags: [weather]\n", "    tags: [weather]\n    tags: [again]\n")
    line = suite.splitlines().index("    tags: [again]") + 1
    check = check_suite(make(tmp_path, {"suite.yaml": suite}) / "suite.yaml")
    assert len(check.problems) == 1
    assert check.problems[0].endswith(f"suite.yaml:{line}: cases[0].tags: duplicate key 'tags'")


def test_response_with_an_empty_transcript_is_refused(
    tmp_path: Path, base: Path, harness: Harness
) -> None:
    folder = make(tmp_path, {"responses.jsonl": '{"case_id": "hello", "messages": []}\n'})
    refused(harness.run("score", folder), "responses.jsonl:1: messages: ")


def test_empty_responses_file_names_its_line(tmp_path: Path, base: Path, harness: Harness) -> None:
    folder = make(tmp_path, {"responses.jsonl": "\n\n"})
    refused(harness.run("score", folder), "responses.jsonl:1:", "no responses")


def test_bfcl_rejections_name_the_line(tmp_path: Path, harness: Harness) -> None:
    bad_utf8 = BFCL_QUESTIONS.encode().replace(b"hypot of 1", b"hypot \xff 1")
    folder = make(tmp_path, {"bfcl/BFCL_v4_simple_python.json": bad_utf8})
    refused(harness.run("bfcl", folder), "BFCL_v4_simple_python.json:2:", "not UTF-8")
    answers = BFCL_ANSWERS.replace('"x": [4]', '"x": 4')
    (folder / "bfcl/BFCL_v4_simple_python.json").write_text(BFCL_QUESTIONS)
    (folder / "bfcl/possible_answer/BFCL_v4_simple_python.json").write_text(answers)
    refused(
        harness.run("bfcl", folder),
        "possible_answer/BFCL_v4_simple_python.json:2: ground_truth[0].math.hypot.x: ",
    )


def test_the_fuzz_regressions_all_run_in_the_worker(tmp_path: Path, harness: Harness) -> None:
    """The fixed cases above go through the same worker the fuzz uses (not in-process), so a
    hang is cut off and counted."""
    folder = make(tmp_path, {})
    assert harness.run("validate", folder).status == "ok"


# ------------------------------------------------------------------------------ import bfcl


def test_import_bfcl_folder_counts_the_files_it_read(tmp_path: Path) -> None:
    from agentgauge.cli import cli

    folder = make(tmp_path, {})
    result = CliRunner().invoke(
        cli, ["import", "bfcl", str(folder / "bfcl"), "-o", str(tmp_path / "o.yaml")]
    )
    assert result.exit_code == 0, result.output
    assert "imported 3 case(s) from 2 file(s)" in result.output
    table = result.output.split("per source file:")[1].split("per category:")[0]
    assert "BFCL_v4_simple_python.json" in table
    assert "BFCL_v4_irrelevance.json" in table
    assert " bfcl " not in table
    assert "\n  bfcl" not in table


def test_lines_of_ordinary_problems_are_unchanged(tmp_path: Path) -> None:
    """The tree checks keep line numbers: a known problem still points at its key."""
    suite = SUITE_YAML.replace("max_steps: 4", "max_steps: many")
    line = suite.splitlines().index("  max_steps: many") + 1
    with pytest.raises(UserError) as err:
        read_suite(make(tmp_path, {"suite.yaml": suite}) / "suite.yaml")
    assert f"suite.yaml:{line}: defaults.max_steps: " in err.value.problems[0]


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("tools-under-test.json", "/dev/zero", r"tools-under-test.json:1: not a regular file"),
        (
            "tools-under-test.yaml",
            "- &t {name: a, description: *t}\n",
            r"tools-under-test.yaml:1: [0].description: recursive alias",
        ),
        (
            "tools-under-test.json",
            '[{"name": "a", "parameters": ' + "[" * 500 + "]" * 500 + "}]",
            r"tools-under-test.json:1: [0].parameters",
        ),
    ],
)
def test_tool_files_read_by_tools_and_importers_have_the_same_limits(
    tmp_path: Path, harness: Harness, name: str, content: str, expected: str
) -> None:
    folder = make(tmp_path, {})
    if content.startswith("/dev/"):
        (folder / name).symlink_to(content)
    else:
        (folder / name).write_text(content)
    refused(harness.run("tools", folder), expected)


@pytest.mark.parametrize(
    ("line", "status"),
    [
        (
            '{"case_id": "hello", "calls": [{"name": "get_weather", "arguments": {"n": '
            + "9" * 400
            + "}}]}",
            "rejected",
        ),
        (
            '{"case_id": "hello", "calls": [{"name": "get_weather", "arguments": "'
            + "[" * 100_000
            + '"}]}',
            "rejected",
        ),
        # a BFCL result whose arguments cannot be read is scored as "no call" (as BFCL does)
        ('{"id": "hello", "result": [{"get_weather": "{\\"n\\": ' + "9" * 400 + '}"}]}', "ok"),
    ],
)
def test_responses_beyond_json_limits_are_refused(
    tmp_path: Path, base: Path, harness: Harness, line: str, status: str
) -> None:
    folder = make(tmp_path, {"responses.jsonl": line + "\n"})
    outcome = harness.run("score", folder)
    assert outcome.status == status, outcome
    if status == "rejected":
        refused(outcome, "responses.jsonl:1: ")
