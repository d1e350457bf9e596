"""A world's state in the reports (docs/worlds.md): the goal completion rate and the final
state differences in the console and the Markdown comment, the state view of an opened case in
the HTML report (expected vs actual, changed records marked) — from a real run."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import orjson
from rich.console import Console

from agentgauge.io import iter_results
from agentgauge.metrics import summarize
from agentgauge.providers import ModelRequest
from agentgauge.report import render_console, render_html, render_markdown
from agentgauge.runner import RunConfig, run_suite
from agentgauge.schema import Suite, ToolCall
from agentgauge.testing import MockProvider

SUITE: dict[str, Any] = {
    "name": "shop",
    "tools": [
        {"name": "cancel_order", "parameters": {"type": "object",
                                                "properties": {"order_id": {"type": "string"}}}}
    ],
    "world": {
        "state": {"orders": {"A1": {"status": "pending"}, "A3": {"status": "pending"},
                             "A9": {"status": "shipped"}}},
        "operations": {"cancel_order": {"op": "update", "collection": "orders", "key": "order_id",
                                        "fields": {}, "set": {"status": "cancelled"}}},
    },
    "cases": [
        {"id": f"cancel-{k}", "input": f"Cancel {k}",
         "expect": {"state": {"checks": [{"path": f"orders.{k}.status", "equals": "cancelled"}],
                              "unchanged": [f"orders.{o}" for o in ("A1", "A3") if o != k]}}}
        for k in ("A1", "A3")
    ],
}  # fmt: skip


def sloppy(request: ModelRequest) -> Any:
    """Cancels what is asked, and A3 as well (wrong for the A1 case)."""
    done = sum(1 for m in request.messages if m.role == "tool")
    asked = (request.messages[0].content or "").split()[-1]
    if done == 0:
        return ToolCall(name="cancel_order", arguments={"order_id": asked})
    if done == 1 and asked != "A3":
        return ToolCall(name="cancel_order", arguments={"order_id": "A3"})
    return "Done."


def make_run(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    provider = MockProvider([sloppy], repeat_last=True, name="mock:sloppy")
    run_suite(Suite.model_validate(SUITE), RunConfig(cache=False, progress=False), run,
              provider=provider)  # fmt: skip
    return run


def test_console_and_markdown_show_goal_completion_and_the_state_diff(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    summary = summarize(run)
    out = io.StringIO()
    render_console(summary, Console(file=out, width=200, color_system=None))
    text = out.getvalue()
    assert "goal completion (final state)" in text
    assert "50.0%" in text
    assert "final state differences" in text
    after = text.split("final state differences", 1)[1]
    row = next(line for line in after.splitlines() if "orders.A3.status" in line)
    assert "cancel-A1" in row
    assert "'pending' (at the start)" in row
    assert "'cancelled'" in row
    md = render_markdown(summary)
    assert "| goal completion (final state) | 50.0%" in md
    assert "**Final state differences**" in md
    assert (
        "| `cancel-A1` | `orders.A3.status` | `'pending' (at the start)` | `'cancelled'` | "
        "unchanged |" in md
    )


def _data(page: str) -> dict[str, Any]:
    start = page.index('<script type="application/json" id="ag-data">') + len(
        '<script type="application/json" id="ag-data">'
    )
    return orjson.loads(page[start : page.index("</script>", start)])  # type: ignore[no-any-return]


def test_the_html_case_view_holds_the_state_with_changed_records_marked(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    page = render_html(summarize(run), iter_results(run))
    text = page
    assert "goal completion" in text
    details = [d for d in _data(page)["details"] if d]
    states = [d["state"] for d in details]
    assert sorted(s["goal_met"] for s in states) == [False, True]
    [wrong] = [s for s in states if s["goal_met"] is False]
    assert wrong["diff"] == [["orders.A3.status", "'pending' (at the start)", "'cancelled'",
                              "unchanged"]]  # fmt: skip
    marks = {r["path"]: (r["changed"], r["wrong"]) for r in wrong["records"]}
    assert marks == {"orders.A3": (True, True), "orders.A1": (True, False),
                     "orders.A9": (False, False)}  # fmt: skip
    assert wrong["records"][0]["path"] == "orders.A3"  # the wrong record first


def test_the_opened_case_shows_the_state_in_a_browser(tmp_path: Path, browser: Any) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from test_html_browser import Watched  # tests/report is on sys.path

    # the run's own event loop in another thread: Playwright's runs in this one
    with ThreadPoolExecutor(1) as pool:
        run = pool.submit(make_run, tmp_path).result()
    path = tmp_path / "report.html"
    path.write_text(render_html(summarize(run), iter_results(run)), encoding="utf-8")
    w = Watched(browser)
    page = w.page
    page.goto(path.as_uri())
    page.locator("#cases-table tr.row", has_text="cancel-A1").click()
    detail = page.locator("#case-detail")
    text = detail.inner_text()
    assert "Final state · goal not reached ✘" in text
    assert detail.locator("table.state-diff td", has_text="orders.A3.status").count() == 1
    assert detail.locator("table.state-records tr.wrong").count() == 1
    assert detail.locator("table.state-records tr.changed").count() == 1
    assert "wrote orders.A3.status: 'pending' -> 'cancelled'" in text
    w.clean()
