from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from agentgauge.errors import ProviderError, UserError
from agentgauge.providers import MockProvider, ModelRequest, ModelResponse, resolve_provider
from agentgauge.schema import Message, ToolCall


def _req(text: str = "hi") -> ModelRequest:
    return ModelRequest(messages=[Message(role="user", content=text)])


def _run(provider: MockProvider, *texts: str) -> list[ModelResponse]:
    async def go() -> list[ModelResponse]:
        return [await provider.generate(_req(t)) for t in texts]

    return anyio.run(go)


def test_script_items_become_responses() -> None:
    mock = MockProvider(
        [
            "hello",
            ToolCall(name="a", arguments={"x": 1}),
            [ToolCall(name="b"), ToolCall(name="c", id="mine")],
            Message(role="assistant", content="both", tool_calls=[ToolCall(name="d")]),
            lambda req: f"saw {req.messages[-1].content}",
        ]
    )
    r = _run(mock, "1", "2", "3", "4", "5")
    assert r[0].message.content == "hello"
    assert r[0].finish_reason == "stop"
    assert r[1].message.tool_calls == [ToolCall(name="a", arguments={"x": 1}, id="call_1")]
    assert r[1].finish_reason == "tool_calls"
    assert [c.id for c in r[2].message.tool_calls] == ["call_2", "mine"]
    assert r[3].message.content == "both"
    assert r[3].message.tool_calls[0].id == "call_3"
    assert r[4].message.content == "saw 5"
    assert [q.messages[-1].content for q in mock.requests] == ["1", "2", "3", "4", "5"]
    assert r[0].usage.input_tokens > 0
    assert r[0].usage.output_tokens > 0


def test_exhausted_script_raises_non_transient_error() -> None:
    mock = MockProvider(["only"])
    _run(mock, "a")
    with pytest.raises(ProviderError, match="exhausted") as info:
        _run(mock, "b")
    assert not info.value.transient
    assert mock.calls == 2


def test_repeat_last() -> None:
    mock = MockProvider(["a", "b"], repeat_last=True)
    assert [r.message.content for r in _run(mock, "1", "2", "3", "4")] == ["a", "b", "b", "b"]


def test_exception_items_are_raised_in_order() -> None:
    mock = MockProvider([ProviderError("slow down", status=429, retry_after=2.0), "ok"])
    with pytest.raises(ProviderError) as info:
        _run(mock, "x")
    assert info.value.status == 429
    assert info.value.retry_after == 2.0
    assert info.value.transient
    assert _run(mock, "y")[0].message.content == "ok"


def test_async_callable_and_model_response_items() -> None:
    async def reply(req: ModelRequest) -> ModelResponse:
        return ModelResponse(message=Message(role="assistant", content="async"), model="m")

    mock = MockProvider([reply])
    assert _run(mock, "x")[0].message.content == "async"


def test_spec_fixed_text_and_echo() -> None:
    fixed = resolve_provider("mock:")
    echo = resolve_provider("mock:echo")
    assert isinstance(fixed, MockProvider)
    assert isinstance(echo, MockProvider)
    assert [r.message.content for r in _run(fixed, "a", "b")] == ["This is a mock reply."] * 2
    assert [r.message.content for r in _run(echo, "a", "b")] == ["a", "b"]
    assert resolve_provider("mock:", text="yo").name == "mock:"
    assert _run(resolve_provider("mock:?text=yo"), "a")[0].message.content == "yo"  # type: ignore[arg-type]


def test_spec_cache_tags_follow_the_replies(tmp_path: Path) -> None:
    # the name does not say what a spec-made mock answers; the cache key must
    def tag(spec: str, **options: object) -> str:
        provider = resolve_provider(spec, **options)
        assert isinstance(provider, MockProvider)
        return provider.cache_tag

    assert tag("mock:") == tag("mock:") != tag("mock:?text=yo") == tag("mock:", text="yo")
    script = tmp_path / "s.jsonl"
    script.write_text('{"text": "one"}\n')
    first = tag(f"mock:{script}")
    assert first != tag(f"mock:{script}?repeat_last=1")
    script.write_text('{"text": "two"}\n')
    assert tag(f"mock:{script}") != first
    assert MockProvider(["x"]).cache_tag == ""


def test_spec_jsonl_script(tmp_path: Path) -> None:
    path = tmp_path / "script.jsonl"
    path.write_text(
        '{"calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}\n'
        "\n"
        '{"error": {"status": 429, "retry_after": 1}}\n'
        '{"text": "Sunny."}\n'
    )
    mock = resolve_provider(f"mock:{path}")
    assert isinstance(mock, MockProvider)
    first = _run(mock, "q")[0]
    assert first.message.tool_calls[0].name == "get_weather"
    assert first.message.tool_calls[0].arguments == {"city": "Paris"}
    with pytest.raises(ProviderError) as info:
        _run(mock, "q")
    assert (info.value.status, info.value.retry_after) == (429, 1.0)
    assert _run(mock, "q")[0].message.content == "Sunny."


def test_spec_yaml_script(tmp_path: Path) -> None:
    path = tmp_path / "script.yaml"
    path.write_text("- text: hi\n- calls: [{name: f, arguments: {a: 1}}]\n  text: calling\n")
    mock = resolve_provider(f"mock:{path}?repeat_last=1")
    r = _run(mock, "1", "2", "3")
    assert r[0].message.content == "hi"
    assert r[1].message.content == "calling"
    assert r[2].message.tool_calls[0].arguments == {"a": 1}


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ('{"txt": "x"}\n', "unknown key"),
        ("not json\n", "invalid JSON"),
        ('{"calls": [{"arguments": {}}]}\n', "needs a 'name'"),
    ],
)
def test_bad_script_files_are_user_errors(tmp_path: Path, content: str, match: str) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(content)
    with pytest.raises(UserError, match=match):
        resolve_provider(f"mock:{path}")


def test_bad_spec_is_user_error() -> None:
    with pytest.raises(UserError, match="mock:echo"):
        resolve_provider("mock:whatever")
    with pytest.raises(UserError, match="cannot read"):
        resolve_provider("mock:/nonexistent/x.jsonl")


def test_testing_package_reexports_mock() -> None:
    import agentgauge.testing as testing

    assert testing.MockProvider is MockProvider
