"""An offline stand-in judge, so the example runs without an API key (not a real judge).

It reads what agentgauge sends any judge: the rubric in the system message and the reply,
fenced as data, in the user message; it answers the rubric's JSON. Use a real model for
real work: ``--judge openai:gpt-4o-mini``.
"""

from __future__ import annotations

import json
import re
from typing import Any


def grade(messages: list[Any], tools: list[Any]) -> str:
    user = messages[-1].content or ""
    match = re.search(r"<agent_output[^>]*>(.*?)</agent_output>", user, re.DOTALL)
    reply = (match.group(1) if match else "").lower()
    apologises = "sorry" in reply or "apolog" in reply
    dated = re.search(r"\d{4}-\d{2}-\d{2}", reply) is not None
    score = 5 if apologises and dated else 3 if dated else 1
    why = f"apology: {'yes' if apologises else 'no'}; new date: {'yes' if dated else 'no'}"
    return json.dumps({"reasoning": why, "score": score})
