"""Crash safety: a run killed with SIGKILL resumes without re-running or losing cases."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import orjson
import pytest
from runner_helpers import agent, make_suite, weather_agent

from agentgauge.errors import UserError
from agentgauge.io import iter_results
from agentgauge.runner import RunConfig, read_record, run_suite

SLOW_AGENT = """
import os
import anyio
from agentgauge.schema import Message
from agentgauge.providers import ModelResponse

class Slow:
    name = "slowtest:"
    async def generate(self, request):
        with open(os.environ["CALL_LOG"], "a") as fh:
            fh.write(request.messages[-1].content + "\\n")
        await anyio.sleep(float(os.environ.get("DELAY", "0.05")))
        return ModelResponse(message=Message(role="assistant", content="ok"))

def create(rest, **options):
    return Slow()
"""

DRIVER = """
import sys
from agentgauge.providers import _registry
_registry._FACTORIES["slowtest"] = "slowagent:create"
from agentgauge.cli import main
main(sys.argv[1:])
"""


def _suite_yaml(n: int) -> str:
    cases = "\n".join(f"  - {{id: c{i:03d}, input: 'case {i:03d}'}}" for i in range(n))
    return f"name: resumable\ndefaults: {{agent: 'slowtest:'}}\ncases:\n{cases}\n"


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def _start_run(
    tmp_path: Path, *extra: str, call_log: str, wait_for_lines: int
) -> tuple[subprocess.Popen[str], Path, dict[str, str]]:
    """``agentgauge run`` of a 40-case suite on a slow agent, in a child process, returned once
    ``wait_for_lines`` results are in its journal (or it ended)."""
    (tmp_path / "slowagent.py").write_text(textwrap.dedent(SLOW_AGENT))
    (tmp_path / "driver.py").write_text(textwrap.dedent(DRIVER))
    (tmp_path / "suite.yaml").write_text(_suite_yaml(40))
    run_dir = tmp_path / "run"
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path),
        "CALL_LOG": str(tmp_path / call_log),
        "AGENTGAUGE_CACHE_DIR": str(tmp_path / "cache"),
        "AGENTGAUGE_HISTORY": str(tmp_path / "history.sqlite"),
    }
    args = [sys.executable, str(tmp_path / "driver.py"), "run", str(tmp_path / "suite.yaml")]
    args += ["-o", str(run_dir), "--max-concurrency", "2", "--no-progress", *extra]
    proc = subprocess.Popen(args, env=env, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    results = run_dir / "results.jsonl"
    deadline = time.monotonic() + 60
    while _lines(results) < wait_for_lines and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    return proc, run_dir, env


def test_kill_9_then_resume(tmp_path: Path) -> None:
    proc, run_dir, env = _start_run(
        tmp_path, "--trials", "2", call_log="calls1.log", wait_for_lines=10
    )
    results = run_dir / "results.jsonl"
    proc.send_signal(signal.SIGKILL)
    proc.communicate()  # (stderr is a pipe: drain it)
    assert proc.returncode == -signal.SIGKILL
    done_before = {(r.case_id, r.trial) for r in iter_results(run_dir)}
    assert 10 <= len(done_before) < 80
    # a kill in the middle of a write leaves half a line: it must be dropped and re-run
    with open(results, "ab") as fh:
        fh.write(b'{"version":1,"case_id":"c039","trial":1,"status":"pas')
    record = read_record(run_dir)
    assert record.finished_at is None

    env["CALL_LOG"] = str(tmp_path / "calls2.log")
    resume = [sys.executable, str(tmp_path / "driver.py"), "run", "--resume", str(run_dir)]
    done = subprocess.run(resume, env=env, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr

    pairs = Counter((r.case_id, r.trial) for r in iter_results(run_dir))
    assert len(pairs) == 80
    assert set(pairs.values()) == {1}  # nothing lost, nothing twice
    rerun = (tmp_path / "calls2.log").read_text().splitlines()
    # every call made after the resume is for a pair not finished before the kill
    assert len(rerun) == 80 - len(done_before)
    record = read_record(run_dir)
    assert record.finished_at is not None
    assert record.options["trials"] == 2
    for line in results.read_bytes().splitlines():
        orjson.loads(line)  # every line is whole


def test_resume_in_process_skips_finished_pairs(tmp_path: Path) -> None:
    suite = make_suite([{"id": f"c{i}", "input": f"city {i}"} for i in range(5)])
    cfg = RunConfig(progress=False, cache=False, limit=3)
    run_suite(suite, cfg, tmp_path, provider=agent(weather_agent))
    p = agent(weather_agent)
    out = run_suite(
        suite, RunConfig(progress=False, cache=False, resume=True), tmp_path, provider=p
    )
    assert (out.resumed, out.ran) == (3, 2)
    assert p.calls == 4
    assert sorted(r.case_id for r in iter_results(tmp_path)) == [f"c{i}" for i in range(5)]


def test_resume_with_a_changed_suite_is_refused(tmp_path: Path) -> None:
    suite = make_suite([{"id": f"c{i}", "input": f"city {i}"} for i in range(3)])
    run_suite(
        suite,
        RunConfig(progress=False, cache=False, limit=2),
        tmp_path,
        provider=agent(weather_agent),
    )
    other = make_suite([{"id": "x", "input": "city x"}])
    with pytest.raises(UserError, match="suite has changed"):
        run_suite(
            other,
            RunConfig(progress=False, cache=False, resume=True),
            tmp_path,
            provider=agent(weather_agent),
        )
    assert [r.case_id for r in iter_results(tmp_path)] == ["c0", "c1"]
    assert read_record(tmp_path).suite_hash is not None


def test_workers_beyond_the_cases_neither_start_nor_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import anyio

    naps: list[float] = []
    real_sleep = anyio.sleep

    async def sleep(delay: float) -> None:
        if delay >= 1000:  # a worker's start stagger (stagger_s below); others really sleep
            naps.append(delay)
            return
        await real_sleep(delay)

    monkeypatch.setattr(anyio, "sleep", sleep)
    suite = make_suite([{"id": f"c{i}", "input": f"city {i}"} for i in range(2)])
    cfg = RunConfig(progress=False, cache=False, max_concurrency=50, stagger_s=1000.0)
    out = run_suite(suite, cfg, tmp_path, provider=agent(weather_agent))
    assert out.ran == 2
    # two pairs: at most two workers, and only one with a case waits its stagger (the 48 idle
    # workers used to sleep too, up to 49 * stagger_s, holding up the end of the run)
    assert naps in ([], [1000.0])


def test_run_record_with_a_seed_beyond_64_bits_is_written(tmp_path: Path) -> None:
    suite = make_suite([{"id": "c0", "input": "city 0"}])
    cfg = RunConfig(progress=False, cache=False, seed=10**30, limit=10**20)
    out = run_suite(suite, cfg, tmp_path, provider=agent(weather_agent))
    assert out.ran == 1
    record = read_record(tmp_path)
    assert record.options["limit"] == 10**20
    assert (out.resumed, out.ran) == (0, 1)


def test_a_run_directory_in_use_is_refused(tmp_path: Path) -> None:
    # a --resume started while the first run still writes would journal every case twice
    from agentgauge.io import run_dir_lock

    suite = make_suite([{"id": "c0", "input": "city 0"}])
    cfg = RunConfig(progress=False, cache=False, resume=True)
    with run_dir_lock(tmp_path), pytest.raises(UserError, match="another agentgauge run"):
        run_suite(suite, cfg, tmp_path, provider=agent(weather_agent))
    assert not (tmp_path / "results.jsonl").exists()
    out = run_suite(suite, cfg, tmp_path, provider=agent(weather_agent))  # free again
    assert out.ran == 1


def test_ctrl_c_keeps_finished_cases_and_says_how_to_resume(tmp_path: Path) -> None:
    proc, run_dir, env = _start_run(tmp_path, call_log="calls.log", wait_for_lines=5)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert f"agentgauge run --resume {run_dir}" in err
    assert "Traceback" not in err
    kept = {r.case_id for r in iter_results(run_dir)}
    assert 5 <= len(kept) < 40
    resume = [sys.executable, str(tmp_path / "driver.py"), "run", "--resume", str(run_dir)]
    done = subprocess.run(resume, env=env, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert Counter(r.case_id for r in iter_results(run_dir)) == Counter(
        f"c{i:03d}" for i in range(40)
    )
