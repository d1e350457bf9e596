"""A suite's ``mcp_servers:`` made into what the agent's vendor is given: each server's token read
from the environment variable the suite names (registered as a secret), after the endpoint rule
(``_suite_code``: a suite sends one of the user's tokens to a URL it names only with the user's
opt-in)."""

from __future__ import annotations

import os

from .._suite_code import EndpointRefused, SuiteCodePolicy, connector_use
from ..errors import UserError
from ..providers import McpConnector, Provider, register_secret
from ..schema import Suite

__all__ = ["check_connectors", "refuse_unattachable", "suite_connectors"]

#: the agents a suite's ``mcp_servers`` can be given to (docs/providers.md)
_TAKERS = (
    "anthropic:MODEL, openai:MODEL?api=responses, openai-agents: or pydantic-ai:; "
    "or drop mcp_servers"
)


def _where(suite_path: str | None) -> str:
    """``file:line: `` of the suite's ``mcp_servers`` (``""`` when the suite has no file)."""
    if suite_path is None:
        return ""
    from ..suites import read_suite

    try:
        origin = read_suite(suite_path).origin
    except UserError:
        return f"{suite_path}: "
    line = origin.locator.line((*origin.path, "mcp_servers"))
    return f"{origin.file}:{line}: " if line is not None else f"{origin.file}: "


def refuse_unattachable(suite: Suite, provider: Provider, suite_path: str | None) -> None:
    """A UserError (``file:line: mcp_servers: ...``) when the suite has MCP servers that
    ``provider`` cannot attach: never run a suite with its servers silently left out."""
    if suite.mcp_servers and not getattr(provider, "mcp_connector", False):
        raise UserError(
            f"{_where(suite_path)}mcp_servers: the agent {provider.name} cannot be given the "
            f"suite's MCP servers (use {_TAKERS})"
        )


def check_connectors(suite: Suite, policy: SuiteCodePolicy) -> None:
    """Raise :class:`EndpointRefused` for the first server whose token would go to a URL the
    suite names without the user's opt-in (or whose token variable names a vendor's key)."""
    for server in suite.mcp_servers:
        use = connector_use(
            server.name, server.url, server.token_env, opt_in=policy.endpoint_opt_in
        )
        if use is not None and use.problem is not None:
            raise EndpointRefused(use.problem)


def suite_connectors(
    suite: Suite, policy: SuiteCodePolicy, provider: Provider
) -> tuple[McpConnector, ...]:
    """The suite's MCP servers for ``provider`` (empty: none); a UserError when the provider
    cannot attach them (its API or its framework) or a token variable is not set."""
    if not suite.mcp_servers:
        return ()
    refuse_unattachable(suite, provider, None)
    check_connectors(suite, policy)
    out: list[McpConnector] = []
    for i, server in enumerate(suite.mcp_servers):
        token: str | None = None
        if server.token_env is not None:
            token = os.environ.get(server.token_env) or None
            if token is None:
                raise UserError(
                    f"mcp_servers[{i}].token_env: set {server.token_env} (the token of MCP "
                    f"server {server.name!r})"
                )
            register_secret(token)
        out.append(
            McpConnector(name=server.name, url=server.url, token=token, tools=tuple(server.tools))
        )
    return tuple(out)
