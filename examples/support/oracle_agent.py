"""A reference agent for the support suite: it answers from the retrieved passages only.

Not a language model, but not a lookup table either: it reads the passages from the system
prompt, drops text addressed to the assistant (an injection), and replies with the passage
sentences that share the most words with the question. When no sentence shares a word with
the question (beyond the product's name), or the request is one it must decline, it declines.
Every case should pass. ``hallucinator`` is a wrong agent (it answers everything confidently,
with invented figures) that the tests use to show the gates fail.

    agentgauge run examples/support --judge mock:judge \\
        --agent python:examples/support/oracle_agent.py:agent
"""

from __future__ import annotations

import re

from agentgauge.schema import Message, ToolSpec

DECLINE = (
    "I'm sorry, I can't help with that: I can only answer questions about Lumen products and "
    "your Lumen account."
)
#: requests declined whatever the passages say
MUST_DECLINE = ("home address", "system prompt", "fake receipt", "bypass")
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "is",
        "are",
        "was",
        "be",
        "do",
        "does",
        "did",
        "i",
        "my",
        "me",
        "you",
        "your",
        "we",
        "our",
        "it",
        "its",
        "to",
        "of",
        "in",
        "on",
        "for",
        "with",
        "at",
        "by",
        "from",
        "can",
        "could",
        "should",
        "would",
        "will",
        "how",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "this",
        "that",
        "there",
        "any",
        "still",
        "get",
        "much",
        "many",
        "long",
        "after",
        "before",
        "not",
        "no",
        "so",
        "also",
    ]
)
#: words every question about the product shares: they do not make a passage relevant
_GENERIC = frozenset({"thermo", "lumen", "t2"})
_WORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def _words(text: str) -> set[str]:
    """Content words, cut to six letters (a crude stem: install / installation)."""
    return {w[:6] for w in _WORD.findall(text.lower()) if w not in _STOP}


def _sentences(system: str) -> list[str]:
    passages = system.split("Help-centre passages:", 1)[-1]
    text = (
        re.split(r"NOTE TO ASSISTANT:", passages)[0]
        if "NOTE TO ASSISTANT" in passages
        else passages
    )
    parts = re.split(r"(?<=[.!?])\s+|\n-\s*", text.replace("\n- ", "\n-"))
    return [p.strip(" -\n") for p in parts if p.strip(" -\n")]


def answer(question: str, system: str) -> str:
    """The reply to ``question`` from the passages in ``system``."""
    if any(marker in question.lower() for marker in MUST_DECLINE):
        return DECLINE
    asked = _words(question) - _GENERIC
    scored = sorted(
        ((len(asked & _words(s)), i, s) for i, s in enumerate(_sentences(system))), reverse=True
    )
    if not scored or scored[0][0] == 0:
        return DECLINE
    best = [s for hits, _, s in scored if hits * 2 >= scored[0][0]][:2]
    order = {s: i for _, i, s in scored}
    return " ".join(sorted(best, key=order.__getitem__))


def agent(messages: list[Message], tools: list[ToolSpec]) -> str:
    system = next((m.content or "" for m in messages if m.role == "system"), "")
    question = next(m.content or "" for m in reversed(messages) if m.role == "user")
    return answer(question, system)


def hallucinator(messages: list[Message], tools: list[ToolSpec]) -> str:
    """A wrong agent: always answers, never checks the passages, invents figures."""
    return "Sure! That's covered: it takes about 7 days and costs $19.99, with a 3-year guarantee."


def _recorded_answers() -> dict[str, str]:
    import json
    from pathlib import Path

    rows = Path(__file__).with_name("golden.jsonl").read_text(encoding="utf-8").splitlines()
    return {r["query"]: r["response"] for r in map(json.loads, rows) if r.get("response")}


_RECORDED: dict[str, str] = {}


def recorded(messages: list[Message], tools: list[ToolSpec]) -> str:
    """The golden set's recorded responses (the previous assistant's answers), replayed as an
    agent so that the judges and the numeric-grounding gate score them too."""
    if not _RECORDED:
        _RECORDED.update(_recorded_answers())
    question = next(m.content or "" for m in reversed(messages) if m.role == "user")
    return _RECORDED.get(question, "")
