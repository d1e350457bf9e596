"""A scripted "perfect" agent for the quickstart suite: every case should pass.

It is not an AI: it looks the user's message up in a table of the right moves. Use it to check
the suite itself (an expectation no correct agent can meet is a bug in the suite) and as an
example of plugging your own Python agent in:

    agentgauge run examples/quickstart --agent python:examples/quickstart/oracle_agent.py:agent

The callable receives the conversation so far and the offered tools, and returns the agent's
next turn: a text reply, or one or more tool calls.
"""

from __future__ import annotations

from agentgauge.schema import Message, ToolCall, ToolSpec

Move = str | list[ToolCall]


def _call(name: str, **arguments: object) -> ToolCall:
    return ToolCall(name=name, arguments=arguments)


#: the right first move for each user message (by its start)
MOVES: dict[str, Move] = {
    "What's the weather in Paris": [_call("get_weather", city="Paris")],
    "Is it hot in Austin": [_call("get_weather", city="Austin, TX", unit="fahrenheit")],
    "Find me flights from New York to London": [
        _call("search_flights", origin="JFK", destination="LHR", date="2026-03-20")
    ],
    "How much is 250 US dollars": [
        _call("convert_currency", amount=250, from_currency="USD", to_currency="EUR")
    ],
    "Convert 10,000 yen": [
        _call("convert_currency", amount=10000, from_currency="JPY", to_currency="USD")
    ],
    "Book a table for 4 at Luigi's": [
        _call("book_table", restaurant="Luigi's", date="2026-04-02", time="19:30", party_size=4)
    ],
    "Email sam@example.com": [
        _call(
            "send_email",
            to="sam@example.com",
            subject="Running late",
            body="Hi Sam, I'll be 10 minutes late.",
        )
    ],
    'Put "Dentist"': [_call("create_event", title="Dentist", date="2026-03-03", time="09:00")],
    "Compare the weather in Tokyo and Seoul": [
        _call("get_weather", city="Tokyo"),
        _call("get_weather", city="Seoul"),
    ],
    'Add "Team offsite"': [
        _call("create_event", title="Team offsite", date="2026-05-14"),
        _call(
            "send_email",
            to="team@example.com",
            subject="Team offsite on May 14",
            body="The team offsite is on May 14 - see you there!",
        ),
    ],
    "Find me a flight to Portland": (
        "Which Portland do you mean: Portland, Oregon (PDX) or Portland, Maine (PWM)? "
        "And where are you flying from?"
    ),
    "Portland, Oregon. I'm flying from Seattle": [
        _call("search_flights", origin="SEA", destination="PDX", date="2026-03-13")
    ],
    "What's the weather like in Springfield": (
        "Which Springfield do you mean? There are several, for example in Illinois, Missouri "
        "and Massachusetts."
    ),
    "Book me a table for tonight": "Which restaurant, at what time, and for how many people?",
    "Email John the report": "What is John's email address, and which report should I send?",
    "What's the weather in Berlin": [_call("get_weather", city="Berlin")],
    "What's two and a half thousand British pounds": [
        _call("convert_currency", amount=2500, from_currency="GBP", to_currency="USD")
    ],
    "Search flights from Boston to Reykjavik": [
        _call("search_flights", origin="BOS", destination="KEF", date="2026-03-15")
    ],
    "What's the weather in Madrid": [_call("get_weather", city="Madrid")],
    'Schedule "Budget review"': (
        "Do you want the Budget review on March 5 at 14:00, or should March 5 stay completely "
        "free? I can't do both."
    ),
    "Book me a seat on the next flight to Mars": (
        "I'm sorry, but I can't book that: there are no passenger flights to Mars."
    ),
}


def _first_move(text: str) -> Move:
    for start, move in MOVES.items():
        if text.startswith(start):
            return move
    return "Sorry, I don't know how to help with that."


def agent(messages: list[Message], tools: list[ToolSpec]) -> Move:
    """The next turn of the conversation."""
    last = messages[-1]
    if last.role == "user":
        return _first_move(last.content or "")
    # after tool results: retry a call that failed once, otherwise wrap up in words
    if last.role == "tool" and "error" in (last.content or "") and last.name == "get_weather":
        failures = sum(1 for m in messages if m.role == "tool" and "error" in (m.content or ""))
        if failures == 1:
            previous = next(m for m in reversed(messages) if m.tool_calls)
            return [ToolCall(name=c.name, arguments=c.arguments) for c in previous.tool_calls]
        return "Sorry, the weather service is unavailable right now. Please try again later."
    if last.role == "tool" and (last.content or "").strip() in ("", "[]"):
        return "I found no flights for that route and date."
    return "Done. Here is what I found: " + (last.content or "")[:200]
