"""Agent frameworks as the agent under test: adapters that run a user's agent unchanged.

Each adapter (``openai-agents:``, ``langgraph:``, ``pydantic-ai:``) lives in its own module and
imports its framework only when used. They share the contract of :mod:`._turn`: the runner
hands the adapter an :class:`AgentTurn`, the framework runs its own loop, and the adapter
reports each model reply (``record_model``) and sends each tool call through ``call_tool`` (the
suite's simulation in ``mock`` mode, the agent's own tool in ``real`` mode), observed through the
framework's own hooks.
"""
