"""An MCP server for agentgauge's tests: the quickstart's tools, answered for real.

Run over stdio (``python quick_server.py``) or streamable HTTP on loopback
(``python quick_server.py --http PORT``). Written with the official ``mcp`` SDK.
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("quickstart-tools")


@server.tool()
def get_weather(city: str, unit: str = "celsius") -> dict[str, object]:
    """Current weather for a city."""
    if city.lower() == "atlantis":
        raise ValueError("unknown city: Atlantis")
    temperature = 64 if unit == "fahrenheit" else 18
    return {"temperature": temperature, "unit": unit, "conditions": f"served live for {city}"}


@server.tool()
def search_flights(origin: str, destination: str, date: str) -> list[dict[str, object]]:
    """Search flights between two airports on a date."""
    return [
        {"flight": f"{origin}{destination}1", "departs": "08:05", "date": date, "price_usd": 401}
    ]


@server.tool()
def convert_currency(amount: float, from_currency: str, to_currency: str) -> dict[str, object]:
    """Convert an amount of money between currencies."""
    return {
        "converted": round(amount * 0.9, 2),
        "rate": 0.9,
        "pair": f"{from_currency}/{to_currency}",
    }


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
