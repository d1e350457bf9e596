"""An OpenAI Agents SDK agent, tested as it is:

    pip install 'agentgauge[openai-agents]'
    agentgauge run examples/quickstart \
        --agent openai-agents:examples/frameworks/openai_agents_agent.py:agent

The SDK's usual model client is used (``OPENAI_API_KEY``; ``OPENAI_BASE_URL`` for an
OpenAI-compatible server); ``AGENT_MODEL`` picks the model.
"""

from __future__ import annotations

import os

from agents import Agent, function_tool
from assistant_tools import INSTRUCTIONS, TOOLS

agent = Agent(
    name="assistant",
    instructions=INSTRUCTIONS,
    tools=[function_tool(fn) for fn in TOOLS],
    model=os.environ.get("AGENT_MODEL", "gpt-4o-mini"),
)
