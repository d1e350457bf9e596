"""A call the transcript itself marks as an MCP call — Anthropic's MCP connector
(``mcp_tool_use`` / ``mcp_tool_result`` blocks), the Responses API's ``mcp_call`` items, a
native ``"mcp": true`` — is an ``mcp`` call for the call-type checks, even when the suite does
not define its tool (docs/scoring.md, "Call types")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentgauge.errors import UserError
from agentgauge.exchange import read_responses
from agentgauge.formats import json_text_calls, messages_from_data
from agentgauge.runner import score_responses
from agentgauge.schema import CaseResult, Suite
from agentgauge.scoring import ScoringConfig

ANTHROPIC = [
    {"role": "user", "content": "What does the handbook say about leave?"},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me look."},
            {
                "type": "mcp_tool_use",
                "id": "mcptoolu_1",
                "name": "kb_search",
                "server_name": "handbook",
                "input": {"q": "leave"},
            },
            {
                "type": "mcp_tool_result",
                "tool_use_id": "mcptoolu_1",
                "is_error": False,
                "content": [{"type": "text", "text": '{"hits": 2}'}],
            },
            {"type": "text", "text": "Two pages cover it."},
        ],
    },
]
RESPONSES = [
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Leave?"}]},
    {"type": "mcp_list_tools", "id": "mcpl_1", "server_label": "handbook", "tools": []},
    {
        "type": "mcp_call",
        "id": "mcp_1",
        "server_label": "handbook",
        "name": "kb_search",
        "arguments": '{"q": "leave"}',
        "output": '{"hits": 2}',
        "error": None,
    },
    {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Two pages cover it."}],
    },
]
#: the same conversation with a plain function call (no MCP mark)
PLAIN = [
    {"role": "user", "content": "What does the handbook say about leave?"},
    {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "t1", "name": "kb_search", "input": {"q": "leave"}}],
    },
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "2"}]},
    {"role": "assistant", "content": "Two pages cover it."},
]


def test_anthropic_mcp_blocks_are_read_in_order_as_mcp_calls() -> None:
    messages, fmt = messages_from_data(ANTHROPIC)
    assert fmt == "anthropic"
    shape = [(m.role, m.content, [(c.name, c.mcp) for c in m.tool_calls]) for m in messages]
    assert shape == [
        ("user", "What does the handbook say about leave?", []),
        ("assistant", "Let me look.", [("kb_search", True)]),
        ("tool", '{"hits": 2}', []),
        ("assistant", "Two pages cover it.", []),
    ]
    assert messages[2].tool_call_id == "mcptoolu_1"
    assert messages[2].name == "kb_search"


def test_an_mcp_tool_error_is_an_error_result() -> None:
    failed = json.loads(json.dumps(ANTHROPIC))
    block = failed[1]["content"][2]
    block["is_error"] = True
    block["content"] = [{"type": "text", "text": "server unavailable"}]
    messages, _ = messages_from_data(failed)
    assert json.loads(messages[2].content or "") == {"error": "server unavailable"}


def test_responses_mcp_call_items_are_mcp_calls_with_their_output() -> None:
    messages, fmt = messages_from_data(RESPONSES)
    assert fmt == "openai-responses"
    shape = [(m.role, m.content, [(c.name, c.mcp) for c in m.tool_calls]) for m in messages]
    assert shape == [
        ("user", "Leave?", []),
        ("assistant", None, [("kb_search", True)]),
        ("tool", '{"hits": 2}', []),
        ("assistant", "Two pages cover it.", []),
    ]
    errored = [*RESPONSES[:2], {**RESPONSES[2], "output": None, "error": "timeout"}]
    messages, _ = messages_from_data(errored)
    assert json.loads(messages[2].content or "") == {"error": "timeout"}


def test_plain_tool_use_is_not_marked() -> None:
    messages, _ = messages_from_data(PLAIN)
    assert [c.mcp for m in messages for c in m.tool_calls] == [False]


def test_the_mark_is_written_only_on_a_marked_call() -> None:
    # a plain call's dump is what it always was (results, cache keys and suite hashes of
    # unmarked calls unchanged); a marked call's keeps the mark, so a result read back, a
    # cached reply and an export still say the call went to an MCP server
    messages, _ = messages_from_data(PLAIN)
    (plain,) = next(m for m in messages if m.tool_calls).model_dump(mode="json")["tool_calls"]
    assert set(plain) == {"name", "arguments", "id"}
    messages, _ = messages_from_data(ANTHROPIC)
    (dumped,) = messages[1].model_dump(mode="json")["tool_calls"]
    assert dumped["mcp"] is True
    again = type(messages[1]).model_validate_json(messages[1].model_dump_json())
    assert again.tool_calls[0].mcp is True


def test_text_calls_in_an_mcp_shape_are_marked() -> None:
    use = {"type": "mcp_tool_use", "id": "m", "name": "kb_search", "input": {"q": "x"}}
    assert [c.mcp for c in json_text_calls(json.dumps(use)) or []] == [True]
    call = {"type": "mcp_call", "name": "kb_search", "arguments": "{}"}
    assert [c.mcp for c in json_text_calls(json.dumps(call)) or []] == [True]
    plain = {"type": "tool_use", "id": "t", "name": "kb_search", "input": {}}
    assert [c.mcp for c in json_text_calls(json.dumps(plain)) or []] == [False]


def _score(tmp_path: Path, lines: dict[str, dict[str, Any]]) -> dict[str, CaseResult]:
    """Score recorded responses of the cases in ``lines`` against one suite where kb_search is
    a plain tool (not marked ``mcp``)."""
    tool = {"name": "kb_search", "parameters": {"type": "object", "properties": {"q": {}}}}
    no_mcp = {"behavior": "any_tool", "forbidden_types": ["mcp"]}
    want_mcp = {"tool_calls": [{"name": "*", "type": "mcp", "args_match": "ignore"}]}
    cases = [
        {"id": cid, "input": "Leave?", "expect": want_mcp if cid.startswith("want") else no_mcp}
        for cid in lines
    ]
    suite = Suite.model_validate({"name": "s", "tools": [tool], "cases": cases})
    path = tmp_path / "responses.jsonl"
    path.write_text(
        "".join(json.dumps({"case_id": k, **v}) + "\n" for k, v in lines.items()), "utf-8"
    )
    run = tmp_path / "run"
    score_responses(suite, read_responses(path), run, ScoringConfig())
    rows = (run / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return {r.case_id: r for r in map(CaseResult.model_validate_json, rows)}


def test_recorded_mcp_calls_meet_the_call_type_checks_both_ways(tmp_path: Path) -> None:
    native = {"calls": [{"name": "kb_search", "arguments": {"q": "x"}, "mcp": True}]}
    got = _score(
        tmp_path,
        {
            "no-mcp-anthropic": {"messages": ANTHROPIC},
            "no-mcp-responses": {"messages": RESPONSES},
            "no-mcp-native": native,
            "no-mcp-plain": {"messages": PLAIN},
            "want-mcp-anthropic": {"messages": ANTHROPIC},
            "want-mcp-plain": {"messages": PLAIN},
        },
    )
    for cid in ("no-mcp-anthropic", "no-mcp-responses", "no-mcp-native"):
        assert got[cid].status == "failed", cid
        assert "call(s) to a forbidden mcp tool: kb_search" in got[cid].explanation
    assert got["no-mcp-plain"].status == "passed", got["no-mcp-plain"].explanation
    assert got["want-mcp-anthropic"].status == "passed", got["want-mcp-anthropic"].explanation
    assert got["want-mcp-plain"].status == "failed"
    assert "expected a call to * (mcp), got kb_search" in got["want-mcp-plain"].explanation


def test_a_native_mark_that_is_not_a_boolean_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "responses.jsonl"
    line = {"case_id": "c", "calls": [{"name": "kb_search", "mcp": "yes"}]}
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"calls\[0\]\.mcp: expected true or false"):
        read_responses(path)
