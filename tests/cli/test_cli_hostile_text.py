"""A suite is untrusted input: what the CLI prints of it (the suite's name, case ids, tool names
and descriptions, categories) is shown, never interpreted. A line break in a name is written as
``\\n`` (it cannot forge a line of the output) and an escape sequence as ``\\x1b`` (it cannot
recolour, retitle or clear the terminal), in validate, run, tools list, gate, compare and history.

The commands run with ``color=True``: click then passes what it is given to the terminal as a
terminal would receive it (it strips colour codes only from a pipe), so a raw ESC shows here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from agentgauge._messages import one_line, printable
from agentgauge.cli import cli

#: a forged output line, a colour code, and a terminal title change (OSC ... BEL)
EVIL = "n\nFORGED LINE \x1b[31mred\x1b]0;pwned\x07"
TOOL = "get\nFORGED TOOL\x1b[31m"


def _suite(tmp_path: Path) -> Path:
    tool = {
        "name": TOOL,
        "description": "first\x1b[2J\nFORGED DESC",
        "parameters": {"type": "object", "properties": {}},
    }
    cases = [
        {"id": "c" + EVIL, "input": "hi" + EVIL, "category": "k" + EVIL,
         "expect": {"tool_calls": [{"name": TOOL}]}},
        {"id": "ok", "input": "say hi", "expect": {"behavior": "answer",
                                                   "response_contains": ["hi"]}},
    ]  # fmt: skip
    data = {"name": "s" + EVIL, "tools": [tool], "cases": cases, "gates": {"min_pass_rate": 0.9}}
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), color=True)


def _assert_shown(output: str) -> None:
    assert "\x1b" not in output, repr(output)
    assert "\x07" not in output, repr(output)
    assert not [ln for ln in output.splitlines() if ln.startswith("FORGED")], output
    assert r"\x1b[31m" in output  # shown, escaped


def test_printable_escapes_what_a_terminal_would_interpret() -> None:
    assert printable("a\nb\x1b[31m\t\u202eé") == r"a\nb\x1b[31m\t\u202eé"
    assert printable("plain text, ünïcode") == "plain text, ünïcode"
    assert one_line("  a\n  b\x07") == r"a b\x07"


def test_validate_shows_the_suites_text(tmp_path: Path) -> None:
    result = _invoke("validate", str(_suite(tmp_path)))
    assert result.exit_code == 0, result.output
    _assert_shown(result.output)
    assert r"suite 'sn\nFORGED LINE \x1b[31mred\x1b]0;pwned\x07'" in result.output


def test_run_gate_and_compare_show_the_suites_text(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    runs = []
    for agent, out in (("mock:?text=no", "a"), ("mock:echo", "b")):
        run_dir = tmp_path / out
        args = ["run", str(suite), "--agent", agent, "-o", str(run_dir), "--history",
                str(tmp_path / "h.sqlite"), "--no-progress", "--gate"]  # fmt: skip
        result = _invoke(*args)
        assert result.exit_code == 1, result.output  # the gate fails: the lines are printed
        _assert_shown(result.output)
        assert r"cn\nFORGED" in result.output  # the failing case's id, in the failure table
        runs.append(run_dir)
    gate = _invoke("gate", str(runs[1]))
    assert gate.exit_code == 1
    assert "\x1b" not in gate.output
    compare = _invoke("compare", str(runs[0]), str(runs[1]))
    assert compare.exit_code == 0, compare.output
    assert "fixed: ok" in compare.output
    assert "\x1b" not in compare.output
    # review: the case id, the request and the reply (an echo of it), each line shown
    review = CliRunner().invoke(cli, ["review", str(runs[1])], input="s\ns\n")
    assert review.exit_code == 0, review.output
    assert "\x07" not in review.output
    assert "\x1b" not in review.output  # (click strips its own bold from a pipe)
    # a request's own lines are kept, indented; what is in them is written out
    assert "\n  FORGED LINE \\x1b[31mred\\x1b]0;pwned\\x07\n" in review.output
    history = _invoke("history", "--history", str(tmp_path / "h.sqlite"))
    assert history.exit_code == 0, history.output
    _assert_shown(history.output)


def test_tools_list_shows_names_and_descriptions(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"type": "function", "function": {
        "name": "get_x", "description": "first\x1b[31m line\nsecond",
        "parameters": {"type": "object", "properties": {"a\nFORGED\x1b[31m": {"type": "string"}}},
    }}]), encoding="utf-8")  # fmt: skip
    result = _invoke("tools", "list", str(tools))
    assert result.exit_code == 0, result.output
    _assert_shown(result.output)


def test_a_matrix_run_shows_the_suites_text(tmp_path: Path) -> None:
    args = ["run", str(_suite(tmp_path)), "--agent", "mock:echo", "--agent", "mock:?text=no",
            "-o", str(tmp_path / "m"), "--no-history", "--no-progress"]  # fmt: skip
    result = _invoke(*args)
    assert result.exit_code == 0, result.output
    _assert_shown(result.output)
    assert r"2 agents on suite sn\nFORGED LINE \x1b[31mred" in result.output


def test_validate_on_a_terminal_shows_the_suites_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a terminal validate prints with rich (colour, markup): the suite's text is neither
    markup nor escapes there either; only rich's own styles reach the terminal."""
    import click.testing

    monkeypatch.setattr(click.testing._NamedTextIOWrapper, "isatty", lambda self: True)
    path = _suite(tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["name"] += "[/][link=https://example.com]x"  # rich markup in the name: shown as text
    path.write_text(json.dumps(data), encoding="utf-8")
    result = _invoke("validate", str(path))
    assert result.exit_code == 0, result.output
    assert "\x1b[31mred" not in result.output
    assert "\x1b]0;pwned" not in result.output
    assert "\x07" not in result.output
    assert "\x1b]8;" not in result.output  # no hyperlink from the name's markup
    assert not [ln for ln in result.output.splitlines() if ln.startswith("FORGED")]
    assert "[link=https://example.com]x" in result.output
