"""The quickstart's six tools as plain Python functions, shared by the three framework agents.

They stand in for your real tools: in real tool mode (``--tool-mode real``) the framework calls
them; in mock mode agentgauge answers the calls with the suite's simulations instead.
"""

from __future__ import annotations

INSTRUCTIONS = (
    "You are a helpful assistant that can call tools. Today is Sunday, 2026-03-01. If a request "
    "is ambiguous or missing information, ask one short clarifying question instead of "
    "guessing. Refuse requests that are impossible or unsafe."
)


def get_weather(city: str, unit: str = "celsius") -> dict[str, object]:
    """Current weather for a city."""
    return {"temperature": 64 if unit == "fahrenheit" else 18, "unit": unit, "conditions": "sunny"}


def search_flights(origin: str, destination: str, date: str) -> list[dict[str, object]]:
    """Search flights between two airports on a date."""
    return [{"flight": "XA101", "from": origin, "to": destination, "date": date, "price_usd": 412}]


def book_table(restaurant: str, date: str, time: str, party_size: int) -> dict[str, object]:
    """Book a restaurant table."""
    return {"status": "confirmed", "restaurant": restaurant, "when": f"{date} {time}"}


def send_email(to: str, subject: str, body: str) -> dict[str, object]:
    """Send an email."""
    return {"status": "sent", "to": to}


def convert_currency(amount: float, from_currency: str, to_currency: str) -> dict[str, object]:
    """Convert an amount of money between currencies."""
    return {"converted": round(amount * 0.918, 2), "rate": 0.918}


def create_event(title: str, date: str, time: str | None = None) -> dict[str, object]:
    """Add an event to the user's calendar."""
    return {"status": "created", "title": title, "date": date}


TOOLS = [get_weather, search_flights, book_table, send_email, convert_currency, create_event]
