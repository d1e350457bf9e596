"""A reply that is not what the protocol says is a provider error, never an (empty) answer.

Issue 10 part 4: with streaming on, a 200 that was not an event stream (an HTML login page, a
JSON object) used to become an empty answer: a case expecting ``answer`` passed, and the empty
answer was cached and served to a later non-streaming run.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.errors import ProviderError
from agentgauge.io import iter_results
from agentgauge.providers import GenerateConfig, ModelRequest, close_provider, resolve_provider
from agentgauge.schema import Message
from agentgauge.testing import FakeOpenAIServer, FakeRaw, FakeReply

KEY = "sk-protocol-3c4d5e6f7a8b9c0d1e2f"
HTML = "<html><head><title>Sign in</title></head><body>token " + KEY + "</body></html>"


def _generate(
    reply: FakeReply, *, stream: bool, spec: str = "openai:m", api_key: str | None = KEY
) -> str:
    with FakeOpenAIServer([reply]) as srv:

        async def go() -> str:
            provider = resolve_provider(spec, base_url=srv.base_url, api_key=api_key)
            try:
                request = ModelRequest(
                    messages=[Message(role="user", content="hi")],
                    config=GenerateConfig(stream=stream),
                )
                response = await provider.generate(request)
            finally:
                await close_provider(provider)
            return repr(response.message)

        return anyio.run(go)


@pytest.mark.parametrize("spec", ["openai:m", "openai:m?api=responses"])
@pytest.mark.parametrize(
    ("reply", "shown"),
    [
        (FakeRaw(200, HTML), "expected server-sent events, got text/html: '<html><head>"),
        (
            FakeRaw(200, '{"id": "chatcmpl-1", "object": "chat.completion"}', "application/json"),
            'expected server-sent events, got application/json: \'{"id"',
        ),
        (FakeRaw(200, "hello\n", "text/event-stream"), "got no events: 'hello'"),
        (FakeRaw(200, "data: <b>hi</b>\n\n", "text/event-stream"), "not JSON: '<b>hi</b>'"),
    ],
)
def test_streamed_reply_that_is_not_an_event_stream_is_an_error(
    spec: str, reply: FakeReply, shown: str
) -> None:
    with pytest.raises(ProviderError) as info:
        _generate(reply, stream=True, spec=spec)
    assert shown in str(info.value)
    assert KEY not in str(info.value)
    assert not info.value.transient


@pytest.mark.parametrize(
    ("reply", "shown"),
    [
        (FakeRaw(200, HTML), "invalid JSON (text/html): '<html><head><title>Sign in"),
        (FakeRaw(200, '{"id": "x"}', "application/json"), "unexpected reply (no 'choices')"),
        (FakeRaw(200, '{"choices": []}', "application/json"), "unexpected reply (no 'choices')"),
        (FakeRaw(200, "[1, 2]", "application/json"), "not a JSON object"),
    ],
)
def test_plain_reply_that_is_not_a_completion_is_an_error(reply: FakeReply, shown: str) -> None:
    with pytest.raises(ProviderError) as info:
        _generate(reply, stream=False)
    assert shown in str(info.value)
    assert KEY not in str(info.value)


def test_sdk_transport_stream_of_html_is_an_error() -> None:
    pytest.importorskip("openai")
    with pytest.raises(ProviderError) as info:
        _generate(FakeRaw(200, HTML), stream=True, spec="openai:m?transport=sdk")
    assert "expected server-sent events, got text/html: '<html><head>" in str(info.value)
    assert KEY not in str(info.value)
    # an event stream with nothing in it
    with pytest.raises(ProviderError, match="no chat completion chunks"):
        _generate(
            FakeRaw(200, "\n", "text/event-stream"), stream=True, spec="openai:m?transport=sdk"
        )


def test_a_good_stream_still_answers() -> None:
    assert "Sunny" in _generate("Sunny", stream=True)
    assert "Sunny" in _generate("Sunny", stream=False)


SUITE = """\
name: proto
cases:
  - id: capital
    input: What is the capital of France?
    expect: {behavior: answer}
"""


def test_html_stream_fails_the_case_and_is_never_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTGAUGE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE)

    def run(url: str, name: str, *extra: str) -> list[str]:
        args = ["run", str(suite), "--agent", "openai:m", "--base-url", url]
        args += ["-o", str(tmp_path / name), "--no-progress", "--retries", "0", *extra]
        result = CliRunner().invoke(cli, args, catch_exceptions=False)
        assert result.exit_code in (0, 1), result.output
        return [f"{r.status}: {r.explanation}" for r in iter_results(tmp_path / name)]

    with FakeOpenAIServer([FakeRaw(200, HTML)]) as bad:
        (line,) = run(bad.base_url, "streamed", "--stream")
    assert line.startswith("error: provider error: openai:m: expected server-sent events")
    # the same request, not streamed, against a working server on the same address
    with FakeOpenAIServer(["Paris."], port=bad.port) as good:
        (line,) = run(good.base_url, "plain")
        assert good.count == 1  # asked the model: nothing was cached from the bad run
    assert line == "passed: "
