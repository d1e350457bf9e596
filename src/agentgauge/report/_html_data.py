"""What the HTML report shows about each result: its details (transcript, scores, trace), and
the latencies its histogram is drawn from.

Agent output is untrusted: :func:`script_json` escapes every ``<``, ``>`` and ``&`` of the data
the page embeds or loads (a ``</script>`` in a transcript cannot close the element) and the
page's script only ever sets ``textContent``, never ``innerHTML``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..metrics import scorer_scale
from ..schema import CaseResult, JsonValue, Score, TraceEvent
from ._state import diff_cells, record_rows, write_text

__all__ = [
    "EXACT_LATENCIES",
    "MAX_ROW_TEXT",
    "MAX_TEXT",
    "Bin",
    "LatencyBins",
    "clip",
    "histogram",
    "script_json",
    "transcript",
]

#: longest string kept in an embedded transcript (message text, tool results, arguments)
MAX_TEXT = 20_000
#: longest explanation kept in a table row (the case's details keep the whole one)
MAX_ROW_TEXT = 240


def clip(text: str, limit: int = MAX_TEXT) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"… [{len(text) - limit} more characters not shown]"


def _json_text(value: JsonValue) -> str:
    if isinstance(value, str):
        return clip(value)
    try:
        return clip(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode())
    except TypeError:  # an integer beyond 64 bits (orjson's limit), e.g. in tool arguments
        import json

        return clip(json.dumps(value, indent=2, ensure_ascii=False))


def script_json(data: Any) -> str:
    """JSON safe to place inside ``<script type="application/json">`` (no ``</script>``)."""
    raw = orjson.dumps(data).decode()
    return (
        raw.replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _on_own_scale(s: Score) -> str:
    """A score's value on the scale it is read on (``3.00 on 1–5`` for a 1..5 judge), or ``""``
    on 0..1 (the page shows the value itself)."""
    name = s.name.split("].", 1)[1] if s.name.startswith("turn[") and "]." in s.name else s.name
    lo, hi = scorer_scale(name, s.scale)
    if (lo, hi) == (0.0, 1.0):
        return ""
    return f"{lo + s.value * (hi - lo):.2f} on {lo:g}–{hi:g}"


def _flat(scores: list[Score], depth: int = 0) -> Iterator[tuple[Score, int]]:
    """Scores with their parts (e.g. one per argument) right after them, two levels deep."""
    for s in scores:
        yield s, depth
        if depth < 2:
            yield from _flat(s.parts, depth + 1)


def _kept(d: dict[str, Any]) -> dict[str, Any]:
    """``d`` without the keys whose value is ``""`` or ``[]`` (the page fills them back in):
    on a big run's sidecar that is a fifth of the bytes."""
    return {k: v for k, v in d.items() if v != "" and v != []}


def transcript(r: CaseResult) -> dict[str, Any]:
    """Everything an opened case shows: messages, calls, scores, and the trace timing (keys
    whose value is empty are left out); with a world, its state."""
    out = _kept(_transcript(r))
    if r.world is not None:
        out["state"] = _state(r)
    return out


def _simulated(r: CaseResult) -> dict[int, str]:
    """The user messages a simulated user wrote (after the agent's first reply), by index:
    shown as ``user · simulated user (scripted)``, not as the case's own input."""
    if r.user is None:
        return {}
    first = next((i for i, m in enumerate(r.messages) if m.role == "assistant"), len(r.messages))
    label = f"simulated user ({r.user.kind})"
    return {i: label for i, m in enumerate(r.messages) if i > first and m.role == "user"}


def _transcript(r: CaseResult) -> dict[str, Any]:
    start = min((e.start for e in r.trace), default=0.0)
    simulated = _simulated(r)
    return {
        "messages": [
            _kept(
                {
                    "role": m.role,
                    "content": clip(m.content) if m.content else "",
                    "name": m.name or simulated.get(i, ""),
                    "tool_call_id": m.tool_call_id or "",
                    "tool_calls": [
                        _kept(
                            {"name": c.name, "arguments": _json_text(c.arguments), "id": c.id or ""}
                        )
                        for c in m.tool_calls
                    ],
                }
            )
            for i, m in enumerate(r.messages)
        ],
        "calls": [_kept({"name": c.name, "arguments": _json_text(c.arguments)}) for c in r.calls],
        "text": clip(r.text) if r.text else "",
        "error": clip(r.error) if r.error else "",
        "explanation": clip(r.explanation),
        "behavior": r.behavior or "",
        "expected_behavior": r.expected_behavior or "",
        "expected_tools": r.expected_tools,
        "scores": [
            _kept(
                {
                    "name": s.name,
                    "depth": depth,
                    "value": round(s.value, 4),
                    "scaled": _on_own_scale(s),
                    "passed": s.passed,
                    "explanation": clip(s.explanation, 2000),
                    "expected": s.expected or "",
                    "actual": s.actual or "",
                }
            )
            for s, depth in _flat(r.scores)
        ],
        "trace": [
            _kept(
                {
                    "kind": e.kind,
                    "turn": e.turn,
                    "offset_ms": round((e.start - start) * 1000, 1),
                    "latency_ms": round(e.latency_ms, 1),
                    "name": _step_name(e),
                    "arguments": _json_text(e.arguments) if e.arguments is not None else "",
                    "result": _json_text(e.result) if e.result is not None else "",
                    "tokens": [e.usage.input_tokens, e.usage.output_tokens] if e.usage else None,
                    "ttft_ms": round(e.ttft_ms, 1) if e.ttft_ms is not None else None,
                    "cost_usd": round(e.cost_usd, 6) if e.cost_usd is not None else "",
                    "cached": e.cached,
                    "attempts": e.attempts,
                    "fault": e.fault or "",
                    "error": clip(e.error, 2000) if e.error else "",
                    "writes": [write_text(w) for w in e.writes],
                }
            )
            for e in r.trace
        ],
        "usage": [r.usage.input_tokens, r.usage.output_tokens],
        "model_calls": r.model_calls,
        "tool_calls": r.tool_calls,
        "cost_usd": r.cost_usd,
        "ttft_ms": r.ttft_ms,
        "step_limit_hit": r.step_limit_hit,
        "user": _user(r),
    }


def _step_name(e: TraceEvent) -> str:
    """A trace step's label: the tool, the model, or the simulated user (and its model)."""
    if e.kind == "tool":
        return e.tool or ""
    if e.kind == "user":
        return "simulated user" + (f" · {e.model}" if e.model else "")
    return e.model or ""


def _user(r: CaseResult) -> dict[str, Any] | str:
    """The simulated user's own figures (docs/users.md), apart from the agent's ("": none)."""
    u = r.user
    if u is None:
        return ""
    return _kept(
        {
            "kind": u.kind,
            "model": u.model or "",
            "template": u.template or "",
            "seed": u.seed,
            "turns": u.turns,
            "ended_by": u.ended_by,
            "error": clip(u.error, 2000) if u.error else "",
            "model_calls": u.model_calls,
            "tokens": [u.usage.input_tokens, u.usage.output_tokens],
            "cost_usd": u.cost_usd,
            "latency_ms": round(u.latency_ms, 1),
        }
    )


def _state(r: CaseResult) -> dict[str, Any]:
    """The world of an opened case: the state checks' verdict, expected vs actual per differing
    path, and the final state's records with the changed and wrong ones marked."""
    assert r.world is not None
    rows, more = record_rows(r)
    return {
        "goal_met": r.world.goal_met,
        "diff": [list(diff_cells(d)) for d in r.world.diff],
        "records": [
            {
                "path": x.path,
                "value": clip(_json_text(x.value), 2000),
                "changed": x.changed,
                "wrong": x.wrong,
            }
            for x in rows
        ],
        "more": more,
    }


@dataclass(frozen=True, slots=True)
class Bin:
    low: float
    high: float
    passed: int
    failed: int
    error: int
    #: the last bin of a long-tailed run: everything from ``low`` up to the slowest (``high``)
    overflow: bool = False

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.error


def _nice_step(raw: float) -> float:
    """The smallest of 1, 2, 2.5 or 5 × 10^k that is at least ``raw``."""
    if raw <= 0:
        return 1.0
    exp = 10.0 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if m * exp >= raw:
            return m * exp
    return 10 * exp


def histogram(latencies: list[tuple[float, str]], bins: int = 30) -> list[Bin]:
    """Equal-width bins from 0, counts split by status.

    The bins reach the slowest result, unless it is more than twice the 99th percentile (a few
    timeouts would squeeze everything else into one bar): then they reach the 99th percentile
    and the last bin, marked ``overflow``, holds everything slower.
    """
    if not latencies:
        return []
    weighted = sorted((v, _SLOT.get(status, 1), 1) for v, status in latencies)
    return _draw(weighted, bins)


_SLOT = {"passed": 0, "failed": 1, "error": 2}


def _draw(weighted: list[tuple[float, int, int]], bins: int, top: float | None = None) -> list[Bin]:
    """The bins of ``weighted``: sorted (latency, status slot, count) triples; ``top`` is the
    slowest latency when the triples only approximate it."""
    total = sum(c for _, _, c in weighted)
    top = weighted[-1][0] if top is None else top
    rank, seen, p99 = max(1, math.ceil(0.99 * total)), 0, top
    for v, _, c in weighted:
        seen += c
        if seen >= rank:
            p99 = v
            break
    tail = top > 2 * p99
    span = p99 if tail else top
    n = max(10, min(bins, 2 * math.ceil(math.sqrt(total))))
    step = _nice_step(span / n)
    count = max(1, math.ceil(span / step) + (1 if span % step == 0 else 0))
    if tail:
        count += 1
    counts = [[0, 0, 0] for _ in range(count)]
    for v, slot, c in weighted:
        counts[min(count - 1, int(v // step))][slot] += c
    out = [Bin(i * step, (i + 1) * step, p, f, e) for i, (p, f, e) in enumerate(counts)]
    if tail:
        last = out[-1]
        out[-1] = Bin(last.low, top, last.passed, last.failed, last.error, overflow=True)
    return out


#: latencies kept exactly for the histogram; past this, a 1 %-wide log histogram per status
EXACT_LATENCIES = 20_000
_LOG_STEP = math.log(1.01)


@dataclass(slots=True)
class LatencyBins:
    """The latencies the report's histogram is drawn from, gathered while results stream by.

    Exact up to :data:`EXACT_LATENCIES` results; then counts in 1 %-wide logarithmic buckets per
    status (memory bounded by the range of latencies, not their number), each bucket drawn at its
    geometric middle (so a bar's edges are right to within 1 %).
    """

    exact: list[tuple[float, str]] | None = field(default_factory=list)
    buckets: dict[tuple[int, int], int] = field(default_factory=dict)
    top: float = 0.0

    def add(self, ms: float, status: str) -> None:
        if ms <= 0:
            return
        self.top = max(self.top, ms)
        if self.exact is not None:
            self.exact.append((ms, status))
            if len(self.exact) <= EXACT_LATENCIES:
                return
            pending, self.exact = self.exact, None
            for v, st in pending:
                self._bucket(v, st)
            return
        self._bucket(ms, status)

    def _bucket(self, ms: float, status: str) -> None:
        key = (math.floor(math.log(ms) / _LOG_STEP), _SLOT.get(status, 1))
        self.buckets[key] = self.buckets.get(key, 0) + 1

    @property
    def approximate(self) -> bool:
        return self.exact is None

    def bins(self, bins: int = 30) -> list[Bin]:
        if self.exact is not None:
            return histogram(self.exact, bins)
        weighted = sorted(
            (min(self.top, math.exp((k + 0.5) * _LOG_STEP)), slot, c)
            for (k, slot), c in self.buckets.items()
        )
        return _draw(weighted, bins, self.top)
