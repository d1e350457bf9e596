"""The CSV report shows every character a suite or an agent chose and acts on none.

``csv_cell`` used to stop formulas only. A lone carriage return in a case id (or in a tool name
an agent made up) reached the file unquoted — the ``csv`` module quotes a field for the line
terminator ``\\n`` only — so the row split in two and ``csv.reader`` refused the file; a NUL, an
ANSI escape (``\\x1b[2J`` clears the terminal of whoever prints the file), U+2028 (a line break
for ``str.splitlines`` and some spreadsheets) and a bidi override (``\\u202e`` reorders the cell)
were written raw. Now a line break is one ``\\n`` in a quoted field and the rest are written as
their escapes; ordinary text — accents, CJK, emoji, a tab inside a cell — is kept as it is."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.report import write_csv
from agentgauge.report._files import csv_cell

#: each hostile cell and what the report shows
HOSTILE = [
    ("a\rb", "a\nb"),  # a lone CR: a line break the csv module quotes
    ("a\r\nb", "a\nb"),
    ("nul\x00here", "nul\\x00here"),
    ("\x1b[2J\x1b[31mred", "\\x1b[2J\\x1b[31mred"),
    ("line\u2028sep\u2029para", "line\\u2028sep\\u2029para"),
    ("file\u202etxt.exe", "file\\u202etxt.exe"),
    ("iso\u2066late\u2069", "iso\\u2066late\\u2069"),
    ("nel\x85vt\x0bff\x0crs\x1e", "nel\\x85vt\\x0bff\\x0crs\\x1e"),
    ("del\x7f", "del\\x7f"),
    ("\r=1+1", "'\n=1+1"),  # a line break before a formula: still not a formula
    ("\n@SUM(A1)", "'\n@SUM(A1)"),
    ("\x00=1+1", "\\x00=1+1"),  # the escape starts with a backslash: no formula
]

#: ordinary cells, left as they are
ORDINARY = [
    "plain",
    "Zürich – São Paulo",
    "東京の天気",
    "sunny ☀️ 🌧",
    "a\tb",
    "two\nlines",
    "a=b, c+d",
    "",
]


@pytest.mark.parametrize(("text", "shown"), HOSTILE)
def test_a_hostile_cell_is_shown_not_acted_on(text: str, shown: str) -> None:
    assert csv_cell(text) == shown


@pytest.mark.parametrize("text", ORDINARY)
def test_an_ordinary_cell_is_kept(text: str) -> None:
    assert csv_cell(text) == text


def test_every_hostile_cell_reads_back_as_one_field_of_one_row() -> None:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", *(f"c{i}" for i in range(len(HOSTILE) + len(ORDINARY)))])
    cells = [csv_cell(t) for t, _ in HOSTILE] + [csv_cell(t) for t in ORDINARY]
    writer.writerow(["row", *cells])
    text = out.getvalue()
    assert "\r" not in text
    assert "\x00" not in text
    assert "\x1b" not in text
    assert "\u2028" not in text
    assert "\u202e" not in text
    rows = list(csv.reader(io.StringIO(text)))
    assert len(rows) == 2
    assert rows[1] == ["row", *cells]


SUITE = """\
name: csv-controls
tools:
  - name: get_weather
    description: Weather for a city.
    parameters: {type: object, properties: {city: {type: string}}}
cases:
  - id: "ok\\rFAIL"
    category: "edge\\u202etxt.exe"
    input: Weather in Paris?
    expect:
      tool_calls: [{name: get_weather}]
  - id: plain-id
    category: "\\e[2Jcleared"
    input: Say hi.
    expect: {behavior: answer, response_contains: [hello]}
"""


def test_the_csv_report_of_a_hostile_run_keeps_one_row_per_result(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    script = tmp_path / "script.jsonl"
    calls = [{"name": "get\rweather\x00\u2028", "arguments": {"city": "Paris"}}]
    script.write_text(
        json.dumps({"calls": calls}) + "\n" + json.dumps({"text": "done"}) + "\n"
        + json.dumps({"text": "no \x1b[31mgreeting\u2028"}) + "\n"
    )  # fmt: skip
    run_dir = tmp_path / "run"
    result = CliRunner().invoke(
        cli,
        ["run", str(tmp_path / "suite.yaml"), "--agent", f"mock:{script}", "-o", str(run_dir),
         "--no-cache", "--no-history", "--max-concurrency", "1"],
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    out = io.StringIO()
    write_csv(run_dir, out)
    text = out.getvalue()
    for raw in ("\r", "\x00", "\x1b", "\u2028", "\u202e"):
        assert raw not in text, repr(raw)
    rows = list(csv.reader(io.StringIO(text)))
    assert len(rows) == 3  # the header and one row per result: no row split by a CR
    by_id = {row[0]: row for row in rows[1:]}
    assert set(by_id) == {"ok\nFAIL", "plain-id"}
    assert by_id["ok\nFAIL"][2] == "edge\\u202etxt.exe"
    assert by_id["ok\nFAIL"][4] == "get\nweather\\x00\\u2028"
    assert by_id["plain-id"][2] == "\\x1b[2Jcleared"
