"""A suite whose tools come from a real MCP server (``tools_from: mcp``), in mock and real mode,
over stdio and over streamable HTTP on loopback; and the suite-code refusal of a command."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from agentgauge.errors import SuiteCodeRefused, UserError
from agentgauge.io import iter_results, load_suite
from agentgauge.providers import ModelRequest
from agentgauge.runner import RunConfig, run_suite
from agentgauge.schema import ToolCall
from agentgauge.scoring._api import score_case as real_score_case
from agentgauge.testing import MockProvider

SERVER = Path(__file__).resolve().parents[1] / "exchange" / "mcp" / "quick_server.py"

SUITE = """
name: mcp-weather
tools_from:
  mcp: {MCP}
defaults:
  tool_mode: {MODE}
cases:
  - id: weather-paris
    input: What's the weather in Paris?
    tool_results:
      get_weather: {{result: {{temperature: 5, unit: celsius, conditions: simulated}}}}
    expect:
      tool_calls: [{{name: get_weather, arguments: {{city: Paris}}}}]
  - id: weather-paris-real
    tool_mode: real
    input: What's the weather in Paris?
    expect:
      tool_calls: [{{name: get_weather, arguments: {{city: Paris}}}}]
"""


@pytest.fixture(autouse=True)
def _real_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    # these tests run whole suites, scored as a user's run is
    monkeypatch.setattr("agentgauge.scoring.score_case", real_score_case)


def weather_agent(request: ModelRequest) -> Any:
    """Asks for the weather of the city the user named, then reports the tool's answer."""
    last = request.messages[-1]
    if last.role == "tool":
        return f"Here it is: {last.content}"
    city = "Atlantis" if "Atlantis" in (last.content or "") else "Paris"
    return ToolCall(name="get_weather", arguments={"city": city})


def _suite_dir(tmp_path: Path, mcp: str, mode: str = "mock") -> Path:
    shutil.copy(SERVER, tmp_path / "quick_server.py")
    text = SUITE.format(MCP=mcp, MODE=mode)
    (tmp_path / "suite.yaml").write_text(text, encoding="utf-8")
    return tmp_path / "suite.yaml"


def _stdio(tmp_path: Path, mode: str = "mock") -> Path:
    return _suite_dir(
        tmp_path, f"{{command: [{json.dumps(sys.executable)}, quick_server.py]}}", mode
    )


def _run(suite_file: Path, out: Path, **config: Any) -> tuple[Any, dict[str, Any]]:
    suite = load_suite(suite_file)
    cfg = RunConfig(suite_path=str(suite_file), cache=False, progress=False, **config)
    outcome = run_suite(suite, cfg, out, provider=MockProvider([weather_agent], repeat_last=True))
    results = {r.case_id: r for r in iter_results(out)}
    return outcome, results


def _tool_event(result: Any) -> Any:
    (event,) = [e for e in result.trace if e.kind == "tool"]
    return event


def test_stdio_mock_and_real_mode(tmp_path: Path) -> None:
    suite_file = _stdio(tmp_path)
    outcome, results = _run(suite_file, tmp_path / "run", allow_suite_code=True)
    assert outcome.errors == 0
    # mock (the suite default): the case's simulation answers, the server is not called
    mock = _tool_event(results["weather-paris"])
    assert mock.result == {"temperature": 5, "unit": "celsius", "conditions": "simulated"}
    # real (the case's override): the server answers, and its answer is in the trace
    real = _tool_event(results["weather-paris-real"])
    assert real.result["conditions"] == "served live for Paris"
    assert real.fault is None
    assert real.error is None
    assert "served live for Paris" in results["weather-paris-real"].text
    assert results["weather-paris-real"].status == "passed"
    options = outcome.record.options
    assert options["tool_mode"] == "mock"
    source = options["tool_source"]
    assert source["ok"] is True
    assert source["transport"] == "stdio"
    assert source["tool_count"] == 3
    assert source["latency_ms"] > 0


def test_tool_mode_flag_overrides_every_case(tmp_path: Path) -> None:
    suite_file = _stdio(tmp_path)
    outcome, results = _run(suite_file, tmp_path / "run", allow_suite_code=True, tool_mode="real")
    assert outcome.record.options["tool_mode"] == "real"
    for result in results.values():
        assert _tool_event(result).result["conditions"] == "served live for Paris"


def test_real_mode_faults_still_injected(tmp_path: Path) -> None:
    suite_file = _stdio(tmp_path, mode="real")
    text = suite_file.read_text().replace(
        "  tool_mode: real\n", "  tool_mode: real\n  faults: [{kind: timeout, rate: 1.0}]\n", 1
    )
    suite_file.write_text(text)
    _, results = _run(suite_file, tmp_path / "run", allow_suite_code=True)
    for result in results.values():
        event = _tool_event(result)
        assert event.fault == "timeout"
        assert "timed out" in (event.error or "")


def test_real_mode_server_error_is_a_failed_call(tmp_path: Path) -> None:
    suite_file = _stdio(tmp_path, mode="real")
    suite_file.write_text(suite_file.read_text().replace("Paris", "Atlantis"))
    _, results = _run(suite_file, tmp_path / "run", allow_suite_code=True)
    event = _tool_event(results["weather-paris-real"])
    assert event.error
    assert "get_weather" in event.error
    assert event.result == {"error": event.error}


def test_command_refused_without_opt_in(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    suite_file = _suite_dir(
        tmp_path,
        json.dumps({"command": [sys.executable, "-c", f"open({str(marker)!r}, 'w')"]}),
    )
    with pytest.raises(SuiteCodeRefused) as err:
        _run(suite_file, tmp_path / "run", allow_suite_code=False)
    message = str(err.value)
    assert "tools_from.mcp.command" in message
    assert "--allow-suite-code" in message
    assert not marker.exists()  # nothing was started
    assert not (tmp_path / "run" / "results.jsonl").exists()


def test_load_failure_is_one_line(tmp_path: Path) -> None:
    suite_file = _suite_dir(
        tmp_path, f"{{command: [{json.dumps(sys.executable)}, no_such_server.py], timeout_s: 20}}"
    )
    with pytest.raises(UserError) as err:
        _run(suite_file, tmp_path / "run", allow_suite_code=True)
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("tools_from.mcp:")
    assert "no_such_server.py" in message


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def http_server() -> Iterator[str]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
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


def test_http_url_mock_and_real_needs_no_opt_in(tmp_path: Path, http_server: str) -> None:
    suite_file = _suite_dir(tmp_path, f"{{url: {json.dumps(http_server)}}}")
    outcome, results = _run(suite_file, tmp_path / "run", allow_suite_code=False)
    assert outcome.errors == 0
    assert _tool_event(results["weather-paris"]).result["conditions"] == "simulated"
    real = _tool_event(results["weather-paris-real"])
    assert real.result["conditions"] == "served live for Paris"
    assert outcome.record.options["tool_source"]["transport"] == "streamable-http"


def test_unknown_tool_named_in_source(tmp_path: Path) -> None:
    suite_file = _suite_dir(
        tmp_path,
        f"{{command: [{json.dumps(sys.executable)}, quick_server.py], tools: [get_weather, fly]}}",
    )
    with pytest.raises(UserError, match="has no tool 'fly'"):
        _run(suite_file, tmp_path / "run", allow_suite_code=True)
