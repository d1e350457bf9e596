"""What kind of reply the agent gave: a tool call, a direct answer, a clarifying question, or a
refusal — a deterministic, documented heuristic (see docs/scoring.md), replaceable through
``ScoringConfig.behavior_classifier``.

Rules, in order:

1. any tool call → ``tool_call``. A reply whose whole text is a JSON tool call
   (``{"name": ..., "arguments": ...}``, or a list of them) is not a call by itself: given as
   text it is an ``answer``, as tool selection sees no call either; recorded responses decode it
   into real calls first (:func:`json_text_calls`);
2. a question (or a "please provide/specify…" request) asking the user for missing information
   → ``clarify``; polite closers ("Is there anything else I can help with?", "Would you like more
   details?") do not count;
3. a refusal, a statement that the request is not supported, or a stated limit of scope ("I
   can't", "I'm unable to", "not supported", "I don't have access", "I can only set reminders
   for…") → ``refuse``; "I'm sorry, but…" alone is not one ("I'm sorry, but it is sold out" is
   an answer);
4. anything else, including an empty reply → ``answer``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from ..formats import json_text_calls
from ..schema import ToolCall

__all__ = ["BEHAVIORS", "classify_behavior"]

BEHAVIORS: Final = ("tool_call", "answer", "clarify", "refuse")

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})

_I_AM = r"(?:i'm|i am)"
_REFUSE = re.compile(
    r"\b(?:"
    rf"i (?:can ?not|can't|cannot|won't|will not|lack the|have no (?:way|access|tool))"
    rf"|{_I_AM} (?:currently |simply |afraid (?:that )?i'm )?(?:unable|not able|not (?:designed|"
    r"equipped|capable|programmed|authori[sz]ed|allowed|permitted))"
    r"|i (?:don't|do not) have (?:access|the (?:ability|capability|capabilities|tools?|means|"
    r"functionality|"
    r"permissions?)|any (?:way|tool|function|access)|an? (?:way|tool|function)|real-time)"
    r"|unable to (?:assist|help|provide|perform|process|access|complete|fulfil|fulfill|do|retrieve)"
    r"|(?:is|are) not (?:supported|possible)|(?:isn't|aren't) (?:supported|possible)"
    r"|not (?:currently )?supported"
    r"|(?:doesn't|does not|don't|do not) (?:support|allow)"
    r"|beyond (?:my|the scope)|outside (?:of )?(?:my|the) (?:scope|capabilities)|not within my"
    r"|outside (?:of )?what i can|not something i (?:can|am able|'m able)"
    r"|(?:isn't|is not) something i (?:can|am able|'m able)"
    r"|(?:no|none of the) (?:available )?(?:tools?|functions?) "
    r"(?:can|could|that|to|available|is|are|for|provided)"
    r"|not (?:able|possible) (?:for me )?to"
    # a stated limit of what the assistant can do ("I can only set reminders for ...")
    r"|i can only (?:help|assist|answer|handle|do|support|provide|perform|set|book|make|"
    r"process|search|look up|access|use|work|deal|offer|schedule|create|manage|give|check)"
    rf"|{_I_AM} only (?:able|designed|built|programmed|set up|equipped) to"
    r"|i only have (?:access|tools?|functions?|the ability)"
    r"|(?:my|the) (?:available )?(?:tools?|functions?) only (?:let|allow|cover|support|handle)"
    r"|(?:my|the) (?:available )?(?:tools?|functions?)(?: (?:i have|available(?: to me)?))? "
    r"(?:can't|cannot|can not|don't|do not|won't)"
    r"|(?:isn't|aren't|is not|are not|not) available (?:through|via|with|from|in) "
    r"(?:this|me|my|the (?:available )?(?:tools?|functions?))"
    r"|beyond what i(?: can|'m able| am able)"
    r")"
)
# the agent states what it needs from the user (without a question mark)
_NEED = re.compile(
    r"(?:^\W*(?:i |we )?(?:just |only |first,? )?need (?:your|the|a|an|to know|more|some)\b)"
    r"|\b(?:(?:i|we)(?: will|'ll| would|'d)?(?: just| only| also| first)? need "
    r"(?:to (?:know|confirm|verify|clarify)|the|your|more|some|"
    r"additional|further|a|an)"
    r"|please (?:provide|specify|let me know|tell me|share|confirm|clarify|give|send|indicate|"
    r"enter|select|choose))"
)
# questions that offer more help or ask to go ahead, rather than asking for missing information
_CLOSER = re.compile(
    r"\b(?:anything else|something else|what else|any other (?:questions?|help|way)|other questions"
    r"|would you like (?:more|any (?:more|further|other|additional)|additional|further|help with"
    r"|me to|to (?:see|book|order|proceed|reserve|purchase|buy|go ahead|continue|hear|try|know|"
    r"learn|view|get|"
    r"have|make|explore|provide|help|give|find|look|show|tell|explain|share|check))"
    r"|(?:shall|should|can|may) i (?:proceed|go ahead|continue|help|assist|book|place|confirm)"
    r"|(?:do you |would you )?want me to|how (?:else )?can i (?:help|assist)"
    r"|is there (?:anything|something)"
    r"|need (?:any )?(?:more|further|other) (?:help|assistance))"
)
_SUGGESTION = re.compile(r"^(?:\W*)(?:how|what) about\b")
# after a refusal, a concrete way forward makes the reply an answer ("I can't book it, but their
# number is ...")
_BUT_HERE = re.compile(r"\b(?:however|but),? (?:i can(?!'t| ?not| only)|here(?:'s| is| are))")
# a leading acknowledgement before the question itself ("Sure, for which date ...?")
_INTERJECTION = re.compile(
    r"^\W*(?:(?:sure(?: thing)?|ok(?:ay)?|alright|all right|great|got it|of course|certainly|"
    r"absolutely|no problem|perfect|happy to help|glad to help|thanks?(?: you)?|understood|"
    r"i see|right)\b[\s,!.:;\u2014-]*)+"
)
# offers of more help phrased as a wh-question ("What else can I do for you?")
_OFFER = re.compile(
    r"\b(?:anything|something|what) else\b|\bhow (?:else )?can i (?:help|assist)"
    r"|\bany other questions\b"
)
_WH_QUESTION = re.compile(
    r"^\W*(?:(?:in|for|at|on|from|to|and|so|then|also|but),? ){0,2}"
    r"(?:which|what|when|where|who|whom|whose|how (?:many|much|long|old|often|far|soon))\b"
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def _asks(t: str) -> bool:
    """Whether ``t`` (lower-case) asks the user for missing information."""
    for sentence in _SENTENCE_END.split(t):
        s = sentence.strip().strip("\"'")
        if not s:
            continue
        if (
            s.endswith("?")
            and not _OFFER.search(s)
            and _WH_QUESTION.search(_INTERJECTION.sub("", s))
        ):
            return True
        if _CLOSER.search(s):
            continue
        if s.endswith("?"):
            if not _SUGGESTION.search(s):
                return True
        elif _NEED.search(s):
            return True
    return False


def classify_behavior(text: str | None, calls: Sequence[ToolCall]) -> str:
    """``tool_call``, ``answer``, ``clarify`` or ``refuse`` for a reply (see the module rules)."""
    if calls:
        return "tool_call"
    if not text or not text.strip():
        return "answer"
    if json_text_calls(text) is not None:
        # a tool call written as text is not a call: tool selection sees no call, and so do we
        return "answer"
    t = text.translate(_APOSTROPHES).lower()
    if _asks(t):
        return "clarify"
    if _REFUSE.search(t) and not _BUT_HERE.search(t):
        return "refuse"
    return "answer"
