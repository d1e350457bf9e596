"""The help-centre search of the knowledge example: a keyword search over ``ARTICLES`` (no
model, deterministic), returning the best three articles as ``{"hits": [{"id", "title",
"text"}]}`` — the ids the suite's ``modules.retrieval`` reads (``ids: hits[].id``).

It runs as suite code (``simulation: {function: kb.py:search}``), so a run needs
``--allow-suite-code``.
"""

from __future__ import annotations

import re
from typing import Any

ARTICLES: list[dict[str, str]] = [
    {
        "id": "kb-eu-roaming",
        "title": "Roaming in the EU",
        "text": "EU roaming is included in every plan: you pay home prices in every EU country.",
    },
    {
        "id": "kb-world-roaming",
        "title": "Roaming outside the EU",
        "text": "Outside the EU roaming costs 2 EUR a day with the World add-on.",
    },
    {
        "id": "kb-voicemail",
        "title": "Voicemail",
        "text": "Dial 121 and follow the prompts to set your voicemail PIN and greeting.",
    },
    {
        "id": "kb-porting",
        "title": "Keep your number",
        "text": "Ask your old provider for a PAC code to keep your number; the switch takes a day.",
    },
    {
        "id": "kb-plans",
        "title": "Plans and prices",
        "text": "Basic 15 EUR, Plus 25 EUR, Unlimited 35 EUR a month; every plan is monthly.",
    },
    {
        "id": "kb-esim",
        "title": "eSIM",
        "text": "Every plan supports eSIM: scan the QR code in the app.",
    },
    {
        "id": "kb-contract",
        "title": "Cancel a contract",
        "text": "Cancel your contract with 30 days' notice in the app or by phone.",
    },
    {
        "id": "kb-billing",
        "title": "Your bill",
        "text": "Your bill is sent on the first of the month; pay by card or direct debit.",
    },
]

_WORD = re.compile(r"[a-z0-9]+")
_TOP = 3


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def search(query: str) -> dict[str, Any]:
    """The articles sharing the most words with ``query`` (title and text), best first."""
    asked = _words(query)
    scored = []
    for article in ARTICLES:
        overlap = len(asked & _words(article["title"] + " " + article["text"]))
        if overlap:
            scored.append((-overlap, article["id"], article))
    hits = [a for _, _, a in sorted(scored)[:_TOP]]
    return {"hits": [dict(a) for a in hits]}
