"""The OpenTelemetry export shows a simulated user's turns as spans of their own: named
``simulated_user``, with the user's tokens and cost under ``agentgauge.user.*`` and no
``gen_ai.operation.name`` / ``gen_ai.usage.*`` (so no reader adds them to the agent's); the root
span says who played the user and how the conversation ended."""

from __future__ import annotations

import json
from pathlib import Path

from user_helpers import CLARIFY_CASE, ORDER_USER, OrderAgent, run, suite_of

from agentgauge.exchange import OtelExport, results_to_otlp
from agentgauge.exchange._otlp import Span, read_spans

MODEL_CASE = {**CLARIFY_CASE, "user": {k: v for k, v in ORDER_USER.items() if k != "rules"}}
BROKEN = {
    **CLARIFY_CASE,
    "id": "broken",
    "user": {**ORDER_USER, "facts": {"order_id": {"value": "A7", "asked_by": ["reference"]}}},
}


def _spans(
    tmp_path: Path, cases: list[dict[str, object]], *, content: bool = True, **kw: object
) -> list[Span]:
    results = run(tmp_path / "run", suite_of(cases), OrderAgent(), **kw)
    doc = results_to_otlp(results, OtelExport(run_id="r1", agent="python:x", content=content))
    path = tmp_path / f"otel-{content}.json"
    path.write_text(json.dumps(doc))
    return read_spans([path])


def test_a_model_users_turns_are_spans_of_their_own(tmp_path: Path) -> None:
    script = tmp_path / "u.jsonl"
    script.write_text('{"text": "It is A7."}\n{"text": "Great, thanks! ###STOP###"}\n')
    spans = _spans(tmp_path, [MODEL_CASE], user_model=f"mock:{script}")
    users = [s for s in spans if s.attributes.get("agentgauge.step") == "simulated_user"]
    assert [s.name for s in users] == ["simulated_user mock", "simulated_user mock"]
    assert [s.attributes["agentgauge.turn"] for s in users] == [1, 2]
    for s in users:
        assert "gen_ai.operation.name" not in s.attributes
        assert not any(k.startswith("gen_ai.usage") for k in s.attributes)
        assert s.attributes["agentgauge.user.input_tokens"] > 0
    chats = [s for s in spans if s.attributes.get("gen_ai.operation.name") == "chat"]
    assert len(chats) == 3  # the agent's three calls, not the user's two
    root = next(s for s in spans if s.parent_id is None)
    a = root.attributes
    assert (a["agentgauge.user.kind"], a["agentgauge.user.ended_by"]) == ("model", "stop")
    assert (a["agentgauge.user.turns"], a["agentgauge.user.model_calls"]) == (3, 2)
    assert a["agentgauge.user.template"] == "user_v1"
    assert a["agentgauge.user.input_tokens"] == sum(
        s.attributes["agentgauge.user.input_tokens"] for s in users
    )


def test_a_user_error_is_on_the_root_span_and_its_reason_is_content(tmp_path: Path) -> None:
    spans = _spans(tmp_path, [BROKEN])
    root = next(s for s in spans if s.parent_id is None)
    assert root.attributes["agentgauge.status"] == "user_error"
    assert root.attributes["agentgauge.user.ended_by"] == "user_error"
    assert root.attributes["agentgauge.user.error"].startswith("no rule answers")
    bare = _spans(tmp_path / "bare", [BROKEN], content=False)
    root = next(s for s in bare if s.parent_id is None)
    assert "agentgauge.user.error" not in root.attributes  # it quotes the agent's message
    assert root.attributes["agentgauge.user.kind"] == "scripted"


def test_a_case_without_a_user_has_no_user_attributes(tmp_path: Path) -> None:
    plain = {"id": "p", "input": "Where is A7?", "expect": {"tool_calls": [{"name": "get_order"}]}}
    spans = _spans(tmp_path, [plain])
    assert not any(k.startswith("agentgauge.user") for s in spans for k in s.attributes)
