"""Agent callables used by test_python.py (imported by file path and by module name)."""

from __future__ import annotations

from agentgauge.errors import ProviderError
from agentgauge.providers import AgentInput, ModelRequest, ModelResponse
from agentgauge.schema import Message, ToolCall, ToolSpec, Usage


def two_args(messages: list[Message], tools: list[ToolSpec]) -> str:
    return f"{len(messages)} messages, tools: {','.join(t.name for t in tools)}"


def one_arg(agent_input: AgentInput) -> ToolCall:
    return ToolCall(name="echo", arguments={"text": agent_input.last_user_message})


async def async_agent(messages: list[Message], tools: list[ToolSpec]) -> list[ToolCall]:
    return [ToolCall(name="a"), ToolCall(name="b", arguments={"x": 1})]


def returns_dict(messages: list[Message], tools: list[ToolSpec]) -> dict[str, object]:
    return {
        "text": "hi",
        "tool_calls": [{"name": "f", "arguments": '{"k": "v"}'}],
        "usage": {"input_tokens": 3, "output_tokens": 2},
    }


def returns_response(messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
    return ModelResponse(
        message=Message(role="assistant", content="r"), usage=Usage(input_tokens=1), model="mine"
    )


def returns_none(messages: list[Message], tools: list[ToolSpec]) -> None:
    return None


def returns_int(messages: list[Message], tools: list[ToolSpec]) -> int:
    return 42


def crashes(messages: list[Message], tools: list[ToolSpec]) -> str:
    raise RuntimeError("boom with sk-abcdefghijklmnop1234")


def rate_limited(messages: list[Message], tools: list[ToolSpec]) -> str:
    raise ProviderError("slow down", status=429, retry_after=1.0)


class CustomProvider:
    name = "custom"

    async def generate(self, request: ModelRequest) -> ModelResponse:
        return ModelResponse(message=Message(role="assistant", content="from provider"))


provider_instance = CustomProvider()
NOT_CALLABLE = 3
