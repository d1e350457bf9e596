"""Speed of the OpenTelemetry export and of capture, on synthetic results.

Medians over ``--runs`` in this process, for ``--cases`` results of one tool call each (two model
calls, one tool call: four spans per case):

- **export**: ``results_to_otlp`` and ``json.dumps`` of the document (what ``export-otel -o``
  writes);
- **capture**: ``capture_cases`` on that export read back from disk (parse, group by trace,
  rebuild each conversation, validate each case).

    python benchmarks/bench_otel.py                   # 5 runs, 5,000 cases
    python benchmarks/bench_otel.py --cases 20000 --runs 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from agentgauge.io import OtelExport, capture_cases, results_to_otlp
from agentgauge.schema import CaseResult, Message, Score, ToolCall, TraceEvent, Usage


def _results(n: int) -> list[CaseResult]:
    one = CaseResult(
        case_id="c",
        status="failed",
        score=0.5,
        scores=[Score(name="tool_calls", value=0.5, passed=False, explanation="city: 'Lyon'")],
        messages=[
            Message(role="user", content="Weather in Paris?"),
            Message(
                role="assistant",
                tool_calls=[ToolCall(id="1", name="get_weather", arguments={"city": "Lyon"})],
            ),
            Message(role="tool", tool_call_id="1", name="get_weather", content='{"t": 18}'),
            Message(role="assistant", content="18 degrees."),
        ],
        trace=[
            TraceEvent(
                kind="model", start=1.0, end=1.5, latency_ms=500, model="m",
                usage=Usage(input_tokens=10, output_tokens=5),
            ),
            TraceEvent(
                kind="tool", start=1.5, end=1.6, latency_ms=100, tool="get_weather",
                arguments={"city": "Lyon"}, result={"t": 18},
            ),
            TraceEvent(kind="model", start=1.6, end=2.0, latency_ms=400, model="m"),
        ],
    )  # fmt: skip
    return [one.model_copy(update={"case_id": f"c{i}"}) for i in range(n)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    results = _results(args.cases)
    export = OtelExport(run_id="bench", agent="mock:")
    times: list[float] = []
    body = ""
    for _ in range(args.runs):
        t0 = time.perf_counter()
        body = json.dumps(results_to_otlp(results, export))
        times.append(time.perf_counter() - t0)
    median = statistics.median(times)
    print(f"export   {args.cases} cases: {median:.2f}s median, {args.cases / median:,.0f} cases/s")
    path = Path(tempfile.mkdtemp()) / "trace.json"
    path.write_text(body)
    times = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        captured = capture_cases([path])
        times.append(time.perf_counter() - t0)
    assert len(captured) == args.cases
    median = statistics.median(times)
    print(
        f"capture  {args.cases} traces: {median:.2f}s median, {args.cases / median:,.0f} traces/s"
    )


if __name__ == "__main__":
    main()
