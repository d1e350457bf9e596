"""Run context for framework agents (issue 22 item 17): a LangGraph graph compiled with a
checkpointer gets a thread id per case and trial (and keeps its own history across turns),
pydantic-ai tools get ``RunContext.deps`` and OpenAI Agents SDK tools get
``RunContextWrapper.context``, from the case's ``agent_context`` or a ``?context=`` function.
Real mode, the real framework packages, the loopback fake model. ``--base-url`` is refused
(item 18): the framework's own model client would ignore it."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from quickstart_model import quickstart_server

from agentgauge.errors import UserError
from agentgauge.io import iter_results, load_suite
from agentgauge.providers import resolve_provider
from agentgauge.runner import RunConfig, run_suite
from agentgauge.schema import CaseResult

SUITE = """
name: context
defaults:
  tool_mode: real
  agent_context: {user: suite-default, units: celsius}
tools:
  - name: get_weather
    description: Current weather for a city.
    parameters:
      type: object
      properties: {city: {type: string}}
      required: [city]
cases:
  - id: weather-paris
    input: What's the weather in Paris right now?
    agent_context: {user: ana}
    expect:
      tool_calls: [{name: get_weather, arguments: {city: Paris}}]
  - id: weather-tokyo
    input: What's the weather in Paris right now?
    expect:
      tool_calls: [{name: get_weather, arguments: {city: Paris}}]
  - id: flights-portland
    input: Find me a flight to Portland on March 13.
    expect: {behavior: clarify}
    turns:
      - user: Portland, Oregon. I'm flying from Seattle.
        expect:
          tool_calls:
            - {name: search_flights, arguments: {origin: SEA, destination: PDX, date: "2026-03-13"}}
"""
SEARCH = {
    "name": "search_flights",
    "description": "Flights between two airports on a date.",
    "parameters": {
        "type": "object",
        "properties": {
            "origin": {"type": "string"},
            "destination": {"type": "string"},
            "date": {"type": "string"},
        },
        "required": ["origin", "destination", "date"],
    },
}

LANGGRAPH = '''
import os

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition


@tool
def get_weather(city: str, config: RunnableConfig) -> dict:
    """Current weather for a city."""
    c = config["configurable"]
    return {"city": city, "user": c["user"], "thread": c["thread_id"], "units": c["units"]}


@tool
def search_flights(origin: str, destination: str, date: str) -> list:
    """Flights between two airports on a date."""
    return [{"flight": "XA101", "from": origin, "to": destination}]


TOOLS = [get_weather, search_flights]


async def assistant(state: MessagesState) -> dict:
    model = ChatOpenAI(model=os.environ["AGENT_MODEL"], temperature=0).bind_tools(TOOLS)
    return {"messages": [await model.ainvoke(state["messages"])]}


builder = StateGraph(MessagesState)
builder.add_node("assistant", assistant)
builder.add_node("tools", ToolNode(TOOLS))
builder.add_edge(START, "assistant")
builder.add_conditional_edges("assistant", tools_condition)
builder.add_edge("tools", "assistant")
graph = builder.compile(checkpointer=InMemorySaver())


def configurable(context):
    return {"user": context.values.get("user", "?") + "@factory"}
'''

PYDANTIC_AI = '''
import os
from dataclasses import dataclass

from pydantic_ai import Agent, RunContext
from pydantic_ai.models.openai import OpenAIChatModel


@dataclass
class Deps:
    user: str
    units: str = "celsius"


agent = Agent(OpenAIChatModel(os.environ["AGENT_MODEL"]), deps_type=Deps)


@agent.tool
def get_weather(ctx: RunContext[Deps], city: str) -> dict:
    """Current weather for a city."""
    return {"city": city, "user": ctx.deps.user, "units": ctx.deps.units}


@agent.tool_plain
def search_flights(origin: str, destination: str, date: str) -> list:
    """Flights between two airports on a date."""
    return [{"flight": "XA101"}]


async def make_deps(context):
    return Deps(user=f"{context.case_id}/{context.trial}", units="kelvin")
'''

OPENAI_AGENTS = '''
import os

from agents import Agent, RunContextWrapper, function_tool


@function_tool
def get_weather(wrapper: RunContextWrapper[dict], city: str) -> dict:
    """Current weather for a city."""
    return {"city": city, "user": wrapper.context["user"], "units": wrapper.context["units"]}


@function_tool
def search_flights(origin: str, destination: str, date: str) -> list:
    """Flights between two airports on a date."""
    return [{"flight": "XA101"}]


agent = Agent(
    name="assistant", model=os.environ["AGENT_MODEL"], tools=[get_weather, search_flights]
)


class Session:
    def __init__(self, user):
        self.user = user

    def __getitem__(self, key):
        return {"user": self.user, "units": "fahrenheit"}[key]


def make_context(context):
    return Session(user=context.values["user"].upper())
'''


def _fresh_clients() -> None:
    """Each run is a new event loop: drop the HTTP clients the SDKs keep (see conftest)."""
    with contextlib.suppress(ImportError, AttributeError):
        import agents.models.openai_provider as provider

        provider._http_client = None
    with contextlib.suppress(ImportError, AttributeError):
        from langchain_openai.chat_models import _client_utils

        _client_utils._cached_async_httpx_client.cache_clear()


def _run(spec: str, tmp_path: Path, **config: Any) -> dict[str, CaseResult]:
    _fresh_clients()
    tmp_path.mkdir(parents=True, exist_ok=True)
    suite_path = tmp_path / "suite.yaml"
    suite_path.write_text(SUITE.replace("tools:\n", "tools:\n  - " + json.dumps(SEARCH) + "\n", 1))
    suite = load_suite(suite_path)
    cfg = RunConfig(cache=False, progress=False, suite_path=str(tmp_path), **config)
    run_suite(suite, cfg, tmp_path / "run", provider=resolve_provider(spec))
    return {r.case_id: r for r in iter_results(tmp_path / "run")}


def _weather(result: CaseResult) -> Any:
    (value,) = [e.result for e in result.trace if e.kind == "tool" and e.tool == "get_weather"]
    return value


@pytest.fixture
def agent_file(tmp_path: Path, fake_model: str) -> Any:
    def write(name: str, text: str) -> Path:
        path = tmp_path / f"{name}.py"
        path.write_text(text)
        return path

    return write


def test_langgraph_with_a_checkpointer_gets_a_thread_and_the_case_s_configurable(
    tmp_path: Path, agent_file: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("langgraph.checkpoint.memory")
    path = agent_file("lg_context_agent", LANGGRAPH)
    with quickstart_server() as server:  # its own server: the requests of this test only
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        results = _run(f"langgraph:{path}:graph", tmp_path)
        bodies = [r.body for r in server.requests if r.path.endswith("/chat/completions")]
    failed = {k: (r.status, r.explanation) for k, r in results.items() if r.status != "passed"}
    assert failed == {}
    ana, default = _weather(results["weather-paris"]), _weather(results["weather-tokyo"])
    assert (ana["user"], ana["units"]) == ("ana", "celsius")  # the case's key over the suite's
    assert default["user"] == "suite-default"
    assert ana["thread"].startswith("agentgauge-weather-paris-0-")
    assert ana["thread"] != default["thread"]
    # turn 2 of the multi-turn case: the checkpointer's thread holds turn 1, so the model sees
    # each message once (sending the whole conversation again would double it)
    second = next(b for b in bodies if "Portland, Oregon" in json.dumps(b))
    users = [m["content"] for m in second["messages"] if m["role"] == "user"]
    assert users == [
        "Find me a flight to Portland on March 13.",
        "Portland, Oregon. I'm flying from Seattle.",
    ]


def test_langgraph_context_function_merges_into_configurable(
    tmp_path: Path, agent_file: Any
) -> None:
    path = agent_file("lg_context_agent2", LANGGRAPH)
    results = _run(f"langgraph:{path}:graph?context=configurable", tmp_path)
    assert _weather(results["weather-paris"])["user"] == "ana@factory"


def test_pydantic_ai_tools_get_deps_built_from_agent_context(
    tmp_path: Path, agent_file: Any
) -> None:
    pytest.importorskip("pydantic_ai")
    path = agent_file("pai_context_agent", PYDANTIC_AI)
    results = _run(f"pydantic-ai:{path}:agent", tmp_path)
    assert _weather(results["weather-paris"]) == {
        "city": "Paris",
        "user": "ana",
        "units": "celsius",
    }
    assert results["weather-paris"].status == "passed"
    results = _run(f"pydantic-ai:{path}:agent?context=make_deps", tmp_path / "f")
    assert _weather(results["weather-tokyo"]) == {
        "city": "Paris",
        "user": "weather-tokyo/0",
        "units": "kelvin",
    }


def test_openai_agents_tools_get_the_run_context(tmp_path: Path, agent_file: Any) -> None:
    pytest.importorskip("agents")
    path = agent_file("oa_context_agent", OPENAI_AGENTS)
    results = _run(f"openai-agents:{path}:agent", tmp_path)
    assert _weather(results["weather-paris"]) == {
        "city": "Paris",
        "user": "ana",
        "units": "celsius",
    }
    results = _run(f"openai-agents:{path}:agent?context=make_context", tmp_path / "f")
    assert _weather(results["weather-paris"])["user"] == "ANA"
    assert _weather(results["weather-paris"])["units"] == "fahrenheit"


def test_a_context_that_does_not_fit_the_deps_type_fails_that_case_only(
    tmp_path: Path, agent_file: Any
) -> None:
    pytest.importorskip("pydantic_ai")
    path = agent_file("pai_context_agent3", PYDANTIC_AI)
    suite = SUITE.replace("agent_context: {user: ana}", "agent_context: {user: ana, nick: x}")
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "suite.yaml").write_text(
        suite.replace("tools:\n", "tools:\n  - " + json.dumps(SEARCH) + "\n", 1)
    )
    cfg = RunConfig(cache=False, progress=False)
    _fresh_clients()
    run_suite(
        load_suite(tmp_path / "s" / "suite.yaml"),
        cfg,
        tmp_path / "run",
        provider=resolve_provider(f"pydantic-ai:{path}:agent"),
    )
    results = {r.case_id: r for r in iter_results(tmp_path / "run")}
    assert results["weather-paris"].status == "error"
    assert "agent_context does not make a Deps" in (results["weather-paris"].error or "")
    assert results["weather-tokyo"].status == "passed"


@pytest.mark.parametrize(
    ("prefix", "file", "attr"),
    [
        ("langgraph", "langgraph_agent.py", "graph"),
        ("pydantic-ai", "pydantic_ai_agent.py", "agent"),
        ("openai-agents", "openai_agents_agent.py", "agent"),
    ],
)
def test_base_url_with_a_framework_agent_is_refused(
    prefix: str, file: str, attr: str, fake_model: str
) -> None:
    from quickstart_model import EXAMPLES

    spec = f"{prefix}:{EXAMPLES / file}:{attr}"
    with pytest.raises(UserError, match=r"^--base-url: .* brings its own model client"):
        resolve_provider(spec, base_url="http://127.0.0.1:9/v1")
    resolve_provider(spec)  # without it: fine
    with pytest.raises(UserError, match="unknown option 'nope'"):
        resolve_provider(f"{spec}?nope=1")


def test_a_checkpointer_graph_runs_without_any_context(tmp_path: Path, agent_file: Any) -> None:
    """No agent_context anywhere: the thread id alone lets a checkpointer graph run (it raised
    'Checkpointer requires ... thread_id' on every case)."""
    path = agent_file("lg_context_agent4", LANGGRAPH)
    plain = "\n".join(
        line
        for line in SUITE.replace("tool_mode: real", "tool_mode: mock").splitlines()
        if "agent_context" not in line
    )
    plain = plain.replace(
        "      required: [city]",
        "      required: [city]\n    simulation: {result: {temp_c: 18}}",
        1,
    )
    search = {**SEARCH, "simulation": {"result": [{"flight": "XA101"}]}}
    (tmp_path / "s").mkdir()
    suite_path = tmp_path / "s" / "suite.yaml"
    suite_path.write_text(plain.replace("tools:\n", "tools:\n  - " + json.dumps(search) + "\n", 1))
    _fresh_clients()
    run_suite(
        load_suite(suite_path),
        RunConfig(cache=False, progress=False),
        tmp_path / "run",
        provider=resolve_provider(f"langgraph:{path}:graph"),
    )
    statuses = {r.case_id: (r.status, r.error) for r in iter_results(tmp_path / "run")}
    assert statuses == dict.fromkeys(statuses, ("passed", None))
    assert len(statuses) == 3


def test_run_with_base_url_and_a_framework_agent_exits_2_before_any_run_dir(
    tmp_path: Path, fake_model: str
) -> None:
    from click.testing import CliRunner
    from quickstart_model import EXAMPLES, QUICKSTART

    from agentgauge.cli import cli

    result = CliRunner().invoke(
        cli,
        ["run", str(QUICKSTART), "--agent", f"langgraph:{EXAMPLES / 'langgraph_agent.py'}:graph",
         "--base-url", "http://127.0.0.1:9/v1", "-o", str(tmp_path / "run"), "--no-history"],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "--base-url: langgraph:" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("prefix", "file", "attr"),
    [
        ("langgraph", "langgraph_agent.py", "graph"),
        ("pydantic-ai", "pydantic_ai_agent.py", "agent"),
        ("openai-agents", "openai_agents_agent.py", "agent"),
    ],
)
def test_framework_model_steps_carry_the_response_id_and_finish_reason(
    prefix: str, file: str, attr: str, fake_model: str, tmp_path: Path
) -> None:
    """What the chat spans export as gen_ai.response.id / finish_reasons (issue 22 item 16)."""
    from quickstart_model import EXAMPLES, QUICKSTART

    _fresh_clients()
    suite = load_suite(QUICKSTART / "suite.yaml")
    cfg = RunConfig(cache=False, progress=False, case_filter=("weather-paris",))
    spec = f"{prefix}:{EXAMPLES / file}:{attr}"
    run_suite(suite, cfg, tmp_path / "run", provider=resolve_provider(spec))
    (result,) = iter_results(tmp_path / "run")
    models = [e for e in result.trace if e.kind == "model"]
    assert [e.finish_reason for e in models][-1] == "stop"
    assert all(e.response_id for e in models), [e.response_id for e in models]
    assert all(e.response_model for e in models)
