"""The Ray executor (``--executor ray``) on one local Ray instance (2 CPUs) for the module:
the same verdicts as a local run, a cache shared by the workers, a killed worker's pairs run
again (none lost, none twice), a worker that always dies recorded on its case, the provider
limits held across workers (calls in flight, starts per second), and a killed driver resumed
from its journal."""

from __future__ import annotations

import itertools
import logging
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import pytest

ray = pytest.importorskip("ray")

from agentgauge.errors import MissingExtraError, UserError  # noqa: E402
from agentgauge.io import iter_results  # noqa: E402
from agentgauge.runner import RunConfig, read_record, run_suite_file  # noqa: E402
from agentgauge.runner._executor import parse_executor  # noqa: E402
from agentgauge.runner._ray_worker import RemoteSlot, SharedLimiter  # noqa: E402
from ray_cluster import local_cluster  # noqa: E402

pytestmark = pytest.mark.ray

REPO = Path(__file__).resolve().parents[2]

SUITE = """\
name: ray-weather
tools:
  - name: get_weather
    description: Current weather in a city
    parameters: {type: object, properties: {city: {type: string}}, required: [city]}
    simulation: {result: {temp_c: 12}}
scorers:  # wired by each worker itself: a worker without them would pass the "sorry" replies
  - scorer: assert
    args: {not_contains: [sorry]}
  - scorer: relevance  # a judge: it holds a cache and a lock, which cannot be sent
    judge: "mock:"
    cases: ["c07-*"]  # (only the verdict test has an 8th case)
defaults:
  faults: [{kind: error, rate: 0.4}]
cases:
"""
CITIES = ["Paris", "Oslo", "Rome", "Lima", "Kyiv", "Quito", "Hanoi", "Accra"]

# a scripted agent: asks for the weather of the city named, except for a city it gets wrong on
# purpose; answers with what the tool said (an injected fault makes it answer "sorry")
AGENT = """\
import os, time
from agentgauge.schema import ToolCall

MARKER = {marker!r}
CALLS = {calls!r}
SLEEP = {sleep!r}

def agent(messages, tools):
    last = messages[-1]
    if CALLS:
        start = time.time()
        time.sleep(SLEEP)
        with open(CALLS, "a") as fh:
            fh.write(f"{{start}} {{time.time()}}\\n")
    elif SLEEP:
        time.sleep(SLEEP)
    if last.role == "user" and "crash-once" in last.content and not os.path.exists(MARKER):
        open(MARKER, "w").close()
        os._exit(1)  # the worker process dies in the middle of the case
    if last.role == "user" and "crash-always" in last.content:
        os._exit(1)
    if last.role == "tool":
        if "error" in (last.content or "").lower():
            return "sorry, the weather service failed"
        return f"It is {{last.content}}"
    city = last.content.split()[-1]
    if city == "Rome":
        city = "Milan"
    return ToolCall(name="get_weather", arguments={{"city": city}})
"""


@pytest.fixture(autouse=True)
def _stand_in_scorer() -> None:
    """The real scorer here (the runner conftest's stand-in is patched in this process only,
    and the workers are other processes)."""


cluster = pytest.fixture(scope="module", name="cluster")(local_cluster)


def _suite(tmp_path: Path, cities: list[str], trials: int = 1) -> Path:
    lines = [SUITE.replace("defaults:\n", f"defaults:\n  trials: {trials}\n")]
    for i, city in enumerate(cities):
        lines.append(
            f"  - id: c{i:02d}-{city}\n    input: weather in {city}\n"
            f"    expect: {{tool_calls: [{{name: get_weather, arguments: {{city: {city}}}}}]}}\n"
        )
    path = tmp_path / "suite.yaml"
    path.write_text("".join(lines))
    return path


def _agent(tmp_path: Path, *, calls: Path | None = None, sleep: float = 0.0) -> str:
    path = tmp_path / "ray_agent.py"
    marker = str(tmp_path / "crashed-once")
    path.write_text(AGENT.format(marker=marker, calls=str(calls or ""), sleep=sleep))
    return f"python:{path}:agent"


def _config(agent: str, **kw: Any) -> RunConfig:
    base: dict[str, Any] = {"agent": agent, "progress": False, "cache": False, "max_concurrency": 4}
    base.update(kw)
    return RunConfig(**base)


def _verdicts(run_dir: Path) -> dict[tuple[str, int], tuple[str, float | None, str, str]]:
    out = {}
    for r in iter_results(run_dir):
        key = (r.case_id, r.trial)
        assert key not in out, f"{key} written twice"
        calls = ",".join(f"{c.name}({c.arguments})" for c in r.calls)
        scores = ",".join(f"{s.name}={s.passed}" for s in r.scores)
        out[key] = (r.status, r.score, f"{calls}|{r.text}", scores)
    return out


def test_parse_executor_forms_and_errors() -> None:
    assert parse_executor("local").is_local
    assert parse_executor("ray").address is None
    assert parse_executor("ray:auto").address == "auto"
    assert parse_executor("ray://10.0.0.1:10001").address == "ray://10.0.0.1:10001"
    spec = parse_executor("ray:127.0.0.1:6379?workers=3&cpus=0.5")
    assert (spec.address, spec.workers, spec.cpus) == ("127.0.0.1:6379", 3, 0.5)
    assert spec.start_timeout_s == 300
    assert parse_executor("ray?start_timeout=2.5").start_timeout_s == 2.5
    for bad, says in [
        ("dask", "unknown executor"),
        ("ray:", "needs auto"),
        ("ray://", "needs HOST:PORT"),
        ("ray?workers=0", "workers must be"),
        ("ray?cpus=-1", "cpus must be"),
        ("ray?start_timeout=0", "start_timeout must be a number > 0"),
        ("ray?gpus=1", "unknown option 'gpus'"),
        ("local?workers=2", "local takes no options"),
    ]:
        with pytest.raises(UserError, match=says):
            parse_executor(bad)


class _Method:
    def __init__(self, fn: Any) -> None:
        self.remote = fn


class _LocalActor:
    """A SharedLimiter called the way a Ray actor handle is (``actor.acquire.remote(...)``)."""

    def __init__(self, limiter: SharedLimiter) -> None:
        self.acquire = _Method(limiter.acquire)
        self.release = _Method(limiter.release)
        self.start_wait = _Method(limiter.start_wait)


def test_cases_sharing_one_remote_slot_each_release_their_own() -> None:
    limiter = SharedLimiter(2, lease_s=600)
    slot = RemoteSlot(_LocalActor(limiter))
    inside = []

    async def case(i: int) -> None:
        async with slot:
            inside.append(len(limiter._held))
            await anyio.sleep(0.01 * (i % 3))

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            for i in range(7):
                tg.start_soon(case, i)

    anyio.run(main)
    assert limiter.peak() == 2
    assert max(inside) <= 2
    assert limiter._held == {}  # every slot given back: none leaked to a wrong token


def test_a_slot_of_a_dead_worker_is_taken_back_after_its_lease() -> None:
    limiter = SharedLimiter(1, lease_s=0.05)

    async def main() -> None:
        await limiter.acquire("held-by-a-worker-that-died")  # never released
        with anyio.fail_after(30):
            await limiter.acquire("next")

    anyio.run(main)
    assert list(limiter._held) == ["next"]


def test_the_shared_limiter_spaces_starts_on_its_own_clock() -> None:
    limiter = SharedLimiter(1, lease_s=600, per_s=20)

    async def main() -> list[float]:
        return [await limiter.start_wait() for _ in range(4)]

    waits = anyio.run(main)
    # asked at (nearly) the same moment: each start is reserved 0.05 s after the one before
    assert waits[0] == 0.0
    for a, b in itertools.pairwise(waits):
        assert b - a == pytest.approx(0.05, abs=0.005)


def test_a_rate_only_remote_slot_waits_for_its_start_and_holds_no_slot() -> None:
    limiter = SharedLimiter(1, lease_s=600, per_s=20)
    slot = RemoteSlot(_LocalActor(limiter), slots=False, rate=True)
    starts: list[float] = []

    async def case() -> None:
        async with slot:
            starts.append(time.monotonic())
            assert limiter._held == {}  # no slot taken: a rate alone does not cap concurrency

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            for _ in range(4):
                tg.start_soon(case)

    began = time.monotonic()
    anyio.run(main)
    starts.sort()
    # the k-th start is never before its slot at began + k / 20 s (a late wake-up on a busy
    # machine only moves a start later, so the gap between two neighbours is not the measure)
    assert all(t - began >= k * 0.05 - 0.005 for k, t in enumerate(starts))
    assert starts[-1] - began >= 3 * 0.05 - 0.005


def test_a_bad_executor_is_a_user_error_before_anything_runs(tmp_path: Path) -> None:
    suite = _suite(tmp_path, CITIES[:1])
    with pytest.raises(UserError, match="unknown executor 'dask'"):
        run_suite_file(suite, _config(_agent(tmp_path), executor="dask"), tmp_path / "run")
    assert not (tmp_path / "run" / "results.jsonl").exists()


def test_ray_is_imported_only_when_a_run_uses_it(tmp_path: Path) -> None:
    code = "import sys, agentgauge.runner, agentgauge.cli._run; print('ray' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_without_ray_installed_the_run_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails
    suite = _suite(tmp_path, CITIES[:2])
    with pytest.raises(MissingExtraError, match=r"pip install 'agentgauge\[ray\]'"):
        run_suite_file(suite, _config(_agent(tmp_path), executor="ray"), tmp_path / "run")


def test_a_worker_that_cannot_build_the_agent_fails_the_run_in_one_line(
    tmp_path: Path, cluster: str
) -> None:
    suite = _suite(tmp_path, CITIES[:3])
    agent = tmp_path / "driver_only.py"
    # importable here, not in a worker process (as a module missing on a cluster's nodes)
    agent.write_text(
        f"import os\nif os.getpid() != {os.getpid()}:\n"
        "    raise RuntimeError('not installed on this node')\n"
        "def agent(messages, tools):\n    return 'hi'\n"
    )
    config = _config(f"python:{agent}:agent", executor="ray")
    with pytest.raises(UserError, match=r"a Ray worker could not start: .*not installed on"):
        run_suite_file(suite, config, tmp_path / "run")


def test_workers_the_cluster_cannot_place_fail_the_run_instead_of_waiting(
    tmp_path: Path, cluster: str
) -> None:
    suite = _suite(tmp_path, CITIES[:2])
    executor = f"ray:{cluster}?workers=1&cpus=64&start_timeout=2"  # the instance has 2 CPUs
    config = _config(_agent(tmp_path), executor=executor)
    with pytest.raises(UserError, match=r"not ready after 2 s .*asking 64 CPU each"):
        run_suite_file(suite, config, tmp_path / "run")


def test_a_run_with_nothing_to_drive_never_joins_ray(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    suite = tmp_path / "plain.yaml"  # no judge: whole results replay from the cache
    text = _suite(tmp_path, CITIES[:3], trials=2).read_text()
    suite.write_text(re.sub(r"scorers:.*?(?=defaults:)", "", text, flags=re.S))
    kw: dict[str, Any] = {"cache": True, "cache_dir": tmp_path / "cache"}
    agent = _agent(tmp_path)
    first = run_suite_file(suite, _config(agent, **kw), tmp_path / "r1")
    # nothing listens there: joining would fail; every result is replayed on the driver
    again = _config(agent, executor="ray:127.0.0.1:9", **kw)
    with caplog.at_level(logging.DEBUG, logger="agentgauge.runner.ray"):
        second = run_suite_file(suite, again, tmp_path / "r2")
    assert not [r for r in caplog.records if "ray workers ready" in r.getMessage()]
    assert second.replayed == first.ran == 6
    assert _verdicts(second.run_dir) == _verdicts(first.run_dir)


def test_same_verdicts_as_the_local_executor(tmp_path: Path, cluster: str) -> None:
    suite = _suite(tmp_path, CITIES, trials=3)
    agent = _agent(tmp_path)
    local = run_suite_file(suite, _config(agent, executor="local"), tmp_path / "local")
    on_ray = run_suite_file(suite, _config(agent, executor="ray"), tmp_path / "ray")
    expected = _verdicts(local.run_dir)
    assert len(expected) == len(CITIES) * 3
    # the suite is not trivial: Rome is answered wrongly, faults fail some trials
    statuses = Counter(v[0] for v in expected.values())
    assert statuses["passed"] > 0
    assert statuses["failed"] > 0
    assert any("assert=False" in v[3] for v in expected.values())  # the suite's scorer failed one
    assert _verdicts(on_ray.run_dir) == expected
    assert (on_ray.passed, on_ray.failed, on_ray.errors) == (
        local.passed,
        local.failed,
        local.errors,
    )
    assert on_ray.provider_calls == local.provider_calls
    record = read_record(on_ray.run_dir)
    assert record.options["executor"] == "ray"
    # the executor decides how a run goes, not its results: shards of both kinds merge
    assert record.config_hash == read_record(local.run_dir).config_hash


def test_the_workers_share_the_response_cache(tmp_path: Path, cluster: str) -> None:
    suite = _suite(tmp_path, CITIES[:4], trials=2)
    agent = _agent(tmp_path)
    kw: dict[str, Any] = {"cache": True, "cache_dir": tmp_path / "cache", "replay": False}
    first = run_suite_file(suite, _config(agent, executor="ray", **kw), tmp_path / "r1")
    assert first.provider_calls > 0
    assert first.cache_hits == 0
    # a second run on fresh workers is answered from what the first run's workers stored
    second = run_suite_file(suite, _config(agent, executor="ray", **kw), tmp_path / "r2")
    assert (second.provider_calls, second.cache_hits) == (0, first.provider_calls)
    assert _verdicts(second.run_dir) == _verdicts(first.run_dir)


def test_a_killed_worker_s_pairs_run_again_none_lost_or_doubled(
    tmp_path: Path, cluster: str
) -> None:
    cities = [*CITIES[:5], "crash-once"]
    suite = _suite(tmp_path, cities, trials=2)
    outcome = run_suite_file(suite, _config(_agent(tmp_path), executor="ray"), tmp_path / "run")
    assert (tmp_path / "crashed-once").exists()  # a worker did die mid-case
    got = _verdicts(outcome.run_dir)  # asserts no pair twice
    assert set(got) == {(f"c{i:02d}-{c}", t) for i, c in enumerate(cities) for t in range(2)}
    assert not [k for k, v in got.items() if v[0] == "error"]
    assert outcome.ran == len(cities) * 2


def test_a_case_that_always_kills_its_worker_is_an_error_on_that_case(
    tmp_path: Path, cluster: str
) -> None:
    cities = [*CITIES[:3], "crash-always"]
    suite = _suite(tmp_path, cities)
    # two workers, one pair each at a time: no other case shares the dying worker
    config = _config(_agent(tmp_path), executor="ray?workers=2", max_concurrency=2)
    outcome = run_suite_file(suite, config, tmp_path / "run")
    got = {r.case_id: r for r in iter_results(outcome.run_dir)}
    assert len(got) == len(cities)
    dead = got["c03-crash-always"]
    assert dead.status == "error"
    assert "ray worker failed" in (dead.error or "")
    assert all(r.status != "error" for cid, r in got.items() if cid != "c03-crash-always")


def _max_overlap(calls: Path) -> int:
    events: list[tuple[float, int]] = []
    for line in calls.read_text().splitlines():
        start, end = map(float, line.split())
        events += [(start, 1), (end, -1)]
    level = peak = 0
    for _, step in sorted(events, key=lambda e: (e[0], e[1])):
        level += step
        peak = max(peak, level)
    return peak


def test_the_provider_limit_holds_across_workers(tmp_path: Path, cluster: str) -> None:
    suite = _suite(tmp_path, CITIES)
    limited = tmp_path / "limited.txt"
    config = _config(
        _agent(tmp_path, calls=limited, sleep=0.05),
        executor="ray?workers=2&cpus=0",
        provider_concurrency=1,
    )
    run_suite_file(suite, config, tmp_path / "limited")
    assert _max_overlap(limited) == 1
    # the same run without the limit does overlap: the check above can fail
    free = tmp_path / "free.txt"
    config = _config(_agent(tmp_path, calls=free, sleep=0.05), executor="ray?workers=2&cpus=0")
    run_suite_file(suite, config, tmp_path / "free")
    assert _max_overlap(free) >= 2


RATE_AGENT = """\
import os, time

CALLS = {calls!r}

def agent(messages, tools):
    with open(CALLS, "a") as fh:
        fh.write(f"{{time.monotonic()}} {{os.getpid()}}\\n")
    return "It is 12 degrees"
"""


def test_the_rate_limit_holds_across_workers(tmp_path: Path, cluster: str) -> None:
    suite = _suite(tmp_path, CITIES)
    calls = tmp_path / "calls.txt"
    script = tmp_path / "rate_agent.py"
    script.write_text(RATE_AGENT.format(calls=str(calls)))
    agent = f"python:{script}:agent"
    executor = "ray?workers=2&cpus=0"

    def starts() -> tuple[list[float], set[str]]:
        rows = [line.split() for line in calls.read_text().splitlines()]
        calls.unlink()
        return sorted(float(t) for t, _ in rows), {pid for _, pid in rows}

    run_suite_file(suite, _config(agent, executor=executor, rate_limit_per_s=10), tmp_path / "a")
    limited, pids = starts()
    assert len(limited) == len(CITIES)
    assert len(pids) == 2  # both workers made calls
    # one clock (the limiter actor's) reserves every worker's start 0.1 s after the one before;
    # a call starts at its reserved time plus however late the reply reached its worker. Delays
    # only push starts later, so the k-th start is at least (k - 1) * 0.1 s after the first
    # reserved one, and the span of all starts loses at most the first call's delay. (Gaps
    # between neighbours would not hold under load: one late start shrinks the gap after it.)
    # Spacing per worker instead (two independent 0.1 s schedules, interleaved) spans only
    # (8 / 2 - 1) * 0.1 = 0.3 s.
    least = (len(CITIES) - 1) * 0.1 - 0.05
    assert limited[-1] - limited[0] >= least, limited
    assert read_record(tmp_path / "a").options["rate_limit_per_s"] == 10
    # the same run without the limit starts its calls within a shorter span: the check can fail
    run_suite_file(suite, _config(agent, executor=executor), tmp_path / "b")
    free, _ = starts()
    assert free[-1] - free[0] < least, free


def test_a_killed_driver_resumes_from_its_journal(tmp_path: Path, cluster: str) -> None:
    cities = [f"{c}{n}" for n in range(3) for c in CITIES]  # 24 cases
    suite = _suite(tmp_path, cities)
    agent = _agent(tmp_path, sleep=0.1)
    run_dir = tmp_path / "run"
    executor = f"ray:{cluster}?workers=2&cpus=0"
    cmd = [sys.executable, "-m", "agentgauge", "run", str(suite), "--agent", agent]
    cmd += ["-o", str(run_dir), "--no-cache", "--max-concurrency", "2", "--no-progress"]
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    proc = subprocess.Popen(
        [*cmd, "--executor", executor],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    journal = run_dir / "results.jsonl"
    deadline = time.monotonic() + 120
    while (not journal.exists() or journal.read_bytes().count(b"\n") < 4) and proc.poll() is None:
        assert time.monotonic() < deadline, "the driver wrote no results"
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    kept = journal.read_bytes().count(b"\n")
    assert 4 <= kept < len(cities), "kill the driver mid-run"
    assert read_record(run_dir).options["executor"] == executor
    # the resume takes the executor from run.json (the python: agent must be named again)
    resume = [sys.executable, "-m", "agentgauge", "run", "--resume", str(run_dir)]
    done = subprocess.run(
        [*resume, "--agent", agent, "--no-progress"],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"{kept} resumed" in done.stderr
    seen = Counter((r.case_id, r.trial) for r in iter_results(run_dir))
    assert set(seen) == {(f"c{i:02d}-{c}", 0) for i, c in enumerate(cities)}
    assert set(seen.values()) == {1}


def test_cli_executor_option_env_and_resume_elsewhere(tmp_path: Path, cluster: str) -> None:
    from click.testing import CliRunner

    from agentgauge.cli import cli

    suite = _suite(tmp_path, CITIES[:3])
    agent = _agent(tmp_path)
    run_dir = tmp_path / "run"
    base = ["run", str(suite), "--agent", agent, "-o", str(run_dir), "--no-cache"]
    bad = CliRunner().invoke(cli, [*base, "--executor", "dask"])
    assert bad.exit_code == 2
    assert "unknown executor 'dask'" in bad.output
    assert "Traceback" not in bad.output
    assert not (run_dir / "results.jsonl").exists()

    done = CliRunner().invoke(cli, base, env={"AGENTGAUGE_EXECUTOR": "ray?workers=1"})
    assert done.exit_code == 0, done.output
    assert read_record(run_dir).options["executor"] == "ray?workers=1"
    assert len(_verdicts(run_dir)) == 3
    # --executor may change on resume (where pairs run does not change their results)
    resume = ["run", "--resume", str(run_dir), "--agent", agent, "--executor", "local"]
    again = CliRunner().invoke(cli, resume)
    assert again.exit_code == 0, again.output
    assert read_record(run_dir).options["executor"] == "local"
    assert "3 resumed" in again.output
