"""``agentgauge generate`` figures (docs/generate.md): per source, the cases written per category
and per family, how many were dropped and at which stage, the wrong transcripts the audit
scored, and the generation time (median of ``--runs``, with and without the satisfiability
check), in one process (imports done before the clock starts).

    python benchmarks/bench_generate.py --runs 3
    python benchmarks/bench_generate.py --only quickstart --only users
"""

from __future__ import annotations

import argparse
import collections
import statistics
import time
from pathlib import Path

from agentgauge.generate import FAMILY_CATEGORY, GenerateConfig, GeneratedSuite, generate_suite

REPO = Path(__file__).resolve().parents[1]
#: name -> (folder, needs --allow-suite-code)
SOURCES = {
    "quickstart": ("examples/quickstart", False),
    "users": ("examples/users", False),
    "retail": ("examples/retail", True),
    "travel": ("examples/travel", True),
}


def _timed(source: Path, config: GenerateConfig, runs: int) -> tuple[GeneratedSuite, list[float]]:
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = generate_suite(source, config)
        times.append(time.perf_counter() - start)
    assert result is not None
    return result, times


def _report(name: str, result: GeneratedSuite, checked: list[float], bare: list[float]) -> None:
    cats = collections.Counter(FAMILY_CATEGORY[c.family] for c in result.counts
                               for _ in range(c.written))  # fmt: skip
    stages = collections.Counter(d.stage for d in result.dropped)
    written = len(result.suite.cases)
    print(f"{name}: {written} written of {written + len(result.dropped)}; "
          f"{len(result.dropped)} dropped {dict(stages) or ''}")  # fmt: skip
    print("  per category: " + ", ".join(f"{k} {v}" for k, v in sorted(cats.items())))
    print("  per family:   " + ", ".join(f"{c.family} {c.written}/{c.dropped}"
                                         for c in result.counts))  # fmt: skip
    print(f"  audit: {result.mutants_failed} of {result.mutants} wrong transcripts fail")
    for d in result.dropped[:3]:
        print(f"  dropped: {d.line()[:140]}")
    med, med_bare = statistics.median(checked), statistics.median(bare)
    print(f"  time: {med:.2f} s (runs {', '.join(f'{t:.2f}' for t in checked)}); "
          f"--no-check {med_bare:.2f} s; the check is {1 - med_bare / med:.0%} of it")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", action="append", choices=sorted(SOURCES))
    args = parser.parse_args()
    for name in args.only or SOURCES:
        folder, code = SOURCES[name]
        source = REPO / folder
        config = GenerateConfig(seed=args.seed, allow_suite_code=code)
        result, checked = _timed(source, config, args.runs)
        _, bare = _timed(source, GenerateConfig(seed=args.seed, allow_suite_code=code,
                                                check=False), args.runs)  # fmt: skip
        _report(name, result, checked, bare)


if __name__ == "__main__":
    main()
