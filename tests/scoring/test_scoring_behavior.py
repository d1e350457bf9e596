"""The behaviour heuristic, the date parser, and the heuristic's accuracy on When2Call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scoring_helpers import call

from agentgauge.scoring import classify_behavior
from agentgauge.scoring._dates import dates_equal, parse_date

WHEN2CALL = (
    Path(__file__).resolve().parents[2]
    / ".."
    / "shared"
    / "data"
    / "when2call"
    / "when2call_test_llm_judge.jsonl"
)


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("The capital of France is Paris.", "answer"),
        ("", "answer"),
        (None, "answer"),
        ("Which city would you like the forecast for?", "clarify"),
        ("Could you please provide your order number?", "clarify"),
        ("To book it, I need your date of birth.", "clarify"),
        ("Here is the forecast: sunny. Is there anything else I can help with?", "answer"),
        ("I found two flights. Would you like me to book one?", "answer"),
        ("Done: the table is booked. Want me to add it to your calendar?", "answer"),
        ("Do you want a window or an aisle seat?", "clarify"),
        ("I'm sorry, but I can't help with booking flights.", "refuse"),
        ("I’m unable to access your bank account.", "refuse"),  # curly apostrophe
        ("That operation is not supported by the available tools.", "refuse"),
        ("I can't book it, but here is their number: 555-0100.", "answer"),
        ("I can help with that! Just need your account number.", "clarify"),
        ("Sure! Before I book, what time works for you?", "clarify"),
        ("Unfortunately, flight booking isn't something I can do.", "refuse"),
        ("That's outside what I can do here.", "refuse"),
        ("Sorry, I don't have a tool for that.", "refuse"),
        ("There's no tool available to check stock prices.", "refuse"),
        ("It will be sunny tomorrow; you won't need an umbrella.", "answer"),
        ('{"name": "get_weather", "arguments": {"city": "Paris"}}', "tool_call"),
        ('```json\n[{"name": "f", "parameters": {}}]\n```', "tool_call"),
        ('{"temperature": 20}', "answer"),
    ],
)
def test_classify_behavior(text: str | None, label: str) -> None:
    assert classify_behavior(text, []) == label


def test_any_call_is_a_tool_call() -> None:
    assert classify_behavior("I'm sorry, I can't.", [call("f")]) == "tool_call"


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("2026-03-20", "March 20, 2026", True),
        ("2026-03-20", "20 March 2026", True),
        ("2026-03-20", "03/20/2026", True),
        ("2026-03-20", "20/03/2026", True),
        ("2026-03-20", "20.03.2026", True),
        ("2026-03-20", "Friday, March 20th, 2026", True),
        ("2026-03-20", "2026-03-20T09:30:00Z", True),  # a bare date equals any time that day
        ("2026-03-20T09:30", "March 20, 2026 at 9:30 am", True),
        ("2026-03-20T09:30", "2026-03-20 10:30", False),
        ("2026-03-20", "2026-03-21", False),
        ("2026-02-30", "2026-03-02", None),  # not a date
        ("tomorrow", "2026-03-20", None),
    ],
)
def test_dates(a: str, b: str, same: bool | None) -> None:
    assert dates_equal(a, b) is same


def test_parse_date_rejects_invalid() -> None:
    assert parse_date("2025-02-29") is None
    assert parse_date("2024-02-29") == (2024, 2, 29, "")
    assert parse_date("13/13/2026") is None


@pytest.mark.shared_data
@pytest.mark.skipif(not WHEN2CALL.exists(), reason="When2Call data absent")
def test_when2call_accuracy() -> None:
    want = {
        "direct": "answer",
        "request_for_info": "clarify",
        "cannot_answer": "refuse",
        "tool_call": "tool_call",
    }
    hits = dict.fromkeys(want, 0)
    rows = 0
    with WHEN2CALL.open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            rows += 1
            for kind, label in want.items():
                hits[kind] += classify_behavior(row["answers"][kind], []) == label
    accuracy = {k: v / rows for k, v in hits.items()}
    # measured 97.0 / 100 / 99.3 / 100 %; the floor leaves room for wording changes
    assert min(accuracy.values()) >= 0.93, accuracy
    assert sum(hits.values()) / (4 * rows) >= 0.96, accuracy
