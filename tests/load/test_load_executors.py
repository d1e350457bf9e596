"""A load run on the runner's other executors: worker processes (``--workers 2``) and Ray (the
way to generate load from more than one machine). The sessions come back as journal lines from
the workers; the load counts them as it counts local ones."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest
from test_load_run import SUITE, _agent  # tests/load is on sys.path

from agentgauge.load import run_load_file
from agentgauge.runner import RunConfig, SessionResult
from agentgauge.schema import LoadProfile
from agentgauge.testing import FakeOpenAIServer
from ray_cluster import local_cluster


def _suite(tmp_path: Path) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE, encoding="utf-8")
    return path


@pytest.fixture
def from_lines(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The journal lines workers sent back (a session driven here would not come as one)."""
    seen: list[bytes] = []
    original = SessionResult.of_line

    def spy(line: bytes) -> SessionResult:
        seen.append(line)
        return original(line)

    monkeypatch.setattr(SessionResult, "of_line", staticmethod(spy))
    return seen


def _check(out_dir: Path, sessions: int, k: int, peak: int) -> None:
    import orjson

    lines = [orjson.loads(x) for x in (out_dir / "results.jsonl").read_bytes().splitlines()]
    assert len(lines) == sessions + 3  # the baseline's three cases, then the load
    assert all(x["status"] == "passed" for x in lines)
    assert peak <= k


def test_a_load_run_on_worker_processes(tmp_path: Path, from_lines: list[bytes]) -> None:
    profile = LoadProfile.model_validate({"users": 4, "sessions": 16})
    with FakeOpenAIServer(_agent, latency_ms=20, record=False) as srv:
        config = RunConfig(
            agent="openai:fake-model",
            retries=0,
            workers=2,
            agent_options={"base_url": srv.base_url, "api_key": "k"},
        )
        out = run_load_file(_suite(tmp_path), config, tmp_path / "run", profile=profile)
    assert out.report.totals.sessions == 16
    assert out.report.totals.quality_ratio == pytest.approx(1.0)
    assert out.report.totals.latency_ms is not None
    _check(tmp_path / "run", 16, 4, srv.peak_in_flight)
    assert len(from_lines) == 16 + 3  # every session was driven by a worker process


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_during_a_load_on_worker_processes(tmp_path: Path, from_lines: list[bytes]) -> None:
    """The workers ignore Ctrl-C (the parent decides): the sessions they are driving finish and
    come back, or are cancelled after the graceful stop; the run ends with its report."""
    profile = LoadProfile.model_validate({"users": 3, "duration": "10m", "interval": "500ms"})
    fired: list[str] = []

    def notify(line: str) -> None:  # Ctrl-C at the first interval with a finished session
        if not fired and line.lstrip()[:1].isdigit() and "no session ended" not in line:
            fired.append(line)
            os.kill(os.getpid(), signal.SIGINT)

    with FakeOpenAIServer(_agent, latency_ms=100, record=False) as srv:
        config = RunConfig(
            agent="openai:fake-model",
            retries=0,
            workers=2,
            agent_options={"base_url": srv.base_url, "api_key": "k"},
        )
        try:
            out = run_load_file(
                _suite(tmp_path), config, tmp_path / "run", profile=profile, notify=notify
            )
        except KeyboardInterrupt:
            pytest.fail("Ctrl-C stopped the load run on workers without its report")
    r = out.report
    assert fired
    assert r.stopped_by == "interrupted"
    assert r.totals.cancelled == 0  # 100 ms sessions finish well within 30 s
    assert r.totals.sessions == r.totals.started > 0
    _check(tmp_path / "run", r.totals.sessions, 3, srv.peak_in_flight)
    assert len(from_lines) == r.totals.sessions + 3  # each one driven by a worker


cluster = pytest.fixture(scope="module", name="cluster")(local_cluster)


@pytest.mark.ray
def test_a_load_run_on_ray(tmp_path: Path, cluster: str, from_lines: list[bytes]) -> None:
    profile = LoadProfile.model_validate({"users": 3, "sessions": 9})
    with FakeOpenAIServer(_agent, latency_ms=20, record=False) as srv:
        config = RunConfig(
            agent="openai:fake-model",
            retries=0,
            executor=f"ray:{cluster}",
            agent_options={"base_url": srv.base_url, "api_key": "k"},
        )
        out = run_load_file(_suite(tmp_path), config, tmp_path / "run", profile=profile)
    assert out.report.totals.sessions == 9
    assert out.report.totals.errors == 0
    _check(tmp_path / "run", 9, 3, srv.peak_in_flight)
    assert len(from_lines) == 9 + 3  # every session was driven by a Ray worker
