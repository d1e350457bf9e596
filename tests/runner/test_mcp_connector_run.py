"""A suite's ``mcp_servers`` end to end: ``agentgauge run``'s runner with the anthropic: and the
openai Responses adapters (their real SDK / wire clients) against loopback servers. A call the
vendor's API made on the MCP server is marked in the transcript, so ``forbidden_types: [mcp]``
FAILS on a reply holding one and passes on a reply without; the mark survives the response
cache (a second run from the cache gives the same verdict); the server's token reaches the API
but no file of the run; a suite sending a token of the user's to a URL it names needs
``--allow-suite-endpoints``, and a vendor key variable is refused outright."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from agentgauge.errors import UserError
from agentgauge.rundir import iter_results
from agentgauge.runner import RunConfig, run_suite_file
from agentgauge.scoring._api import score_case as real_score_case

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "providers"))
from aio_server_helpers import AioServer

KEY = "sk-loopback-run-0123456789abcdef"
TOKEN = "mcp-run-token-5a4b3c2d1e0f9876"

SUITE = """
name: mcp-connector
mcp_servers:
  - name: docs
    url: https://mcp.example.com/mcp
    token_env: DOCS_MCP_TOKEN
cases:
  - id: no-mcp
    input: What is the leave policy?
    expect:
      forbidden_types: [mcp]
"""


def _anthropic_reply(mcp: bool) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": "You get 25 days."}]
    if mcp:
        content = [
            {
                "type": "mcp_tool_use",
                "id": "mcptoolu_1",
                "name": "kb",
                "server_name": "docs",
                "input": {"q": "leave"},
            },
            {
                "type": "mcp_tool_result",
                "tool_use_id": "mcptoolu_1",
                "is_error": False,
                "content": [{"type": "text", "text": "25 days"}],
            },
            *content,
        ]
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": content,
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 30, "output_tokens": 12},
    }


def _responses_reply(mcp: bool) -> dict[str, Any]:
    output: list[dict[str, Any]] = [
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "You get 25 days.", "annotations": []}],
        },
    ]
    if mcp:
        output.insert(
            0,
            {
                "type": "mcp_call",
                "id": "mcp_1",
                "name": "kb",
                "server_label": "docs",
                "arguments": '{"q": "leave"}',
                "output": "25 days",
                "error": None,
            },
        )
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "gpt-test",
        "status": "completed",
        "output": output,
        "usage": {"input_tokens": 40, "output_tokens": 10, "total_tokens": 50},
    }


class Vendor:
    """A loopback vendor API; ``mcp``: its replies hold a connector call."""

    def __init__(self, mcp: bool) -> None:
        self.mcp = mcp
        self.bodies: list[dict[str, Any]] = []

    async def anthropic(self, request: web.Request) -> web.Response:
        self.bodies.append(await request.json())
        return web.json_response(_anthropic_reply(self.mcp))

    async def responses(self, request: web.Request) -> web.Response:
        self.bodies.append(await request.json())
        return web.json_response(_responses_reply(self.mcp))

    def routes(self) -> list[web.RouteDef]:
        return [web.post("/v1/messages", self.anthropic), web.post("/responses", self.responses)]


@pytest.fixture(autouse=True)
def _real_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    # tests/runner's conftest stands a simple scorer in for score_case: these test the real one
    monkeypatch.setattr("agentgauge.scoring.score_case", real_score_case)


@pytest.fixture
def suite_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DOCS_MCP_TOKEN", TOKEN)
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE, encoding="utf-8")
    return path


SPECS = [
    "anthropic:claude-test",
    "openai:gpt-test?api=responses",
    # the newer connector beta (mcp_toolset entries in tools), recorded in the run's agent spec
    "anthropic:claude-test?mcp_beta=2025-11-20",
]


def _config(suite: Path, spec: str, url: str, **kw: Any) -> RunConfig:
    return RunConfig(
        agent=spec,
        agent_options={"base_url": url, "api_key": KEY},
        suite_path=str(suite),
        progress=False,
        retries=0,
        allow_suite_endpoints=kw.pop("allow", True),
        cache_dir=suite.parent / "cache",
        **kw,
    )


def _only(run_dir: Path) -> Any:
    (result,) = list(iter_results(run_dir))
    return result


def _files_text(folder: Path) -> str:
    return "".join(
        p.read_bytes().decode(errors="replace") for p in folder.rglob("*") if p.is_file()
    )


@pytest.mark.parametrize("spec", SPECS)
def test_a_connector_call_fails_forbidden_types(suite_file: Path, spec: str) -> None:
    if spec.startswith("anthropic"):
        pytest.importorskip("anthropic")
    vendor = Vendor(mcp=True)
    with AioServer(vendor.routes()) as server:
        run_dir = suite_file.parent / "run"
        outcome = run_suite_file(suite_file, _config(suite_file, spec, server.url), run_dir)
        assert outcome.record.agent == spec  # the connector beta chosen is recorded
        result = _only(run_dir)
        assert result.status == "failed"
        (score,) = [s for s in result.scores if s.name.endswith("forbidden_types")]
        assert score.passed is False
        assert "mcp" in score.explanation
        assert "kb" in score.explanation
        # the server's calls are on the conversation and the trace, marked, and not run here
        marked = [c for m in result.messages for c in m.tool_calls if c.mcp]
        assert [(c.name, c.mcp_server) for c in marked] == [("kb", "docs")]
        assert [e.tool for e in result.trace if e.kind == "tool"] == ["kb"]
        assert len(vendor.bodies) == 1
        # the token went to the API and nowhere on disk
        assert TOKEN in json.dumps(vendor.bodies[0])
        assert TOKEN not in _files_text(run_dir)
        assert TOKEN not in _files_text(suite_file.parent / "cache")
        # again, from the response cache: the same verdict (the mark is in the cached reply)
        again = suite_file.parent / "again"
        cfg = _config(suite_file, spec, server.url, replay=False)
        outcome = run_suite_file(suite_file, cfg, again)
        assert outcome.cache_hits == 1
        assert len(vendor.bodies) == 1
        assert _only(again).status == "failed"


@pytest.mark.parametrize("spec", SPECS)
def test_a_reply_without_connector_calls_passes(suite_file: Path, spec: str) -> None:
    if spec.startswith("anthropic"):
        pytest.importorskip("anthropic")
    vendor = Vendor(mcp=False)
    with AioServer(vendor.routes()) as server:
        run_dir = suite_file.parent / "run"
        run_suite_file(suite_file, _config(suite_file, spec, server.url), run_dir)
    result = _only(run_dir)
    assert result.status == "passed", result.explanation
    assert vendor.bodies[0].get("mcp_servers") or vendor.bodies[0].get("tools")


def test_a_suite_token_to_its_own_url_needs_the_opt_in(
    suite_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTGAUGE_ALLOW_SUITE_ENDPOINTS", raising=False)
    vendor = Vendor(mcp=False)
    with AioServer(vendor.routes()) as server:
        cfg = _config(suite_file, SPECS[1], server.url, allow=False)
        with pytest.raises(UserError) as err:
            run_suite_file(suite_file, cfg, suite_file.parent / "run")
    line = str(err.value)
    assert line.startswith(f"{suite_file}:6: mcp_servers[0].token_env: ")
    assert "--allow-suite-endpoints" in line
    assert "DOCS_MCP_TOKEN" in line
    assert TOKEN not in line
    assert vendor.bodies == []


def test_a_vendor_key_as_token_is_refused_whatever_the_opt_in(
    suite_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    suite_file.write_text(SUITE.replace("DOCS_MCP_TOKEN", "OPENAI_API_KEY"), encoding="utf-8")
    with pytest.raises(UserError) as err:
        run_suite_file(suite_file, _config(suite_file, SPECS[1], "http://127.0.0.1:9"), None)
    assert "OPENAI_API_KEY is an API key of yours" in str(err.value)
    assert KEY not in str(err.value)


def test_an_unset_token_variable_and_an_agent_without_a_connector(
    suite_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DOCS_MCP_TOKEN")
    with pytest.raises(UserError, match=r"mcp_servers\[0\]\.token_env: set DOCS_MCP_TOKEN"):
        run_suite_file(
            suite_file, _config(suite_file, SPECS[1], "http://127.0.0.1:9"), suite_file.parent / "r"
        )
    monkeypatch.setenv("DOCS_MCP_TOKEN", TOKEN)
    chat = _config(suite_file, "openai:gpt-test", "http://127.0.0.1:9")
    with pytest.raises(UserError, match="cannot be given the suite's MCP servers"):
        run_suite_file(suite_file, chat, suite_file.parent / "r2")
    assert os.environ["DOCS_MCP_TOKEN"] == TOKEN


def test_the_loop_records_server_steps_and_runs_no_marked_call(tmp_path: Path) -> None:
    """A reply's server steps go on the conversation and the trace; a marked call the API left
    without a result (e.g. a paused turn) is not run here, and the turn ends (no second model
    call with the same history)."""
    from agentgauge.providers import ModelResponse
    from agentgauge.rundir import iter_results as results_of
    from agentgauge.runner import run_suite
    from agentgauge.schema import Message, ToolCall
    from agentgauge.suites import load_suite
    from agentgauge.testing import MockProvider

    suite_file = tmp_path / "suite.yaml"
    suite_file.write_text(
        "name: loop\ntools:\n  - name: kb\n    parameters: {type: object, properties: {}}\n"
        "    simulation: {result: {from: simulator}}\n"
        "cases:\n  - id: c\n    input: Leave?\n    expect: {forbidden_types: [mcp]}\n",
        encoding="utf-8",
    )
    done = ToolCall(name="kb", id="m1", mcp=True, mcp_server="docs")
    steps = (
        Message(role="assistant", tool_calls=[done]),
        Message(role="tool", content="25 days", tool_call_id="m1", name="kb"),
    )
    left = ToolCall(name="kb", id="m2", mcp=True, mcp_server="docs")
    reply = ModelResponse(
        message=Message(role="assistant", content="Still looking.", tool_calls=[left]),
        server_steps=steps,
    )
    provider = MockProvider([reply], repeat_last=True)
    cfg = RunConfig(suite_path=str(suite_file), cache=False, progress=False)
    run_suite(load_suite(suite_file), cfg, tmp_path / "run", provider=provider)
    (result,) = list(results_of(tmp_path / "run"))
    assert result.model_calls == 1
    assert [m.role for m in result.messages] == ["user", "assistant", "tool", "assistant"]
    tools = [e for e in result.trace if e.kind == "tool"]
    assert [(e.tool, e.result) for e in tools] == [("kb", "25 days")]  # not the simulator's
    assert result.status == "failed"
