"""No API key reaches anything agentgauge writes, whatever the server echoes back.

Loopback servers echo the key they received into every field they can (answer text, the
``model`` field, tool-call arguments, error messages, stream errors, non-JSON bodies, a response
header); every provider path runs against them through ``agentgauge run`` (direct HTTP, the SDK
transport, streaming, the Responses API, Azure, an HTTP agent, errors and retries, a judge, the
anthropic: and gemini: adapters), then every report format is rendered. Every file under the
run directories, the cache, the run history and the reports, and everything printed, is then
searched for every key: there must be none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from aio_server_helpers import AioServer
from aiohttp import web
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.io import iter_results
from agentgauge.report import REPORT_FORMATS
from agentgauge.schema import ToolCall
from agentgauge.testing import (
    FakeFault,
    FakeOpenAIServer,
    FakeRaw,
    FakeReply,
    FakeRequest,
    FakeStreamError,
)

OPENAI_KEY = "sk-echo-openai-9f8e7d6c5b4a3f2e1d0c"
AZURE_KEY = "azure0echo0key0a1b2c3d4e5f60718293"
SPEC_KEY = "sk-echo-spec-0a1b2c3d4e5f6a7b8c9d"
HTTP_TOKEN = "tok-echo-http-5e6f7a8b9c0d1e2f3a4b"
ANTHROPIC_KEY = "sk-ant-echo-1122334455667788aabb"
GEMINI_KEY = "AIzaEchoGemini00112233445566778899"
#: in the environment only: no provider sends it, the scripted agent says it
OTHER_KEY = "svc-echo-other-13579bdf2468ace0"
ALL_KEYS = (OPENAI_KEY, AZURE_KEY, SPEC_KEY, HTTP_TOKEN, ANTHROPIC_KEY, GEMINI_KEY, OTHER_KEY)

SUITE = """\
name: echo-suite
tools:
  - name: get_weather
    description: weather in a city
    parameters: {type: object, properties: {city: {type: string}}, required: [city]}
    simulation: {result: {temp_c: 20}}
cases:
  - id: text
    input: "mode=text"
    expect: {behavior: answer, reference: Paris, response_contains: [Paris]}
  - id: call
    input: "mode=call"
    expect: {tool_calls: [{name: get_weather, arguments: {city: Paris}}]}
  - id: other
    input: "mode=other"
    expect: {behavior: answer}
  - id: e401
    input: "mode=e401"
    expect: {behavior: answer}
  - id: e500
    input: "mode=e500"
    expect: {behavior: answer}
  - id: badjson
    input: "mode=badjson"
    expect: {behavior: answer}
  - id: html
    input: "mode=html"
    expect: {behavior: answer}
  - id: error200
    input: "mode=error200"
    expect: {behavior: answer}
  - id: notobject
    input: "mode=notobject"
    expect: {behavior: answer}
  - id: streamerr
    input: "mode=streamerr"
    expect: {behavior: answer}
"""


def _mode(messages: list[dict[str, Any]]) -> str:
    first = next((m for m in messages if m.get("role") == "user"), {})
    content = first.get("content")
    if isinstance(content, list):  # Responses API / Anthropic content parts
        content = "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "").partition("mode=")[2]


def _openai_reply(request: FakeRequest) -> FakeReply:
    body = request.body
    messages = body.get("messages") or body.get("input") or []
    if any(m.get("role") == "tool" or m.get("type") == "function_call_output" for m in messages):
        return "It is 20 degrees; your key {key} worked."
    mode = _mode(messages)
    replies: dict[str, FakeReply] = {
        "text": "Here you go: {key}",
        "call": ToolCall(name="get_weather", arguments={"city": "{key}", "note": "Bearer {key}"}),
        "other": f"the other service key is {OTHER_KEY}",
        "e401": FakeFault(401, message="Incorrect API key provided: {key}"),
        "e500": FakeFault(500, message="overloaded for Bearer {key}"),
        "badjson": FakeRaw(200, "this is not JSON {key}", "application/json"),
        "html": FakeRaw(200, "<html><body>login page for {key}</body></html>"),
        "error200": FakeRaw(
            200, '{"error":{"message":"quota exceeded for Bearer {key}"}}', "application/json"
        ),
        "notobject": FakeRaw(200, '["{key}", "x"]', "application/json"),
        "streamerr": FakeStreamError("stream broke for {key}", text="half {key}"),
    }
    return replies.get(mode, "ok {key}")


def _judge_reply(request: FakeRequest) -> FakeReply:
    return json.dumps({"reasoning": "the key {key} was seen", "verdict": "different"})


# ---------------------------------------------------------------------- vendor servers


def _sse(events: list[dict[str, Any]], named: bool) -> bytes:
    out = b""
    for e in events:
        if named:
            out += b"event: " + str(e["type"]).encode() + b"\n"
        out += b"data: " + orjson.dumps(e) + b"\n\n"
    return out


def _vendor_error(mode: str, key: str) -> web.Response | None:
    if mode == "e401":
        body = {"type": "error", "error": {"type": "auth", "message": f"bad key {key}"}}
        return web.json_response(body, status=401, headers={"X-Echo-Key": key})
    if mode == "e500":
        body = {"error": {"code": 500, "message": f"overloaded for Bearer {key}"}}
        return web.json_response(body, status=500)
    if mode == "badjson":
        return web.Response(text=f"not JSON {key}", content_type="application/json")
    if mode == "html":
        return web.Response(text=f"<html>{key}</html>", content_type="text/html")
    if mode == "error200":
        return web.json_response({"type": "error", "error": {"message": f"quota for {key}"}})
    return None


async def _anthropic(request: web.Request) -> web.StreamResponse:
    key = request.headers.get("x-api-key") or request.headers.get("authorization", "")
    key = key.removeprefix("Bearer ")
    body = await request.json()
    mode = _mode(body["messages"])
    failure = _vendor_error(mode, key)
    if failure is not None:
        return failure
    after_tool = any(
        isinstance(m.get("content"), list)
        and any(p.get("type") == "tool_result" for p in m["content"])
        for m in body["messages"]
    )
    content: list[dict[str, Any]] = [{"type": "text", "text": f"answer with {key}"}]
    if mode == "call" and not after_tool:
        content.append(
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": key}}
        )
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": key,
        "content": content,
        "stop_reason": "tool_use" if len(content) > 1 else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 5},
    }
    if not body.get("stream"):
        return web.json_response(message)
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": dict(message, content=[], stop_reason=None)},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": key}},
        {"type": "content_block_stop", "index": 0},
    ]
    if mode == "streamerr":
        events.append({"type": "error", "error": {"type": "overloaded", "message": f"bad {key}"}})
    events += [
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 1},
        },
        {"type": "message_stop"},
    ]
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await resp.prepare(request)
    await resp.write(_sse(events, named=True))
    await resp.write_eof()
    return resp


async def _gemini(request: web.Request) -> web.StreamResponse:
    key = request.headers.get("x-goog-api-key", "")
    body = await request.json()
    contents = body.get("contents") or []
    first = contents[0]["parts"][0].get("text", "") if contents else ""
    mode = str(first).partition("mode=")[2]
    failure = _vendor_error(mode, key)
    if failure is not None:
        return failure
    after_tool = any("functionResponse" in p for c in contents for p in c.get("parts", []))
    parts: list[dict[str, Any]] = [{"text": f"gemini says {key}"}]
    if mode == "call" and not after_tool:
        parts = [{"functionCall": {"name": "get_weather", "args": {"city": key}}}]
    reply = {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 3},
        "modelVersion": key,
    }
    if "stream" not in request.path:
        return web.json_response(reply)
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await resp.prepare(request)
    await resp.write(b"data: " + orjson.dumps(reply) + b"\r\n\r\n")
    await resp.write_eof()
    return resp


def _gemini_routes() -> list[web.RouteDef]:
    return [
        web.post(f"/{version}/models/gemini-echo:{method}", _gemini)
        for version in ("v1", "v1beta")
        for method in ("generateContent", "streamGenerateContent")
    ]


# ---------------------------------------------------------------------- the runs


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", AZURE_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("GEMINI_API_KEY", GEMINI_KEY)
    monkeypatch.setenv("AGENTGAUGE_HTTP_TOKEN", HTTP_TOKEN)
    monkeypatch.setenv("MYSERVICE_API_KEY", OTHER_KEY)
    monkeypatch.setenv("AGENTGAUGE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("AGENTGAUGE_HISTORY", str(tmp_path / "history.sqlite"))
    for var in ("OPENAI_BASE_URL", "AZURE_OPENAI_ENDPOINT", "GOOGLE_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path


def _invoke(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    return result.exit_code, result.output


def _files_with_keys(root: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file():
            continue
        data = path.read_bytes()
        hits = [k for k in ALL_KEYS if k.encode() in data]
        if hits:
            found[str(path.relative_to(root))] = hits
    return found


def _agents(openai_url: str, http_url: str, vendor: str | None, gem: str | None) -> list[tuple]:
    base = ["--base-url", openai_url]
    runs: list[tuple[str, list[str]]] = [
        ("direct", ["--agent", "openai:fake-model", *base]),
        ("direct-stream", ["--agent", "openai:fake-model", *base, "--stream"]),
        ("sdk", ["--agent", "openai:fake-model?transport=sdk", *base]),
        ("sdk-stream", ["--agent", "openai:fake-model?transport=sdk", *base, "--stream"]),
        ("responses", ["--agent", "openai:fake-model?api=responses", *base]),
        ("responses-stream", ["--agent", "openai:fake-model?api=responses", *base, "--stream"]),
        (
            "responses-sdk-stream",
            ["--agent", "openai:fake-model?api=responses&transport=sdk", *base, "--stream"],
        ),
        ("spec-key", ["--agent", f"openai:fake-model?api_key={SPEC_KEY}&base_url={openai_url}"]),
        ("azure", ["--agent", f"azure:dep?endpoint={openai_url.removesuffix('/v1')}"]),
        ("http", ["--agent", http_url]),
    ]
    if vendor is not None:
        runs.append(("anthropic", ["--agent", f"anthropic:claude-echo?base_url={vendor}"]))
        runs.append(
            (
                "anthropic-stream",
                ["--agent", f"anthropic:claude-echo?base_url={vendor}", "--stream"],
            )
        )
    if gem is not None:
        runs.append(("gemini", ["--agent", f"gemini:gemini-echo?base_url={gem}"]))
        runs.append(
            ("gemini-stream", ["--agent", f"gemini:gemini-echo?base_url={gem}", "--stream"])
        )
    return runs


def test_no_key_in_any_file_or_output(env: Path) -> None:
    tmp = env
    suite = tmp / "suite.yaml"
    suite.write_text(SUITE)
    printed: list[str] = []
    have_anthropic = have_gemini = True
    try:
        import anthropic  # noqa: F401
    except ImportError:
        have_anthropic = False
    try:
        import google.genai  # noqa: F401
    except ImportError:
        have_gemini = False
    with (
        FakeOpenAIServer(_openai_reply, model="model-{key}", echo_key=True, azure=True) as srv,
        FakeOpenAIServer(_judge_reply, model="judge-{key}", echo_key=True) as judge,
        AioServer([web.post("/v1/messages", _anthropic)]) as ant,
        AioServer(_gemini_routes()) as gem,
    ):
        runs = _agents(
            srv.base_url,
            srv.url + "/agent",
            ant.url if have_anthropic else None,
            gem.url if have_gemini else None,
        )
        for name, agent in runs:
            run_dir = tmp / "runs" / name
            args = ["run", str(suite), *agent, "-o", str(run_dir), "--no-progress"]
            args += ["--retries", "1", "--max-concurrency", "4", "--timeout", "20"]
            if name == "direct":
                args += ["--judge", f"openai:judge-model?base_url={judge.base_url}"]
            code, out = _invoke(args)
            printed.append(out)
            assert code in (0, 1), f"{name}: exit {code}: {out}"
            # a second run of the same agent: answers now come from the cache
            if name in ("direct", "direct-stream"):
                again = [str(run_dir) + "-again" if a == str(run_dir) else a for a in args]
                code, out = _invoke(again)
                printed.append(out)
        for run_dir in sorted((tmp / "runs").iterdir()):
            for fmt in REPORT_FORMATS:
                out_file = tmp / "reports" / f"{run_dir.name}.{fmt}"
                out_file.parent.mkdir(exist_ok=True)
                code, out = _invoke(["report", str(run_dir), "--format", fmt, "-o", str(out_file)])
                assert code == 0, out
                printed.append(out)
            code, out = _invoke(["report", str(run_dir)])  # the console report on stdout
            printed.append(out)
        assert srv.count
        assert judge.count
    files = _files_with_keys(tmp)
    in_output = [k for k in ALL_KEYS if any(k in text for text in printed)]
    total = sum(1 for p in tmp.rglob("*") if p.is_file())
    print(f"files with a key: {len(files)} of {total}; keys printed: {in_output}")
    for path, keys in files.items():
        print(f"  {path}: {keys}")
    assert not files
    assert not in_output
    # the runs did happen: the echoed keys were replaced, not the answers dropped
    text = {r.case_id: r for r in iter_results(tmp / "runs" / "direct")}["text"]
    assert "***" in text.model_dump_json()
