"""The HTML report of a big run: generation time and memory, file sizes, and how it behaves in
headless Chromium.

Writes ``--cases`` simulated results (one tool call, four messages, three scores, a three-step
trace; every 5th failed, every 37th errored) with the real ``ResultsWriter``, then, ``--runs``
times each:

- **generate**: in a fresh child process, ``summarize(run)`` then ``write_html(report.html, ...)``
  (what ``agentgauge report RUN --format html -o report.html`` does): wall time and peak RSS,
  and the same with ``summarize`` alone (the floor under it). With ``--also N`` the same for a
  run of N results, to show how memory grows (or does not) with the number of results.
- **browser** (Playwright driving ``/usr/bin/chromium``, a new page each run): time from
  ``goto`` until the table's first rows are drawn, time to scroll to the last case, to filter by
  text (the first filter builds the search text) and by status, to sort by latency, and to open
  a case (its chunk script loaded from the sidecar) -- the last five measured inside the page
  with ``performance.now()`` up to the next animation frame.

Prints medians (and ranges) over the runs.

```console
$ python benchmarks/bench_html_report.py                      # 100,000 results, 5 runs
$ python benchmarks/bench_html_report.py --cases 20000 --runs 3 --also 5000
```
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CATEGORIES = ("orders", "refunds", "shipping", "accounts", "billing", "returns")

CHILD = """
import json, resource, sys, time
from pathlib import Path
step, run, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
import agentgauge.io, agentgauge.metrics, agentgauge.report._html as h
t0 = time.perf_counter()
summary = agentgauge.metrics.summarize(run)
n = summary.overall.results
sidecar = 0
if step == "generate":
    w = h.write_html(out, summary, agentgauge.io.iter_results(run))
    sidecar = w.sidecar_bytes
    n = w.results
wall = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
print(json.dumps({"n": n, "wall": wall, "rss_mb": rss, "sidecar": sidecar}))
"""


def simulate(run: Path, cases: int) -> None:
    from agentgauge.io import ResultsWriter, write_record
    from agentgauge.schema import CaseResult, RunRecord

    write_record(
        run,
        RunRecord(
            run_id="bench-html",
            suite="bench-html",
            agent="mock:",
            started_at="2026-12-01T00:00:00+00:00",
            finished_at="2026-12-01T01:00:00+00:00",
            agentgauge_version="bench",
            case_count=cases,
        ),
    )
    with ResultsWriter(run, fresh=True) as writer:
        for i in range(cases):
            status = "error" if i % 37 == 0 else "failed" if i % 5 == 0 else "passed"
            ok = status == "passed"
            tool = "lookup_order" if ok else "cancel_order"
            lat = 100.0 + (i * 7919) % 900
            args = {"order": f"A{i:07d}"}
            result = {"order": f"A{i:07d}", "state": "shipped", "eta": "2026-12-03"}
            writer.write(
                CaseResult.model_validate(
                    {
                        "case_id": f"order-{i:07d}",
                        "status": status,
                        "score": 1.0 if ok else 0.0,
                        "category": CATEGORIES[i % len(CATEGORIES)],
                        "difficulty": "hard" if i % 3 == 0 else "easy",
                        "tags": ["bench", f"shard{i % 4}"],
                        "expected_behavior": "tool_call",
                        "expected_tools": ["lookup_order"],
                        "behavior": "tool_call",
                        "explanation": ""
                        if ok
                        else f"tool_selection: expected lookup_order, called {tool}",
                        "error": "ProviderError: HTTP 503 after 3 attempts"
                        if status == "error"
                        else None,
                        "scores": [
                            {
                                "name": "tool_selection",
                                "value": 1.0 if ok else 0.0,
                                "passed": ok,
                                "expected": "lookup_order",
                                "actual": tool,
                            },
                            {
                                "name": "arguments",
                                "value": 1.0,
                                "passed": True,
                                "parts": [
                                    {"name": "arguments.order", "value": 1.0, "passed": True}
                                ],
                            },
                        ],
                        "calls": [{"name": tool, "arguments": args, "id": f"c{i}"}],
                        "text": f"Order A{i:07d} has shipped and should arrive on 3 December.",
                        "messages": [
                            {"role": "user", "content": f"Where is my order A{i:07d}?"},
                            {
                                "role": "assistant",
                                "tool_calls": [{"name": tool, "arguments": args, "id": f"c{i}"}],
                            },
                            {
                                "role": "tool",
                                "name": tool,
                                "tool_call_id": f"c{i}",
                                "content": json.dumps(result),
                            },
                            {
                                "role": "assistant",
                                "content": f"Order A{i:07d} has shipped and should arrive on "
                                "3 December.",
                            },
                        ],
                        "trace": [
                            {
                                "kind": "model",
                                "start": 1.0,
                                "end": 1.0 + lat / 2000,
                                "latency_ms": lat / 2,
                                "model": "mock",
                                "usage": {"input_tokens": 120, "output_tokens": 14},
                            },
                            {
                                "kind": "tool",
                                "start": 1.0 + lat / 2000,
                                "end": 1.0 + lat / 1600,
                                "latency_ms": lat / 8,
                                "tool": tool,
                                "arguments": args,
                                "result": result,
                            },
                            {
                                "kind": "model",
                                "start": 1.0 + lat / 1600,
                                "end": 1.0 + lat / 1000,
                                "latency_ms": lat * 3 / 8,
                                "model": "mock",
                                "usage": {"input_tokens": 170, "output_tokens": 22},
                            },
                        ],
                        "usage": {"input_tokens": 290, "output_tokens": 36},
                        "model_calls": 2,
                        "tool_calls": 1,
                        "latency_ms": lat,
                    }
                )
            )


def child(step: str, run: Path, out: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, step, str(run), str(out)],
        check=True,
        capture_output=True,
        text=True,
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


# JavaScript run in the page: each returns milliseconds from the action to the next frame after
# what it waits for is on screen
_FRAME = "() => new Promise(r => requestAnimationFrame(() => r()))"
SCROLL_END = f"""async (last) => {{
  const frame = {_FRAME};
  const s = document.getElementById('cases-scroll');
  const t0 = performance.now();
  s.scrollTop = s.scrollHeight;
  for (let k = 0; k < 600; k++) {{
    await frame();
    const ids = Array.from(document.querySelectorAll('#cases-table td.id'));
    if (ids.some(td => td.textContent === last)) {{ return performance.now() - t0; }}
  }}
  throw new Error('the last case never appeared');
}}"""
FILTER = f"""async ([sel, value, event]) => {{
  const frame = {_FRAME};
  const el = document.querySelector(sel);
  const t0 = performance.now();
  el.value = value;
  el.dispatchEvent(new Event(event));
  await frame();
  return [performance.now() - t0, document.getElementById('count').textContent];
}}"""
SORT = f"""async () => {{
  const frame = {_FRAME};
  const th = document.querySelector('th[data-key="latency_ms"]');
  const t0 = performance.now();
  th.click();
  await frame();
  return performance.now() - t0;
}}"""
OPEN = f"""async (id) => {{
  const frame = {_FRAME};
  const row = document.querySelector('#cases-table tr.row');
  const panel = document.getElementById('case-detail');
  const t0 = performance.now();
  row.click();
  for (let k = 0; k < 600; k++) {{
    await frame();
    if (panel.getAttribute('data-case') === id) {{ return performance.now() - t0; }}
  }}
  throw new Error('the case never opened');
}}"""


def browser_runs(page_path: Path, cases: int, runs: int) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    out: dict[str, list[float]] = {
        k: [] for k in ("first render", "scroll to end", "filter text (1st)", "filter text")
    }
    out.update({k: [] for k in ("filter status", "sort latency", "open a case")})
    last = f"order-{cases - 1:07d}"
    args = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=args)
        for r in range(runs):
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
            t0 = time.perf_counter()
            page.goto(page_path.as_uri(), wait_until="commit")
            page.wait_for_selector("#cases-table tr.row", timeout=120_000)
            out["first render"].append((time.perf_counter() - t0) * 1000)
            out["scroll to end"].append(page.evaluate(SCROLL_END, last))
            ms, _ = page.evaluate(FILTER, ["#q", "order-00", "input"])
            out["filter text (1st)"].append(ms)
            # a case far down, in a chunk not yet loaded (a different one each run)
            target = f"order-{cases - 1 - r * 997:07d}"
            ms, count = page.evaluate(FILTER, ["#q", target, "input"])
            assert count.startswith("1 of"), count
            out["filter text"].append(ms)
            out["open a case"].append(page.evaluate(OPEN, target))
            page.evaluate(FILTER, ["#q", "", "input"])
            ms, _ = page.evaluate(FILTER, ["#status", "failed", "change"])
            out["filter status"].append(ms)
            page.evaluate(FILTER, ["#status", "", "change"])
            out["sort latency"].append(page.evaluate(SORT))
            if errors:
                raise SystemExit(f"page errors: {errors}")
            page.close()
        browser.close()
    return out


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):,.0f} ({min(values):,.0f}–{max(values):,.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--also", type=int, default=0, help="also generate for this many results")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--dir", type=Path, default=None, help="scratch folder (default: a temp)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-html-", dir=args.dir))
    try:
        sizes = [args.cases] + ([args.also] if args.also else [])
        for cases in sizes:
            run = root / f"run{cases}"
            t0 = time.perf_counter()
            simulate(run, cases)
            mb = (run / "results.jsonl").stat().st_size / 1e6
            print(
                f"{cases:,} results ({mb:,.0f} MB of results.jsonl) written in "
                f"{time.perf_counter() - t0:.1f} s; load average {os.getloadavg()[0]:.1f}"
            )
            out = root / f"report{cases}.html"
            figures: dict[str, list[dict[str, float]]] = {"summary": [], "generate": []}
            for _ in range(args.runs):
                for step in figures:
                    figures[step].append(child(step, run, out))
                    if figures[step][-1]["n"] != cases:
                        raise SystemExit(f"{step}: {figures[step][-1]['n']} results")
            for step, rs in figures.items():
                wall = [r["wall"] for r in rs]
                rss = [r["rss_mb"] for r in rs]
                print(
                    f"  {step:<9} wall {statistics.median(wall):6.2f} s "
                    f"({min(wall):.2f}–{max(wall):.2f})   "
                    f"peak RSS {statistics.median(rss):5.0f} MB "
                    f"({min(rss):.0f}–{max(rss):.0f})"
                )
            side = out.with_name(f"{out.stem}.d")
            chunks = list(side.iterdir()) if side.is_dir() else []
            side_mb = sum(p.stat().st_size for p in chunks) / 1e6
            largest = max((p.stat().st_size for p in chunks), default=0) / 1e3
            print(
                f"  report.html {out.stat().st_size / 1e6:.1f} MB; sidecar {len(chunks)} chunks, "
                f"{side_mb:.1f} MB (largest {largest:.0f} kB)"
            )
            if cases == args.cases and not args.no_browser:
                times = browser_runs(out, cases, args.runs)
                print(f"  in Chromium, ms, median (range) of {args.runs} runs:")
                for name, values in times.items():
                    print(f"    {name:<18} {_median(values)}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
