"""Where a suite's tools may come from besides its own file: a running MCP server."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from .._factories import new_dict, new_list
from ._base import Model

#: how tool calls are answered: ``mock`` by the suite's simulations (reproducible), ``real`` by
#: the tools themselves (an MCP server, a framework agent's own tools), faults still injected
ToolMode = Literal["mock", "real"]


class McpSource(Model):
    """An MCP server to take tools from: a command started over stdio, or a streamable-HTTP URL.

    A ``command`` is code the suite runs: it starts only with the user's opt-in
    (``--allow-suite-code``; docs/suite-format.md, "Code a suite can run"). A ``url`` runs no
    code here, but in ``real`` tool mode the agent's tool calls are sent to it.
    """

    #: the server's command line, e.g. ``[python, server.py]`` (run in the suite's folder)
    command: list[str] | None = Field(default=None, min_length=1)
    #: a streamable-HTTP endpoint, e.g. ``http://127.0.0.1:8000/mcp``
    url: str | None = None
    #: extra environment variables for a ``command``
    env: dict[str, str] = Field(default_factory=new_dict)
    #: take only these tools (empty: every tool the server lists)
    tools: list[str] = Field(default_factory=new_list)
    #: seconds allowed to start, connect and list the tools
    timeout_s: float = Field(default=30.0, gt=0)

    @model_validator(mode="after")
    def _one_transport(self) -> McpSource:
        if (self.command is None) == (self.url is None):
            raise ValueError("give exactly one of 'command' (stdio) or 'url' (streamable HTTP)")
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise ValueError(f"url must start with http:// or https://, got {self.url!r}")
        return self

    @property
    def target(self) -> str:
        """The command line or URL, as shown in messages and run.json."""
        return " ".join(self.command) if self.command is not None else str(self.url)


class ToolSource(Model):
    """``tools_from:`` of a suite; today one kind, ``mcp``."""

    mcp: McpSource


class ConnectorServer(Model):
    """A remote MCP server the model's vendor calls for the model (``mcp_servers:`` of a suite):
    Anthropic's MCP connector (``mcp_servers`` of the Messages API, beta
    ``mcp-client-2025-04-04``) and the Responses API's ``mcp`` tool. Its calls are made by the
    API, not by agentgauge; they come back in the reply marked as MCP calls
    (docs/bring-your-agent.md, "MCP servers the vendor calls").

    The URL and the token are untrusted input: the token is never written in the suite, only
    the name of the environment variable that holds it (``token_env``), and a suite that sends
    one of the user's tokens to a URL it names needs ``--allow-suite-endpoints``.
    """

    #: the server's label in the request and in the reply's calls (letters, digits, ``_``, ``-``)
    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    #: the server's streamable-HTTP endpoint, e.g. ``https://mcp.example.com/mcp``
    url: str = Field(min_length=1, max_length=2048)
    #: the environment variable holding the server's bearer token (never the token itself)
    token_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
    #: offer only these tools of the server (empty: every tool it lists)
    tools: list[Annotated[str, Field(min_length=1, max_length=128)]] = Field(
        default_factory=new_list, max_length=256
    )

    @model_validator(mode="after")
    def _plain_url(self) -> ConnectorServer:
        scheme, sep, rest = self.url.partition("://")
        if not sep or scheme not in ("http", "https") or not rest.split("/", 1)[0]:
            raise ValueError("url must be an http:// or https:// URL")
        if "@" in rest.split("/", 1)[0] or "?" in self.url or "#" in self.url:
            raise ValueError(
                "url must not hold a user, password, query or fragment (a token goes in "
                "token_env, the name of an environment variable)"
            )
        return self
