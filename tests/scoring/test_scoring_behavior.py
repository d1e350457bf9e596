"""The behaviour heuristic, the date parser, and the heuristic's accuracy on When2Call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scoring_helpers import call

from agentgauge._dates import dates_equal, parse_date
from agentgauge.io import json_text_calls
from agentgauge.scoring import classify_behavior

WHEN2CALL = (
    Path(__file__).resolve().parents[2]
    / ".."
    / "shared"
    / "data"
    / "when2call"
    / "when2call_test_llm_judge.jsonl"
)
LABELS = Path(__file__).with_name("behavior_labels.jsonl")


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
        # a tool call written as text is no call (tool selection sees none): read as text
        ('{"name": "get_weather", "arguments": {"city": "Paris"}}', "answer"),
        ('```json\n[{"name": "f", "parameters": {}}]\n```', "answer"),
        ('{"temperature": 20}', "answer"),
    ],
)
def test_classify_behavior(text: str | None, label: str) -> None:
    assert classify_behavior(text, []) == label


# each new rule, with a reply the old rules got wrong (issue 17)
@pytest.mark.parametrize(
    ("text", "label"),
    [
        # "I'm sorry, but ..." is how bad news starts, not a refusal by itself
        ("I'm sorry, but the skirt is out of stock in size M.", "answer"),
        ("Apologies, but that item has been discontinued.", "answer"),
        ("I'm sorry, but I can't help with that.", "refuse"),
        # a stated limit of what the assistant can do
        ("I'm sorry, but I can only set reminders for specific times.", "refuse"),
        ("Sorry, I'm only able to search for flights, not book them.", "refuse"),
        ("I only have tools for managing your calendar, not your email.", "refuse"),
        ("The available functions only let me view your subscription.", "refuse"),
        ("I'm sorry, but the tools I have can't change a reservation.", "refuse"),
        ("Booking train tickets isn't available through this assistant.", "refuse"),
        ("Regrettably, translating documents is beyond what I can do.", "refuse"),
        ("I can only find one flight on that date: BA 117 at 08:30.", "answer"),
        # an acknowledgement before a wh-question ("would you like me to" is then no closer)
        ("Sure, for which date would you like me to check?", "clarify"),
        ("Okay, so for which city do you need the forecast?", "clarify"),
        ("Got it, when would you like to leave?", "clarify"),
        ("Happy to! I'll just need the flight number.", "clarify"),
        # offers of more help
        ("The invoice was paid on 3 March. What else can I do for you?", "answer"),
        ("That is 118.20 euros. Would you like me to convert another amount?", "answer"),
    ],
)
def test_classify_behavior_rules_added_for_issue_17(text: str, label: str) -> None:
    assert classify_behavior(text, []) == label


def _labelled() -> list[tuple[str, str, str]]:
    with LABELS.open(encoding="utf-8") as fh:
        return [(d["text"], d["label"], d["set"]) for d in map(json.loads, fh) if d]


def test_labelled_set_accuracy() -> None:
    """Our own labelled replies (tests/scoring/behavior_labels.jsonl, written for the project).

    ``set: fresh`` replies were written after the rules were tuned and measured once before any
    further change: 88.5 % (23 of 26); the old rules scored 69.2 % on them. All 90 are right now;
    the floor leaves room for a rule change that trades one reply for several others.
    """
    items = _labelled()
    assert len(items) >= 80
    assert {label for _, label, _ in items} == {"answer", "clarify", "refuse"}
    wrong = [(t, want, classify_behavior(t, [])) for t, want, _ in items]
    wrong = [w for w in wrong if w[1] != w[2]]
    assert len(wrong) <= len(items) * 0.05, wrong
    for label in ("answer", "clarify", "refuse"):
        of_label = [t for t, want, _ in items if want == label]
        missed = [w for w in wrong if w[1] == label]
        assert len(missed) <= len(of_label) * 0.1, missed


@pytest.mark.parametrize(
    ("text", "label"),
    [
        (
            "I'm sorry, but the skirt is out of stock in size M. "
            "It should be back in stores next Friday.",
            "answer",
        ),
        ("Sure, for which date would you like me to check?", "clarify"),
        ("I'm sorry, but I can only set reminders for specific times.", "refuse"),
    ],
)
def test_the_three_replies_of_issue_17(text: str, label: str) -> None:
    assert classify_behavior(text, []) == label
    assert (text, label) in {(t, lab) for t, lab, _ in _labelled()}


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
                text = row["answers"][kind]
                # scored as recorded responses are: a whole-JSON tool call is read as calls
                calls = json_text_calls(text) or []
                hits[kind] += classify_behavior(text, calls) == label
    accuracy = {k: v / rows for k, v in hits.items()}
    # measured 98.0 / 100 / 99.3 / 100 % (all 300 rows); the floor leaves room for wording changes
    assert min(accuracy.values()) >= 0.93, accuracy
    assert sum(hits.values()) / (4 * rows) >= 0.96, accuracy
