"""Run the fake OpenAI-compatible server as its own process (for benchmarks).

```
python -m agentgauge.testing.fake_openai --latency-ms 50 --port 8765
python -m agentgauge.testing.fake_openai --tool-call get_weather '{"city": "Paris"}'
```

It prints ``listening on http://127.0.0.1:PORT/v1`` once ready and serves until killed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys

import orjson

from ..schema import ToolCall
from ._fake_openai import FakeFault, FakeOpenAIServer, FakeReply


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agentgauge.testing.fake_openai")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--model", default="fake-model")
    parser.add_argument("--text", default="ok", help="the text every request gets")
    parser.add_argument(
        "--tool-call", nargs=2, metavar=("NAME", "JSON_ARGS"), help="reply with this tool call"
    )
    parser.add_argument("--chunk-delay-ms", type=float, default=0.0)
    parser.add_argument("--error-rate", type=float, default=0.0, help="fraction of faulty replies")
    parser.add_argument("--error-status", type=int, default=500)
    parser.add_argument("--retry-after", default=None, help="Retry-After of injected faults")
    parser.add_argument(
        "--max-concurrent", type=int, default=None, help="serve at most K completions at once"
    )
    parser.add_argument(
        "--over-capacity",
        choices=["queue", "reject"],
        default="queue",
        help="past --max-concurrent: queue the request, or refuse it with HTTP 429",
    )
    args = parser.parse_args(argv)
    reply: FakeReply = args.text
    if args.tool_call:
        name, raw = args.tool_call
        reply = ToolCall(name=name, arguments=orjson.loads(raw))
    server = FakeOpenAIServer(
        [reply],
        latency_ms=args.latency_ms,
        host=args.host,
        port=args.port,
        model=args.model,
        record=False,
        chunk_delay_ms=args.chunk_delay_ms,
        error_rate=args.error_rate,
        error=FakeFault(args.error_status, retry_after=args.retry_after),
        max_concurrent=args.max_concurrent,
        over_capacity=args.over_capacity,
    )

    async def run() -> None:
        await server.start_async()
        print(f"listening on {server.base_url}", flush=True)
        await asyncio.Event().wait()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
