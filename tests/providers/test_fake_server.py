"""FakeOpenAIServer: scripted replies, functions of the request, faults, streaming, process mode."""

from __future__ import annotations

import subprocess
import sys
import urllib.request

import anyio
import orjson
import pytest

from agentgauge.errors import ProviderError
from agentgauge.providers import GenerateConfig, ModelRequest, ModelResponse, resolve_provider
from agentgauge.providers._openai import OpenAIProvider
from agentgauge.schema import Message, ToolCall
from agentgauge.testing import FakeFault, FakeOpenAIServer, FakeRequest


def _ask(
    server: FakeOpenAIServer, n: int, stream: bool = False
) -> list[ModelResponse | ProviderError]:
    provider = resolve_provider("openai:fake-model", base_url=server.base_url, api_key="k")
    assert isinstance(provider, OpenAIProvider)

    async def go() -> list[ModelResponse | ProviderError]:
        out: list[ModelResponse | ProviderError] = []
        for i in range(n):
            request = ModelRequest(
                messages=[Message(role="user", content=f"q{i}")],
                config=GenerateConfig(stream=stream),
            )
            try:
                out.append(await provider.generate(request))
            except ProviderError as exc:
                out.append(exc)
        await provider.aclose()
        return out

    return anyio.run(go)


def test_reply_function_sees_the_request() -> None:
    def reply(request: FakeRequest) -> str | ToolCall:
        text = request.body["messages"][-1]["content"]
        return ToolCall(name="f", arguments={"q": text}) if text == "q1" else f"echo {text}"

    with FakeOpenAIServer(reply) as srv:
        out = _ask(srv, 3)
    assert [getattr(r, "message", None) and r.message.content for r in out] == [  # type: ignore[union-attr]
        "echo q0",
        None,
        "echo q2",
    ]
    assert out[1].message.tool_calls[0].arguments == {"q": "q1"}  # type: ignore[union-attr]
    assert srv.count == 3


def test_script_last_reply_repeats_and_dict_replies() -> None:
    with FakeOpenAIServer([{"text": "a", "calls": [{"name": "f"}]}, "b"]) as srv:
        out = _ask(srv, 3)
    first = out[0]
    assert isinstance(first, ModelResponse)
    assert (first.message.content, first.message.tool_calls[0].name) == ("a", "f")
    assert [r.message.content for r in out[1:]] == ["b", "b"]  # type: ignore[union-attr]


def test_error_rate_is_seeded_and_counts() -> None:
    with FakeOpenAIServer(
        ["ok"], error_rate=0.5, error=FakeFault(503, retry_after="1"), seed=1
    ) as a:
        first = [isinstance(r, ProviderError) for r in _ask(a, 20)]
    with FakeOpenAIServer(
        ["ok"], error_rate=0.5, error=FakeFault(503, retry_after="1"), seed=1
    ) as b:
        second = [isinstance(r, ProviderError) for r in _ask(b, 20)]
    assert first == second
    assert 0 < sum(first) < 20


def test_chunked_streaming_with_delay() -> None:
    with FakeOpenAIServer(["a fairly long streamed reply"], chunk_delay_ms=2) as srv:
        (r,) = _ask(srv, 1, stream=True)
    assert isinstance(r, ModelResponse)
    assert r.message.content == "a fairly long streamed reply"
    assert r.ttft_ms is not None


def test_unknown_path_is_404_and_models_listing() -> None:
    with FakeOpenAIServer() as srv:
        with urllib.request.urlopen(srv.base_url + "/models") as resp:
            assert orjson.loads(resp.read())["data"][0]["id"] == "fake-model"
        req = urllib.request.Request(srv.url + "/nope", data=b"{}", method="POST")
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(req)
        assert info.value.code == 404


def test_runs_as_a_process() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentgauge.testing.fake_openai", "--text", "from process"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("listening on http://127.0.0.1:")
        url = line.split()[-1]
        body = orjson.dumps({"model": "m", "messages": [{"role": "user", "content": "x"}]})
        req = urllib.request.Request(
            url + "/chat/completions", data=body, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req) as resp:
            reply = orjson.loads(resp.read())
        assert reply["choices"][0]["message"]["content"] == "from process"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
