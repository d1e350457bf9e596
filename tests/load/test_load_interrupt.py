"""Interrupting a load run (Ctrl-C / SIGTERM) on loopback: no new session starts, the sessions in
flight finish within the graceful stop (or are cancelled and counted), and what ran is kept —
the journal, and load.json / load.html with ``stopped_by: interrupted``. As a process the
command exits 130 (SIGINT) or 143 (SIGTERM) after writing them.

The signal is sent when the run says it reached a point (a line it prints), never after a
sleep, so a slow machine changes nothing.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from agentgauge.load import LoadOutcome, run_load_file
from agentgauge.runner import RunConfig
from agentgauge.schema import LoadProfile
from agentgauge.testing import FakeOpenAIServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

SUITE = """name: load-interrupt
tools: []
cases:
  - id: hi
    input: Say hello.
    expect: {behavior: answer}
  - id: bye
    input: Say goodbye.
    expect: {behavior: answer}
"""


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE, encoding="utf-8")
    return path


def _config(server: FakeOpenAIServer) -> RunConfig:
    options = {"base_url": server.base_url, "api_key": "sk-interrupt-key"}
    return RunConfig(agent="openai:fake-model", agent_options=options, retries=0, timeout_s=600)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def _signal_on(
    prefixes: list[str], sig: int = signal.SIGINT
) -> tuple[list[str], Callable[[str], None]]:
    """A notify that sends ``sig`` to this process at the first line starting with each of
    ``prefixes`` in turn (one signal per prefix)."""
    seen: list[str] = []
    todo = list(prefixes)

    def notify(line: str) -> None:
        seen.append(line)
        if todo and line.lstrip().startswith(todo[0]):
            todo.pop(0)
            os.kill(os.getpid(), sig)

    return seen, notify


def _run(suite: Path, server: FakeOpenAIServer, run_dir: Path, **kw: Any) -> LoadOutcome:
    try:
        return run_load_file(suite, _config(server), run_dir, **kw)
    except KeyboardInterrupt:  # the old behaviour: the run is lost, and pytest with it
        pytest.fail("Ctrl-C stopped the load run without its report")


def test_ctrl_c_stops_new_sessions_lets_running_ones_finish_and_keeps_the_report(
    suite: Path, tmp_path: Path
) -> None:
    # sessions of 100 ms; Ctrl-C at the first interval line (1 s into a 10-minute load)
    profile = LoadProfile.model_validate({"users": 3, "duration": "10m", "interval": "1s"})
    seen, notify = _signal_on(["1.0s"])
    with FakeOpenAIServer(["Hello!"], latency_ms=100, record=False) as srv:
        out = _run(suite, srv, tmp_path / "run", profile=profile, notify=notify)
        served = srv.count
    r = out.report
    assert r.stopped_by == "interrupted"
    assert r.interrupted_by == "SIGINT"
    assert r.graceful_stop_s == 30.0
    assert r.duration_s < 600
    assert any(line.startswith("interrupted (SIGINT): no new sessions") for line in seen)
    # every session that started finished (well within the graceful stop) and is counted
    assert r.totals.cancelled == 0
    assert r.totals.sessions == r.totals.started > 0
    assert sum(w.sessions for w in r.intervals) == r.totals.sessions
    assert r.intervals  # the partial time series is kept
    journal = _lines(tmp_path / "run" / "results.jsonl")
    assert len(journal) == r.totals.baseline_sessions + r.totals.sessions == served
    assert all(x["status"] == "passed" for x in journal)
    on_disk = orjson.loads((tmp_path / "run" / "load.json").read_bytes())
    assert on_disk["stopped_by"] == "interrupted"
    assert on_disk["interrupted_by"] == "SIGINT"
    assert len(_lines(tmp_path / "run" / "load.jsonl")) == len(journal)


def test_sessions_still_running_after_the_graceful_stop_are_cancelled_and_counted(
    suite: Path, tmp_path: Path
) -> None:
    # the server takes 10 minutes per reply: no session can finish; Ctrl-C at the first
    # interval line, the profile's graceful stop of 0.2 s (k6's gracefulStop)
    profile = LoadProfile.model_validate(
        {
            "users": 4,
            "duration": "10m",
            "interval": "500ms",
            "baseline": False,
            "graceful_stop": "200ms",
        }
    )
    seen, notify = _signal_on(["0.5s"])
    with FakeOpenAIServer(["Hello!"], latency_ms=600_000, record=False) as srv:
        out = _run(suite, srv, tmp_path / "run", profile=profile, notify=notify)
    r = out.report
    assert r.graceful_stop_s == 0.2
    assert r.stopped_by == "interrupted"
    assert r.totals.cancelled == 4  # the 4 users' sessions, cut off
    assert r.totals.started == 4
    assert r.totals.sessions == 0
    assert any(line.startswith("graceful stop over: cancelling 4 sessions") for line in seen)
    assert r.duration_s < 600  # the run did not wait for the replies
    assert (tmp_path / "run" / "results.jsonl").read_bytes() == b""  # no half session journaled
    assert out.run.ran == 0


def test_an_open_loop_admits_no_arrival_after_ctrl_c(suite: Path, tmp_path: Path) -> None:
    # 20 arrivals/s against a server that never answers in time: every arrival before the
    # interrupt is a session in flight, cancelled after the graceful stop; none after it starts
    profile = LoadProfile.model_validate(
        {"mode": "open", "rate": 20, "duration": "10m", "interval": "500ms", "baseline": False}
    )
    seen, notify = _signal_on(["0.5s"])
    with FakeOpenAIServer(["Hello!"], latency_ms=600_000, record=False) as srv:
        out = _run(
            suite, srv, tmp_path / "run", profile=profile, notify=notify, graceful_stop_s=0.3
        )
        requests = srv.count
    r = out.report
    assert r.stopped_by == "interrupted"
    assert r.totals.started > 0
    assert r.totals.cancelled == r.totals.started  # every one cut off, none answered
    assert r.totals.sessions == 0
    assert requests == r.totals.started  # no arrival reached the server after the stop
    stop = next(line for line in seen if line.startswith("interrupted (SIGINT)"))
    assert f"for {r.totals.started} in flight" in stop


def test_a_second_ctrl_c_cancels_the_sessions_at_once(suite: Path, tmp_path: Path) -> None:
    profile = LoadProfile.model_validate(
        {"users": 2, "duration": "10m", "interval": "500ms", "baseline": False}
    )
    seen, notify = _signal_on(["0.5s", "interrupted (SIGINT)"])
    with FakeOpenAIServer(["Hello!"], latency_ms=600_000, record=False) as srv:
        # the default graceful stop (30 s) is never waited for
        out = _run(suite, srv, tmp_path / "run", profile=profile, notify=notify)
    assert out.report.totals.cancelled == 2
    assert any(line.startswith("interrupted again (SIGINT): cancelling 2") for line in seen)
    assert not any(line.startswith("graceful stop over") for line in seen)


def test_ctrl_c_in_the_baseline_skips_the_load_and_writes_the_report(
    suite: Path, tmp_path: Path
) -> None:
    profile = LoadProfile.model_validate({"users": 2, "duration": "10m"})
    _, notify = _signal_on(["estimated cost (before the run)"])
    with FakeOpenAIServer(["Hello!"], latency_ms=50, record=False) as srv:
        out = _run(suite, srv, tmp_path / "run", profile=profile, notify=notify)
    r = out.report
    assert r.stopped_by == "interrupted"
    assert r.totals.started == 0
    assert r.totals.sessions == 0
    assert r.duration_s == 0.0
    assert (tmp_path / "run" / "load.json").is_file()


def _reader(stream: Any, lines: queue.Queue[str]) -> None:
    for line in stream:
        lines.put(line)
    lines.put("")


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_the_command_interrupted_writes_its_files_and_exits_128_plus_the_signal(
    suite: Path, tmp_path: Path, sig: int, code: int
) -> None:
    env = {**os.environ, "OPENAI_API_KEY": "sk-cli-interrupt-secret-123456"}
    with FakeOpenAIServer(["Hello!"], latency_ms=50, record=False) as srv:
        args = [sys.executable, "-m", "agentgauge", "load", str(suite)]
        args += ["--agent", "openai:fake-model", "--base-url", srv.base_url, "-o", "run"]
        args += ["--users", "2", "--duration", "10m", "--interval", "500ms"]
        args += ["--threshold", "error_rate<1%"]
        proc = subprocess.Popen(
            args, cwd=tmp_path, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=_reader, args=(proc.stderr, lines), daemon=True).start()
        err: list[str] = []
        try:
            while True:
                line = lines.get(timeout=120)
                err.append(line)
                assert line, "the load ended before it printed an interval: " + "".join(err)
                if line.strip().startswith("0.5s"):
                    proc.send_signal(sig)
                    break
            proc.wait(timeout=120)  # the summary on stdout is small: the pipe holds it
        finally:
            proc.kill()
    assert proc.stdout is not None
    out = proc.stdout.read()
    while (line := lines.get(timeout=30)) != "":
        err.append(line)
    stderr = "".join(err)
    assert proc.returncode == code, stderr
    name = signal.Signals(sig).name
    assert f"interrupted ({name}): the load stopped early" in stderr
    assert "Traceback" not in stderr
    assert f"ended by interrupted ({name})" in out
    run = tmp_path / "run"
    report = orjson.loads((run / "load.json").read_bytes())
    assert report["stopped_by"] == "interrupted"
    assert report["interrupted_by"] == name
    assert report["totals"]["sessions"] > 0
    assert report["totals"]["cancelled"] == 0
    journal = _lines(run / "results.jsonl")
    assert len(journal) == report["totals"]["baseline_sessions"] + report["totals"]["sessions"]
    page = (run / "load.html").read_text(encoding="utf-8")
    assert f"ended by interrupted ({name})" in page
    for file in ("load.json", "load.jsonl", "load.html", "results.jsonl"):
        assert "sk-cli-interrupt-secret" not in (run / file).read_text()
