"""The multi-process local executor (``--workers N``): whole results identical to one process
(timings aside) over several suites (faults, trials, a world, judges, asserts, function fakes
that are suite code), pairs of a killed worker process run again with none lost or doubled, a
pair that always kills its process recorded on its case, the suite-code policy held in the
children, resume, cache and shards unchanged, and the auto decision."""

from __future__ import annotations

import logging
import os
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest
import yaml

from agentgauge.errors import UserError
from agentgauge.rundir import RESULTS_FILE, iter_results, merge_runs
from agentgauge.runner import RunConfig, Shard, read_record, run_suite_file
from agentgauge.runner._executor import RemoteAgent, local_workers

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
#: fields that time a case: they differ between any two runs
TIMINGS = {"latency_ms", "ttft_ms", "start", "end"}

SUITE = """\
name: procs-weather
tools:
  - name: get_weather
    description: Current weather in a city
    parameters: {type: object, properties: {city: {type: string}}, required: [city]}
    simulation: {result: {temp_c: 12}}
scorers:  # wired by each worker process itself
  - scorer: assert
    args: {not_contains: [sorry]}
  - scorer: relevance
    judge: "mock:judge"
defaults:
  faults: [{kind: error, rate: 0.4}]
cases:
"""
CITIES = ["Paris", "Oslo", "Rome", "Lima", "Kyiv", "Quito", "Hanoi", "Accra"]

AGENT = """\
import os
from agentgauge.schema import ToolCall

MARKER = {marker!r}

def agent(messages, tools):
    last = messages[-1]
    if last.role == "user" and "crash-once" in last.content and not os.path.exists(MARKER):
        open(MARKER, "w").close()
        os._exit(1)  # the worker process dies in the middle of the case
    if last.role == "user" and "crash-always" in last.content:
        os._exit(1)
    if last.role == "tool":
        if "error" in (last.content or "").lower():
            return "sorry, the weather service failed"
        asked = [m.content for m in messages if m.role == "user"][-1]
        said = f"The {{asked}}: it is {{last.content}}"
        return f"{{said}} (pid {{os.getpid()}})" if {pid} else said
    city = last.content.split()[-1]
    if city == "Rome":
        city = "Milan"
    return ToolCall(name="get_weather", arguments={{"city": city}})
"""

WORLD = """\
class Shop:
    def __init__(self, state):
        self.orders = state["orders"]

    def cancel_order(self, order_id):
        order = self.orders[order_id]
        if order["status"] != "pending":
            raise ValueError(f"order {order_id} is {order['status']}")
        order["status"] = "cancelled"
        return {"id": order_id, "status": "cancelled"}
"""

SHOP_AGENT = """\
from agentgauge.schema import ToolCall

def agent(messages, tools):
    if messages[-1].role == "tool":
        return "Done."
    return ToolCall(name="cancel_order", arguments={"order_id": messages[-1].content.split()[-1]})
"""


@pytest.fixture(autouse=True)
def _stand_in_scorer() -> None:
    """The real scorer here: the workers are other processes (the runner conftest's stand-in
    is patched in this one only)."""


def _weather_suite(tmp_path: Path, cities: list[str], trials: int = 1) -> Path:
    lines = [SUITE.replace("defaults:\n", f"defaults:\n  trials: {trials}\n")]
    for i, city in enumerate(cities):
        lines.append(
            f"  - id: c{i:02d}-{city}\n    input: weather in {city}\n"
            f"    expect: {{tool_calls: [{{name: get_weather, arguments: {{city: {city}}}}}]}}\n"
        )
    path = tmp_path / "suite.yaml"
    path.write_text("".join(lines))
    return path


def _agent(tmp_path: Path, *, pid: bool = False) -> str:
    path = tmp_path / "procs_agent.py"
    path.write_text(AGENT.format(marker=str(tmp_path / "crashed-once"), pid=pid))
    return f"python:{path}:agent"


def _shop_suite(tmp_path: Path) -> Path:
    (tmp_path / "shop.py").write_text(WORLD)
    state = {
        "orders": {
            "A1": {"status": "pending"},
            "A2": {"status": "shipped"},
            "A3": {"status": "pending"},
        }
    }
    tool = {
        "name": "cancel_order",
        "description": "cancel an order",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}},
            "required": ["order_id"],
        },
    }
    cases: list[dict[str, Any]] = [
        {
            "id": f"cancel-{key}",
            "input": f"cancel {key}",
            "expect": {
                "tool_calls": [{"name": "cancel_order", "arguments": {"order_id": key}}],
                "state": {"checks": [{"path": f"orders.{key}.status", "equals": "cancelled"}]},
            },
        }
        for key in ("A1", "A3")
    ]
    cases.append(
        {"id": "cancel-A2", "input": "cancel A2", "expect": {"state": {"unchanged": ["orders"]}}}
    )
    suite = {
        "name": "procs-shop",
        "tools": [tool],
        "world": {"class": "shop.py:Shop", "state": state},
        "cases": cases,
        "defaults": {"trials": 3},
    }
    path = tmp_path / "suite.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False))
    return path


def _config(agent: str, **kw: Any) -> RunConfig:
    base: dict[str, Any] = {"agent": agent, "progress": False, "cache": False, "max_concurrency": 4}
    base.update(kw)
    return RunConfig(**base)


def _untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def _results(run_dir: Path) -> dict[tuple[str, int], Any]:
    """Every result of the run, whole, without its timings; a pair written twice fails."""
    out: dict[tuple[str, int], Any] = {}
    for line in (run_dir / RESULTS_FILE).read_bytes().splitlines():
        data = orjson.loads(line)
        key = (data["case_id"], data["trial"])
        assert key not in out, f"{key} written twice"
        out[key] = _untimed(data)
    return out


def _verdicts(run_dir: Path) -> dict[tuple[str, int], tuple[str, Any, str, str]]:
    return {
        k: (r["status"], r["score"], r["text"], r["explanation"])
        for k, r in _results(run_dir).items()
    }


def _example(tmp_path: Path, name: str) -> tuple[Path, str, dict[str, Any]]:
    folder = tmp_path / name
    shutil.copytree(EXAMPLES / name, folder)
    agent = f"python:{folder / 'oracle_agent.py'}:agent"
    return folder, agent, {}


def _cases(tmp_path: Path, which: str) -> tuple[Path, str, dict[str, Any]]:
    """A suite, its agent and the run options of one comparison."""
    if which == "faults-trials-judge-assert":
        return _weather_suite(tmp_path, CITIES, trials=3), _agent(tmp_path), {}
    if which == "python-world":
        (tmp_path / "agent.py").write_text(SHOP_AGENT)
        agent = f"python:{tmp_path / 'agent.py'}:agent"
        return _shop_suite(tmp_path), agent, {"allow_suite_code": True}
    if which == "quickstart-trials":
        folder, agent, kw = _example(tmp_path, "quickstart")
        return folder, agent, {**kw, "trials": 2}
    if which == "travel-function-fakes":  # fakes.py: suite code, allowed by this config only
        folder, agent, kw = _example(tmp_path, "travel")
        return folder, agent, {**kw, "allow_suite_code": True}
    folder, agent, kw = _example(tmp_path, "tool_selection")  # the equivalence judge
    return folder, agent, {**kw, "judge": "mock:judge", "limit": 40}


@pytest.mark.parametrize(
    "which",
    [
        "faults-trials-judge-assert",
        "python-world",
        "quickstart-trials",
        "travel-function-fakes",
        "tool-selection-mock-judge",
    ],
)
def test_whole_results_match_one_process(tmp_path: Path, which: str) -> None:
    suite, agent, kw = _cases(tmp_path, which)
    one = run_suite_file(suite, _config(agent, workers=1, **kw), tmp_path / "one")
    two = run_suite_file(suite, _config(agent, workers=2, **kw), tmp_path / "two")
    expected = _results(one.run_dir)
    assert len(expected) == one.ran > 2
    assert _results(two.run_dir) == expected
    assert (two.passed, two.failed, two.errors) == (one.passed, one.failed, one.errors)
    assert two.provider_calls == one.provider_calls
    # the worker count decides how a run goes, not its results: its shards merge with others
    assert read_record(two.run_dir).config_hash == read_record(one.run_dir).config_hash
    if which == "faults-trials-judge-assert":  # not trivial: wrong answers, faults, scorers
        statuses = Counter(r["status"] for r in expected.values())
        assert statuses["passed"] > 0
        assert statuses["failed"] > 0
        scores = [s for r in expected.values() for s in r["scores"]]
        assert any(s["name"] == "assert" and not s["passed"] for s in scores)
        assert any(s["name"] == "judge.relevance" for s in scores)


def test_every_example_case_crosses_to_a_child_unchanged() -> None:
    """A case goes to a child as its JSON: validated back, it is the same case (state checks
    that count the fields given, worlds, turns, tool specs of their own ...)."""
    from agentgauge.runner._procs import _wire_case
    from agentgauge.schema import Case
    from agentgauge.suites import load_suite

    seen = 0
    for folder in sorted(p for p in EXAMPLES.iterdir() if (p / "suite.yaml").exists()):
        for case in load_suite(folder).cases:
            wire = _wire_case(case)
            back = Case.model_validate_json(wire) if isinstance(wire, bytes) else wire
            assert back == case, (folder.name, case.id)
            seen += 1
    assert seen > 500


def test_the_comparison_sees_a_result_that_differs(tmp_path: Path) -> None:
    """The check above can fail: a run whose agent differs in one reply differs in results."""
    suite = _weather_suite(tmp_path, CITIES[:3])
    agent = _agent(tmp_path)
    first = run_suite_file(suite, _config(agent), tmp_path / "a")
    path = tmp_path / "procs_agent.py"
    path.write_text(path.read_text().replace('"Milan"', '"Turin"'))
    second = run_suite_file(suite, _config(agent, workers=2), tmp_path / "b")
    assert _results(second.run_dir) != _results(first.run_dir)


def test_the_pairs_run_in_the_worker_processes(tmp_path: Path) -> None:
    suite = _weather_suite(tmp_path, ["Paris", "Oslo", "Lima", "Kyiv"] * 2)
    suite.write_text(suite.read_text().replace("rate: 0.4", "rate: 0.0"))
    config = _config(_agent(tmp_path, pid=True), workers=2, max_concurrency=4)
    outcome = run_suite_file(suite, config, tmp_path / "run")
    pids = {r.text.rsplit("pid ", 1)[1].rstrip(")") for r in iter_results(outcome.run_dir)}
    assert str(os.getpid()) not in pids
    assert len(pids) == 2  # both children drove pairs; this process only wrote them


def test_a_killed_worker_s_pairs_run_again_none_lost_or_doubled(tmp_path: Path) -> None:
    cities = [*CITIES[:5], "crash-once"]
    suite = _weather_suite(tmp_path, cities, trials=2)
    config = _config(_agent(tmp_path), workers=2, max_concurrency=6)
    outcome = run_suite_file(suite, config, tmp_path / "run")
    assert (tmp_path / "crashed-once").exists()  # a worker process did die mid-case
    got = _results(outcome.run_dir)  # fails on a pair written twice
    assert set(got) == {(f"c{i:02d}-{c}", t) for i, c in enumerate(cities) for t in range(2)}
    assert not [k for k, v in got.items() if v["status"] == "error" and "worker" in v["error"]]
    assert outcome.ran == len(cities) * 2


def test_a_case_that_always_kills_its_worker_is_an_error_on_that_case(tmp_path: Path) -> None:
    cities = [*CITIES[:3], "crash-always"]
    suite = _weather_suite(tmp_path, cities)
    suite.write_text(suite.read_text().replace("rate: 0.4", "rate: 0.0"))
    # one pair per process at a time: no other case shares a dying process
    config = _config(_agent(tmp_path), workers=2, max_concurrency=2)
    outcome = run_suite_file(suite, config, tmp_path / "run")
    got = {r.case_id: r for r in iter_results(outcome.run_dir)}
    assert len(got) == len(cities)
    dead = got["c03-crash-always"]
    assert dead.status == "error"
    assert "worker process died" in (dead.error or "")
    assert "3 attempts" in (dead.error or "")
    assert all(r.status != "error" for cid, r in got.items() if cid != "c03-crash-always")


def test_the_children_hold_the_suite_code_policy_the_parent_decided(tmp_path: Path) -> None:
    """A child imports a suite's code only under the policy it was sent: the same case, driven
    in a child, runs its ``function:`` fake with the parent's yes and is refused without it."""
    from agentgauge.runner._context import build_context
    from agentgauge.runner._executor import _setup
    from agentgauge.runner._procs import process_drive
    from agentgauge.schema import Case, Suite
    from agentgauge.testing import MockProvider

    (tmp_path / "fakes.py").write_text("def weather(city):\n    return {'temp_c': 3}\n")
    suite = Suite.model_validate(
        {
            "name": "policy",
            "tools": [
                {
                    "name": "get_weather",
                    "description": "weather",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                    "simulation": {"function": "fakes.py:weather"},
                }
            ],
            "cases": [],
        }
    )
    case = Case.model_validate(
        {
            "id": "c",
            "input": "weather in Oslo",
            "expect": {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]},
        }
    )
    agent = _agent(tmp_path)

    def drive(allowed: bool) -> Any:
        config = _config(agent, suite_path=str(tmp_path / "suite.yaml"), allow_suite_code=allowed)
        remote = RemoteAgent(config=config, policy=config.code_policy(), spec=agent)
        ctx = build_context(suite, config, MockProvider([]), None, None)

        async def go() -> Any:
            async with process_drive(_setup(remote, suite, "a"), ctx, count=1, slots=1) as run:
                reply = await run(case, 0, 0)
            return orjson.loads(reply.line)  # type: ignore[union-attr]

        return anyio.run(go)

    allowed = drive(True)
    assert allowed["status"] == "passed", allowed["explanation"]
    refused = drive(False)
    assert refused["status"] == "error"
    assert "SuiteCodeRefused" in refused["error"]
    assert "allow-suite-code" in refused["error"]


def test_the_shared_cache_and_whole_result_replay(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    suite = _weather_suite(tmp_path, CITIES[:4], trials=2)
    # no scorers: whole results of unchanged cases replay from the cache
    text = suite.read_text()
    suite.write_text(text[: text.index("scorers:")] + text[text.index("defaults:") :])
    agent = _agent(tmp_path)
    kw: dict[str, Any] = {"cache": True, "cache_dir": tmp_path / "cache", "workers": 2}
    first = run_suite_file(suite, _config(agent, replay=False, **kw), tmp_path / "r1")
    assert first.provider_calls > 0
    # fresh processes answer from what the first run's processes stored
    second = run_suite_file(suite, _config(agent, replay=False, **kw), tmp_path / "r2")
    assert (second.provider_calls, second.cache_hits) == (0, first.provider_calls)
    assert _verdicts(second.run_dir) == _verdicts(first.run_dir)  # (trace steps say "cached")
    # whole results replayed by this process: no worker process is ever started
    with caplog.at_level(logging.DEBUG, logger="agentgauge.runner.procs"):
        third = run_suite_file(suite, _config(agent, **kw), tmp_path / "r3")
        fourth = run_suite_file(suite, _config(agent, **kw), tmp_path / "r4")
    assert third.ran == fourth.replayed == 8
    started = [r for r in caplog.records if "worker processes ready" in r.getMessage()]
    assert len(started) == 1  # the third run's; the fourth started none


def test_resume_and_shards_are_unchanged(tmp_path: Path) -> None:
    suite = _weather_suite(tmp_path, CITIES, trials=2)
    agent = _agent(tmp_path)
    whole = run_suite_file(suite, _config(agent, workers=1), tmp_path / "whole")
    expected = _results(whole.run_dir)
    # an interrupted run: its first five results kept, resumed with two processes
    part = run_suite_file(suite, _config(agent, workers=2), tmp_path / "part")
    journal = part.run_dir / RESULTS_FILE
    journal.write_bytes(b"".join(journal.read_bytes().splitlines(keepends=True)[:5]))
    resumed = run_suite_file(suite, _config(agent, workers=2, resume=True), part.run_dir)
    assert (resumed.resumed, resumed.ran) == (5, len(expected) - 5)
    assert _results(part.run_dir) == expected
    # shards run with processes merge into the one-process run's results
    for i in (1, 2):
        config = _config(agent, workers=2, shard=Shard(index=i, count=2))
        run_suite_file(suite, config, tmp_path / f"shard{i}")
    merge_runs([tmp_path / "shard1", tmp_path / "shard2"], tmp_path / "merged")
    assert _results(tmp_path / "merged") == expected


def test_a_provider_object_that_does_not_pickle_is_one_user_error(tmp_path: Path) -> None:
    from agentgauge.runner import run_suite
    from agentgauge.schema import Suite
    from agentgauge.testing import MockProvider

    class Unpicklable(MockProvider):
        def __reduce__(self) -> Any:
            raise TypeError("no pickling here")

    suite = Suite.model_validate(
        {"name": "s", "tools": [], "cases": [{"id": "a", "input": "hi"}, {"id": "b", "input": "x"}]}
    )
    with pytest.raises(UserError, match=r"worker processes.*must pickle"):
        run_suite(suite, _config("mock:", workers=2), tmp_path / "run", provider=Unpicklable([]))
    assert not (tmp_path / "run").exists()  # the run drove nothing: no folder left


def _remote(spec: str | None, **kw: Any) -> tuple[RunConfig, RemoteAgent]:
    config = RunConfig(agent=spec, **kw)
    return config, RemoteAgent(config=config, policy=config.code_policy(), spec=spec)


class _Ctx:
    tool_connection = None
    limiter: object = None


def test_auto_uses_every_core_only_when_it_pays(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("agentgauge.runner._executor.available_cores", lambda: 2)
    monkeypatch.setattr("os.getloadavg", lambda: (0.2, 0.2, 0.2))
    _, remote = _remote("openai:gpt-4o-mini")
    ctx: Any = _Ctx()

    def count(slots: int = 64, todo: int | None = 2000, c: Any = ctx, r: Any = remote) -> int:
        return local_workers(r.config, r, c, slots=slots, todo=todo)

    assert count() == 2
    assert count(todo=None) == 2  # a streamed suite of unknown size
    assert count(todo=100) == 1  # too few pairs to pay for the start
    assert count(slots=8) == 1  # too few in flight to be CPU-bound
    _, python = _remote("python:agent.py:agent")
    assert count(r=python) == 1  # an agent with state of its own in its process
    limited: Any = _Ctx()
    limited.limiter = object()
    assert count(c=limited) == 1  # provider limits: the provider is the bottleneck
    # a busy machine: other programs hold a core (or all of them), more processes only add
    # their own CPU
    monkeypatch.setattr("os.getloadavg", lambda: (1.1, 0.5, 0.5))
    assert count() == 1
    monkeypatch.setattr("os.getloadavg", lambda: (8.0, 8.0, 8.0))
    assert count() == 1
    monkeypatch.setattr("os.getloadavg", lambda: (0.4, 3.0, 3.0))  # the last minute counts
    assert count() == 2
    monkeypatch.setattr("os.getloadavg", lambda: (0.0, 0.0, 0.0))
    monkeypatch.setattr("agentgauge.runner._executor.available_cores", lambda: 1)
    assert count() == 1
    # given: as asked, never more processes than pairs in flight
    _, given = _remote("python:agent.py:agent", workers=3)
    assert count(r=given, todo=5) == 3
    assert count(r=given, slots=2) == 2


def test_cli_workers_option_and_refusals(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from agentgauge.cli import cli

    suite = _weather_suite(tmp_path, CITIES[:3])
    agent = _agent(tmp_path)
    runner = CliRunner()
    base = ["run", str(suite), "--agent", agent, "--no-cache", "--no-progress", "--no-history"]
    done = runner.invoke(cli, [*base, "-o", str(tmp_path / "a"), "--workers", "2"])
    assert done.exit_code in (0, 1), done.output
    assert len(list(iter_results(tmp_path / "a"))) == 3
    done = runner.invoke(cli, [*base, "-o", str(tmp_path / "b")], env={"AGENTGAUGE_WORKERS": "0"})
    assert done.exit_code == 2  # not a whole number >= 1
    done = runner.invoke(
        cli, [*base, "-o", str(tmp_path / "c"), "--workers", "2", "--executor", "ray:auto"]
    )
    assert done.exit_code == 2
    assert "--workers 2: worker processes are for --executor local" in done.output
