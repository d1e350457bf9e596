"""Peak memory and wall time of ``agentgauge score`` as the responses file grows.

A generated suite (``--cases`` single-turn weather cases, one tool) and a native responses file
of ``--entries`` lines (trial after trial over every case, so a case's lines are spread over the
whole file; a call and a reply text each, every seventh call wrong), scored by the whole
command in a child process::

    agentgauge score suite.yaml --responses responses.jsonl -o RUN --no-history --workers 1

Peak RSS is the child's own (``wait4`` rusage ``ru_maxrss``), wall time includes start-up,
the checking pass, scoring, ``results.jsonl`` and the summary. ``--tree DIR`` adds an older
checkout (its ``src`` on ``PYTHONPATH``) to the alternation: the trees take turns run after run,
so a busy spell of the machine falls on both; the results files of the trees are compared
byte for byte. A first run of each tree (bytecode cached) is not counted. Medians of ``--runs``.

    python benchmarks/bench_score_stream.py --entries 10000,50000,200000 --runs 3 --tree DIR
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CLI = str(Path(sys.executable).with_name("agentgauge"))
HERE = Path(__file__).resolve().parents[1]
CITIES = ["Paris", "Oslo", "Rome", "Lima", "Kyiv", "Quito", "Hanoi", "Accra", "Bern", "Cairo"]


def write_suite(path: Path, cases: int) -> None:
    rows = [
        "name: stream\n",
        "tools:\n  - name: get_weather\n    description: the weather in a city\n",
        "    parameters:\n      type: object\n      properties: {city: {type: string}}\n",
        "      required: [city]\ncases:\n",
    ]
    for i in range(cases):
        city = CITIES[i % len(CITIES)]
        rows.append(
            f"  - id: c{i}\n    category: cat{i % 5}\n    input: Weather in {city} ({i})?\n"
            "    expect: {tool_calls: [{name: get_weather, arguments: {city: " + city + "}}]}\n"
        )
    path.write_text("".join(rows), encoding="utf-8")


def write_responses(path: Path, cases: int, entries: int) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for n in range(entries):
            trial, i = divmod(n, cases)
            city = CITIES[i % len(CITIES)] if n % 7 else "Atlantis"
            row = {
                "case_id": f"c{i}",
                "trial": trial,
                "calls": [{"name": "get_weather", "arguments": {"city": city}}],
                "text": f"The weather in {city} is mild today, around 18 degrees (trial {trial}).",
            }
            fh.write(json.dumps(row) + "\n")


def run_once(
    tree: Path, suite: Path, responses: Path, out: Path
) -> tuple[float, float, float, str]:
    """(wall seconds, CPU seconds, peak RSS in MiB, sha256 of results.jsonl) of one whole
    ``score``. This process stays small (the results are hashed piece by piece): a child's
    ``ru_maxrss`` starts from its parent's size at the fork."""
    env = {**os.environ, "PYTHONPATH": str(tree / "src"), "AGENTGAUGE_WORKERS": "1"}
    args = [CLI, "score", str(suite), "--responses", str(responses), "-o", str(out)]
    args += ["--no-history", "--overwrite"]
    start = time.perf_counter()
    child = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    stderr = child.stderr.read().decode() if child.stderr else ""
    if status != 0:
        raise SystemExit(f"{tree}: score failed ({status}): {stderr}")
    with (out / "results.jsonl").open("rb") as fh:
        digest = hashlib.file_digest(fh, "sha256").hexdigest()
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, digest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entries", default="10000,50000,200000", help="file sizes, comma-separated")
    ap.add_argument("--cases", type=int, default=1000, help="cases in the suite")
    ap.add_argument("--runs", type=int, default=3, help="runs per tree and size (medians)")
    ap.add_argument("--tree", type=Path, default=None, help="an older checkout to compare with")
    args = ap.parse_args()
    trees = [("this tree", HERE)] + ([("--tree", args.tree.resolve())] if args.tree else [])
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        suite = base / "suite.yaml"
        write_suite(suite, args.cases)
        warm = base / "warm.jsonl"
        write_responses(warm, args.cases, args.cases)
        for _, tree in trees:  # bytecode cached, not counted
            run_once(tree, suite, warm, base / "warm-run")
        print("| entries | file | tree | peak RSS, MiB | wall, s | CPU, s | results |")
        print("|---|---|---|---|---|---|---|")
        for entries in [int(e) for e in args.entries.split(",")]:
            responses = base / f"r{entries}.jsonl"
            write_responses(responses, args.cases, entries)
            size = responses.stat().st_size / 2**20
            got: dict[str, list[tuple[float, float, float, str]]] = {n: [] for n, _ in trees}
            for _ in range(args.runs):
                for name, tree in trees:  # alternating
                    got[name].append(run_once(tree, suite, responses, base / "run"))
            digests = {run[3] for runs in got.values() for run in runs}
            same = "identical" if len(digests) == 1 else f"{len(digests)} different"
            for name, _ in trees:
                walls, cpus, rss = ([run[k] for run in got[name]] for k in range(3))
                print(
                    f"| {entries:,} | {size:.1f} MiB | {name} | **{statistics.median(rss):.0f}** "
                    f"({', '.join(f'{r:.0f}' for r in rss)}) | {statistics.median(walls):.2f} "
                    f"({', '.join(f'{w:.2f}' for w in walls)}) | {statistics.median(cpus):.2f} "
                    f"| {same} |",
                    flush=True,
                )
            responses.unlink()


if __name__ == "__main__":
    main()
