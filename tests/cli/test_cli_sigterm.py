"""SIGTERM (a CI job cancelled, ``timeout``, a container stopped) ends ``agentgauge run`` as
Ctrl-C does: the finished cases stay in the journal, stderr says how to continue, the command
exits 143, and ``--resume`` finishes the run with every case exactly once. Before, SIGTERM's
default action killed the process with no word on stderr.

The signal is sent once the journal holds results (polled), never after a fixed sleep.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import FrameType

import pytest

from agentgauge.cli import _interrupt
from agentgauge.testing import FakeOpenAIServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

CASES = 60


def _suite(tmp_path: Path) -> Path:
    cases = [
        {"id": f"c{i:03d}", "input": f"question {i}", "expect": {"behavior": "answer"}}
        for i in range(CASES)
    ]
    path = tmp_path / "suite.json"
    path.write_text(json.dumps({"name": "sigterm", "cases": cases}), encoding="utf-8")
    return path


def _env() -> dict[str, str]:
    return {**os.environ, "OPENAI_API_KEY": "sk-sigterm-test-key", "NO_COLOR": "1"}


def _args(server: FakeOpenAIServer, *extra: str) -> list[str]:
    return [sys.executable, "-m", "agentgauge", "run", *extra, "--base-url", server.base_url]


def _results(run_dir: Path) -> list[dict[str, object]]:
    path = run_dir / "results.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def _wait_for_results(proc: subprocess.Popen[bytes], run_dir: Path, at_least: int) -> None:
    deadline = time.monotonic() + 120
    while len(_lines(run_dir)) < at_least:
        assert proc.poll() is None, "the run ended before the signal"
        assert time.monotonic() < deadline, "no results within 120 s"
        time.sleep(0.05)


def _lines(run_dir: Path) -> list[bytes]:
    path = run_dir / "results.jsonl"
    return path.read_bytes().splitlines() if path.exists() else []


def _stop(proc: subprocess.Popen[bytes], *, group: bool) -> tuple[int, str]:
    if group:
        os.killpg(proc.pid, signal.SIGTERM)
    else:
        proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    return proc.returncode, err.decode()


@pytest.mark.parametrize("workers", [1, 2])
def test_sigterm_keeps_the_journal_says_how_to_resume_and_exits_143(
    tmp_path: Path, workers: int
) -> None:
    suite, run_dir = _suite(tmp_path), tmp_path / "run"
    with FakeOpenAIServer(["Fine."], latency_ms=300, record=False) as server:
        cmd = _args(server, str(suite), "--agent", "openai:fake-model", "-o", str(run_dir))
        cmd += ["--no-cache", "--no-history", "--no-progress", "--max-concurrency", "2"]
        cmd += ["--workers", str(workers)]
        # its own process group: the whole group gets SIGTERM, as a CI runner sends it, so the
        # worker processes (--workers 2) get it too and must leave the stop to the parent
        proc = subprocess.Popen(
            cmd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
        )
        _wait_for_results(proc, run_dir, at_least=2)
        status, err = _stop(proc, group=True)
        assert status == 143, err
        assert f"continue with agentgauge run --resume {run_dir}" in err
        assert "Traceback" not in err
        kept = _results(run_dir)
        assert 2 <= len(kept) < CASES
        # nothing is recorded as failed by the stop itself: a worker killed by the signal would
        # have left "worker process" errors on its cases
        assert all(r["status"] == "passed" for r in kept), kept
        resumed = subprocess.run(
            _args(server, "--resume", str(run_dir), "--no-history", "--no-progress"),
            env=_env(),
            capture_output=True,
            check=False,
        )
    assert resumed.returncode == 0, resumed.stderr.decode()
    ids = [r["case_id"] for r in _results(run_dir)]
    assert sorted(ids) == sorted({f"c{i:03d}" for i in range(CASES)})  # each case once


def test_sigterm_stops_a_run_whose_sigint_is_ignored(tmp_path: Path) -> None:
    # a background job of a non-interactive shell starts with SIGINT ignored: SIGTERM must
    # still unwind the run rather than be handed to nothing
    suite, run_dir = _suite(tmp_path), tmp_path / "run"
    with FakeOpenAIServer(["Fine."], latency_ms=300, record=False) as server:
        cmd = _args(server, str(suite), "--agent", "openai:fake-model", "-o", str(run_dir))
        cmd += ["--no-cache", "--no-history", "--no-progress", "--max-concurrency", "2"]
        proc = subprocess.Popen(
            cmd,
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
        )
        _wait_for_results(proc, run_dir, at_least=2)
        status, err = _stop(proc, group=False)
    assert status == 143, err
    assert "continue with agentgauge run --resume" in err
    assert all(json.loads(line) for line in _lines(run_dir))  # no torn line


def test_sigterm_is_handed_to_the_sigint_handler_and_the_old_handler_comes_back() -> None:
    calls: list[int] = []

    def on_sigint(signum: int, frame: FrameType | None) -> None:
        calls.append(signum)

    before = signal.getsignal(signal.SIGTERM)
    saved_int = signal.signal(signal.SIGINT, on_sigint)
    try:
        with _interrupt.terminate_as_interrupt():
            assert _interrupt.interrupt_status() == 130
            signal.raise_signal(signal.SIGTERM)
            assert calls == [signal.SIGINT]
            assert _interrupt.interrupt_status() == 143
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            with pytest.raises(KeyboardInterrupt):
                signal.raise_signal(signal.SIGTERM)
    finally:
        signal.signal(signal.SIGINT, saved_int)
    assert signal.getsignal(signal.SIGTERM) is before
