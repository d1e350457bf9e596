"""A ``user_error`` in the machine-read reports: JUnit writes it as ``<skipped>`` with its reason
(neither the agent's pass nor its failure), the JSON summary counts it, pass^1 of a one-trial
run leaves it out, and an opened case of the HTML report shows the simulated user's own turns,
model calls, tokens, cost and time apart from the agent's."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

from lxml import etree
from user_helpers import CLARIFY_CASE, ORDER_USER, OrderAgent, run, suite_of

from agentgauge.io import iter_results
from agentgauge.metrics import summarize
from agentgauge.report import render_html, write_report

BROKEN = {
    **CLARIFY_CASE,
    "id": "broken",
    "user": {**ORDER_USER, "facts": {"order_id": {"value": "A7", "asked_by": ["reference"]}}},
}
XSD = Path(__file__).resolve().parents[1] / "report" / "junit.xsd"


def _run(tmp_path: Path, *, failing: bool = False) -> Path:
    out = tmp_path / "run"
    cases = [CLARIFY_CASE, BROKEN]
    if failing:  # a third case the agent fails on its own: a real <failure>
        cases.append({**CLARIFY_CASE, "id": "wrong", "expect": {"tool_calls": [{"name": "x"}]}})
    run(out, suite_of(cases), OrderAgent())
    return out


def _report(run_dir: Path, fmt: str) -> str:
    buf = io.StringIO()
    write_report(run_dir, fmt, buf)  # type: ignore[arg-type]
    return buf.getvalue()


def test_junit_writes_a_user_error_as_skipped_with_its_reason(tmp_path: Path) -> None:
    text = _report(_run(tmp_path, failing=True), "junit")
    doc = etree.fromstring(text.encode())
    etree.XMLSchema(etree.parse(str(XSD))).assertValid(doc)
    suite = doc.find("testsuite")
    assert suite is not None
    counts = {k: suite.get(k) for k in ("tests", "failures", "errors", "skipped")}
    assert counts == {"tests": "3", "failures": "1", "errors": "0", "skipped": "1"}
    cases = {c.get("name"): c for c in doc.iter("testcase")}
    broken = cases["broken [0]"]
    assert broken.find("failure") is None  # not the agent's failure
    skipped = broken.find("skipped")
    assert skipped is not None
    assert skipped.get("type") == "user_error"
    assert (skipped.get("message") or "").startswith("user error: no rule answers")
    assert cases["wrong [0]"].find("failure") is not None
    assert len(cases["clarify-order [0]"]) == 0  # passed: no child


def test_the_json_report_counts_user_errors_apart(tmp_path: Path) -> None:
    data = json.loads(_report(_run(tmp_path), "json"))
    assert data["overall"]["user_errors"] == 1
    assert data["overall"]["user_error_rate"]["value"] == 0.5
    assert data["overall"]["pass_rate"]["n"] == 1
    assert data["users"]["ended_by"] == {"stop": 1, "user_error": 1}
    assert data["run"]["user_simulator"]["kinds"] == ["scripted"]


def test_pass_1_of_a_one_trial_run_leaves_the_user_error_out(tmp_path: Path) -> None:
    s = summarize(_run(tmp_path))
    assert s.run is not None
    assert s.run.trials == 1
    assert s.trials.pass_hat_k == {"1": 1.0}  # the agent passed the one case it was graded on
    assert s.trials.cases == 1


def test_an_opened_case_shows_the_users_own_figures_apart(tmp_path: Path) -> None:
    script = tmp_path / "u.jsonl"
    script.write_text('{"text": "It is A7."}\n{"text": "Great, thanks! ###STOP###"}\n')
    case = {**CLARIFY_CASE, "user": {k: v for k, v in ORDER_USER.items() if k != "rules"}}
    out = tmp_path / "run"
    run(out, suite_of([case]), OrderAgent(), user_model=f"mock:{script}")
    page = render_html(summarize(out), iter_results(out))
    found = re.search(r'id="ag-data">(.*?)</script>', page, re.S)
    assert found is not None
    detail = json.loads(found.group(1))["details"][0]
    user = detail["user"]
    assert user["kind"] == "model"
    assert user["model"].startswith("mock:")
    assert (user["template"], user["seed"], user["turns"]) == ("user_v1", 0, 3)
    assert (user["ended_by"], user["model_calls"]) == ("stop", 2)
    assert user["tokens"][0] > 0
    assert user["latency_ms"] >= 0
    # the agent's own figures are its own: three calls (ask, look up, report)
    assert detail["model_calls"] == 3
    steps = [e for e in detail["trace"] if e["kind"] == "user"]
    assert [e["name"] for e in steps] == ["simulated user · mock"] * 2
    assert all(e["tokens"] for e in steps)
    # the page's script renders them: the user's line, and a colour for its trace steps
    assert "simulated user (" in page
    assert ".wf .seg.user" in page


def test_a_case_without_a_user_has_no_user_figures(tmp_path: Path) -> None:
    out = tmp_path / "run"
    plain = {
        "id": "plain",
        "input": "Where is A7?",
        "expect": {"tool_calls": [{"name": "get_order"}]},
    }
    run(out, suite_of([plain]), OrderAgent())
    page = render_html(summarize(out), iter_results(out))
    found = re.search(r'id="ag-data">(.*?)</script>', page, re.S)
    assert found is not None
    assert "user" not in json.loads(found.group(1))["details"][0]
