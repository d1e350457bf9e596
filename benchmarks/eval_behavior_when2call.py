"""Accuracy of the built-in behaviour heuristic on When2Call's ready-made responses.

Each When2Call test row carries four responses to the same request: ``direct`` (an answer),
``tool_call`` (a JSON tool call written as text, the way prompt-mode models write it; read as
real calls first, as recorded responses are),
``request_for_info`` (a clarifying question) and ``cannot_answer`` (a refusal). The classifier
should label them ``answer``, ``tool_call``, ``clarify`` and ``refuse``.

The rows are split, with a fixed seed, into two disjoint halves: ``dev`` (the only rows to read
while changing the rules) and ``test`` (held out: the figures in docs/scoring.md). ``all`` is the
whole file. ``--labels`` scores a JSONL file of ``{"text", "label"}`` replies instead (by default
the project's own labelled set, tests/scoring/behavior_labels.jsonl).

Usage::

    python benchmarks/eval_behavior_when2call.py                 # held-out test split
    python benchmarks/eval_behavior_when2call.py --split dev --errors 30
    python benchmarks/eval_behavior_when2call.py --labels        # the project's labelled set
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from agentgauge.scoring import classify_behavior
from agentgauge.scoring._behavior import json_text_calls

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared" / "data" / "when2call" / "when2call_test_llm_judge.jsonl"
LABELS = ROOT / "tests" / "scoring" / "behavior_labels.jsonl"
#: the split seed: changing it changes the held-out rows (and the figures in the docs)
SEED = "agentgauge-behavior-when2call-1"
EXPECTED = {
    "direct": "answer",
    "tool_call": "tool_call",
    "request_for_info": "clarify",
    "cannot_answer": "refuse",
}
LABELS_ORDER = ("answer", "tool_call", "clarify", "refuse")

Confusion = Counter[tuple[str, str]]


def load_rows(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def split_rows(rows: list[dict[str, Any]], split: str) -> list[dict[str, Any]]:
    """The ``dev`` or ``test`` half of ``rows`` (a seeded shuffle by uuid), or ``all``."""
    if split == "all":
        return rows
    ordered = sorted(rows, key=lambda r: str(r["uuid"]))
    random.Random(SEED).shuffle(ordered)
    half = len(ordered) // 2
    return ordered[:half] if split == "test" else ordered[half:]


def when2call_replies(rows: Iterable[dict[str, Any]]) -> Iterator[tuple[str, str]]:
    """(expected label, reply text) for each of the four ready responses of each row."""
    for row in rows:
        for kind, want in EXPECTED.items():
            yield want, row["answers"][kind]


def label_replies(path: Path) -> Iterator[tuple[str, str]]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                item = json.loads(line)
                yield item["label"], item["text"]


def classify(text: str) -> str:
    """The label a recorded text reply gets when scored: a whole-JSON tool call is first read as
    real calls (as ``read_responses`` does), then ``classify_behavior`` labels the reply."""
    calls = json_text_calls(text) or []
    return classify_behavior(text, calls)


def evaluate(replies: Iterable[tuple[str, str]]) -> tuple[Confusion, list[tuple[str, str, str]]]:
    """The confusion counts (expected, got) and the misclassified replies."""
    confusion: Confusion = Counter()
    wrong: list[tuple[str, str, str]] = []
    for want, text in replies:
        got = classify(text)
        confusion[want, got] += 1
        if got != want:
            wrong.append((want, got, text))
    return confusion, wrong


def report(confusion: Confusion) -> list[str]:
    labels = [x for x in LABELS_ORDER if any(w == x or g == x for w, g in confusion)]
    lines = ["expected \\ got  " + "  ".join(f"{x:>9}" for x in labels)]
    for want in labels:
        lines.append(f"{want:>14}  " + "  ".join(f"{confusion[want, got]:>9}" for got in labels))
    for want in labels:
        total = sum(c for (w, _), c in confusion.items() if w == want)
        if total:
            lines.append(f"accuracy {want:<9} {confusion[want, want] / total:6.1%} of {total}")
    total = sum(confusion.values())
    hits = sum(confusion[x, x] for x in labels)
    lines.append(f"accuracy overall   {hits / total:6.1%} ({hits} of {total})")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--split", choices=("test", "dev", "all"), default="test")
    parser.add_argument(
        "--labels",
        nargs="?",
        type=Path,
        const=LABELS,
        default=None,
        help="score a labelled JSONL file instead (default: tests/scoring/behavior_labels.jsonl)",
    )
    parser.add_argument(
        "--errors", type=int, default=0, help="print this many misclassified replies"
    )
    args = parser.parse_args()
    if args.labels is not None:
        print(f"labelled replies: {args.labels}")
        confusion, wrong = evaluate(label_replies(args.labels))
    else:
        rows = split_rows(load_rows(args.path), args.split)
        print(f"When2Call {args.split} split: {len(rows)} rows x 4 responses (seed {SEED!r})")
        confusion, wrong = evaluate(when2call_replies(rows))
    print("\n".join(report(confusion)))
    for want, got, text in wrong[: args.errors]:
        print(f"- expected {want}, got {got}: {text[:200]!r}")


if __name__ == "__main__":
    main()
