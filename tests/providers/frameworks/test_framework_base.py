"""What every framework adapter shares: it runs its own loop, never a single model call."""

from __future__ import annotations

import anyio
import pytest

from agentgauge.errors import ProviderError
from agentgauge.providers import GenerateConfig, ModelRequest
from agentgauge.providers._frameworks._common import FrameworkAgent
from agentgauge.providers._frameworks._langgraph import LangGraphAgent
from agentgauge.providers._frameworks._openai_agents import OpenAIAgentsAgent
from agentgauge.providers._frameworks._pydantic_ai import PydanticAIAgent
from agentgauge.schema import Message


@pytest.mark.parametrize("cls", [LangGraphAgent, OpenAIAgentsAgent, PydanticAIAgent])
def test_each_adapter_refuses_a_single_model_call(cls: type[FrameworkAgent]) -> None:
    assert issubclass(cls, FrameworkAgent)
    agent = object.__new__(cls)
    agent.name = "x:agent.py:a"
    assert repr(agent) == f"{cls.__name__}(name='x:agent.py:a')"
    request = ModelRequest(messages=[Message(role="user", content="hi")], config=GenerateConfig())
    with pytest.raises(ProviderError, match="runs its own loop") as info:
        anyio.run(agent.generate, request)
    assert info.value.transient is False
