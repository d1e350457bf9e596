"""Resolve a spec string such as ``openai:gpt-4o-mini`` to a provider instance."""

from __future__ import annotations

import importlib
from typing import Any

from ..errors import UserError
from ._base import Provider

#: spec prefix -> "module:factory"; each factory is called as factory(rest_of_spec, **options)
_FACTORIES: dict[str, str] = {
    "openai": "agentgauge.providers._openai:create",
    "azure": "agentgauge.providers._openai:create_azure",
    "anthropic": "agentgauge.providers._anthropic:create",
    "gemini": "agentgauge.providers._gemini:create",
    "local": "agentgauge.providers._local:create",
    "python": "agentgauge.providers._python:create",
    "http": "agentgauge.providers._http:create",
    "https": "agentgauge.providers._http:create",
    "mock": "agentgauge.providers._mock:create",
    # agent frameworks: a user's agent object, run unchanged (docs/bring-your-agent.md)
    "openai-agents": "agentgauge.providers._frameworks._openai_agents:create",
    "langgraph": "agentgauge.providers._frameworks._langgraph:create",
    "pydantic-ai": "agentgauge.providers._frameworks._pydantic_ai:create",
}


def spec_problem(spec: str) -> str | None:
    """Why ``spec`` names no provider (an unknown or missing prefix), or None.

    Only the prefix is checked: nothing is imported or created (``validate`` uses this).
    """
    prefix, sep, _ = spec.partition(":")
    if sep and prefix in _FACTORIES:
        return None
    from .._messages import did_you_mean

    hint = did_you_mean(f"{prefix}:", [f"{p}:" for p in _FACTORIES]) if sep else ""
    return f"unknown provider spec '{spec}'{hint or f' (expected one of {_known()})'}"


def _known() -> str:
    return ", ".join(f"{p}:" for p in _FACTORIES)


def resolve_provider(spec: str, **options: Any) -> Provider:
    """Create the provider a spec names.

    ``options`` are adapter settings such as ``base_url``; unknown specs raise a UserError
    listing the known prefixes.
    """
    prefix, sep, rest = spec.partition(":")
    if not sep or prefix not in _FACTORIES:
        raise UserError(f"--agent: unknown agent spec '{spec}' (expected one of {_known()})")
    if prefix in ("http", "https"):
        rest = spec
    module_name, _, attr = _FACTORIES[prefix].partition(":")
    factory = getattr(importlib.import_module(module_name), attr)
    provider = factory(rest, **options)
    assert isinstance(provider, Provider)
    return provider
