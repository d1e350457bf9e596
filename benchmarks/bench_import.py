"""Speed of importing datasets and writing/reading the suites (``agentgauge import``).

For the shared datasets (``../shared/data``: When2Call, and BFCL v4's 11 single-turn files),
medians over ``--runs`` in this process:

- **import**: source files -> ``Suite`` (parsing, tool conversion, validation, tool pooling);
- **write**: the suite to a directory (``suite.yaml`` + ``cases.jsonl``), to one ``.yaml`` file
  and to one ``.json`` file;
- **load**: each written form read back with ``agentgauge.io.load_suite`` (checked equal).

    python benchmarks/bench_import.py               # 5 runs
    python benchmarks/bench_import.py --runs 3 --no-yaml
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from agentgauge.io import import_suite, load_suite, write_suite
from agentgauge.schema import Suite

T = TypeVar("T")
SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _median(runs: int, fn: Callable[[], T]) -> tuple[float, T]:
    times: list[float] = []
    results: list[T] = []
    for _ in range(runs):
        start = time.perf_counter()
        results.append(fn())
        times.append(time.perf_counter() - start)
    return statistics.median(times), results[-1]


def _bench(label: str, fmt: str, files: list[Path], runs: int, yaml: bool) -> None:
    seconds, suite = _median(runs, lambda: import_suite(fmt, files))
    print(f"{label}: {len(suite.cases)} cases, {len(suite.tools)} suite tools")
    print(f"  import            {seconds:7.3f} s")
    targets = ["dir", "suite.json"] + (["suite.yaml"] if yaml else [])
    with tempfile.TemporaryDirectory() as tmp:
        for name in targets:
            out = Path(tmp) / name

            def write(out: Path = out) -> None:
                shutil.rmtree(out, ignore_errors=True)
                write_suite(suite, out)

            seconds, _ = _median(runs, write)
            size = sum(p.stat().st_size for p in ([out] if out.is_file() else out.iterdir()))
            print(f"  write {name:<11} {seconds:7.3f} s  ({size / 1e6:.1f} MB)")

            def load(out: Path = out) -> Suite:
                return load_suite(out)

            seconds, loaded = _median(runs, load)
            assert loaded.cases == suite.cases, f"{name}: cases differ after loading"
            print(f"  load  {name:<11} {seconds:7.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-yaml", action="store_true", help="skip the single YAML file")
    args = parser.parse_args()
    if not SHARED.is_dir():
        raise SystemExit(f"shared datasets not found at {SHARED}")
    w2c = [SHARED / "when2call" / "when2call_test_llm_judge.jsonl"]
    bfcl = sorted(
        p for p in (SHARED / "bfcl-v4").glob("BFCL_v4_*.json") if "multi_turn" not in p.name
    )
    _bench("when2call", "when2call", w2c, args.runs, not args.no_yaml)
    _bench("bfcl (single-turn)", "bfcl", bfcl, args.runs, not args.no_yaml)


if __name__ == "__main__":
    main()
