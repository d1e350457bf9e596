"""Recorded conversations of a case with a simulated user (``agentgauge score``) are graded as
a run grades them: the user's recorded messages checked against its instructions, ``expect``
on the whole conversation."""

from __future__ import annotations

from pathlib import Path

from user_helpers import CLARIFY_CASE, suite_of

from agentgauge.exchange import read_responses
from agentgauge.io import iter_results
from agentgauge.runner import score_responses
from agentgauge.scoring import ScoringConfig


def _line(*messages: tuple[str, str] | tuple[str, str, dict[str, str]]) -> str:
    import json

    out = []
    for m in messages:
        role, content = m[0], m[1]
        item: dict[str, object] = {"role": role, "content": content}
        if len(m) == 3:
            item = {"role": role, "tool_calls": [{"name": "get_order", "arguments": m[2]}]}
        out.append(item)
    return json.dumps({"case_id": "clarify-order", "messages": out})


def _score(tmp_path: Path, line: str) -> str:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "responses.jsonl"
    path.write_text(line + "\n")
    out = tmp_path / "run"
    score_responses(suite_of([CLARIFY_CASE]), read_responses(path), out, ScoringConfig())
    [r] = list(iter_results(out))
    return f"{r.status}: {r.explanation}"


ASKED = ("assistant", "What is your order number?")


def test_a_recorded_conversation_is_graded_whole(tmp_path: Path) -> None:
    call = ("assistant", "", {"order_id": "A7"})
    good = _line(("user", "Where is my order?"), ASKED, ("user", "It is A7."), call,
                 ("assistant", "It has shipped."))  # fmt: skip
    assert _score(tmp_path / "good", good) == "passed: "
    wrong = _line(("user", "Where is my order?"), ASKED, ("user", "It is A7."),
                  ("assistant", "", {"order_id": "A1"}))  # fmt: skip
    assert _score(tmp_path / "wrong", wrong).startswith("failed: ")


def test_a_recorded_user_that_gave_a_fact_unasked_is_a_user_error(tmp_path: Path) -> None:
    line = _line(("user", "Where is my order?"), ("assistant", "How can I help?"),
                 ("user", "Order A7."), ("assistant", "", {"order_id": "A7"}))  # fmt: skip
    assert _score(tmp_path, line).startswith("user_error: user error: gave the fact 'order_id'")
