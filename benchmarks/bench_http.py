"""Throughput and CPU cost of the HTTP provider adapters against a loopback fake server.

The fake OpenAI-compatible server runs in its own process with a fixed latency L; the adapter
issues N single-turn requests (a short conversation and four tools) at concurrency C. Reported:
requests/s, the fraction of the limit C/L, the client's CPU-ms per request (process CPU time,
adapter + event loop only — no runner) and the server's.

    python benchmarks/bench_http.py                     # openai direct, C=64, L=50 ms
    python benchmarks/bench_http.py --adapter openai-sdk --adapter http --runs 3
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time

from agentgauge.providers import ModelRequest, close_provider, resolve_provider
from agentgauge.schema import Message, ToolSpec

ADAPTERS = {
    "openai": "openai:fake-model",
    "openai-sdk": "openai:fake-model?transport=sdk",
    "openai-responses": "openai:fake-model?api=responses",
    "http": "http",
}


def _proc_cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def _request() -> ModelRequest:
    tools = [
        ToolSpec(
            name=f"tool_{i}",
            description="Look something up. " * 4,
            parameters={
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"],
            },
        )
        for i in range(4)
    ]
    messages = [
        Message(role="system", content="You are a helpful assistant."),
        Message(role="user", content="What is the weather in Paris this week? " * 3),
    ]
    return ModelRequest(messages=messages, tools=tools)


async def _run_once(spec: str, url: str, n: int, concurrency: int) -> tuple[float, float]:
    if spec == "http":
        provider = resolve_provider(url + "/agent")
    else:
        provider = resolve_provider(spec, base_url=url + "/v1", api_key="sk-bench")
    request = _request()
    sem = asyncio.Semaphore(concurrency)

    async def one() -> None:
        async with sem:
            await provider.generate(request)

    await asyncio.gather(*(one() for _ in range(min(200, n))))  # warm-up: connections, imports
    t0, c0 = time.perf_counter(), time.process_time()
    await asyncio.gather(*(one() for _ in range(n)))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    await close_provider(provider)
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--adapter", action="append", choices=sorted(ADAPTERS))
    parser.add_argument("-n", type=int, default=2000)
    parser.add_argument("-c", "--concurrency", type=int, default=64)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentgauge.testing.fake_openai",
            "--latency-ms",
            str(args.latency_ms),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().split()[-1].removesuffix("/v1")
        limit = args.concurrency / (args.latency_ms / 1000)
        print(
            f"N={args.n} C={args.concurrency} L={args.latency_ms:g} ms "
            f"(limit {limit:.0f} req/s), {os.cpu_count()} CPUs"
        )
        for name in args.adapter or ["openai"]:
            rates, cpus, server_cpus = [], [], []
            for _ in range(args.runs):
                s0 = _proc_cpu_s(server.pid)
                wall, cpu = asyncio.run(_run_once(ADAPTERS[name], url, args.n, args.concurrency))
                server_cpu = _proc_cpu_s(server.pid) - s0
                rates.append(args.n / wall)
                cpus.append(cpu * 1000 / args.n)
                server_cpus.append(server_cpu * 1000 / (args.n + min(200, args.n)))
            rate = statistics.median(rates)
            print(
                f"{name:17s} {rate:7.0f} req/s  {rate / limit:5.2f} of limit  "
                f"client {statistics.median(cpus):5.2f} CPU-ms/req  "
                f"server {statistics.median(server_cpus):5.2f} CPU-ms/req  "
                f"(runs: {', '.join(f'{r:.0f}' for r in rates)})"
            )
    finally:
        server.terminate()
        server.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
