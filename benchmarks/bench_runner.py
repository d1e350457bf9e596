"""Throughput, CPU cost and memory of the runner (``agentgauge run``), end to end.

Measured (each in a fresh process, medians over ``--runs``):

- **throughput**: N single-turn cases (a system prompt, one user message, four tools offered)
  through the real ``openai:`` adapter against the loopback fake OpenAI-compatible server
  (``python -m agentgauge.testing.fake_openai``, its own process) with a fixed latency L, at
  concurrency C. Reported as cases/s and as a fraction of the limit C/L, with the runner
  process's CPU time per 1,000 cases (loop, adapter, scoring, results journal) and the server's,
  and the runner's peak RSS. The response cache is off, so every case makes a model call.
- **cached re-run**: the same suite twice with the cache on (a fresh cache directory): the
  second run's wall time as a fraction of the first, and its provider calls (must be 0);
  ``cli-cache`` does the same with two whole ``agentgauge run`` processes (start-up, loading,
  summary and report included).
- **memory**: a 100,000-case run with an in-process provider that answers at once and keeps
  nothing, cases fed lazily (``cases=``): peak RSS of the runner process; and the same with the
  100,000 cases held in memory in the ``Suite`` (as ``agentgauge run suite.yaml`` does).
- **CLI start-up**: wall time of ``agentgauge --help``.

    python benchmarks/bench_runner.py                          # everything, 3 runs
    python benchmarks/bench_runner.py --only throughput --runs 5 -c 64 -l 50
    python benchmarks/bench_runner.py --only memory --memory-cases 100000

The one-time imports of the adapter and aiohttp are done before the clock starts (aiohttp alone
spends ~0.1 s building SSL contexts at import): the figures are per-case costs, not start-up.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()


# --------------------------------------------------------------------------- workers (child)


def _suite_data(n: int) -> dict[str, Any]:
    tools = [
        {
            "name": f"tool_{i}",
            "description": "Look something up. " * 4,
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"],
            },
        }
        for i in range(4)
    ]
    return {
        "name": "bench",
        "tools": tools,
        "defaults": {"system": "You are a helpful assistant."},
        "cases": [_case_data(i) for i in range(n)],
    }


def _case_data(i: int) -> dict[str, Any]:
    return {
        "id": f"case-{i:06d}",
        "input": f"What is the weather in city {i} this week?",
        "expect": {"behavior": "answer"},
    }


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def worker_throughput(args: argparse.Namespace) -> dict[str, Any]:
    # import costs are start-up, not per case (aiohttp builds its default SSL contexts at import:
    # ~0.1 s here)
    import aiohttp  # noqa: F401

    import agentgauge.providers._openai  # noqa: F401
    from agentgauge.runner import RunConfig, run_suite
    from agentgauge.schema import Suite

    suite = Suite.model_validate(_suite_data(args.cases))
    out: dict[str, Any] = {}
    cache_dir = Path(args.tmp) / "cache"
    for label, cache in (("first", args.cache), ("second", args.cache)):
        cfg = RunConfig(
            agent="openai:fake-model",
            agent_options={"base_url": args.url, "api_key": "bench-not-a-key"},
            max_concurrency=args.concurrency,
            cache=cache,
            cache_dir=cache_dir,
            progress=False,
        )
        cpu0, t0 = _cpu_s(), time.perf_counter()
        outcome = run_suite(suite, cfg, Path(args.tmp) / f"run-{label}")
        wall, cpu = time.perf_counter() - t0, _cpu_s() - cpu0
        out[label] = {
            "wall_s": wall,
            "cpu_s": cpu,
            "errors": outcome.errors,
            "provider_calls": outcome.provider_calls,
            "cache_hits": outcome.cache_hits,
            "replayed": outcome.replayed,
        }
        if not args.cache:
            break
    out["peak_rss_mb"] = _peak_rss_mb()
    return out


class ConstantProvider:
    """Answers every request with the same text at once and keeps nothing (unlike
    ``MockProvider``, which records every request for tests to inspect)."""

    name = "bench:constant"

    async def generate(self, request: Any) -> Any:
        from agentgauge.providers import ModelResponse
        from agentgauge.schema import Message, Usage

        return ModelResponse(
            message=Message(role="assistant", content="It is sunny."),
            usage=Usage(input_tokens=40, output_tokens=4),
            model="constant",
        )


def worker_memory(args: argparse.Namespace) -> dict[str, Any]:
    from agentgauge.runner import RunConfig, run_suite
    from agentgauge.schema import Case, Suite

    data = _suite_data(0)
    provider = ConstantProvider()
    cfg = RunConfig(max_concurrency=64, cache=False, progress=False)
    run_dir = Path(args.tmp) / "run-memory"
    cpu0, t0 = _cpu_s(), time.perf_counter()
    if args.in_memory:
        data["cases"] = [_case_data(i) for i in range(args.cases)]
        suite = Suite.model_validate(data)
        del data
        outcome = run_suite(suite, cfg, run_dir, provider=provider)
    else:
        suite = Suite.model_validate(data)

        def cases() -> Iterator[Case]:
            for i in range(args.cases):
                yield Case.model_validate(_case_data(i))

        outcome = run_suite(suite, cfg, run_dir, provider=provider, cases=cases())
    wall, cpu = time.perf_counter() - t0, _cpu_s() - cpu0
    return {
        "wall_s": wall,
        "cpu_s": cpu,
        "results": outcome.total,
        "errors": outcome.errors,
        "peak_rss_mb": _peak_rss_mb(),
        "journal_mb": (run_dir / "results.jsonl").stat().st_size / 1e6,
    }


# --------------------------------------------------------------------------- driver (parent)


def _proc_cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _child(mode: str, extra: list[str]) -> dict[str, Any]:
    cmd = [sys.executable, str(HERE), "--worker", mode, *extra]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"worker {mode} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _worker_args(args: argparse.Namespace, url: str, tmp: str) -> list[str]:
    return ["--url", url, "--tmp", tmp, "-n", str(args.cases), "-c", str(args.concurrency)]


class FakeServer:
    def __init__(self, latency_ms: float) -> None:
        cmd = [sys.executable, "-m", "agentgauge.testing.fake_openai", "--latency-ms"]
        self.proc = subprocess.Popen(
            [*cmd, str(latency_ms)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().split()[-1]
        self._warm_up()

    def _warm_up(self) -> None:
        """A few requests first, so the server's first-request costs are not billed to the run."""
        import urllib.request

        body = json.dumps({"model": "fake-model", "messages": [{"role": "user", "content": "hi"}]})
        for _ in range(3):
            req = urllib.request.Request(
                self.url + "/chat/completions",
                data=body.encode(),
                headers={"Content-Type": "application/json"},
            )
            with urllib.request.urlopen(req, timeout=10) as resp:
                resp.read()

    def cpu_s(self) -> float:
        return _proc_cpu_s(self.proc.pid)

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait()


def bench_throughput(args: argparse.Namespace) -> None:
    limit = args.concurrency / (args.latency_ms / 1000.0)
    rows = []
    for _ in range(args.runs):
        server = FakeServer(args.latency_ms)
        tmp = tempfile.mkdtemp(prefix="bench-runner-")
        try:
            cpu0 = server.cpu_s()
            res = _child("throughput", [*_worker_args(args, server.url, tmp)])
            server_cpu = server.cpu_s() - cpu0
        finally:
            server.close()
            shutil.rmtree(tmp, ignore_errors=True)
        first = res["first"]
        rate = args.cases / first["wall_s"]
        rows.append(
            {
                "rate": rate,
                "fraction": rate / limit,
                "cpu_per_1000": first["cpu_s"] / args.cases * 1000,
                "server_cpu_per_1000": server_cpu / args.cases * 1000,
                "rss": res["peak_rss_mb"],
                "errors": first["errors"],
            }
        )
    print(
        f"throughput: N={args.cases} C={args.concurrency} L={args.latency_ms:g} ms "
        f"(limit {limit:.0f} cases/s), {os.cpu_count()} CPUs"
    )
    _print_rows(
        rows,
        [
            ("rate", "cases/s", "{:.0f}"),
            ("fraction", "of limit", "{:.2f}"),
            ("cpu_per_1000", "runner CPU-s/1000 cases", "{:.2f}"),
            ("server_cpu_per_1000", "server CPU-s/1000", "{:.2f}"),
            ("rss", "runner peak RSS MB", "{:.0f}"),
            ("errors", "errors", "{:.0f}"),
        ],
    )


def bench_cache(args: argparse.Namespace) -> None:
    rows = []
    for _ in range(args.runs):
        server = FakeServer(args.latency_ms)
        tmp = tempfile.mkdtemp(prefix="bench-runner-")
        try:
            res = _child("throughput", [*_worker_args(args, server.url, tmp), "--cache"])
        finally:
            server.close()
            shutil.rmtree(tmp, ignore_errors=True)
        rows.append(
            {
                "first": res["first"]["wall_s"],
                "second": res["second"]["wall_s"],
                "ratio": res["second"]["wall_s"] / res["first"]["wall_s"],
                "calls": res["second"]["provider_calls"],
                "hits": res["second"]["cache_hits"],
                "replayed": res["second"]["replayed"],
            }
        )
    print(f"cached re-run: N={args.cases} C={args.concurrency} L={args.latency_ms:g} ms")
    _print_rows(
        rows,
        [
            ("first", "first run s", "{:.2f}"),
            ("second", "cached re-run s", "{:.2f}"),
            ("ratio", "re-run / first", "{:.3f}"),
            ("calls", "provider calls in re-run", "{:.0f}"),
            ("hits", "cache hits in re-run", "{:.0f}"),
            ("replayed", "results replayed", "{:.0f}"),
        ],
    )


def bench_cli_cache(args: argparse.Namespace) -> None:
    """The cached re-run as a user sees it: two ``agentgauge run`` processes, wall time each
    (Python start-up, imports, loading the suite, the run, the summary and the console report)."""
    agentgauge = Path(sys.executable).with_name("agentgauge")
    rows = []
    for _ in range(args.runs):
        server = FakeServer(args.latency_ms)
        tmp = Path(tempfile.mkdtemp(prefix="bench-runner-cli-"))
        try:
            data = _suite_data(args.cases)
            cases = data.pop("cases")
            data["case_files"] = ["cases.jsonl"]
            (tmp / "suite.json").write_text(json.dumps(data))
            (tmp / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
            env = {**os.environ, "AGENTGAUGE_CACHE_DIR": str(tmp / "cache")}
            env["OPENAI_API_KEY"] = "bench-not-a-key"
            walls = []
            for label in ("first", "second"):
                cmd = [str(agentgauge), "run", str(tmp / "suite.json"), "--agent"]
                cmd += ["openai:fake-model", "--base-url", server.url, "-o", str(tmp / label)]
                cmd += ["--max-concurrency", str(args.concurrency), "--no-progress"]
                t0 = time.perf_counter()
                done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
                walls.append(time.perf_counter() - t0)
                if done.returncode != 0:
                    raise SystemExit(f"agentgauge run failed:\n{done.stderr}")
        finally:
            server.close()
            shutil.rmtree(tmp, ignore_errors=True)
        rows.append({"first": walls[0], "second": walls[1], "ratio": walls[1] / walls[0]})
    print(
        f"cached re-run, whole command: N={args.cases} C={args.concurrency} "
        f"L={args.latency_ms:g} ms"
    )
    _print_rows(
        rows,
        [
            ("first", "agentgauge run, first s", "{:.2f}"),
            ("second", "agentgauge run, re-run s", "{:.2f}"),
            ("ratio", "re-run / first", "{:.3f}"),
        ],
    )


def bench_memory(args: argparse.Namespace) -> None:
    for in_memory in (False, True):
        rows = []
        for _ in range(max(1, args.runs if not in_memory else 1)):
            tmp = tempfile.mkdtemp(prefix="bench-runner-")
            try:
                extra = ["--tmp", tmp, "-n", str(args.memory_cases)]
                res = _child("memory", extra + (["--in-memory"] if in_memory else []))
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            rows.append(
                {
                    "rss": res["peak_rss_mb"],
                    "wall": res["wall_s"],
                    "cpu_per_1000": res["cpu_s"] / args.memory_cases * 1000,
                    "journal": res["journal_mb"],
                    "results": res["results"],
                }
            )
        how = "Suite held in memory" if in_memory else "cases fed lazily"
        print(f"memory: {args.memory_cases} cases, constant in-process provider, {how}")
        _print_rows(
            rows,
            [
                ("rss", "peak RSS MB", "{:.0f}"),
                ("wall", "wall s", "{:.1f}"),
                ("cpu_per_1000", "CPU-s/1000 cases", "{:.3f}"),
                ("journal", "results.jsonl MB", "{:.0f}"),
                ("results", "results", "{:.0f}"),
            ],
        )


def bench_help(args: argparse.Namespace) -> None:
    exe = shutil.which("agentgauge") or str(Path(sys.executable).parent / "agentgauge")
    times = []
    for _ in range(max(5, args.runs)):
        t0 = time.perf_counter()
        subprocess.run([exe, "--help"], capture_output=True, check=True)
        times.append(time.perf_counter() - t0)
    print(
        f"agentgauge --help: median {statistics.median(times):.3f} s "
        f"(runs: {', '.join(f'{t:.3f}' for t in times)})"
    )


def _print_rows(rows: list[dict[str, Any]], cols: list[tuple[str, str, str]]) -> None:
    for key, label, fmt in cols:
        values = [r[key] for r in rows]
        med = statistics.median(values)
        runs = ", ".join(fmt.format(v) for v in values)
        print(f"  {label:<26} {fmt.format(med):>9}   (runs: {runs})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--tmp", help=argparse.SUPPRESS)
    parser.add_argument("--cache", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--in-memory", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("-n", "--cases", type=int, default=2000)
    parser.add_argument("-c", "--concurrency", type=int, default=64)
    parser.add_argument("-l", "--latency-ms", type=float, default=50.0)
    parser.add_argument("--memory-cases", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--only", choices=["throughput", "cache", "cli-cache", "memory", "help"], action="append"
    )
    args = parser.parse_args()
    if args.worker == "throughput":
        print(json.dumps(worker_throughput(args)))
        return
    if args.worker == "memory":
        print(json.dumps(worker_memory(args)))
        return
    parts = args.only or ["throughput", "cache", "cli-cache", "memory", "help"]
    for part in parts:
        {
            "throughput": bench_throughput,
            "cache": bench_cache,
            "cli-cache": bench_cli_cache,
            "memory": bench_memory,
            "help": bench_help,
        }[part](args)


if __name__ == "__main__":
    main()
