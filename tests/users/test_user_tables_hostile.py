"""The simulated users' table (report/_users.py) in the console, Markdown and HTML reports:
its values come from run.json (the simulator) and results.jsonl (how each conversation ended),
both untrusted. A long or hostile value is one line, cut to a width like the other tables'
cells, never markup, never a raw control; a run whose users ended in a thousand different ways
lists the most frequent and counts the rest."""

from __future__ import annotations

import io
import re
from pathlib import Path

from rich.console import Console
from user_helpers import CLARIFY_CASE, OrderAgent, run, suite_of

from agentgauge.metrics import Summary, summarize
from agentgauge.report import render_console, render_html, render_markdown
from agentgauge.report._users import user_rows

#: the rule (report/_users.py: VALUE_WIDTH, ENDINGS_SHOWN), written out so the test runs on
#: code without it
VALUE_WIDTH, ENDINGS_SHOWN = 100, 6

EVIL = "model\nFORGED\r\x1b[31m\x1b]8;;http://x/\x07[link=http://x/]y[/link]\u202e | <b>|"


def _summary(tmp_path: Path) -> Summary:
    out = tmp_path / "run"
    run(out, suite_of([CLARIFY_CASE]), OrderAgent())
    s = summarize(out)
    assert s.users is not None
    endings = {f"ended-{i}-" + EVIL + "x" * 300: 1000 - i for i in range(1000)}
    users = s.users.model_copy(update={"simulator": EVIL + "s" * 5000, "ended_by": endings})
    return s.model_copy(update={"users": users})


def test_values_are_one_line_cut_to_the_width(tmp_path: Path) -> None:
    rows = dict(user_rows(_summary(tmp_path)))
    for value in rows.values():
        assert len(value) <= VALUE_WIDTH, value
        assert "\n" not in value
        assert "\x1b" not in value
        assert "\u202e" not in value
    assert rows["simulated users"].startswith(r"model / FORGED / \x1b[31m\x1b]8;;http://x/\x07")
    assert rows["simulated users"].endswith("…")
    assert rows["ended by"].endswith(f" (+{1000 - ENDINGS_SHOWN} more)")
    assert rows["ended by"].startswith("ended-0-model / FORGED")  # the most frequent first


def test_the_console_table_fits_and_shows_markup_as_text(tmp_path: Path) -> None:
    buf = io.StringIO()
    render_console(_summary(tmp_path), Console(file=buf, width=80, force_terminal=True))
    out = buf.getvalue()
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)  # rich's own colours
    table = plain[plain.index("simulated users") :]
    assert "\x1b]" not in out  # no hyperlink, no title change
    assert "\x07" not in out
    assert "\u202e" not in out
    assert "[link=http://x/]y" in table  # the suite's markup shown as text
    assert not [ln for ln in plain.splitlines() if ln.startswith("FORGED")]
    assert max(len(ln) for ln in plain.splitlines()) <= 80
    assert len(table.splitlines()) < 40  # 1,000 endings do not make a thousand-line table


def test_markdown_and_html_rows_stay_rows(tmp_path: Path) -> None:
    s = _summary(tmp_path)
    md = render_markdown(s)
    part = md[md.index("**Simulated users**") :].split("\n\n")[1]
    rows = part.strip().split("\n")
    assert all(r.startswith("| ") and r.endswith(" |") for r in rows), part
    assert {len(re.findall(r"(?<!\\)\|", r)) for r in rows} == {3}  # two cells in every row
    assert "\r" not in md
    assert "\x1b" not in md
    assert "<b>" not in md
    page = render_html(s, [])
    section = page[page.index('id="users"') :]
    section = section[: section.index("</section>")]
    assert "<b>" not in section
    assert "\u202e" not in section
    assert "\x1b" not in section
    assert len(section) < 4000
