"""Deterministic numeric groundedness: hand-written cases with differently formatted numbers."""

from __future__ import annotations

import pytest

from agentgauge.scoring._numeric_grounding import check_numeric_grounding, extract_numeric


def flagged(response: str, *sources: str) -> list[str]:
    return [m.text for m in check_numeric_grounding(response, list(sources)).ungrounded]


@pytest.mark.parametrize(
    ("response", "source"),
    [
        ("We have 1,000 users.", "users: 1000"),
        ("We have 1000 users.", "There are 1,000 users."),
        ("Growth was 8.5%.", "growth 8.5 percent"),
        ("Growth was 8.5 percent.", "growth: 8.5%"),
        ("Growth was 8.5 per cent.", "growth 8.5%"),
        ("Rain chance is 80%.", '{"rain_chance": 0.8}'),
        ("Rain chance is 0.8.", "80% chance of rain"),
        ("It costs $1,200.", '{"price": 1200}'),
        ("It costs USD 1200.00.", "price $1,200"),
        ("Revenue was $1.2k.", '{"revenue": 1234}'),
        ("Revenue was $3m.", "revenue 3,000,000"),
        ("About 2.5 million people.", "population 2500000"),
        ("It is 18.4 degrees.", '{"temp_c": 18.37}'),
        ("The price is 8.50 euros.", "price 8.5"),
        ("Arrives on March 20, 2026.", '{"eta": "2026-03-20"}'),
        ("Arrives on 20 March 2026.", "eta 03/20/2026"),
        ("Arrives on 2026-03-20.", "ETA: Mar 20, 2026"),
        ("Arrives on the 20th of March.", "eta 2026-03-20"),
        ("Opens at 9 am.", "open 09:00-18:00"),
        ("Closes at 6:00 pm.", "open 09:00-18:00"),
    ],
)
def test_same_number_in_another_format_is_grounded(response: str, source: str) -> None:
    assert flagged(response, source) == []


@pytest.mark.parametrize(
    ("response", "source", "bad"),
    [
        ("We have 1,200 users.", "users: 1000", ["1,200"]),
        ("Growth was 9.5%.", "growth 8.5%", ["9.5%"]),
        ("It costs $120.", '{"price": 1200}', ["$120"]),
        ("It is 19.4 degrees.", '{"temp_c": 18.37}', ["19.4"]),
        ("Arrives on March 21, 2026.", '{"eta": "2026-03-20"}', ["March 21, 2026"]),
        ("Arrives on March 20, 2027.", '{"eta": "2026-03-20"}', ["March 20, 2027"]),
        ("Opens at 10 am.", "open 09:00", ["10 am"]),
        ("Your balance is $2,340 and fee 3%.", "balance 2340", ["3%"]),
    ],
)
def test_ungrounded_numbers_are_flagged(response: str, source: str, bad: list[str]) -> None:
    assert flagged(response, source) == bad


def test_numbers_inside_identifiers_are_not_claims() -> None:
    texts = [m.text for m in extract_numeric("Use GPT-4 with ref QX7P and call_1, v1.2.")]
    assert texts == []


def test_percent_and_date_kinds() -> None:
    kinds = [m.kind for m in extract_numeric("8.5% on 2026-03-20 at 9:40, $5 and 7")]
    assert kinds == ["percent", "date", "time", "amount", "number"]


def test_ambiguous_slash_date_keeps_both_readings() -> None:
    assert flagged("Due 04/05/2026.", "due 2026-05-04") == []
    assert flagged("Due 04/05/2026.", "due 2026-04-05") == []


def test_explanation_and_ignore_list() -> None:
    g = check_numeric_grounding("Step 1: pay $42 by May 3.", ["nothing here"])
    assert [m.text for m in g.ungrounded] == ["1", "$42", "May 3"]
    assert g.explain().startswith("3 of 3 numbers/dates not found")
    g2 = check_numeric_grounding("Step 1: pay $42.", ["total 42"], ignore=[1])
    assert g2.passed
    assert check_numeric_grounding("No numbers.", []).explain().startswith("no numbers")
