"""What every framework adapter shares: a wrong agent fails the suite, a framework spec from a
suite is suite code, a missing extra names its install command, a wrong object is one line."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from framework_helpers import run_quickstart, tool_results
from quickstart_model import EXAMPLES, SCRIPT

from agentgauge.errors import MissingExtraError, SuiteCodeRefused, UserError
from agentgauge.providers import DrivenAgent, resolve_provider
from agentgauge.runner import RunConfig, run_suite
from agentgauge.schema import Suite

SPECS = {
    "openai-agents": ("agents.run", f"openai-agents:{EXAMPLES / 'openai_agents_agent.py'}:agent"),
    "langgraph": ("langgraph.prebuilt", f"langgraph:{EXAMPLES / 'langgraph_agent.py'}:graph"),
    "pydantic-ai": ("pydantic_ai", f"pydantic-ai:{EXAMPLES / 'pydantic_ai_agent.py'}:agent"),
}
MODULES = {"openai-agents": "agents", "langgraph": "langgraph", "pydantic-ai": "pydantic_ai"}


@pytest.fixture
def wrong_model(fake_model: str) -> Iterator[str]:
    SCRIPT["wrong"] = True
    try:
        yield fake_model
    finally:
        SCRIPT["wrong"] = False


@pytest.mark.parametrize("framework", sorted(SPECS))
def test_a_wrong_agent_fails(framework: str, wrong_model: str, tmp_path: Path) -> None:
    module, spec = SPECS[framework]
    pytest.importorskip(module)
    outcome, results = run_quickstart(spec, tmp_path / "run", case_filter=("weather-paris",))
    paris = results["weather-paris"]
    assert paris.status == "failed"
    assert "Lyon" in (paris.explanation or "")
    assert paris.calls[0].arguments["city"] == "Lyon"
    assert tool_results(paris)  # the call was still answered by the simulation
    assert outcome.failed == 1


@pytest.mark.parametrize("framework", sorted(SPECS))
def test_a_suites_framework_agent_is_suite_code(framework: str, tmp_path: Path) -> None:
    marker = tmp_path / "imported"
    (tmp_path / "agent.py").write_text(f"open({str(marker)!r}, 'w')\nagent = None\n")
    suite = Suite.model_validate(
        {
            "name": "s",
            "defaults": {"agent": f"{framework}:agent.py:agent"},
            "cases": [{"id": "a", "input": "hi"}],
        }
    )
    config = RunConfig(suite_path=str(tmp_path), allow_suite_code=False, progress=False)
    with pytest.raises(SuiteCodeRefused, match="--allow-suite-code"):
        run_suite(suite, config, tmp_path / "run")
    assert not marker.exists()
    outside = suite.model_copy(
        update={"defaults": suite.defaults.model_copy(update={"agent": f"{framework}:../x.py:a"})}
    )
    with pytest.raises(SuiteCodeRefused, match="leaves the suite's folder"):
        run_suite(
            outside,
            config.__class__(suite_path=str(tmp_path), allow_suite_code=True),
            tmp_path / "r2",
        )


@pytest.mark.parametrize("framework", sorted(SPECS))
def test_missing_extra_names_the_install(framework: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, MODULES[framework], None)  # as if not installed
    with pytest.raises(MissingExtraError, match=rf"pip install 'agentgauge\[{framework}\]'"):
        resolve_provider(f"{framework}:{EXAMPLES / 'assistant_tools.py'}:TOOLS")


@pytest.mark.parametrize("framework", sorted(SPECS))
def test_wrong_object_is_one_line(framework: str) -> None:
    module, _ = SPECS[framework]
    pytest.importorskip(module)
    with pytest.raises(UserError) as err:
        resolve_provider(f"{framework}:{EXAMPLES / 'assistant_tools.py'}:INSTRUCTIONS")
    assert "\n" not in str(err.value)
    assert "is a str" in str(err.value)


@pytest.mark.parametrize("framework", sorted(SPECS))
def test_adapters_are_driven_agents(framework: str, fake_model: str) -> None:
    module, spec = SPECS[framework]
    pytest.importorskip(module)
    agent = resolve_provider(spec)
    assert isinstance(agent, DrivenAgent)
    assert agent.name == spec


@pytest.mark.parametrize("framework", sorted(SPECS))
def test_resume_does_not_run_a_framework_agent_named_in_run_json(
    framework: str, tmp_path: Path
) -> None:
    from agentgauge.schema import RunRecord

    spec = f"{framework}:/tmp/somewhere/agent.py:agent"
    record = RunRecord(
        run_id="r1",
        suite="s",
        agent=spec,
        started_at="2026-12-01T00:00:00+00:00",
        agentgauge_version="0",
        trials=1,
        max_concurrency=1,
        scoring_mode="default",
        case_count=1,
        options={"agent_source": "caller"},
    )
    with pytest.raises(UserError, match="runs only when you name it yourself"):
        RunConfig.from_record(record, tmp_path)
    assert RunConfig.from_record(record, tmp_path, agent=spec).agent == spec


def test_cache_tag_follows_the_users_files(fake_model: str, tmp_path: Path) -> None:
    import shutil

    pytest.importorskip("pydantic_ai")
    for name in ("assistant_tools.py", "pydantic_ai_agent.py"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    spec = f"pydantic-ai:{tmp_path / 'pydantic_ai_agent.py'}:agent"
    before = resolve_provider(spec).cache_tag  # type: ignore[attr-defined]
    assert before.startswith("src:")
    (tmp_path / "helpers.py").write_text("X = 1\n")  # an edit beside the agent
    assert resolve_provider(spec).cache_tag != before  # type: ignore[attr-defined]


@pytest.fixture
def looping_model(fake_model: str) -> Iterator[str]:
    SCRIPT["loop"] = True
    try:
        yield fake_model
    finally:
        SCRIPT["loop"] = False


@pytest.mark.parametrize("framework", sorted(SPECS))
def test_a_looping_agent_stops_at_max_steps(
    framework: str, looping_model: str, tmp_path: Path
) -> None:
    module, spec = SPECS[framework]
    pytest.importorskip(module)
    _, results = run_quickstart(spec, tmp_path / "run", case_filter=("weather-paris",), max_steps=3)
    paris = results["weather-paris"]
    assert paris.status != "error", paris.error
    assert paris.step_limit_hit
    assert "step limit" in (paris.explanation or "")
    assert 1 <= paris.model_calls <= 3
