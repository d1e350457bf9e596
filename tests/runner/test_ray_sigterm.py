"""SIGTERM stops ``agentgauge run --executor ray:...`` as it stops a local run: exit 143, the
finished cases kept in the journal, the ``--resume`` hint on stderr, no traceback.

``ray.init`` installs a SIGTERM handler of its own (``sys.exit(15)``) when the run joins the
cluster, so the command used to exit 15 at once with not a word. The signal is sent when the
agent's server has answered a few requests (an event), never after a sleep. A local Ray
instance on loopback (``address="local"``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import orjson
import pytest

from agentgauge.testing import FakeOpenAIServer, FakeRequest
from ray_cluster import local_cluster

pytestmark = [
    pytest.mark.ray,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals"),
]

CASES = 40


cluster = pytest.fixture(scope="module", name="cluster")(local_cluster)


def test_sigterm_stops_a_run_on_ray_and_keeps_its_journal(tmp_path: Path, cluster: str) -> None:
    cases = "".join(
        f"  - {{id: c{i:02d}, input: 'Say hello {i}.', expect: {{behavior: answer}}}}\n"
        for i in range(CASES)
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text(f"name: ray-sigterm\ntools: []\ncases:\n{cases}", encoding="utf-8")
    answered = threading.Event()
    count = 0
    lock = threading.Lock()

    def reply(_request: FakeRequest) -> str:
        nonlocal count
        with lock:
            count += 1
            if count >= 3:
                answered.set()
        return "Hello!"

    env = {**os.environ, "OPENAI_API_KEY": "sk-ray-sigterm-secret-123456"}
    with FakeOpenAIServer(reply, latency_ms=200, record=False) as srv:
        cmd = [sys.executable, "-m", "agentgauge", "run", str(suite), "--agent",
               "openai:fake-model", "--base-url", srv.base_url, "-o", "run", "--no-cache",
               "--no-history", "--no-progress", "--max-concurrency", "1",
               "--executor", f"ray:{cluster}?workers=1&cpus=0"]  # fmt: skip
        proc = subprocess.Popen(
            cmd, cwd=tmp_path, env=env, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        try:
            assert answered.wait(300), "the run on Ray answered no case"
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=300)
        finally:
            proc.kill()
    assert proc.returncode == 143, err[-3000:]
    assert "Traceback" not in err
    run = tmp_path / "run"
    assert "interrupted: finished cases are kept in " in err
    assert "continue with agentgauge run --resume" in err
    journal = [orjson.loads(x) for x in (run / "results.jsonl").read_bytes().splitlines()]
    assert 1 <= len(journal) < CASES  # what finished is kept, the rest runs on --resume
    assert all(x["status"] == "passed" for x in journal)
    assert "sk-ray-sigterm-secret" not in out + err
