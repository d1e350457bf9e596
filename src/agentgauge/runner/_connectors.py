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

__all__ = ["check_connectors", "suite_connectors"]


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
    cannot hand them to its API or a token variable is not set."""
    if not suite.mcp_servers:
        return ()
    if not getattr(provider, "mcp_connector", False):
        raise UserError(
            f"mcp_servers: the agent {provider.name} cannot have its API call MCP servers "
            "(use anthropic:MODEL or openai:MODEL?api=responses, or drop mcp_servers)"
        )
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
