"""``agentgauge load`` as a user runs it: a real process against the loopback fake server.
Exit 0 when every threshold holds, 1 when one breaks, 2 (one line, no traceback) on bad input;
the run directory holds load.json, load.jsonl, load.html and a normal results journal."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from agentgauge.testing import FakeOpenAIServer

SUITE = """name: cli-load
tools: []
cases:
  - id: hi
    input: Say hello.
    expect: {behavior: answer}
"""


def _load(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_API_KEY": "sk-cli-load-secret-1234567890"}
    return subprocess.run(
        [sys.executable, "-m", "agentgauge", "load", str(tmp_path / "suite.yaml"), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    return tmp_path


def test_a_load_run_passes_its_thresholds_and_writes_its_files(suite: Path) -> None:
    with FakeOpenAIServer(["Hello!"], latency_ms=20, record=False) as srv:
        done = _load(
            suite,
            "--agent",
            "openai:fake-model",
            "--base-url",
            srv.base_url,
            "--users",
            "2",
            "--sessions",
            "8",
            "--threshold",
            "p95<600000",
            "--threshold",
            "error_rate<1%",
            "--threshold",
            "quality_ratio>=0.9",
            "-o",
            "run",
            "--price",
            "1/2",
        )
    assert done.returncode == 0, done.stderr
    assert "✓ p95<600000" in done.stdout
    assert "sessions ..........." in done.stdout
    assert "estimated cost (before the run): $" in done.stderr
    run = suite / "run"
    for name in ("load.json", "load.jsonl", "load.html", "results.jsonl", "run.json"):
        assert (run / name).is_file(), name
        assert "sk-cli-load-secret" not in (run / name).read_text()
    report = orjson.loads((run / "load.json").read_bytes())
    assert report["totals"]["sessions"] == 8
    assert report["passed"] is True


def test_a_broken_threshold_exits_1_and_json_says_why(suite: Path) -> None:
    with FakeOpenAIServer(["Hello!"], latency_ms=30, record=False) as srv:
        done = _load(
            suite,
            "--agent",
            "openai:fake-model",
            "--base-url",
            srv.base_url,
            "--users",
            "2",
            "--sessions",
            "4",
            "--threshold",
            "p95<1",
            "--format",
            "json",
            "-o",
            "run",
        )
    assert done.returncode == 1, done.stderr
    report = orjson.loads(done.stdout)
    assert report["passed"] is False
    assert report["thresholds"][0]["explanation"].endswith("(breaks p95<1)")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--users", "2"], "load options: give a duration"),
        (["--users", "2", "--duration", "5x"], "is not a duration"),
        (["--users", "2", "--duration", "1s", "--threshold", "p95<<1"], "not a threshold"),
        (["--rate", "fast", "--duration", "1s"], "--rate 'fast'"),
        (["--step", "1", "--step-every", "1s"], "--step '1'"),
        (["--users", "2", "--duration", "1s", "--max-cost", "1"], "no price for"),
        (["--users", "2", "--duration", "1s", "--price", "x/1"], "--price"),
        ([], "no load profile"),
        (["--users", "2", "--duration", "1s", "--graceful-stop", "soon"], "--graceful-stop: "),
    ],
)
def test_bad_input_is_one_line_and_exit_2(suite: Path, args: list[str], message: str) -> None:
    done = _load(
        suite, "--agent", "openai:fake-model", "--base-url", "http://127.0.0.1:9/v1", *args
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert message in lines[0]
    assert "Traceback" not in done.stderr


def test_a_suite_asking_for_too_much_load_is_refused_where_it_asks(suite: Path) -> None:
    (suite / "suite.yaml").write_text(
        SUITE + "load:\n  users: 100000\n  duration: 1h\n", encoding="utf-8"
    )
    done = _load(suite, "--agent", "openai:fake-model", "--base-url", "http://127.0.0.1:9/v1")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert lines[0].startswith(f"{suite / 'suite.yaml'}:8: load.users: 100000 users is more")
    assert "--max-users 100000" in lines[0]
    assert any(":9: load.duration: 3600 s of load" in line for line in lines)
    assert "Traceback" not in done.stderr
    assert not (suite / "runs").exists()  # nothing ran


def test_a_bad_profile_file_is_refused_at_its_line(suite: Path) -> None:
    (suite / "load.yaml").write_text("users: 2\nduration: 1s\nthink_time: slow\n", encoding="utf-8")
    done = _load(suite, "--agent", "openai:fake-model", "--profile", str(suite / "load.yaml"))
    assert done.returncode == 2
    assert done.stderr.startswith(f"{suite / 'load.yaml'}:3: think_time")
    assert "Traceback" not in done.stderr
    (suite / "load.yaml").write_text("users: 2\nduration: 1s\n", encoding="utf-8")
    both = _load(
        suite, "--agent", "openai:fake-model", "--profile", str(suite / "load.yaml"), "--users", "3"
    )
    assert both.returncode == 2
    assert "not both" in both.stderr


def test_no_key_in_what_the_command_prints(suite: Path) -> None:
    with FakeOpenAIServer(["Hello {key}!"], echo_key=True, record=False) as srv:  # echoes it
        done = _load(
            suite,
            "--agent",
            "openai:fake-model",
            "--base-url",
            srv.base_url,
            "--users",
            "1",
            "--sessions",
            "2",
            "-o",
            "run",
        )
    assert done.returncode == 0, done.stderr
    assert "sk-cli-load-secret" not in done.stdout + done.stderr
    for path in (suite / "run").iterdir():
        assert "sk-cli-load-secret" not in path.read_text(errors="replace"), path.name


def test_max_cost_stops_the_command_after_printing_the_estimate(suite: Path) -> None:
    with FakeOpenAIServer(["Hello!"], latency_ms=5, record=False) as srv:
        done = _load(
            suite,
            "--agent",
            "openai:fake-model",
            "--base-url",
            srv.base_url,
            "--users",
            "2",
            "--duration",
            "10m",
            "--price",
            "1000/1000",  # ~$0.05 a session
            "--max-cost",
            "0.5",
            "-o",
            "run",
        )
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("estimated cost (before the run): $")
    report = orjson.loads((suite / "run" / "load.json").read_bytes())
    assert report["stopped_by"] == "max_cost"
    assert report["duration_s"] < 600
    per_session = report["totals"]["cost_usd"] / report["totals"]["sessions"]
    # stopped within the sessions in flight (2 users) of the limit, baseline included
    assert report["totals"]["cost_usd"] <= 0.5 + 2 * per_session
    assert "limit $0.5" in done.stdout


def test_the_rehearsal_in_the_docs_finds_the_capacity_of_a_queueing_server(suite: Path) -> None:
    """docs/load.md's rehearsal without a GPU: the fake server as its own process with 4 slots
    that queue the rest, like llama.cpp's -np 4. Under N > 4 users every session waits its
    turn: the p95 reaches about N/4 service times, so a budget between 1 and 5/4 of it finds 4."""
    fake = ["agentgauge.testing.fake_openai", "--latency-ms", "1000", "--max-concurrent", "4"]
    server = subprocess.Popen(
        [sys.executable, "-m", *fake, "--over-capacity", "queue"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip().rpartition(" ")[2]
        assert url.startswith("http://127.0.0.1:"), url
        done = _load(
            suite,
            "--agent",
            "openai:fake-model",
            "--base-url",
            url,
            "--step",
            "3:8:1",
            "--step-every",
            "3s",
            "--budget",
            "p95<1150",
            "--budget",
            "error_rate<1%",
            "--timeout",
            "60",
            "--no-baseline",
            "-o",
            "run",
        )
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert done.returncode == 0, done.stderr
    report = orjson.loads((suite / "run" / "load.json").read_bytes())
    sat = report["saturation"]
    assert sat["found"] is True
    assert sat["sustained"] == 4  # = K
    assert sat["saturated_at"] == 5
    assert sat["broken_by"] == ["p95<1150"]
    assert report["totals"]["errors"] == 0  # the queue shows as latency, never as errors
    assert "saturation: at 5 users (p95<1150); highest sustained: 4 users" in done.stdout
