"""The runner through the real ``openai:`` adapter against a loopback fake server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runner_helpers import make_suite

from agentgauge.io import iter_results
from agentgauge.runner import RunConfig, run_suite
from agentgauge.schema import ToolCall
from agentgauge.testing import FakeFault, FakeOpenAIServer, FakeRequest

SECRET = "sk-loopback-0123456789SECRETKEY"


def weather_reply(req: FakeRequest) -> Any:
    last = req.body["messages"][-1]
    if last["role"] == "tool":
        return f"It says {last['content']}"
    return ToolCall(name="get_weather", arguments={"city": "Paris"})


def config(url: str, tmp: Path, **kw: Any) -> RunConfig:
    return RunConfig(
        agent="openai:fake-model",
        agent_options={"base_url": url, "api_key": SECRET},
        cache_dir=tmp / "cache",
        progress=False,
        **kw,
    )


def test_tool_loop_over_http_with_streaming(tmp_path: Path) -> None:
    suite = make_suite(
        [
            {
                "id": f"w{i}",
                "input": f"weather in Paris? ({i})",
                "tool_results": {"get_weather": {"result": {"temp_c": 21}}},
            }
            for i in range(3)
        ]
    )
    with FakeOpenAIServer(weather_reply) as server:
        out = run_suite(suite, config(server.base_url, tmp_path, stream=True), tmp_path / "r")
        assert server.count == 6
    results = list(iter_results(tmp_path / "r"))
    assert out.errors == 0
    for r in results:
        assert [m.role for m in r.messages] == ["user", "assistant", "tool", "assistant"]
        assert r.calls[0].arguments == {"city": "Paris"}
        assert r.text == 'It says {"temp_c":21}'
        assert r.ttft_ms is not None
        assert all(e.ttft_ms is not None for e in r.trace if e.kind == "model")
    assert out.record.agent == "openai:fake-model"
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_429_with_retry_after_then_success_over_http(tmp_path: Path) -> None:
    replies = [FakeFault(429, retry_after="0"), "hello"]
    with FakeOpenAIServer(replies) as server:
        run_suite(
            make_suite([{"id": "a", "input": "hi"}]),
            config(server.base_url, tmp_path),
            tmp_path / "r",
        )
        assert server.count == 2
    [r] = list(iter_results(tmp_path / "r"))
    assert r.status != "error"
    assert r.trace[0].attempts == 2


def test_401_is_an_error_without_retry(tmp_path: Path) -> None:
    with FakeOpenAIServer([FakeFault(401, message="bad key")]) as server:
        run_suite(
            make_suite([{"id": "a", "input": "hi"}]),
            config(server.base_url, tmp_path),
            tmp_path / "r",
        )
        assert server.count == 1
    [r] = list(iter_results(tmp_path / "r"))
    assert r.status == "error"
    assert r.error is not None
    assert r.error.startswith("provider error:")
    assert SECRET not in r.error
