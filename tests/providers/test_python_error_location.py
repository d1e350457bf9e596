"""An exception in a ``python:`` agent is recorded with where the agent failed: the innermost
frame of its own file (file:line and function) (issue 22, item 11)."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.errors import ProviderError
from agentgauge.providers import ModelRequest, resolve_provider
from agentgauge.schema import Message

AGENT = """\
import json

from helper import parse


def decide(text):
    if text == "json":
        return json.loads("{not json")  # fails inside the standard library
    if text == "helper":
        return parse(text)  # fails in a sibling module
    return 1 / 0


def agent(messages, tools):
    return str(decide(messages[-1].content))


async def async_agent(messages, tools):
    return str(decide(messages[-1].content))
"""

HELPER = "def parse(text):\n    return int(text)\n"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "agent.py").write_text(AGENT, encoding="utf-8")
    (tmp_path / "helper.py").write_text(HELPER, encoding="utf-8")
    return tmp_path


def error_of(spec: str, text: str) -> str:
    provider = resolve_provider(spec)
    request = ModelRequest(messages=[Message(role="user", content=text)], tools=[])

    async def go() -> None:
        await provider.generate(request)

    with pytest.raises(ProviderError) as info:
        anyio.run(go)
    return str(info.value)


@pytest.mark.parametrize("query", ["", "?thread=0"])
@pytest.mark.parametrize("fn", ["agent", "async_agent"])
def test_the_innermost_line_of_the_agents_file_is_named(
    folder: Path, fn: str, query: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: the error said only 'the agent raised ZeroDivisionError: division by zero'."""
    spec = f"python:{folder / 'agent.py'}:{fn}{query}"
    monkeypatch.chdir(folder)  # shown relative to the working folder
    message = error_of(spec, "divide")
    name = spec.partition("?")[0]
    assert message == (
        f"{name}: the agent raised ZeroDivisionError: division by zero (at agent.py:11 in decide)"
    )
    # inside the standard library: still the agent's own line that called it
    assert error_of(spec, "json").endswith("(at agent.py:8 in decide)")
    # in a sibling module: the agent's own line still wins
    assert error_of(spec, "helper").endswith("(at agent.py:10 in decide)")


def test_outside_the_working_folder_the_path_is_absolute(
    folder: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path_factory.mktemp("elsewhere"))
    message = error_of(f"python:{folder / 'agent.py'}:agent", "divide")
    assert message.endswith(f"(at {folder.resolve() / 'agent.py'}:11 in decide)")


def test_a_run_records_it_on_the_case_and_keeps_the_others(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = folder / "suite.yaml"
    suite.write_text(
        "name: s\ncases:\n"
        "  - {id: bad, input: divide, expect: {response_contains: ['1']}}\n"
        "  - {id: also-bad, input: helper, expect: {response_contains: ['1']}}\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(folder)
    result = CliRunner().invoke(
        cli,
        ["run", "suite.yaml", "--agent", "python:agent.py:agent", "-o", "out", "--no-progress",
         "--no-history", "--no-cache"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (folder / "out" / "results.jsonl").open()]
    errors = {r["case_id"]: r["error"] for r in rows}
    assert {r["status"] for r in rows} == {"error"}
    assert errors["bad"].endswith("ZeroDivisionError: division by zero (at agent.py:11 in decide)")
    assert "(at agent.py:10 in decide)" in errors["also-bad"]
