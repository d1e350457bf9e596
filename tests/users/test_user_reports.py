"""Every report shows the simulated users as such: their turns labelled as the user's, the
user-error rate beside the agent's rates, their own turns, tokens, cost and time apart, and
pass^k over freshly seeded model users."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

from rich.console import Console
from user_helpers import CLARIFY_CASE, ORDER_USER, OrderAgent, run, suite_of

from agentgauge.io import iter_results
from agentgauge.metrics import summarize
from agentgauge.report import render_console, render_html, render_markdown

BROKEN = {
    **CLARIFY_CASE,
    "id": "broken",
    "user": {**ORDER_USER, "facts": {"order_id": {"value": "A7", "asked_by": ["reference"]}}},
}


def _run(tmp_path: Path) -> Path:
    out = tmp_path / "run"
    run(out, suite_of([CLARIFY_CASE, BROKEN]), OrderAgent())
    return out


def test_the_summary_counts_the_users_apart(tmp_path: Path) -> None:
    s = summarize(_run(tmp_path))
    assert s.users is not None
    assert (s.users.results, s.users.user_errors) == (2, 1)
    assert s.users.simulator == "scripted users"
    assert s.users.ended_by == {"stop": 1, "user_error": 1}
    assert s.users.turns_mean == 2.0  # 3 user messages, and 1 (the user had no answer)
    assert (s.overall.pass_rate.passed, s.overall.pass_rate.n) == (1, 1)


def test_markdown_and_console_show_the_user_error_rate_and_the_users(tmp_path: Path) -> None:
    s = summarize(_run(tmp_path))
    md = render_markdown(s)
    assert "| user errors (the simulated user's) | 50.0%" in md
    assert "**Simulated users** (apart from the agent's figures)" in md
    assert "| simulated users | scripted users |" in md
    assert "| ended by | stop 1, user_error 1 |" in md
    assert "user error: no rule answers the agent's message" in md
    buf = io.StringIO()
    render_console(s, Console(file=buf, width=160))
    out = buf.getvalue()
    assert "user errors 50.0%" in out
    assert "simulated users" in out
    assert "user time (total)" in out


def test_the_html_report_labels_the_simulated_users_turns(tmp_path: Path) -> None:
    out = _run(tmp_path)
    page = render_html(summarize(out), iter_results(out))
    assert '<section id="users">' in page
    data = json.loads(re.search(r'id="ag-data">(.*?)</script>', page, re.S).group(1))
    assert "user_error" in data["dict"]["status"]
    messages = data["details"][0]["messages"]
    shown = [(m["role"], m.get("name", "")) for m in messages if m["role"] == "user"]
    # the opening is the case's own input; the answers are the simulated user's
    assert shown == [
        ("user", ""),
        ("user", "simulated user (scripted)"),
        ("user", "simulated user (scripted)"),
    ]
    kinds = [e["kind"] for e in data["details"][0]["trace"]]
    assert kinds.count("user") == 2


def test_pass_k_is_labelled_with_a_model_user_per_trial(tmp_path: Path) -> None:
    script = tmp_path / "u.jsonl"
    script.write_text('{"text": "It is A7."}\n{"text": "Thanks ###STOP###"}\n' * 3)
    case = {**CLARIFY_CASE, "user": {k: v for k, v in ORDER_USER.items() if k != "rules"}}
    out = tmp_path / "run"
    run(out, suite_of([case]), OrderAgent(), trials=3, user_model=f"mock:{script}")
    s = summarize(out)
    assert s.trials.trials == 3
    assert s.users is not None
    assert s.users.simulator is not None
    assert s.users.simulator.startswith("model users: mock:")
    assert s.users.model_calls == 6
    md = render_markdown(s)
    assert "| pass@3 / pass^3 (a freshly seeded model user per trial) | 100.0% / 100.0% |" in md
