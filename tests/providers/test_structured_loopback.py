"""A judge's verdict schema through the real anthropic and google-genai SDKs, against a loopback
server: the wire request carries it, and the reply is read back as the verdict."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from aiohttp import web

from agentgauge.judges import TASKS, Judge, JudgeConfig, JudgeResult

KEY = "sk-ant-loopback-0123456789abcdef"
ANSWER = {"question": "Capital of France?", "reference": "Paris", "agent_output": "Paris."}
VERDICT = {"reasoning": "same city", "verdict": "equivalent"}


def _judge_over(routes: list[web.RouteDef], spec: str) -> JudgeResult:
    async def go() -> JudgeResult:
        app = web.Application()
        app.add_routes(routes)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        options = {"base_url": f"http://127.0.0.1:{port}", "api_key": KEY}
        judge = Judge.from_config(JudgeConfig(spec=spec, cache=False, options=options))
        try:
            return await judge.evaluate("equivalence_answer", ANSWER)
        finally:
            await judge.aclose()
            await runner.cleanup()

    return anyio.run(go)


def test_anthropic_judge_forces_the_respond_tool_and_reads_its_input() -> None:
    pytest.importorskip("anthropic")
    seen: list[dict[str, Any]] = []

    async def messages(request: web.Request) -> web.Response:
        seen.append(await request.json())
        return web.json_response(
            {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-test",
                "content": [{"type": "tool_use", "id": "t1", "name": "respond", "input": VERDICT}],
                "stop_reason": "tool_use",
                "stop_sequence": None,
                "usage": {"input_tokens": 20, "output_tokens": 9},
            }
        )

    r = _judge_over([web.post("/v1/messages", messages)], "anthropic:claude-test")
    assert r.verdict == "equivalent"
    assert r.provider_calls == 1
    body = seen[0]
    assert body["tool_choice"] == {"type": "tool", "name": "respond"}
    assert body["tools"] == [
        {
            "name": "respond",
            "description": "Give your reply as this tool's input.",
            "input_schema": TASKS["equivalence_answer"].response_schema(),
        }
    ]


def test_gemini_judge_asks_for_json_under_the_schema() -> None:
    pytest.importorskip("google.genai")
    import orjson

    seen: list[dict[str, Any]] = []

    async def generate(request: web.Request) -> web.Response:
        seen.append(await request.json())
        text = orjson.dumps(VERDICT).decode()
        return web.json_response(
            {
                "candidates": [
                    {
                        "content": {"role": "model", "parts": [{"text": text}]},
                        "finishReason": "STOP",
                    }
                ],
                "usageMetadata": {"promptTokenCount": 14, "candidatesTokenCount": 5},
                "modelVersion": "gemini-test",
            }
        )

    routes = [
        web.post(f"/{v}/models/gemini-test:generateContent", generate) for v in ("v1", "v1beta")
    ]
    r = _judge_over(routes, "gemini:gemini-test")
    assert r.verdict == "equivalent"
    config = seen[0]["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert config["responseJsonSchema"]["properties"]["verdict"]["enum"] == [
        "different",
        "equivalent",
    ]
