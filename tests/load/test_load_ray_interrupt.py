"""Interrupting a load run whose sessions run on Ray (``--executor ray:ADDRESS``): Ctrl-C or
SIGTERM stops new sessions, the sessions the Ray workers are driving finish (or are cancelled
after the graceful stop) and come back, and the partial load summary is written —
``load.json`` / ``load.html`` with ``stopped_by: interrupted``, the journal of every finished
session — before the command exits 130 (SIGINT) or 143 (SIGTERM), with no traceback.

The signal is sent when the run prints a point it reached (its first interval line with a
finished session), never after a sleep. A local Ray instance on loopback, started once for the
module (``address="local"``: never a cluster a stale ``/tmp/ray`` file points at)."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import orjson
import pytest
from test_load_run import SUITE, _agent  # tests/load is on sys.path

from agentgauge.load import run_load_file
from agentgauge.runner import RunConfig, SessionResult
from agentgauge.schema import LoadProfile
from agentgauge.testing import FakeOpenAIServer
from ray_cluster import local_cluster

pytestmark = [
    pytest.mark.ray,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals"),
]


cluster = pytest.fixture(scope="module", name="cluster")(local_cluster)


def _suite(tmp_path: Path) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE, encoding="utf-8")
    return path


def _lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def _finished_interval(line: str) -> bool:
    """An interval line of the load (``1.0s  ...``) in which a session ended."""
    return line.lstrip()[:1].isdigit() and "s " in line and "no session ended" not in line


def test_ctrl_c_during_a_load_on_ray_keeps_the_report(
    tmp_path: Path, cluster: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from_ray: list[bytes] = []
    original = SessionResult.of_line

    def spy(line: bytes) -> SessionResult:  # a session a Ray worker drove comes back as a line
        from_ray.append(line)
        return original(line)

    monkeypatch.setattr(SessionResult, "of_line", staticmethod(spy))
    profile = LoadProfile.model_validate({"users": 3, "duration": "10m", "interval": "500ms"})
    fired: list[str] = []

    def notify(line: str) -> None:
        if not fired and _finished_interval(line):
            fired.append(line)
            os.kill(os.getpid(), signal.SIGINT)

    with FakeOpenAIServer(_agent, latency_ms=100, record=False) as srv:
        config = RunConfig(
            agent="openai:fake-model",
            retries=0,
            executor=f"ray:{cluster}",
            agent_options={"base_url": srv.base_url, "api_key": "k"},
        )
        try:
            out = run_load_file(
                _suite(tmp_path), config, tmp_path / "run", profile=profile, notify=notify
            )
        except KeyboardInterrupt:
            pytest.fail("Ctrl-C stopped the load run on Ray without its report")
    r = out.report
    assert fired
    assert r.stopped_by == "interrupted"
    assert r.interrupted_by == "SIGINT"
    assert r.duration_s < 600
    assert r.totals.cancelled == 0  # 100 ms sessions finish well within the 30 s stop
    assert r.totals.sessions == r.totals.started > 0
    journal = _lines(tmp_path / "run" / "results.jsonl")
    assert len(journal) == r.totals.baseline_sessions + r.totals.sessions
    assert all(x["status"] == "passed" for x in journal)
    assert len(from_ray) == len(journal)  # each one driven by a Ray worker
    on_disk = orjson.loads((tmp_path / "run" / "load.json").read_bytes())
    assert on_disk["stopped_by"] == "interrupted"


def _reader(stream: Any, lines: queue.Queue[str]) -> None:
    for line in stream:
        lines.put(line)
    lines.put("")


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_the_load_command_on_ray_interrupted_writes_its_summary(
    tmp_path: Path, cluster: str, sig: int, code: int
) -> None:
    env = {**os.environ, "OPENAI_API_KEY": "sk-ray-interrupt-secret-123456"}
    with FakeOpenAIServer(_agent, latency_ms=100, record=False) as srv:
        args = [sys.executable, "-m", "agentgauge", "load", str(_suite(tmp_path))]
        args += ["--agent", "openai:fake-model", "--base-url", srv.base_url, "-o", "run"]
        args += ["--executor", f"ray:{cluster}", "--users", "2", "--duration", "10m"]
        args += ["--interval", "500ms"]
        proc = subprocess.Popen(
            args, cwd=tmp_path, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=_reader, args=(proc.stderr, lines), daemon=True).start()
        err: list[str] = []
        try:
            while True:
                line = lines.get(timeout=300)  # Ray's start on a loaded machine is slow
                err.append(line)
                assert line, "the load ended before an interval ended a session: " + "".join(err)
                if _finished_interval(line):
                    proc.send_signal(sig)
                    break
            proc.wait(timeout=300)  # the summary on stdout is small: the pipe holds it
        finally:
            proc.kill()
    assert proc.stdout is not None
    out = proc.stdout.read()
    while (line := lines.get(timeout=60)) != "":
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
    assert f"ended by interrupted ({name})" in (run / "load.html").read_text(encoding="utf-8")
    for file in ("load.json", "load.jsonl", "load.html", "results.jsonl"):
        assert "sk-ray-interrupt-secret" not in (run / file).read_text()
