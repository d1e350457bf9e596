"""A LangGraph agent (a model node and a ToolNode in a StateGraph), tested as it is:

    pip install 'agentgauge[langgraph]'
    agentgauge run examples/quickstart \
        --agent langgraph:examples/frameworks/langgraph_agent.py:graph

The model is langchain-openai's ``ChatOpenAI`` (``OPENAI_API_KEY``; ``OPENAI_BASE_URL`` for an
OpenAI-compatible server); ``AGENT_MODEL`` picks the model.
"""

from __future__ import annotations

import os

from assistant_tools import INSTRUCTIONS, TOOLS
from langchain_core.messages import SystemMessage
from langchain_openai import ChatOpenAI
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition


def _model() -> ChatOpenAI:
    return ChatOpenAI(model=os.environ.get("AGENT_MODEL", "gpt-4o-mini"), temperature=0)


async def assistant(state: MessagesState) -> dict[str, list[object]]:
    messages = state["messages"]
    if not any(isinstance(m, SystemMessage) for m in messages):
        messages = [SystemMessage(INSTRUCTIONS), *messages]
    reply = await _model().bind_tools(TOOLS).ainvoke(messages)
    return {"messages": [reply]}


builder = StateGraph(MessagesState)
builder.add_node("assistant", assistant)
builder.add_node("tools", ToolNode(TOOLS))
builder.add_edge(START, "assistant")
builder.add_conditional_edges("assistant", tools_condition)
builder.add_edge("tools", "assistant")
graph = builder.compile()
