"""A real MCP server for the framework adapters' ``mcp_servers`` tests, over streamable HTTP on
127.0.0.1 (``python mcp_docs_server.py PORT``), written with the official ``mcp`` SDK. It answers
only requests carrying ``Authorization: Bearer $DOCS_MCP_EXPECTED`` (401 otherwise), so a call
that succeeded proves the suite's token was sent."""

from __future__ import annotations

import os
import sys
from typing import Any

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("docs")


@server.tool()
def lookup_policy(topic: str) -> str:
    """The company's policy on a topic."""
    if topic == "secret":
        raise ToolError("no such policy: secret")  # told to the client as it is
    return f"policy on {topic}: 25 days a year"


@server.tool()
def delete_policy(topic: str) -> str:
    """Delete the company's policy on a topic."""
    return f"deleted {topic}"


def guarded(app: Any, token: str) -> Any:
    expected = f"Bearer {token}".encode()

    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != expected:
            await send({"type": "http.response.start", "status": 401, "headers": []})
            await send({"type": "http.response.body", "body": b"unauthorized"})
            return
        await app(scope, receive, send)

    return asgi


if __name__ == "__main__":
    app = guarded(server.streamable_http_app(), os.environ["DOCS_MCP_EXPECTED"])
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
