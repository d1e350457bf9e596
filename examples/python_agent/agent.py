"""A small hand-written agent for the quickstart tools: keyword routing plus regular expressions.

It shows the ``python:`` agent contract: a function that receives the conversation so far and
the tools on offer, and returns its next turn — text, or tool calls. Run it with::

    agentgauge run examples/quickstart --agent python:examples/python_agent/agent.py:agent

No model is involved, so its results show what the suite checks rather than what a model knows.
"""

from __future__ import annotations

import json
import re

from agentgauge.schema import Message, ToolCall, ToolSpec

CURRENCIES = {
    "dollar": "USD",
    "usd": "USD",
    "euro": "EUR",
    "eur": "EUR",
    "yen": "JPY",
    "jpy": "JPY",
    "pound": "GBP",
    "gbp": "GBP",
}


def _weather(text: str) -> ToolCall | str:
    match = re.search(r"\bin ([A-Z][a-zA-Z]+(?: [A-Z][a-zA-Z]+)*)", text)
    if not match:
        return "Which city would you like the weather for?"
    arguments: dict[str, object] = {"city": match.group(1)}
    if "fahrenheit" in text.lower():
        arguments["unit"] = "fahrenheit"
    return ToolCall(name="get_weather", arguments=arguments)


def _currency(text: str) -> ToolCall | str:
    amount = re.search(r"(\d[\d,]*(?:\.\d+)?)", text)
    codes = [code for word, code in CURRENCIES.items() if word in text.lower()]
    codes = list(dict.fromkeys(codes))  # keep the order of first mention, drop repeats
    if not amount or len(codes) < 2:
        return "Which amount and which two currencies should I convert between?"
    value = float(amount.group(1).replace(",", ""))
    return ToolCall(
        name="convert_currency",
        arguments={"amount": value, "from_currency": codes[0], "to_currency": codes[1]},
    )


def _email(text: str) -> ToolCall | str:
    address = re.search(r"[\w.+-]+@[\w-]+\.[\w.]+", text)
    if not address:
        return "Who should I send the email to?"
    subject = re.search(r"subject '([^']+)'", text)
    body = text.split(" and tell them ", 1)[-1] if " and tell them " in text else text
    return ToolCall(
        name="send_email",
        arguments={
            "to": address.group(0),
            "subject": subject.group(1) if subject else "Message",
            "body": body.strip(),
        },
    )


ROUTES = [
    (("weather", "temperature", "hot", "cold", "rain"), "get_weather", _weather),
    (("convert", "dollars in", "euros", "yen"), "convert_currency", _currency),
    (("email", "mail "), "send_email", _email),
]


def agent(messages: list[Message], tools: list[ToolSpec]) -> str | ToolCall:
    """Route the latest user request to one tool by keywords, or answer in text."""
    last = messages[-1]
    if last.role == "tool":
        # a tool answered: summarise its result, or report its error
        try:
            result = json.loads(last.content or "null")
        except json.JSONDecodeError:
            return "The tool returned something I could not read; please try again later."
        if isinstance(result, dict) and "error" in result:
            return f"Sorry, that did not work: {result['error']}"
        return f"Done. Result: {json.dumps(result)}"
    text = next((m.content or "" for m in reversed(messages) if m.role == "user"), "")
    offered = {t.name for t in tools}
    lowered = text.lower()
    for keywords, tool, build in ROUTES:
        if tool in offered and any(k in lowered for k in keywords):
            return build(text)
    return "I can help with weather, currency conversion and email. What would you like?"
