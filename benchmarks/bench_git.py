"""Cost of reading the suite repository's commit and dirty flag (``agentgauge._git``), which
every ``run`` / ``score`` pays once for ``run.json``.

A temporary repository of ``--files`` tracked files (in folders of 50) is made with git, then
``git_state`` is timed: clean (every file's stamp matches the index), after ``git gc``
(everything packed), and with one file edited (its stamp differs: hashed). ``git status
--porcelain --untracked-files=no`` is timed beside it for scale (a process, which ``_git``
never starts). Medians of ``--repeat`` timings, milliseconds, wall clock.

    python benchmarks/bench_git.py [--files 5000] [--repeat 9]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from agentgauge._git import git_state


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=b", "-c", "user.email=b@example.org", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def _median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        _git(repo, "init", "-q", "-b", "main")
        for i in range(args.files):
            folder = repo / f"d{i // 50}"
            folder.mkdir(exist_ok=True)
            (folder / f"f{i}.txt").write_text(f"file {i}\n" * 20)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", "all")
        time.sleep(1.1)  # past the index's timestamp: no racy entries to hash
        state = git_state(repo)
        if state is None or state.dirty is not False:
            raise SystemExit(f"expected a clean repository, got {state}")
        clean = _median_ms(lambda: git_state(repo), args.repeat)

        def status() -> None:
            subprocess.run(
                ["git", "status", "--porcelain", "--untracked-files=no"],
                cwd=repo,
                check=True,
                capture_output=True,
            )

        git_status = _median_ms(status, args.repeat)
        _git(repo, "gc", "-q")
        packed = _median_ms(lambda: git_state(repo), args.repeat)
        (repo / "d0" / "f0.txt").write_text("edited\n")
        state = git_state(repo)
        if state is None or state.dirty is not True:
            raise SystemExit(f"expected a dirty repository, got {state}")
        edited = _median_ms(lambda: git_state(repo), args.repeat)
    print(f"{args.files} tracked files, medians of {args.repeat} (ms):")
    print(f"  git_state, clean:              {clean:8.1f}")
    print(f"  git_state, packed (after gc):  {packed:8.1f}")
    print(f"  git_state, one file edited:    {edited:8.1f}")
    print(f"  git status (a process), clean: {git_status:8.1f}")


if __name__ == "__main__":
    main()
