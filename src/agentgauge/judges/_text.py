"""Small text helpers shared by the rule judge and the deterministic checks."""

from __future__ import annotations

import re
from typing import Final

from ..scoring import extract_numeric, tokens

_SENT_RE = re.compile(r"(?<=[.!?])\s+|\n+")

STOPWORDS: Final = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "then",
        "so",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "i",
        "you",
        "he",
        "she",
        "we",
        "they",
        "me",
        "him",
        "her",
        "us",
        "them",
        "my",
        "your",
        "our",
        "their",
        "his",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "do",
        "does",
        "did",
        "done",
        "have",
        "has",
        "had",
        "having",
        "will",
        "would",
        "shall",
        "should",
        "can",
        "could",
        "may",
        "might",
        "must",
        "not",
        "no",
        "yes",
        "please",
        "just",
        "also",
        "very",
        "too",
        "than",
        "into",
        "about",
        "over",
        "under",
        "up",
        "down",
        "out",
        "any",
        "all",
        "some",
        "each",
        "more",
        "most",
        "other",
        "such",
        "only",
        "own",
        "same",
        "let",
        "me",
        "i'm",
        "i'll",
        "i've",
        "you're",
        "it's",
        "that's",
        "there's",
        "can't",
        "don't",
        "won't",
        "isn't",
        "aren't",
        "didn't",
        "doesn't",
        "would",
        "like",
        "want",
        "need",
        "know",
        "sure",
        "okay",
        "ok",
        "thanks",
        "thank",
        "hello",
        "am",
        "pm",
        "hi",
    ]
)

#: a few aliases so "NYC" and "New York" compare equal (the rule judge is a mock, not a lexicon)
_ALIASES: Final = {
    "nyc": "new york",
    "ny": "new york",
    "sf": "san francisco",
    "la": "los angeles",
    "uk": "united kingdom",
    "usa": "united states",
    "us": "united states",
    "city": "",
    "location": "",
    "place": "",
}

_REFUSAL_RE = re.compile(
    r"\b(?:can(?:no|')t|cannot|unable|not able|isn't possible|not possible|not supported|"
    r"don't have (?:access|the ability|a tool|any tool)|do not have (?:access|the ability)|"
    r"no (?:tool|function|way) (?:to|for|available)|unfortunately|not allowed|beyond my)",
    re.IGNORECASE,
)
_FAILURE_RE = re.compile(
    r"\b(?:fail(?:ed|ure)?|error|couldn't|could not|unavailable|down|timed? ?out|try again|"
    r"retry|problem|issue|unable|didn't work|did not work)\b",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(
    r"^(?:which|what|when|where|who|how|could you|can you|would you|do you|please (?:provide|"
    r"specify|tell|confirm))\b",
    re.IGNORECASE,
)


def content_tokens(text: str) -> set[str]:
    """Tokens that carry meaning: stopwords and numbers dropped (numbers are compared by
    :func:`numbers_in`), a few aliases expanded."""
    out: set[str] = set()
    for tok in tokens(text):
        alias = _ALIASES.get(tok)
        words = alias.split() if alias is not None else [tok]
        out.update(_stem(w) for w in words if w not in STOPWORDS and not w[0].isdigit())
    return out


def _stem(word: str) -> str:
    """A crude plural/verb-s stem: ``tuesdays`` -> ``tuesday``, ``opens`` -> ``open``."""
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss") and word.isalpha():
        return word[:-1]
    return word


def numbers_in(text: str) -> set[str]:
    """The normalised numeric values and date keys in ``text``."""
    out: set[str] = set()
    for m in extract_numeric(text):
        if m.value is not None:
            out.add(f"{m.value:g}")
        out.update(k for k in m.keys if not k.startswith("--") or len(m.keys) == 1)
    return out


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENT_RE.split(text) if s.strip()]


def is_question(text: str) -> bool:
    t = text.strip()
    return "?" in t or bool(_QUESTION_START.match(t))


def is_refusal(text: str) -> bool:
    return bool(_REFUSAL_RE.search(text))


def has_failure_words(text: str) -> bool:
    return bool(_FAILURE_RE.search(text))


__all__ = [
    "STOPWORDS",
    "content_tokens",
    "has_failure_words",
    "is_question",
    "is_refusal",
    "numbers_in",
    "sentences",
]
