"""Accuracy of the built-in behaviour heuristic on When2Call's ready-made responses.

Each When2Call test row carries four responses to the same request: ``direct`` (an answer),
``tool_call`` (a JSON tool call, given here as text the way prompt-mode models write it),
``request_for_info`` (a clarifying question) and ``cannot_answer`` (a refusal). The classifier
should label them ``answer``, ``tool_call``, ``clarify`` and ``refuse``.

Usage: ``python benchmarks/eval_behavior_when2call.py [PATH.jsonl] [--errors N]``
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from agentgauge.scoring import classify_behavior

DEFAULT = (
    Path(__file__).resolve().parents[1]
    / ".."
    / "shared"
    / "data"
    / "when2call"
    / "when2call_test_llm_judge.jsonl"
)
EXPECTED = {
    "direct": "answer",
    "tool_call": "tool_call",
    "request_for_info": "clarify",
    "cannot_answer": "refuse",
}


def evaluate(
    path: Path,
) -> tuple[dict[str, float], Counter[tuple[str, str]], list[tuple[str, str, str]]]:
    """Per-response-kind accuracy, the confusion counts and the misclassified texts."""
    confusion: Counter[tuple[str, str]] = Counter()
    wrong: list[tuple[str, str, str]] = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            for kind, want in EXPECTED.items():
                text = row["answers"][kind]
                got = classify_behavior(text, [])
                confusion[want, got] += 1
                if got != want:
                    wrong.append((want, got, text))
    accuracy = {}
    for want in EXPECTED.values():
        total = sum(c for (w, _), c in confusion.items() if w == want)
        accuracy[want] = confusion[want, want] / total if total else 0.0
    return accuracy, confusion, wrong


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument(
        "--errors", type=int, default=0, help="print this many misclassified replies"
    )
    args = parser.parse_args()
    accuracy, confusion, wrong = evaluate(args.path)
    labels = list(EXPECTED.values())
    print("expected \\ got  " + "  ".join(f"{x:>9}" for x in labels))
    for want in labels:
        print(f"{want:>14}  " + "  ".join(f"{confusion[want, got]:>9}" for got in labels))
    for want, acc in accuracy.items():
        print(f"accuracy {want:<9} {acc:.1%}")
    total = sum(confusion.values())
    print(f"accuracy overall   {sum(confusion[x, x] for x in labels) / total:.1%} of {total}")
    for want, got, text in wrong[: args.errors]:
        print(f"- expected {want}, got {got}: {text[:200]!r}")


if __name__ == "__main__":
    main()
