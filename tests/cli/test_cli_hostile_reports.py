"""``load``, ``capture`` and ``merge`` on hostile files (issues 21 and 22: a suite, a trace or a
captured file is untrusted; what users read never acts on it): terminal escapes (ESC[, an OSC 8
link, BEL), carriage returns, bidi overrides, NUL and other controls, HTML/script, Markdown
table breakers (``|``, line breaks), huge fields and deep nesting.

What each command prints, and the console, Markdown, JUnit and HTML reports of what it wrote,
show that text without acting on it: no raw control or bidi character, no forged line (a line
break or a carriage return starting one), no script, every Markdown table row one line; reads
are bounded (``agentgauge.files``) and a refusal is one line, exit 2."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from lxml import etree

from agentgauge.cli import cli
from agentgauge.schema import ToolCall
from agentgauge.testing import FakeOpenAIServer

EVIL = (
    "n\nFORGED\rFORGED-CR\x1b[31mred\x1b]8;;http://evil.example/\x07link\x1b]8;;\x07"
    "\u202egnp.exe\x00nul\x08\x7f\x9b <script>alert(1)</script> | a | b"
)
#: characters a terminal, a browser or a CI page would act on or hide
HIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTGAUGE_HISTORY", str(tmp_path / "history.sqlite"))
    monkeypatch.setenv("AGENTGAUGE_CACHE_DIR", str(tmp_path / "cache"))


def _suite(tmp_path: Path) -> Path:
    tool = {"name": "get_x", "description": "d" + EVIL,
            "parameters": {"type": "object", "properties": {}}}  # fmt: skip
    cases = [
        {"id": f"c{i}" + EVIL, "input": "hi" + EVIL, "category": "k" + EVIL,
         "expect": {"tool_calls": [{"name": "get_x"}]}}
        for i in range(4)
    ]  # fmt: skip
    cases.append({"id": "ok", "input": "say hi", "expect": {"behavior": "answer"}})
    path = tmp_path / "suite.json"
    data = {"name": "s" + EVIL, "tools": [tool], "cases": cases}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), color=True, catch_exceptions=False)


def _shown(text: str, *, page: bool = False) -> None:
    """Text a terminal (or, ``page``, a browser) shows without acting on any of it."""
    assert not HIDDEN.findall(text), sorted(set(HIDDEN.findall(text)))
    if page:  # a line break or a return is markup whitespace there
        assert "<script>alert" not in text
        return
    assert "\r" not in text
    assert not [ln for ln in text.split("\n") if ln.startswith("FORGED")], text


def _markdown(text: str) -> None:
    _shown(text, page=True)  # GitHub renders it as a page
    assert "\r" not in text  # but a return would end a table row there
    rows = [ln for ln in text.split("\n") if ln.startswith("|")]
    assert rows
    for row in rows:  # a row is one line whose unescaped pipes are its cells' borders
        assert row.endswith("|"), row
    for table in re.split(r"\n(?!\|)", text):
        widths = {len(re.findall(r"(?<!\\)\|", r)) for r in table.split("\n") if r.startswith("|")}
        assert len(widths) <= 1, table  # every row of a table has the header's cells


def _reports(run_dir: Path, tmp_path: Path, *, hostile_ids: bool = True) -> None:
    """The console, Markdown, JUnit and HTML reports of ``run_dir``, each checked."""
    for fmt in ("console", "markdown", "junit", "html"):
        out = tmp_path / f"report.{fmt}"
        result = _invoke("report", str(run_dir), "--format", fmt, "-o", str(out))
        assert result.exit_code == 0, result.output
        text = out.read_bytes().decode("utf-8")
        if fmt == "markdown":
            _markdown(text)
        elif fmt == "junit":
            doc = etree.fromstring(text.encode())
            names = [t.get("name") or "" for t in doc.iter("testcase")]
            assert any("FORGED" in n for n in names) or not hostile_ids
            for name in names:
                assert not HIDDEN.findall(name), name
        else:
            _shown(text) if fmt == "console" else _shown(_outside_data(text), page=True)


def _outside_data(page: str) -> str:
    """The page without its JSON data (JSON escapes controls; the script draws them shown)."""
    return re.sub(r'<script type="application/json"[^>]*>.*?</script>', "", page, flags=re.S)


def test_merge_and_the_merged_runs_reports_show_hostile_text(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    shards = []
    for i in (1, 2):
        shard = tmp_path / f"s{i}"
        args = ["run", str(suite), "--agent", "mock:echo", "--shard", f"{i}/2", "-o", str(shard),
                "--no-progress", "--no-cache"]  # fmt: skip
        assert _invoke(*args).exit_code == 0
        shards.append(str(shard))
    merged = tmp_path / "merged"
    result = _invoke("merge", *shards, "-o", str(merged))
    assert result.exit_code == 0, result.output
    _shown(result.output)
    _reports(merged, tmp_path)


def test_merge_refuses_a_huge_results_line_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = _suite(tmp_path)
    shard = tmp_path / "s1"
    args = ["run", str(suite), "--agent", "mock:echo", "--shard", "1/2", "-o", str(shard),
            "--no-progress", "--no-cache"]  # fmt: skip
    assert _invoke(*args).exit_code == 0
    with (shard / "results.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"case_id": "x" * 50_000 + EVIL, "status": "passed"}) + "\n")
    monkeypatch.setenv("AGENTGAUGE_MAX_FILE_MB", "0.02")
    result = _invoke("merge", str(shard), "-o", str(tmp_path / "m"))
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().split("\n")) == 1, result.output
    assert result.output.startswith(str(shard / "results.jsonl")), result.output
    _shown(result.output)


def test_load_prints_and_writes_hostile_text_shown(tmp_path: Path) -> None:
    out = tmp_path / "load"
    args = ["load", str(_suite(tmp_path)), "--agent", "mock:echo", "--users", "2",
            "--sessions", "6", "-o", str(out), "--html", str(tmp_path / "page.html")]  # fmt: skip
    result = _invoke(*args)
    assert result.exit_code == 0, result.output
    _shown(result.output)
    assert r"\x1b[31mred" in result.output  # the suite's name: shown, escaped
    for page in (out / "load.html", tmp_path / "page.html"):
        text = page.read_text(encoding="utf-8")
        _shown(_outside_data(text), page=True)
        assert r"\u202egnp.exe" in text
    _reports(out, tmp_path)  # the load run's journal is a run: its reports too


def test_load_against_a_server_replying_hostile_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent's server answers with a call to a tool named with escapes and a reply full of
    them: the load summary and the run's reports show it all without acting on it."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-hostile-load-0123456789")
    call = ToolCall(id="c1", name="get\x1b]0;pwned\x07" + EVIL, arguments={"a" + EVIL: EVIL})
    out = tmp_path / "load"
    with FakeOpenAIServer([call, "done" + EVIL], record=False) as srv:
        args = ["load", str(_suite(tmp_path)), "--agent", "openai:fake", "--base-url",
                srv.base_url, "--users", "1", "--sessions", "3", "-o", str(out)]  # fmt: skip
        result = _invoke(*args)
    assert result.exit_code == 0, result.output
    _shown(result.output)
    _shown(_outside_data((out / "load.html").read_text(encoding="utf-8")), page=True)
    _reports(out, tmp_path)
    md = (tmp_path / "report.markdown").read_text(encoding="utf-8")
    # the server's tool name, shown
    assert r"got get\x1b]0;pwned\x07n / FORGED / FORGED-CR\x1b[31m" in md


def test_load_json_output_is_ascii(tmp_path: Path) -> None:
    args = ["load", str(_suite(tmp_path)), "--agent", "mock:echo", "--users", "1",
            "--sessions", "2", "-o", str(tmp_path / "load"), "--format", "json"]  # fmt: skip
    result = _invoke(*args)
    assert result.exit_code == 0, result.output
    assert result.stdout.isascii()  # no raw U+202E or C1 control on the terminal
    assert json.loads(result.stdout)["suite"] == "s" + EVIL  # the same data


def test_load_refuses_a_suite_nested_too_deep_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    deep = "[" * 150 + "]" * 150  # past the depth limit (100), under the parser's
    path.write_text('{"name": "d\\u001b[31m", "cases": [{"id": "a", "input": ' + deep + "}]}")
    result = _invoke("load", str(path), "--agent", "mock:echo", "--users", "1", "--sessions", "1")
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().split("\n")) == 1, result.output
    assert result.output.startswith(f"{path}:1:"), result.output
    assert "nested deeper" in result.output


def _conversation(tmp_path: Path, name: str = "conv.json", pad: int = 0) -> Path:
    call = {"id": "c1", "type": "function",
            "function": {"name": "get_x", "arguments": json.dumps({"a": "v" + EVIL})}}  # fmt: skip
    conv = {"messages": [
        {"role": "user", "content": "hi" + EVIL + "x" * pad},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "r" + EVIL},
        {"role": "assistant", "content": "done" + EVIL},
    ], "tools": [{"type": "function", "function": {"name": "get_x", "description": "d" + EVIL,
                  "parameters": {"type": "object", "properties": {}}}}]}  # fmt: skip
    path = tmp_path / name
    path.write_text(json.dumps(conv), encoding="utf-8")
    return path


def test_capture_and_the_captured_cases_show_hostile_text(tmp_path: Path) -> None:
    cases, responses = tmp_path / "cases.jsonl", tmp_path / "responses.jsonl"
    args = ["capture", str(_conversation(tmp_path)), "-o", str(cases), "--responses",
            str(responses)]  # fmt: skip
    result = _invoke(*args)
    assert result.exit_code == 0, result.output
    _shown(result.output)
    for line in cases.read_text(encoding="utf-8").splitlines():  # JSON: every control escaped
        assert json.loads(line)["input"][0]["content"].startswith("hi" + EVIL)
    checked = _invoke("validate", str(cases))
    assert checked.exit_code == 0, checked.output
    _shown(checked.output)
    scored = tmp_path / "scored"
    args = ["score", str(cases), "--responses", str(responses), "-o", str(scored), "--no-history"]
    result = _invoke(*args)
    assert result.exit_code in (0, 1), result.output
    _shown(result.output)
    _reports(scored, tmp_path, hostile_ids=False)  # capture's case ids are safe by make


def test_capture_refuses_a_file_over_the_limit_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = _conversation(tmp_path, "big.json", pad=40_000)
    monkeypatch.setenv("AGENTGAUGE_MAX_FILE_MB", "0.02")
    result = _invoke("capture", str(big), "-o", str(tmp_path / "cases.jsonl"))
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().split("\n")) == 1, result.output
    assert result.output.startswith(str(big)), result.output
    assert not (tmp_path / "cases.jsonl").exists()
