"""A suite's ``mcp_servers`` with framework agents, end to end: the framework connects to a real
MCP server on 127.0.0.1 (the ``mcp`` SDK's ``MCPServer``, streamable HTTP, answering only the
suite's token) while its model calls go to the loopback fake OpenAI server. The server's calls
are in the transcript marked ``mcp`` on the server, so ``forbidden_types: [mcp]`` fails on them;
the allow-list is what the model is offered; the token reaches the server and no file of the
run; a framework that cannot attach the servers is refused with one line."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentgauge.errors import UserError
from agentgauge.rundir import iter_results
from agentgauge.runner import RunConfig, run_suite_file
from agentgauge.schema import ToolCall
from agentgauge.scoring._api import score_case as real_score_case
from agentgauge.testing import FakeOpenAIServer, FakeReply, FakeRequest

HERE = Path(__file__).resolve().parent
TOKEN = "mcp-fw-token-77aa66bb55cc44dd"

SUITE = """
name: framework-mcp
mcp_servers:
  - name: docs
    url: {url}
    token_env: DOCS_MCP_TOKEN
    tools: [lookup_policy]
cases:
  - id: no-mcp
    input: {question}
    expect:
      forbidden_types: [mcp]
"""

AGENTS = {
    "pydantic-ai": (
        "fastmcp",
        "import os\nfrom pydantic_ai import Agent\n"
        "from pydantic_ai.models.openai import OpenAIChatModel\n"
        "agent = Agent(OpenAIChatModel(os.environ['AGENT_MODEL']),\n"
        "              instructions='Answer from the docs.')\n",
    ),
    "openai-agents": (
        "agents.mcp",
        "import os\nfrom agents import Agent\n"
        "agent = Agent(name='docs', instructions='Answer from the docs.',\n"
        "              model=os.environ['AGENT_MODEL'])\n",
    ),
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def docs_server() -> Iterator[str]:
    pytest.importorskip("mcp.server.mcpserver")
    port = _free_port()
    env = {"DOCS_MCP_EXPECTED": TOKEN, "PATH": "/usr/bin:/bin"}
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "mcp_docs_server.py"), str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        else:
            pytest.fail("the MCP test server did not start")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _offered(body: dict[str, Any]) -> list[str]:
    return sorted(
        str(t.get("name") or t.get("function", {}).get("name")) for t in body.get("tools") or []
    )


def _outputs(body: dict[str, Any]) -> list[str]:
    items = body.get("input") if isinstance(body.get("input"), list) else []
    out = [str(i.get("output")) for i in items if i.get("type") == "function_call_output"]
    out += [str(m.get("content")) for m in body.get("messages", []) if m.get("role") == "tool"]
    return out


def _question(body: dict[str, Any]) -> str:
    return json.dumps(body.get("input") or body.get("messages"))


def docs_model(request: FakeRequest) -> FakeReply:
    """Looks the policy up on the MCP server when asked about leave, then answers with what the
    server said; answers at once otherwise."""
    body = request.body
    outputs = _outputs(body)
    if outputs:
        return f"From the docs: {outputs[-1]}"
    if "leave" in _question(body) and "lookup_policy" in _offered(body):
        topic = "secret" if "secret" in _question(body) else "leave"
        return [ToolCall(name="lookup_policy", arguments={"topic": topic})]
    return "I can answer that without the docs."


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(docs_model, model="fake-docs") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
        monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")
        monkeypatch.setenv("AGENT_MODEL", "fake-docs")
        monkeypatch.setenv("DOCS_MCP_TOKEN", TOKEN)
        yield server


@pytest.fixture(autouse=True)
def _real_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("agentgauge.scoring.score_case", real_score_case)


def _suite(tmp_path: Path, url: str, question: str) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE.format(url=url, question=json.dumps(question)), encoding="utf-8")
    return path


def _agent(tmp_path: Path, framework: str) -> str:
    module, source = AGENTS[framework]
    pytest.importorskip(module)
    path = tmp_path / f"{framework.replace('-', '_')}_docs_agent.py"
    path.write_text(source, encoding="utf-8")
    return f"{framework}:{path}:agent"


def _run(suite: Path, spec: str, out: Path, **kw: Any) -> Any:
    cfg = RunConfig(
        agent=spec,
        suite_path=str(suite),
        progress=False,
        cache=False,
        retries=0,
        allow_suite_endpoints=kw.pop("allow", True),
        **kw,
    )
    run_suite_file(suite, cfg, out)
    (result,) = list(iter_results(out))
    return result


def _files_text(folder: Path) -> str:
    files = [p for p in folder.rglob("*") if p.is_file()]
    return "".join(p.read_bytes().decode(errors="replace") for p in files)


@pytest.mark.parametrize("framework", sorted(AGENTS))
def test_a_call_on_the_suite_server_is_made_and_marked(
    framework: str, docs_server: str, model: FakeOpenAIServer, tmp_path: Path
) -> None:
    spec = _agent(tmp_path, framework)
    suite = _suite(tmp_path, docs_server, "How many days of leave do I get?")
    result = _run(suite, spec, tmp_path / "run")
    # the server answered (it answers only the suite's token) and the model saw its answer
    assert result.text is not None
    assert result.text.startswith("From the docs: ")
    assert "policy on leave: 25 days a year" in result.text
    marked = [c for m in result.messages for c in m.tool_calls if c.mcp]
    assert [(c.name, c.mcp_server, c.arguments) for c in marked] == [
        ("lookup_policy", "docs", {"topic": "leave"})
    ]
    (event,) = [e for e in result.trace if e.kind == "tool"]
    assert (event.tool, event.error) == ("lookup_policy", None)
    assert "25 days a year" in json.dumps(event.result)
    (answer,) = [m for m in result.messages if m.role == "tool"]
    assert answer.tool_call_id == marked[0].id
    # forbidden_types: [mcp] fails on the call
    assert result.status == "failed"
    (score,) = [s for s in result.scores if s.name.endswith("forbidden_types")]
    assert score.passed is False
    assert "lookup_policy" in score.explanation
    # the allow-list: the model was offered lookup_policy, never delete_policy
    assert {tuple(_offered(r.body)) for r in model.requests} == {("lookup_policy",)}
    assert TOKEN not in _files_text(tmp_path / "run")


@pytest.mark.parametrize("framework", sorted(AGENTS))
def test_no_call_passes(
    framework: str, docs_server: str, model: FakeOpenAIServer, tmp_path: Path
) -> None:
    spec = _agent(tmp_path, framework)
    suite = _suite(tmp_path, docs_server, "What is two plus two?")
    result = _run(suite, spec, tmp_path / "run")
    assert result.status == "passed", result.explanation
    assert result.text == "I can answer that without the docs."
    # the server's tools were offered all the same
    assert _offered(model.requests[0].body) == ["lookup_policy"]


@pytest.mark.parametrize("framework", sorted(AGENTS))
def test_a_server_error_is_a_failed_call(
    framework: str, docs_server: str, model: FakeOpenAIServer, tmp_path: Path
) -> None:
    spec = _agent(tmp_path, framework)
    suite = _suite(tmp_path, docs_server, "What is the leave policy called secret?")
    result = _run(suite, spec, tmp_path / "run")
    (event,) = [e for e in result.trace if e.kind == "tool"]
    assert event.tool == "lookup_policy"
    # the server answered with isError: a failed call, with the server's text
    said = "Error executing tool lookup_policy: no such policy: secret"
    assert event.result == {"error": said}
    assert event.error == said


@pytest.mark.parametrize("framework", sorted(AGENTS))
def test_a_suite_token_to_its_own_url_needs_the_opt_in(
    framework: str,
    docs_server: str,
    model: FakeOpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("AGENTGAUGE_ALLOW_SUITE_ENDPOINTS", raising=False)
    spec = _agent(tmp_path, framework)
    suite = _suite(tmp_path, docs_server, "How many days of leave do I get?")
    with pytest.raises(UserError) as err:
        _run(suite, spec, tmp_path / "run", allow=False)
    assert "--allow-suite-endpoints" in str(err.value)
    assert TOKEN not in str(err.value)
    assert model.requests == []


def test_a_framework_that_cannot_attach_them_is_refused_in_one_line(
    model: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """langgraph: has no MCP client of its own (langchain-mcp-adapters is not a dependency):
    the run stops before any run folder, naming the suite's line, instead of running the
    cases without the servers."""
    pytest.importorskip("langgraph.graph")
    from click.testing import CliRunner

    from agentgauge.cli import cli

    monkeypatch.chdir(tmp_path)
    suite = _suite(tmp_path, "http://127.0.0.1:9/mcp", "How many days of leave do I get?")
    graph = HERE.parents[2] / "examples" / "frameworks" / "langgraph_agent.py"
    out = tmp_path / "run"
    args = ["run", str(suite), "--agent", f"langgraph:{graph}:graph", "--no-cache", "-o", str(out)]
    result = CliRunner().invoke(cli, [*args, "--allow-suite-endpoints"])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines == [
        f"{suite}:3: mcp_servers: the agent langgraph:{graph}:graph cannot be given the suite's "
        "MCP servers (use anthropic:MODEL, openai:MODEL?api=responses, openai-agents: or "
        "pydantic-ai:; or drop mcp_servers)"
    ]
    assert not out.exists()
    assert model.requests == []
