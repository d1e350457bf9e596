"""What the run report's script draws (case ids, categories, transcripts) shows a control or
bidi character as its escape, as the server-written text does (report/_escape.py): in Chromium
no drawn text holds ESC, BEL or U+202E, and ``\\u202e`` is shown where the id held one."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from test_html import make_run  # tests/report is on sys.path

from agentgauge.io import iter_results
from agentgauge.metrics import summarize
from agentgauge.report import render_html

HIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
#: JSON text: a bidi override, a colour code and a bell
MARK = "\\u202e\\u001b[31m\\u0007"


def _page(tmp_path: Path) -> Path:
    run = make_run(tmp_path)
    path = run / "results.jsonl"
    raw = path.read_bytes().decode("utf-8")
    raw = raw.replace('"weather-lyon"', f'"weather-lyon{MARK}"').replace("Sorry ", f"Sorry{MARK} ")
    path.write_bytes(raw.encode("utf-8"))
    page = tmp_path / "report.html"
    page.write_text(render_html(summarize(run), iter_results(run)), encoding="utf-8")
    return page


def test_drawn_text_shows_controls_and_bidi_characters_as_escapes(
    browser: Any, tmp_path: Path
) -> None:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(_page(tmp_path).as_uri())
    row = page.locator("#cases-table tr.row", has_text="weather-lyon")
    assert row.locator("td.id").inner_text() == r"weather-lyon\u202e\x1b[31m\x07"
    row.click()
    detail = page.locator("#case-detail").inner_text()
    assert r"Sorry\u202e\x1b[31m\x07 " in detail
    drawn = page.evaluate("document.body.innerText")
    assert not HIDDEN.findall(drawn), sorted(set(HIDDEN.findall(drawn)))
    assert errors == []
