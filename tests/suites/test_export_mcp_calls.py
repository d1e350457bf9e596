"""Suite export keeps what says a call went to an MCP server: the ``mcp_servers`` the vendor
calls, a marked call in a case's input history, and a marked call in written recorded
responses (each read back to the same thing; a plain call is written as before)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.exchange import read_responses
from agentgauge.schema import Suite, ToolCall
from agentgauge.suites import lint_suite, load_suite, write_responses, write_suite
from agentgauge.suites._export import ResponseRecord

SUITE = {
    "name": "s",
    "mcp_servers": [
        {
            "name": "docs",
            "url": "https://mcp.example.com/mcp",
            "token_env": "DOCS_TOKEN",
            "tools": ["kb"],
        },
    ],
    "cases": [
        {
            "id": "c",
            "input": [
                {"role": "user", "content": "Leave?"},
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "name": "kb",
                            "id": "m1",
                            "arguments": {"q": "x"},
                            "mcp": True,
                            "mcp_server": "docs",
                        }
                    ],
                },
                {"role": "tool", "content": "25 days", "tool_call_id": "m1", "name": "kb"},
                {"role": "assistant", "content": "25 days."},
                {"role": "user", "content": "And sick leave?"},
            ],
            "expect": {"forbidden_types": ["mcp"], "behavior": "answer"},
        }
    ],
}


def test_servers_and_marked_history_round_trip(tmp_path: Path) -> None:
    suite = Suite.model_validate(SUITE)
    (path,) = write_suite(suite, tmp_path / "out.yaml")
    back = load_suite(path)
    assert back.mcp_servers == suite.mcp_servers
    assert back.cases[0].input == suite.cases[0].input
    history = back.cases[0].input
    assert not isinstance(history, str)
    (call,) = history[1].tool_calls
    assert (call.mcp, call.mcp_server) == (True, "docs")
    assert "token_env: DOCS_TOKEN" in path.read_text(encoding="utf-8")


def test_written_responses_keep_the_mark(tmp_path: Path) -> None:
    records = [
        ResponseRecord(case_id="a", calls=[ToolCall(name="kb", mcp=True, mcp_server="docs")]),
        ResponseRecord(case_id="b", calls=[ToolCall(name="kb")]),
    ]
    path = tmp_path / "responses.jsonl"
    write_responses(records, path)
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert lines[1]["calls"] == [{"name": "kb", "arguments": {}}]
    got = {r.case_id: r for r in read_responses(path)}
    assert [c.mcp for c in got["a"].calls] == [True]
    assert [c.mcp for c in got["b"].calls] == [False]


def test_forbidding_mcp_calls_can_fail_with_servers_the_vendor_calls() -> None:
    # without mcp_servers (and no MCP tool) forbidden_types: [mcp] can never fail: a warning;
    # with them, the vendor's calls are MCP calls, so the check can fail: no warning
    with_servers = Suite.model_validate(SUITE)
    without = Suite.model_validate({**SUITE, "mcp_servers": []})
    codes = [f.code for f in lint_suite(without) if f.field and "forbidden_types" in f.field]
    assert codes == ["cannot-fail-check"]
    assert not [f for f in lint_suite(with_servers) if f.field and "forbidden_types" in f.field]


def test_validate_reports_a_token_sent_to_the_suite_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTGAUGE_ALLOW_SUITE_ENDPOINTS", raising=False)
    (path,) = write_suite(Suite.model_validate(SUITE), tmp_path / "suite.yaml")
    line = next(
        n
        for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "token_env" in text
    )
    result = CliRunner().invoke(cli, ["validate", str(path)])
    assert result.exit_code == 2, result.output
    assert f"{path}:{line}: mcp_servers[0].token_env: error: MCP server 'docs'" in result.output
    assert "[suite-endpoint]" in result.output
    allowed = CliRunner().invoke(cli, ["validate", "--allow-suite-endpoints", str(path)])
    assert "suite-endpoint" not in allowed.output


def test_a_suite_without_servers_dumps_and_hashes_as_before() -> None:
    # the run's suite hash (resume compares it; the suite's dump) of every existing suite is
    # unchanged by the field (checked against 227d235, before it: the same header hash)
    plain = Suite.model_validate({"name": "x"})
    assert "mcp_servers" not in plain.model_dump_json()
    assert "mcp_servers" in Suite.model_validate(SUITE).model_dump_json()
