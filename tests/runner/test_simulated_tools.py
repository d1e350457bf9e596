"""Simulated tools: static and successive results, defaults, stateful fakes and every fault."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import orjson
import pytest
from runner_helpers import agent, make_suite, weather_agent

from agentgauge._suite_code import SuiteCodePolicy
from agentgauge.io import iter_results
from agentgauge.runner import RunConfig, run_suite
from agentgauge.runner._tools import MALFORMED_TEXT, ToolSimulator
from agentgauge.schema import FaultRate, ToolCall, ToolSim

CALL = ToolCall(name="get_weather", arguments={"city": "Paris"}, id="c1")
#: the fakes are in runner_fakes.py beside this file, and suite code is allowed
HERE = Path(__file__).parent
FAKES = SuiteCodePolicy(root=HERE.resolve(), allowed=True)


def simulator(**kw: object) -> ToolSimulator:
    args: dict[str, object] = {
        "case_id": "c",
        "trial": 0,
        "seed": 0,
        "case_results": {},
        "defaults": {},
        "faults": [],
        "timeout_s": 5.0,
        "code": FAKES,
    }
    args.update(kw)
    return ToolSimulator(**args)  # type: ignore[arg-type]


def call(sim: ToolSimulator, c: ToolCall = CALL):  # type: ignore[no-untyped-def]
    return anyio.run(sim.call, c)


def test_case_result_beats_tool_default_and_lists_advance_then_repeat() -> None:
    sim = simulator(
        case_results={"get_weather": [ToolSim(result=1), ToolSim(result=2)]},
        defaults={"get_weather": ToolSim(result="default")},
    )
    assert [call(sim).result for _ in range(4)] == [1, 2, 2, 2]
    assert call(simulator(defaults={"get_weather": ToolSim(result="d")})).result == "d"


def test_unsimulated_tool_gets_a_clear_error() -> None:
    out = call(simulator())
    assert out.fault == "unsimulated"
    assert orjson.loads(out.content) == {"error": "no simulated result for tool 'get_weather'"}


@pytest.mark.parametrize(
    ("sim", "fault", "content"),
    [
        (ToolSim(error="city not found"), "error", {"error": "city not found"}),
        (
            ToolSim(fault="exception"),
            "exception",
            {"error": "tool 'get_weather' raised an exception: internal error"},
        ),
        (ToolSim(fault="timeout"), "timeout", {"error": "tool 'get_weather' timed out after 5s"}),
    ],
)
def test_error_like_faults_reach_the_agent_as_error_json(
    sim: ToolSim, fault: str, content: object
) -> None:
    out = call(simulator(case_results={"get_weather": sim}))
    assert out.fault == fault
    assert orjson.loads(out.content) == content


def test_empty_and_malformed_faults() -> None:
    empty = call(simulator(case_results={"get_weather": ToolSim(fault="empty")}))
    assert (empty.fault, empty.content) == ("empty", "")
    assert empty.error == "tool 'get_weather' returned an empty result"  # was None: no failure
    bad = call(simulator(case_results={"get_weather": ToolSim(fault="malformed")}))
    assert bad.fault == "malformed"
    assert bad.error == "tool 'get_weather' returned a malformed result (not valid JSON)"
    assert bad.content == MALFORMED_TEXT
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(bad.content)


def test_delay_longer_than_the_tool_limit_is_a_timeout() -> None:
    sim = simulator(case_results={"get_weather": ToolSim(result=1, delay_s=9)}, timeout_s=1.0)
    assert call(sim).fault == "timeout"


def test_stateful_function_keeps_state_across_calls() -> None:
    sim = simulator(case_results={"add_to_cart": ToolSim(function="runner_fakes:add_to_cart")})
    first = call(sim, ToolCall(name="add_to_cart", arguments={"item": "apple"}))
    second = call(sim, ToolCall(name="add_to_cart", arguments={"item": "pear"}))
    assert first.result == {"cart": ["apple"]}
    assert second.result == {"cart": ["apple", "pear"]}
    assert sim.state["cart"] == ["apple", "pear"]


def test_async_function_and_failing_function() -> None:
    ok = call(simulator(case_results={"get_weather": ToolSim(function="runner_fakes:lookup")}))
    assert ok.result == {"city": "Paris", "temp_c": 20}
    bad = call(simulator(case_results={"get_weather": ToolSim(function="runner_fakes:broken")}))
    assert bad.fault == "exception"
    assert "RuntimeError: database is locked" in orjson.loads(bad.content)["error"]


def test_failing_function_error_hides_api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SECRET123")
    bad = call(simulator(case_results={"get_weather": ToolSim(function="runner_fakes:leaks_key")}))
    assert bad.fault == "exception"
    assert "SECRET123" not in bad.content
    assert "SECRET123" not in (bad.error or "")
    assert "RuntimeError: 401 for key" in bad.content


def test_function_exceeding_the_tool_limit_times_out() -> None:
    sim = simulator(
        case_results={"get_weather": ToolSim(function="runner_fakes:hangs")}, timeout_s=0.05
    )
    assert call(sim).fault == "timeout"


def test_rate_faults_are_seeded_and_repeatable() -> None:
    def draws(seed: int) -> list[str | None]:
        sim = simulator(
            seed=seed,
            case_results={"get_weather": ToolSim(result="ok")},
            faults=[FaultRate(kind="error", rate=0.5)],
        )
        return [call(sim).fault for _ in range(40)]

    a, b, c = draws(1), draws(1), draws(2)
    assert a == b
    assert a != c
    assert 5 < a.count("error") < 35


def test_rate_fault_limited_to_named_tools() -> None:
    sim = simulator(
        case_results={"get_weather": ToolSim(result="ok")},
        faults=[FaultRate(kind="timeout", rate=1.0, tools=["other"])],
    )
    assert call(sim).fault is None


@pytest.mark.parametrize("kind", ["error", "exception", "timeout", "empty", "malformed"])
def test_every_fault_kind_through_a_run_is_traced(tmp_path: Path, kind: str) -> None:
    suite = make_suite(
        [{"id": "f", "input": "Paris", "tool_results": {"get_weather": {"fault": kind}}}]
    )
    run_suite(
        suite, RunConfig(cache=False, progress=False), tmp_path, provider=agent(weather_agent)
    )
    [r] = list(iter_results(tmp_path))
    [event] = [e for e in r.trace if e.kind == "tool"]
    assert event.fault == kind
    assert r.status == "passed"  # a fault is what the case tests, not an error of the run
    assert [m.role for m in r.messages] == ["user", "assistant", "tool", "assistant"]


def test_suite_default_fault_rate_applies(tmp_path: Path) -> None:
    suite = make_suite(
        [{"id": f"c{i}", "input": "Paris"} for i in range(3)],
        tools=[{"name": "get_weather", "simulation": {"result": "sunny"}}],
        defaults={"faults": [{"kind": "empty", "rate": 1.0}]},
    )
    run_suite(
        suite, RunConfig(cache=False, progress=False), tmp_path, provider=agent(weather_agent)
    )
    faults = [e.fault for r in iter_results(tmp_path) for e in r.trace if e.kind == "tool"]
    assert faults == ["empty"] * 3


def test_bad_function_reference_is_a_user_error_before_the_run(tmp_path: Path) -> None:
    from agentgauge.errors import UserError

    suite = make_suite(
        [
            {
                "id": "f",
                "input": "x",
                "tool_results": {"get_weather": {"function": "runner_fakes:nope"}},
            }
        ]
    )
    provider = agent(weather_agent)
    config = RunConfig(
        cache=False, progress=False, allow_suite_code=True, suite_path=str(HERE / "suite.yaml")
    )
    with pytest.raises(UserError, match=r"tool function 'runner_fakes:nope': .*has no 'nope'"):
        run_suite(suite, config, tmp_path, provider=provider)
    assert provider.calls == 0


def test_function_module_in_the_current_folder_imports_without_python_m(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the agentgauge console script does not put the current folder on sys.path (python -m does)
    from agentgauge.runner._tools import load_function

    (tmp_path / "cwd_shop_fakes_l.py").write_text("def checkout(state=None):\n    return 'ok'\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    policy = SuiteCodePolicy.for_suite(None, allow=True)  # a suite built in Python: this folder
    fn, takes_state = load_function("cwd_shop_fakes_l:checkout", policy)
    assert fn() == "ok"
    assert takes_state
