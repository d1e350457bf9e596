"""Agents report the route / skill / intents they chose; routing, skill and intent accuracy use it.

End to end: a ``python:`` agent (a ``labels`` key in its dict reply), an ``http:`` agent (the same
key in its JSON reply) and recorded responses (``labels`` in a native line) each carry labels
into ``CaseResult.predicted_labels``, through the response cache and result replay, and into
``summary.diagnosis``. Unknown reply keys are errors instead of being dropped.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from agentgauge.errors import UserError
from agentgauge.io import iter_results, read_responses
from agentgauge.metrics import summarize
from agentgauge.providers._base import ModelResponse
from agentgauge.providers._cache import decode_response, encode_response
from agentgauge.runner import RunConfig, run_suite, score_responses
from agentgauge.schema import Labels, Message, Suite
from agentgauge.scoring import ScoringConfig

AGENTS = Path(__file__).resolve().parent / "label_agents.py"


def _suite() -> Suite:
    return Suite.model_validate(
        {
            "name": "routes",
            "tools": [],
            "cases": [
                {
                    "id": "w",
                    "input": "What's the weather in Paris?",
                    "labels": {
                        "route": "weather",
                        "skill": "weather_skill",
                        "intents": ["weather"],
                    },
                },
                {
                    "id": "b",
                    "input": "Why is my invoice so high?",
                    "labels": {
                        "route": "billing",
                        "skill": "billing_skill",
                        "intents": ["billing"],
                    },
                },
            ],
        }
    )


def _run(agent: str, run_dir: Path, **options: Any) -> Any:
    options.setdefault("cache", False)
    cfg = RunConfig(agent=f"python:{AGENTS}:{agent}", progress=False, **options)
    run_suite(_suite(), cfg, run_dir)
    return summarize(run_dir)


def test_reported_route_skill_and_intents_are_measured(tmp_path: Path) -> None:
    s = _run("router", tmp_path)
    d = s.diagnosis
    assert (d.routing_accuracy.value, d.routing_accuracy.n) == (1.0, 2)  # before: n = 0
    assert (d.skill_accuracy.value, d.skill_accuracy.n) == (1.0, 2)
    assert (d.intent_accuracy.value, d.intent_source) == (1.0, "predicted")
    by_id = {r.case_id: r for r in iter_results(tmp_path)}
    assert by_id["w"].predicted_labels == Labels(
        route="weather", skill="weather_skill", intents=["weather"]
    )
    # each response's own labels are on its trace step
    [step] = [e for e in by_id["w"].trace if e.kind == "model"]
    assert step.labels == by_id["w"].predicted_labels


def test_a_wrong_route_lowers_routing_accuracy(tmp_path: Path) -> None:
    d = _run("misrouter", tmp_path).diagnosis
    assert (d.routing_accuracy.passed, d.routing_accuracy.n) == (1, 2)
    assert d.routing_accuracy.value == 0.5
    assert d.skill_accuracy.n == 0  # it reported no skill: not measured, not guessed
    assert d.intent_accuracy.value == 0.5
    weather = next(i for i in d.intents if i.intent == "weather")
    assert (weather.tp, weather.fn) == (0, 1)


def test_an_agent_that_reports_no_route_gets_a_warning_not_a_silent_blank(tmp_path: Path) -> None:
    s = _run("silent", tmp_path)
    assert s.diagnosis.routing_accuracy.n == 0
    assert (
        "routing accuracy: 2 scored result(s) expect a route (labels.route) but the agent "
        'reported none, so they are not measured; report it as "labels": {"route": ...} in the '
        "reply (docs/providers.md)"
    ) in s.warnings
    assert any(w.startswith("skill accuracy: 2 scored result(s)") for w in s.warnings)
    assert not [w for w in _run("router", tmp_path / "router").warnings if "accuracy:" in w]


def test_labels_survive_the_response_cache_and_result_replay(tmp_path: Path) -> None:
    first = _run("router", tmp_path / "first", cache=True)
    replayed = _run("router", tmp_path / "replayed", cache=True)
    redriven = _run("router", tmp_path / "redriven", cache=True, replay=False)
    assert replayed.replayed == 2
    assert all(r.replayed for r in iter_results(tmp_path / "replayed"))
    redriven_results = list(iter_results(tmp_path / "redriven"))
    assert all(e.cached for r in redriven_results for e in r.trace if e.kind == "model")
    assert {r.case_id: r.predicted_labels for r in redriven_results} == {
        r.case_id: r.predicted_labels for r in iter_results(tmp_path / "first")
    }
    for s in (first, replayed, redriven):
        assert (s.diagnosis.routing_accuracy.value, s.diagnosis.routing_accuracy.n) == (1.0, 2)


def test_the_cache_value_keeps_labels() -> None:
    resp = ModelResponse(
        message=Message(role="assistant", content="hi"), labels=Labels(route="r", intents=["a"])
    )
    assert decode_response(encode_response(resp)).labels == Labels(route="r", intents=["a"])
    plain = ModelResponse(message=Message(role="assistant", content="hi"))
    assert decode_response(encode_response(plain)).labels is None


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        ("top_level_route", "unknown field(s) ['route'] in the reply (report route, skill and"),
        ("typo", "unknown field(s) ['tool_call'] in the reply (did you mean 'tool_calls'?)"),
    ],
)
def test_unknown_reply_keys_are_errors_not_dropped(
    agent: str, message: str, tmp_path: Path
) -> None:
    s = _run(agent, tmp_path)
    results = list(iter_results(tmp_path))
    assert {r.status for r in results} == {"error"}
    assert all(message in (r.error or "") for r in results), results[0].error
    assert s.diagnosis.routing_accuracy.n == 0


# ------------------------------------------------------------------------------- http agent


class _Agent(BaseHTTPRequestHandler):
    replies: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        route = "weather" if "weather" in user.lower() else "billing"
        reply = dict(self.replies[0]) if self.replies else {}
        reply.setdefault("text", f"Routed to {route}.")
        reply.setdefault("labels", {"route": route, "intents": [route]})
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def http_agent() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Agent)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/agent"
    finally:
        server.shutdown()
        server.server_close()
        _Agent.replies = []


def test_an_http_agent_reports_labels(http_agent: str, tmp_path: Path) -> None:
    run_suite(_suite(), RunConfig(agent=http_agent, cache=False, progress=False), tmp_path)
    d = summarize(tmp_path).diagnosis
    assert (d.routing_accuracy.value, d.routing_accuracy.n) == (1.0, 2)
    by_id = {r.case_id: r for r in iter_results(tmp_path)}
    assert by_id["b"].predicted_labels == Labels(route="billing", intents=["billing"])


def test_an_http_reply_with_an_unknown_or_bad_field_is_an_error(
    http_agent: str, tmp_path: Path
) -> None:
    _Agent.replies = [{"labels": {"route": "weather", "confidence": 0.9}}]
    run_suite(_suite(), RunConfig(agent=http_agent, cache=False, progress=False), tmp_path)
    [r, _] = list(iter_results(tmp_path))
    assert r.status == "error"
    assert "unknown field(s) ['confidence'] in 'labels'" in (r.error or "")
    _Agent.replies = [{"labels": {"intents": "weather"}}]
    run_suite(_suite(), RunConfig(agent=http_agent, cache=False, progress=False), tmp_path / "2")
    [r, _] = list(iter_results(tmp_path / "2"))
    assert "labels.intents must be a list of strings" in (r.error or "")


# ------------------------------------------------------------------------ recorded responses


def test_recorded_responses_carry_labels(tmp_path: Path) -> None:
    path = tmp_path / "responses.jsonl"
    lines = [
        {"case_id": "w", "text": "ok", "labels": {"route": "weather"}},
        {"case_id": "b", "text": "ok", "labels": {"route": "weather"}},  # wrong
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    responses = read_responses(path)
    assert responses[0].labels == Labels(route="weather")
    score_responses(_suite(), responses, tmp_path / "run", ScoringConfig())
    d = summarize(tmp_path / "run").diagnosis
    assert (d.routing_accuracy.passed, d.routing_accuracy.n) == (1, 2)


def test_recorded_labels_of_the_wrong_shape_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "responses.jsonl"
    path.write_text(json.dumps({"case_id": "w", "labels": {"rout": "weather"}}) + "\n")
    with pytest.raises(UserError, match=r"responses.jsonl:1: labels.rout: Extra inputs"):
        read_responses(path)
