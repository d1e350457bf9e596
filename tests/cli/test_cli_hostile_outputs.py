"""The commands' other outputs show untrusted text too: what ``import`` counts (the categories
of an imported file), ``redteam`` (the suite's tool names, and the header of the file it
writes), ``calibrate`` (a labels file's example ids), a matrix run (an agent spec in a member's
heading, which rich read as markup), ``export-otel`` (a run directory's run id) and ``history``
(the run id and start time its rows hold) used to print raw. A line break is written as
``\\n`` (it cannot forge a line), an escape sequence as ``\\x1b`` (it cannot recolour, retitle
or clear the terminal), ``[link=...]`` stays text.

The commands run with ``color=True``, so a raw ESC would reach the output (click strips colour
only from a pipe)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from agentgauge.cli import cli

#: a forged output line, a colour code, and a terminal title change (OSC ... BEL)
EVIL = "n\nFORGED LINE \x1b[31mred\x1b]0;pwned\x07"
SHOWN = r"n\nFORGED LINE \x1b[31mred\x1b]0;pwned\x07"


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), color=True)


def _assert_shown(output: str) -> None:
    assert "\x1b" not in output, repr(output)
    assert "\x07" not in output, repr(output)
    assert not [ln for ln in output.splitlines() if ln.startswith("FORGED")], output


def _suite(tmp_path: Path, tool: str = "send_email") -> Path:
    tools = [{"name": tool, "description": "Send an email.",
              "parameters": {"type": "object", "properties": {"to": {"type": "string"}},
                             "required": ["to"]}}]  # fmt: skip
    cases = [
        {"id": "c" + EVIL, "input": "Mail Bob.", "category": "k" + EVIL,
         "expect": {"tool_calls": [{"name": tool, "arguments": {"to": {"any": True}}}]}},
        {"id": "ok", "input": "say hi", "category": "common",
         "expect": {"behavior": "answer", "response_contains": ["hi"]}},
    ]  # fmt: skip
    path = tmp_path / "suite.json"
    path.write_text(json.dumps({"name": "s" + EVIL, "tools": tools, "cases": cases}))
    return path


def test_import_shows_the_categories_it_counts(tmp_path: Path) -> None:
    golden = tmp_path / "golden.jsonl"
    golden.write_text(json.dumps({"id": "g1", "input": "hello", "category": "cat" + EVIL}) + "\n")
    result = _invoke("import", "golden", str(golden), "-o", str(tmp_path / "out.yaml"))
    assert result.exit_code == 0, result.output
    _assert_shown(result.output)
    assert f"  cat{SHOWN}  " in result.output  # the category's row of the table, escaped


def test_redteam_shows_tool_names_and_writes_a_file_that_reads_back(tmp_path: Path) -> None:
    out = tmp_path / "redteam.yaml"
    result = _invoke("redteam", str(_suite(tmp_path, "send" + EVIL)), "-o", str(out))
    assert result.exit_code == 0, result.output
    _assert_shown(result.output)
    assert f"privileged: send{SHOWN}" in result.output
    text = out.read_text(encoding="utf-8")
    assert "\x1b" not in text
    header = text.split("\n\n", 1)[0].splitlines()
    assert all(line.startswith("#") for line in header), header  # no line out of the comment
    assert f"# Red-team cases for suite 's{SHOWN}'" in header[0]
    check = _invoke("validate", str(out))  # the suite name's ESC made the file unreadable YAML
    assert check.exit_code == 0, check.output
    _assert_shown(check.output)


def test_calibrate_shows_the_labels_files_example_ids(tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    rows = [
        {"task": "equivalence_answer", "id": "a" + EVIL, "label": "equivalent",
         "inputs": {"question": "q", "answer": "x", "reference": "y"}},
        {"task": "equivalence_answer", "id": "b" + EVIL, "label": "different",
         "inputs": {"question": "q", "answer": "x", "reference": "x"}},
    ]  # fmt: skip
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))
    verdict = json.dumps({"reasoning": "r", "verdict": "different"})
    script = tmp_path / "judge.jsonl"
    script.write_text(json.dumps({"text": verdict}) + "\n")
    judges = {"mock:": "  error b", f"mock:{script}?repeat_last=true": "  disagree a"}
    for judge, line in judges.items():
        args = ["calibrate", "--labels", str(labels), "--judge", judge, "--no-cache"]
        result = _invoke(*args, "--min-kappa", "0.9", "--no-progress")
        assert result.exit_code == 0, result.output
        _assert_shown(result.output)
        assert f"{line}{SHOWN}: " in result.output


def test_a_matrix_members_heading_is_text_not_markup(tmp_path: Path) -> None:
    spec = "mock:?text=[link=http://e.x/]s[/link]"
    args = ["run", str(_suite(tmp_path)), "--agent", spec, "--agent", "mock:echo",
            "-o", str(tmp_path / "m"), "--no-history", "--no-progress"]  # fmt: skip
    result = _invoke(*args)
    assert result.exit_code == 0, result.output
    _assert_shown(result.output)  # a [link=...] read as markup writes an OSC 8 escape
    assert f": {spec}" in result.output  # the member's heading, as written


def test_export_otel_shows_the_run_directorys_run_id(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    args = ["run", str(_suite(tmp_path)), "--agent", "mock:echo", "-o", str(run_dir),
            "--no-history", "--no-progress"]  # fmt: skip
    assert _invoke(*args).exit_code in (0, 1)
    record = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    record["run_id"] = "r" + EVIL
    (run_dir / "run.json").write_text(json.dumps(record), encoding="utf-8")
    result = _invoke("export-otel", str(run_dir), "-o", str(tmp_path / "spans.json"))
    assert result.exit_code == 0, result.output
    _assert_shown(result.output)
    assert f"of run r{SHOWN} to " in result.output


def test_history_shows_what_a_run_directory_said_as_text(tmp_path: Path) -> None:
    import sqlite3

    history = tmp_path / "h.sqlite"
    args = ["run", str(_suite(tmp_path)), "--agent", "mock:echo", "-o", str(tmp_path / "run"),
            "--no-progress", "--history", str(history)]  # fmt: skip
    assert _invoke(*args).exit_code in (0, 1)
    with sqlite3.connect(history) as db:  # as a hostile run.json would have had it recorded
        (old,) = db.execute("SELECT run_id FROM runs").fetchone()
        new = "[b]r[/b]\x1b[5m"
        db.execute("UPDATE runs SET run_id = ?, started_at = ?", (new, "t" + EVIL))
        db.execute("UPDATE metrics SET run_id = ? WHERE run_id = ?", (new, old))
    db.close()
    result = _invoke("history", "--history", str(history), "--metric", "pass_rate")
    assert result.exit_code == 0, result.output
    _assert_shown(result.output)
    assert r"[b]r[/b]\x1b[5m" in result.output  # the run's row, as text
    assert f"t{SHOWN}" in result.output  # the heading's dates
