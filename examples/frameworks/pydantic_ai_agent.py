"""A pydantic-ai agent, tested as it is:

    pip install 'agentgauge[pydantic-ai]'
    agentgauge run examples/quickstart \
        --agent pydantic-ai:examples/frameworks/pydantic_ai_agent.py:agent

The model is pydantic-ai's OpenAI chat model (``OPENAI_API_KEY``; ``OPENAI_BASE_URL`` for an
OpenAI-compatible server); ``AGENT_MODEL`` picks the model.
"""

from __future__ import annotations

import os

from assistant_tools import INSTRUCTIONS, TOOLS
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel

agent = Agent(
    OpenAIChatModel(os.environ.get("AGENT_MODEL", "gpt-4o-mini")),
    instructions=INSTRUCTIONS,
    tools=TOOLS,
)
