"""The cost of ``ToolCall``'s MCP mark (``mcp`` / ``mcp_server`` written only when set, through
``Field(exclude_if=...)``) on the dumps every run makes: a message with two calls dumped as the
cache key does (``model_dump_json(exclude_defaults=True)``) and as ``results.jsonl`` does
(``model_dump(mode="json")``).

``--shape agentgauge`` dumps ``agentgauge.schema.Message``; ``--shape plain`` the same models as
they were before the mark was written (``mcp`` excluded from every dump, no ``mcp_server``).
Instructions are exact on a loaded machine: run each shape under callgrind with ``--n 0`` and
``--n N`` and divide the difference by N::

    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        python benchmarks/bench_toolcall_dump.py --shape agentgauge --n 20000

(the ``Collected`` line is the instruction count). Without valgrind it prints the median
wall time per dump of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False, populate_by_name=True)


class PlainCall(_Model):
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None
    mcp: bool = Field(default=False, exclude=True)


class PlainMessage(_Model):
    role: str
    content: str | None = None
    tool_calls: list[PlainCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None


def _message(shape: str) -> Any:
    calls = [
        {"name": "search_flights", "arguments": {"from": "OSL", "to": "CDG"}, "id": "c1"},
        {"name": "get_weather", "arguments": {"city": "Paris"}, "id": "c2"},
    ]
    if shape == "plain":
        return PlainMessage.model_validate({"role": "assistant", "tool_calls": calls})
    from agentgauge.schema import Message

    return Message.model_validate({"role": "assistant", "tool_calls": calls})


def _dump(message: Any, n: int) -> None:
    for _ in range(n):
        message.model_dump_json(exclude_defaults=True)
        message.model_dump(mode="json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", choices=["agentgauge", "plain"], default="agentgauge")
    parser.add_argument("--n", type=int, default=20000, help="dumps (each: key + result form)")
    parser.add_argument("--repeat", type=int, default=1, help="timed runs (median printed)")
    args = parser.parse_args()
    message = _message(args.shape)
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        _dump(message, args.n)
        times.append(time.perf_counter() - t0)
    if args.n:
        per = statistics.median(times) / args.n * 1e6
        print(f"{args.shape}: {args.n} dumps, median {per:.2f} us per dump")


if __name__ == "__main__":
    main()
