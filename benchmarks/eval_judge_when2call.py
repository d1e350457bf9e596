"""Behaviour classification on When2Call's ready responses: deterministic classifier vs judge.

Each When2Call test row carries four responses to one request: ``direct`` (an answer),
``tool_call`` (a JSON tool call written as text), ``request_for_info`` (a clarifying question)
and ``cannot_answer`` (a refusal). Two paths label each response:

- (a) the deterministic classifier ``agentgauge.scoring.classify_behavior`` (no model);
- (b) the judge path: the ``behavior`` judge task (``agentgauge.judges``), by default with the
  rule-based ``mock:judge``; pass ``--judge openai:gpt-4o-mini`` (etc.) to measure a real judge
  (calls are cached in ``$AGENTGAUGE_CACHE_DIR``).

Prints accuracy per behaviour and overall for both, and the judge's confusion matrix.

    python benchmarks/eval_judge_when2call.py [--data PATH.jsonl] [--judge SPEC] [--limit N]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from agentgauge.judges import BEHAVIOR_LABELS, Judge, JudgeConfig, JudgeError

DEFAULT_DATA = (
    Path(__file__).resolve().parents[1].parent
    / "shared"
    / "data"
    / "when2call"
    / "when2call_test_llm_judge.jsonl"
)
KINDS = ("direct", "tool_call", "request_for_info", "cannot_answer")


@dataclass
class Tally:
    """(expected kind, predicted kind) counts of one path."""

    pairs: Counter[tuple[str, str]]
    errors: int = 0

    def accuracy(self, kind: str) -> float:
        total = sum(c for (k, _), c in self.pairs.items() if k == kind)
        return self.pairs[kind, kind] / total if total else 0.0

    def overall(self) -> float:
        total = sum(self.pairs.values())
        return sum(c for (k, p), c in self.pairs.items() if k == p) / total if total else 0.0


def rows(path: Path, limit: int | None = None) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            if limit is not None and i >= limit:
                return
            yield json.loads(line)


def _tool_names(row: dict[str, Any]) -> str:
    names = []
    for t in row.get("tools") or []:
        try:
            spec = json.loads(t) if isinstance(t, str) else t
            names.append(f"{spec.get('name')}: {spec.get('description', '')}")
        except (ValueError, AttributeError):
            continue
    return "\n".join(names) or "(none)"


def evaluate_classifier(path: Path, limit: int | None = None) -> Tally | None:
    """Path (a): the deterministic classifier; None when the scoring module lacks it."""
    try:
        from agentgauge.scoring import classify_behavior
        from agentgauge.scoring._behavior import json_text_calls
    except ImportError:
        return None
    to_kind = {v: k for k, v in BEHAVIOR_LABELS.items()}
    pairs: Counter[tuple[str, str]] = Counter()
    for row in rows(path, limit):
        for kind in KINDS:
            text = row["answers"][kind]
            # as recorded responses are read: a whole-JSON tool call is a real call
            label = classify_behavior(text, json_text_calls(text) or [])
            pairs[kind, to_kind.get(label, label)] += 1
    return Tally(pairs)


async def evaluate_judge(judge: Judge, path: Path, limit: int | None = None) -> Tally:
    """Path (b): the ``behavior`` judge task."""
    tally = Tally(Counter())
    for row in rows(path, limit):
        tools = _tool_names(row)
        for kind in KINDS:
            try:
                r = await judge.evaluate(
                    "behavior",
                    {
                        "question": row["question"],
                        "tools": tools,
                        "agent_output": row["answers"][kind],
                    },
                )
            except JudgeError:
                tally.errors += 1
                continue
            tally.pairs[kind, r.verdict or "?"] += 1
    return tally


def _print(name: str, tally: Tally) -> None:
    cells = "  ".join(f"{k}={tally.accuracy(k):.3f}" for k in KINDS)
    errors = f"  judge_errors={tally.errors}" if tally.errors else ""
    print(f"{name:<28} {cells}  overall={tally.overall():.3f}{errors}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--judge", default="mock:judge", help="judge spec (default mock:judge)")
    parser.add_argument("--limit", type=int, default=None, help="first N rows only")
    parser.add_argument("--samples", type=int, default=1, help="judge majority vote over N")
    args = parser.parse_args()
    if not args.data.is_file():
        raise SystemExit(f"no When2Call data at {args.data}")
    n = sum(1 for _ in rows(args.data, args.limit))
    print(f"When2Call: {n} rows x 4 responses from {args.data.name}")
    classifier = evaluate_classifier(args.data, args.limit)
    if classifier is not None:
        _print("(a) classify_behavior", classifier)
    judge = Judge.from_config(JudgeConfig(spec=args.judge, samples=args.samples))
    tally = anyio.run(evaluate_judge, judge, args.data, args.limit)
    _print(f"(b) judge {args.judge}", tally)
    print("\njudge confusion (rows: true kind, columns: judge label)")
    print(" " * 18 + "".join(k[:14].rjust(16) for k in KINDS))
    for k in KINDS:
        print(k.ljust(18) + "".join(str(tally.pairs[k, p]).rjust(16) for p in KINDS))


if __name__ == "__main__":
    main()
