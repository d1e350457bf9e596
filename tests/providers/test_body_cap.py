"""Misbehaving servers on every client path: a lying Content-Length, an endless body, a gzip
bomb, 5,000 ``100 Continue`` responses, a slowloris and bytes that are not HTTP.

Every path (the lean keep-alive client, aiohttp for streams and proxies, the HTTP agent, the
openai SDK transport, the anthropic and google-genai SDKs) must give a one-line
ProviderError naming the body cap, never buffer the body whole, never recurse. The cap is
set to 1 MiB here (``AGENTGAUGE_MAX_RESPONSE_BYTES``); the servers send 8 MiB, or claim 10 GB.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from click.testing import CliRunner
from provider_error_helpers import provider_error

from agentgauge.cli import cli
from agentgauge.errors import ProviderError, UserError
from agentgauge.io import iter_results
from agentgauge.providers import GenerateConfig, ModelRequest, resolve_provider
from agentgauge.providers._bodycap import (
    DEFAULT_MAX_RESPONSE_BYTES,
    ResponseTooLarge,
    max_response_bytes,
)
from agentgauge.schema import Message
from hostile_http import HostileServer

KEY = "sk-bodycap-test-0123456789abcdef"


@pytest.fixture(autouse=True)
def _cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTGAUGE_MAX_RESPONSE_BYTES", "1M")
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "")


def _spec(path: str, url: str) -> str:
    return {
        "direct": f"openai:m?base_url={url}/v1&api_key={KEY}",
        "stream": f"openai:m?base_url={url}/v1&api_key={KEY}",
        "sdk": f"openai:m?base_url={url}/v1&api_key={KEY}&transport=sdk",
        "sdk-stream": f"openai:m?base_url={url}/v1&api_key={KEY}&transport=sdk",
        "http-agent": f"{url}/agent",
        "anthropic": f"anthropic:m?base_url={url}&api_key={KEY}",
        "gemini": f"gemini:m?base_url={url}&api_key={KEY}",
    }[path]


def _generate(path: str, url: str, timeout_s: float = 20.0) -> ProviderError:
    if path in ("anthropic", "gemini"):
        pytest.importorskip({"anthropic": "anthropic", "gemini": "google.genai"}[path])
    provider = resolve_provider(_spec(path, url), timeout_s=timeout_s)
    stream = path.endswith("stream")
    request = ModelRequest(
        messages=[Message(role="user", content="hi")], config=GenerateConfig(stream=stream)
    )
    return provider_error(provider, request, path)


ALL_PATHS = ["direct", "stream", "sdk", "sdk-stream", "http-agent", "anthropic", "gemini"]


@pytest.mark.parametrize("path", ALL_PATHS)
def test_a_lying_content_length_is_refused_at_once(path: str) -> None:
    with HostileServer("lying-length") as srv:
        err = _generate(path, srv.url)
    assert "declares a body of 9.313 GiB, over the limit of 1 MiB" in str(err), str(err)
    assert "AGENTGAUGE_MAX_RESPONSE_BYTES" in str(err)
    assert err.transient is False
    assert "\n" not in str(err)


@pytest.mark.parametrize("path", ALL_PATHS)
def test_an_endless_chunked_body_stops_at_the_cap(path: str) -> None:
    kind = "text/event-stream" if path.endswith("stream") else "application/json"
    with HostileServer("endless", content_type=kind) as srv:
        err = _generate(path, srv.url)
    assert "body grew past the limit of 1 MiB" in str(err), str(err)
    assert err.transient is False


@pytest.mark.parametrize("path", ["direct", "sdk", "http-agent"])
def test_a_body_read_until_close_stops_at_the_cap(path: str) -> None:
    with HostileServer("until-close") as srv:
        err = _generate(path, srv.url)
    assert "body grew past the limit of 1 MiB" in str(err), str(err)


@pytest.mark.parametrize("path", ["sdk", "anthropic", "gemini"])
def test_a_gzip_bomb_is_counted_inflated(path: str) -> None:
    with HostileServer("gzip-bomb", total=64 << 20) as srv:
        assert len(srv.bomb()) < 1 << 20  # small on the wire, 64 MiB inflated
        err = _generate(path, srv.url)
    assert "body grew past the limit of 1 MiB" in str(err), str(err)


def test_a_proxied_request_goes_through_aiohttp_under_the_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # with a proxy configured every request takes aiohttp's path: the proxy here is the server
    with HostileServer("endless") as srv:
        monkeypatch.setenv("HTTP_PROXY", srv.url)
        err = _generate("direct", "http://upstream.invalid")
    assert "body grew past the limit of 1 MiB" in str(err), str(err)


def _answer(path: str, url: str) -> str:
    """The reply's text, or the error's message."""
    provider = resolve_provider(_spec(path, url), timeout_s=20.0)
    request = ModelRequest(
        messages=[Message(role="user", content="hi")],
        config=GenerateConfig(stream=path.endswith("stream")),
    )

    async def go() -> str:
        try:
            return str((await provider.generate(request)).message.content)
        except ProviderError as exc:
            return f"error: {exc}"
        finally:
            await provider.aclose()  # type: ignore[attr-defined]

    return asyncio.run(go())


@pytest.mark.parametrize("path", ["direct", "stream", "sdk", "http-agent"])
def test_five_thousand_continues_do_not_recurse(path: str) -> None:
    with HostileServer("continues", count=5000) as srv:
        text = _answer(path, srv.url)
    assert "RecursionError" not in text, text
    assert "recursion" not in text, text
    if path in ("direct", "http-agent"):  # our own client: a clear refusal
        assert "more than 100 interim (1xx) responses" in text, text
    else:  # aiohttp's parser skips them, or refuses: either way one line
        assert text == "after the continues" or text.startswith("error: "), text


def test_a_few_continues_are_skipped() -> None:
    with HostileServer("continues", count=3) as srv:
        provider = resolve_provider(_spec("direct", srv.url))
        request = ModelRequest(messages=[Message(role="user", content="hi")])

        async def go() -> str | None:
            try:
                return (await provider.generate(request)).message.content
            finally:
                await provider.aclose()  # type: ignore[attr-defined]

        assert asyncio.run(go()) == "after the continues"


@pytest.mark.parametrize("path", ["direct", "stream", "sdk", "http-agent"])
def test_garbage_is_an_error_not_a_traceback(path: str) -> None:
    with HostileServer("garbage") as srv:
        err = _generate(path, srv.url, timeout_s=5)
    assert isinstance(err, ProviderError)
    assert "\n" not in str(err)


def test_the_cap_is_read_from_the_environment() -> None:
    assert max_response_bytes({}) == DEFAULT_MAX_RESPONSE_BYTES == 64 << 20
    assert max_response_bytes({"AGENTGAUGE_MAX_RESPONSE_BYTES": "2048"}) == 2048
    assert max_response_bytes({"AGENTGAUGE_MAX_RESPONSE_BYTES": "512K"}) == 512 << 10
    assert max_response_bytes({"AGENTGAUGE_MAX_RESPONSE_BYTES": "16M"}) == 16 << 20
    assert max_response_bytes({"AGENTGAUGE_MAX_RESPONSE_BYTES": "1g"}) == 1 << 30
    for bad in ("0", "-5", "lots", "12X", "1.5M"):
        with pytest.raises(UserError, match=r"AGENTGAUGE_MAX_RESPONSE_BYTES: '.*' is not a posit"):
            max_response_bytes({"AGENTGAUGE_MAX_RESPONSE_BYTES": bad})


def test_a_reply_under_the_cap_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentgauge.testing import FakeOpenAIServer

    big = "y" * (600 << 10)  # 600 KiB of answer, under the 1 MiB cap

    async def answer(spec: str) -> str | None:
        provider = resolve_provider(spec)
        request = ModelRequest(messages=[Message(role="user", content="hi")])
        try:
            return (await provider.generate(request)).message.content
        finally:
            await provider.aclose()  # type: ignore[attr-defined]

    with FakeOpenAIServer(lambda request: big) as srv:
        for transport in ("direct", "sdk"):
            spec = f"openai:m?base_url={srv.base_url}&api_key={KEY}&transport={transport}"
            assert asyncio.run(answer(spec)) == big
    assert ResponseTooLarge(10).limit == 10


def test_a_run_records_the_refusal_on_the_case_and_goes_on(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: s\ncases:\n"
        + "".join(
            f"  - id: c{i}\n    input: hi\n    expect: {{behavior: answer}}\n" for i in range(3)
        )
    )
    with HostileServer("lying-length") as srv:
        result = CliRunner().invoke(
            cli,
            [
                *("run", str(suite), "--agent", f"openai:m?api_key={KEY}"),
                *("--base-url", srv.url + "/v1", "-o", str(tmp_path / "run")),
                *("--no-progress", "--retries", "0"),
            ],
        )
    assert result.exit_code in (0, 1), result.output
    results = list(iter_results(tmp_path / "run"))
    assert len(results) == 3
    for r in results:
        assert r.status == "error"
        assert "over the limit of 1 MiB" in (r.error or "")
    assert "Traceback" not in result.output


def test_a_slowloris_is_bounded_by_the_case_timeout(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text("name: s\ncases:\n  - id: c\n    input: hi\n    expect: {behavior: answer}\n")
    with HostileServer("slowloris") as srv:
        result = CliRunner().invoke(
            cli,
            [
                *("run", str(suite), "--agent", f"openai:m?api_key={KEY}&transport=sdk"),
                *("--base-url", srv.url + "/v1", "-o", str(tmp_path / "run")),
                *("--no-progress", "--retries", "0", "--timeout", "2"),
            ],
        )
    assert result.exit_code in (0, 1), result.output
    (r,) = iter_results(tmp_path / "run")
    assert r.status == "error"
    assert "timeout after 2s" in (r.error or ""), r.error


def test_a_trickled_chunked_body_is_decoded_once() -> None:
    """Each piece resumes where decoding stopped: every chunk is copied once, however many
    pieces the body arrives in (it was decoded from the start on every piece: quadratic)."""
    from agentgauge.providers._h1 import _Chunks, _dechunk, _Incomplete

    wire = b"".join(b"%x\r\n" % 10 + b"0123456789\r\n" for _ in range(2000)) + b"0\r\n\r\n"
    buf = bytearray()
    state = _Chunks(0)
    sizes: list[int] = []
    for i in range(0, len(wire), 7):  # 7 bytes at a time
        buf += wire[i : i + 7]
        try:
            body, end = _dechunk(buf, state, 1 << 20)
        except _Incomplete:
            sizes.append(len(state.out))
            continue
        assert body == b"0123456789" * 2000
        assert end == len(wire)
        break
    else:
        raise AssertionError("the body never completed")
    assert sizes == sorted(sizes)  # the decoded part only grows: nothing is decoded twice
    assert state.pos > len(wire) - 20  # and decoding resumed at the last chunk


def test_a_judge_reply_over_the_cap_is_a_judge_error_on_the_case(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: s\nscorers:\n  - scorer: rubric\n    args: {name: polite, criteria: is polite}\n"
        "cases:\n  - id: c\n    input: hi\n    expect: {behavior: answer}\n"
    )
    with HostileServer("lying-length") as srv:
        judge = f"openai:j?base_url={srv.url}/v1&api_key={KEY}"
        result = CliRunner().invoke(
            cli,
            [
                *("run", str(suite), "--agent", "mock:echo", "--judge", judge),
                *("-o", str(tmp_path / "run"), "--no-progress", "--retries", "0"),
            ],
        )
    assert result.exit_code in (0, 1), result.output
    (r,) = iter_results(tmp_path / "run")
    text = r.model_dump_json()
    assert "over the limit of 1 MiB" in text, text[:2000]
    assert "Traceback" not in result.output
