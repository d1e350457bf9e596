"""What the exported spans say: no content with --no-content, no made-up token counts, and the
chat span attributes the OpenAI convention asks for (provider, response model, id, finish)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.exchange._otlp import read_spans
from agentgauge.schema import ToolCall
from agentgauge.testing import FakeOpenAIServer

ADDRESS = "ana.lopez@example.org"
BODY = "the quarterly numbers are in the shared folder"
SYSTEM = "You are Orbit, the assistant of ACME Corp"
RESULT_ID = "MID-55219"
SUITE = f"""
name: mail
defaults:
  system: "{SYSTEM}"
tools:
  - name: send_email
    description: Send an e-mail.
    parameters:
      type: object
      properties: {{to: {{type: string}}, body: {{type: string}}}}
      required: [to, body]
    simulation: {{result: {{message_id: {RESULT_ID}, delivered: true}}}}
cases:
  - id: mail-ana
    input: "Send Ana the note: {BODY}"
    expect:
      # a wrong expectation on purpose: the explanation then quotes the real arguments
      tool_calls: [{{name: send_email, arguments: {{to: bob@example.org}}}}]
"""
AGENT = f'''
from agentgauge.schema import ToolCall


def agent(messages, tools):
    if messages[-1].role == "tool":
        return "Sent to {ADDRESS}."
    return [ToolCall(name="send_email", arguments={{"to": "{ADDRESS}", "body": "{BODY}"}})]
'''
CONTENT = (ADDRESS, BODY, SYSTEM, RESULT_ID, "Send Ana the note")


def _cli(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result.output


def _python_run(tmp_path: Path) -> Path:
    (tmp_path / "suite.yaml").write_text(SUITE)
    (tmp_path / "agent.py").write_text(AGENT)
    run_dir = tmp_path / "run"
    _cli(
        "run", str(tmp_path / "suite.yaml"), "--agent", f"python:{tmp_path / 'agent.py'}:agent",
        "-o", str(run_dir), "--no-cache", "--no-history", "--no-progress",
    )  # fmt: skip
    return run_dir


def test_no_content_leaves_out_messages_arguments_results_explanations_and_system(
    tmp_path: Path,
) -> None:
    run_dir = _python_run(tmp_path)
    full, bare = tmp_path / "full.json", tmp_path / "bare.json"
    _cli("export-otel", str(run_dir), "-o", str(full))
    _cli("export-otel", str(run_dir), "-o", str(bare), "--no-content")
    with_content = full.read_text()
    for text in CONTENT:  # the grep below can fail: every piece is in the full export
        assert text in with_content, text
    payload = bare.read_text()
    for text in (*CONTENT, "bob@example.org"):
        assert text not in payload, text
    spans = read_spans([bare])
    keys = {k for s in spans for k in s.attributes}
    assert not keys & {
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "agentgauge.explanation",
    }
    # what stays: the structure, names, statuses and scores
    root = next(s for s in spans if s.parent_id is None)
    assert root.attributes["agentgauge.status"] == "failed"
    assert root.status_message == "failed"
    tool = next(s for s in spans if s.attributes.get("gen_ai.operation.name") == "execute_tool")
    assert tool.attributes["gen_ai.tool.name"] == "send_email"
    assert all("gen_ai.evaluation.explanation" not in e.attributes for e in root.events)
    assert {e.attributes["gen_ai.evaluation.score.label"] for e in root.events} >= {"fail"}


def test_an_agent_that_reports_no_usage_exports_no_token_counts(tmp_path: Path) -> None:
    run_dir = _python_run(tmp_path)  # a python: agent returning calls and text: no usage
    out = tmp_path / "trace.json"
    _cli("export-otel", str(run_dir), "-o", str(out))
    assert "gen_ai.usage" not in out.read_text()


@pytest.mark.parametrize("stream", [False, True])
def test_chat_spans_name_the_provider_models_response_id_and_finish_reasons(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stream: bool
) -> None:
    (tmp_path / "suite.yaml").write_text(SUITE)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key-0000")
    replies = [ToolCall(name="send_email", arguments={"to": ADDRESS, "body": BODY}), "Sent."]
    with FakeOpenAIServer(replies, model="fake-model-2026-01") as srv:
        run_dir = tmp_path / "run"
        _cli(
            "run", str(tmp_path / "suite.yaml"), "--agent", "openai:fake-model",
            "--base-url", srv.base_url, "-o", str(run_dir), "--no-cache", "--no-history",
            "--no-progress", *(["--stream"] if stream else []),
        )  # fmt: skip
    out = tmp_path / "trace.json"
    _cli("export-otel", str(run_dir), "-o", str(out))
    spans = read_spans([out])
    chats = [s for s in spans if s.attributes.get("gen_ai.operation.name") == "chat"]
    assert len(chats) == 2
    for span, finish in zip(chats, (["tool_calls"], ["stop"]), strict=True):
        a = span.attributes
        assert a["gen_ai.provider.name"] == "openai"
        assert a["gen_ai.request.model"] == "fake-model"
        assert a["gen_ai.response.model"] == "fake-model-2026-01"
        assert str(a["gen_ai.response.id"]).startswith("chatcmpl-")
        assert a["gen_ai.response.finish_reasons"] == finish
        assert a["gen_ai.usage.input_tokens"] > 0
        assert span.name == "chat fake-model"
    root = next(s for s in spans if s.parent_id is None)
    assert root.attributes["gen_ai.provider.name"] == "openai"
    assert root.attributes["gen_ai.usage.input_tokens"] > 0
    assert json.dumps(root.attributes).count("sk-test") == 0
