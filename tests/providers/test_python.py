"""The python: agent adapter: loading by module or file, argument styles, return forms."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from agentgauge.errors import ProviderError, UserError
from agentgauge.providers import ModelRequest, ModelResponse, Provider, resolve_provider
from agentgauge.schema import Message, ToolCall, ToolSpec

HERE = Path(__file__).resolve().parent
AGENTS_FILE = HERE / "sample_agent_pkg" / "sample_agents.py"
REPO = HERE.parents[1]
REQUEST = ModelRequest(
    messages=[
        Message(role="system", content="sys"),
        Message(role="user", content="hello there"),
    ],
    tools=[ToolSpec(name="echo"), ToolSpec(name="other")],
)


def _generate(provider: Provider) -> ModelResponse:
    async def go() -> ModelResponse:
        return await provider.generate(REQUEST)

    return anyio.run(go)


def _spec(func: str, query: str = "") -> str:
    return f"python:{AGENTS_FILE}:{func}{query}"


def test_two_argument_function_from_file() -> None:
    provider = resolve_provider(_spec("two_args"))
    assert provider.name == f"python:{AGENTS_FILE}:two_args"
    assert _generate(provider).message.content == "2 messages, tools: echo,other"


def test_one_argument_function_gets_agent_input() -> None:
    r = _generate(resolve_provider(_spec("one_arg", "?thread=0")))
    assert r.message.tool_calls == [ToolCall(name="echo", arguments={"text": "hello there"})]
    assert r.finish_reason == "tool_calls"


def test_async_function_and_tool_call_list() -> None:
    r = _generate(resolve_provider(_spec("async_agent")))
    assert [c.name for c in r.message.tool_calls] == ["a", "b"]


def test_dict_response_and_model_response() -> None:
    r = _generate(resolve_provider(_spec("returns_dict")))
    assert r.message.content == "hi"
    assert r.message.tool_calls == [ToolCall(name="f", arguments={"k": "v"})]
    assert (r.usage.input_tokens, r.usage.output_tokens) == (3, 2)
    r2 = _generate(resolve_provider(_spec("returns_response")))
    assert (r2.message.content, r2.model) == ("r", "mine")
    r3 = _generate(resolve_provider(_spec("returns_none")))
    assert r3.message.content == ""


def test_module_path_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(HERE))
    provider = resolve_provider("python:sample_agent_pkg.sample_agents:two_args")
    assert _generate(provider).message.content.startswith("2 messages")


def test_provider_object_is_used_as_is() -> None:
    provider = resolve_provider(_spec("provider_instance"))
    assert provider.name == "custom"
    assert _generate(provider).message.content == "from provider"


def test_bad_return_and_exceptions_become_provider_errors() -> None:
    with pytest.raises(ProviderError, match="returned int") as bad:
        _generate(resolve_provider(_spec("returns_int")))
    assert not bad.value.transient
    with pytest.raises(ProviderError, match="RuntimeError: boom") as crash:
        _generate(resolve_provider(_spec("crashes")))
    assert not crash.value.transient
    assert "sk-abcdefghijklmnop1234" not in str(crash.value)
    with pytest.raises(ProviderError) as limited:
        _generate(resolve_provider(_spec("rate_limited")))
    assert (limited.value.status, limited.value.transient) == (429, True)


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("python:nocolon", "expected 'python:package.module:function'"),
        ("python:no_such_module_xyz:f", "cannot import"),
        (f"python:{AGENTS_FILE}:missing", "has no attribute"),
        (f"python:{AGENTS_FILE}:NOT_CALLABLE", "not callable"),
        ("python:/nonexistent/agent.py:f", "no such file"),
        (f"python:{AGENTS_FILE}:two_args?colour=red", "unknown option"),
    ],
)
def test_bad_specs(spec: str, match: str) -> None:
    with pytest.raises(UserError, match=match):
        resolve_provider(spec)


def test_example_python_agent() -> None:
    example = REPO / "examples" / "python_agent" / "agent.py"
    if not example.is_file():
        pytest.skip("examples/python_agent is absent")
    provider = resolve_provider(f"python:{example}:agent")
    weather = ToolSpec(name="get_weather")

    async def go(messages: list[Message]) -> ModelResponse:
        return await provider.generate(ModelRequest(messages=messages, tools=[weather]))

    r = anyio.run(go, [Message(role="user", content="What's the weather in Paris right now?")])
    assert r.message.tool_calls == [ToolCall(name="get_weather", arguments={"city": "Paris"})]
    follow = [
        Message(role="user", content="weather in Paris?"),
        r.message,
        Message(role="tool", name="get_weather", content='{"temperature": 18}'),
    ]
    assert "18" in (anyio.run(go, follow).message.content or "")


def test_cache_tag_changes_when_the_agent_or_a_sibling_module_changes(tmp_path: Path) -> None:
    import os

    agent_file = tmp_path / "my_agent.py"
    agent_file.write_text("def agent(messages, tools):\n    return 'v1'\n")
    helper = tmp_path / "helpers.py"
    helper.write_text("X = 1\n")
    (tmp_path / "notes.txt").write_text("not code")
    tag = resolve_provider(f"python:{agent_file}:agent").cache_tag  # type: ignore[attr-defined]
    assert tag.startswith("src:")
    (tmp_path / "notes.txt").write_text("still not code")
    assert resolve_provider(f"python:{agent_file}:agent").cache_tag == tag  # type: ignore[attr-defined]
    # the module is imported once per process; the tag reads the files again
    os.utime(helper, ns=(10**18, 10**18))
    edited = resolve_provider(f"python:{agent_file}:agent").cache_tag  # type: ignore[attr-defined]
    assert edited != tag
    os.utime(agent_file, ns=(2 * 10**18, 2 * 10**18))
    assert resolve_provider(f"python:{agent_file}:agent").cache_tag != edited  # type: ignore[attr-defined]


def test_cache_tag_of_builtins_and_provider_objects() -> None:
    from agentgauge.providers._python import PythonProvider, source_tag

    assert source_tag(len) == ""
    assert PythonProvider(len, name="python:len").cache_tag == ""  # type: ignore[arg-type]
    assert source_tag(PythonProvider).startswith("src:")  # a class: its module's folder
