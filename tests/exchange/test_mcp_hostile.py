"""MCP servers that misbehave: one that never answers (stdio and HTTP), one that writes lines
that are not JSON-RPC (before the handshake, or from inside a tool while a call runs), one that
answers HTTP with garbage or a body over the reply cap.

Each must end in one line (a UserError naming the server, or an error result on the case),
within the ``timeout_s`` it was given (asserted through the message, not a clock: the figures
are in benchmarks/bench_mcp_timeout.py), with no traceback on the console and no server
process left behind.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

pytest.importorskip("mcp")

from agentgauge.cli import cli
from agentgauge.errors import UserError
from agentgauge.exchange import list_mcp_tools
from agentgauge.providers import ModelRequest
from agentgauge.rundir import iter_results
from agentgauge.runner import RunConfig, run_suite
from agentgauge.schema import McpSource, ToolCall
from agentgauge.suites import load_suite
from agentgauge.testing import MockProvider
from hostile_http import HostileServer

#: never answers; ignores SIGTERM and the end of its stdin; writes its pid first
HANG = """
import os, sys, time, signal
open("pid", "w").write(str(os.getpid()))
signal.signal(signal.SIGTERM, signal.SIG_IGN)
for line in sys.stdin:
    pass
time.sleep(600)
"""

GARBAGE = """
import sys
sys.stdout.write("this is not json\\n")
sys.stdout.flush()
for line in sys.stdin:
    sys.stdout.write("garbage reply\\n")
    sys.stdout.flush()
"""

#: a hand-written JSON-RPC server (no SDK: the SDK's own server diverts a tool's prints away
#: from stdout) whose tool writes a stray line on the protocol channel for city "Noisy"
NOISY = """
import json, sys

def send(obj):
    sys.stdout.write(json.dumps(obj) + "\\n")
    sys.stdout.flush()

TOOL = {"name": "get_weather", "description": "Weather for a city.",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}},
                        "required": ["city"]}}
for line in sys.stdin:
    msg = json.loads(line)
    method, mid = msg.get("method"), msg.get("id")
    if mid is None:
        continue
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "noisy", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": [TOOL]}})
    elif method == "tools/call":
        city = msg["params"]["arguments"]["city"]
        if city == "Noisy":
            sys.stdout.write("debug: looking up the weather\\n")
        text = json.dumps({"temperature": 18, "city": city})
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "content": [{"type": "text", "text": text}], "isError": False}})
    else:
        send({"jsonrpc": "2.0", "id": mid,
              "error": {"code": -32601, "message": "Method not found"}})
"""


def _gone(pid: int) -> bool:
    """The process is dead: no such pid, or a zombie (killed, not yet reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] in ("Z", "X")


def _source(tmp_path: Path, script: str, **extra: Any) -> McpSource:
    (tmp_path / "server.py").write_text(script)
    return McpSource(command=[sys.executable, "server.py"], **extra)


def test_a_hanging_stdio_server_is_refused_within_its_timeout(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    source = _source(tmp_path, HANG, timeout_s=2)
    with pytest.raises(UserError) as err:
        list_mcp_tools(source, tmp_path)
    message = str(err.value)
    assert message.startswith("--mcp: the MCP server ")
    assert message.endswith("did not list its tools within 2s"), message
    assert "\n" not in message
    assert _gone(int((tmp_path / "pid").read_text()))  # killed, though it ignores SIGTERM
    assert "Traceback" not in capfd.readouterr().err


def test_garbage_on_stdout_is_one_line_at_once(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    source = _source(tmp_path, GARBAGE, timeout_s=20)
    with pytest.raises(UserError) as err:
        list_mcp_tools(source, tmp_path)
    message = str(err.value)
    assert message.endswith("wrote a line that is not JSON-RPC: 'this is not json'"), message
    captured = capfd.readouterr()
    assert "Traceback" not in captured.err
    assert "validation error" not in captured.err


def test_tools_list_mcp_cli_garbage_server_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    # the CLI's --mcp takes the default timeout (30 s): a garbage server is refused at once
    (tmp_path / "garbage.py").write_text(GARBAGE)
    result = CliRunner().invoke(cli, ["tools", "list", "--mcp", f"{sys.executable} garbage.py"])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert "wrote a line that is not JSON-RPC" in lines[0]


def _weather_agent(request: ModelRequest) -> Any:
    last = request.messages[-1]
    if last.role == "tool":
        return f"Here it is: {last.content}"
    city = "Noisy" if "noisy" in (last.content or "") else "Paris"
    return ToolCall(name="get_weather", arguments={"city": city})


def test_garbage_while_a_call_runs_is_an_error_on_that_case(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "server.py").write_text(NOISY)
    (tmp_path / "suite.yaml").write_text(
        f"""
name: noisy
tools_from:
  mcp: {{command: [{json.dumps(sys.executable)}, server.py], timeout_s: 30}}
defaults: {{tool_mode: real}}
cases:
  - id: quiet
    input: weather in Paris
    expect: {{tool_calls: [{{name: get_weather, arguments: {{city: Paris}}}}]}}
  - id: noisy
    input: weather, noisy
    expect: {{tool_calls: [{{name: get_weather, arguments: {{city: Noisy}}}}]}}
"""
    )
    suite = load_suite(tmp_path / "suite.yaml")
    config = RunConfig(
        suite_path=str(tmp_path / "suite.yaml"),
        cache=False,
        progress=False,
        allow_suite_code=True,
        max_concurrency=1,
    )
    run_suite(
        suite, config, tmp_path / "run", provider=MockProvider([_weather_agent], repeat_last=True)
    )
    results = {r.case_id: r for r in iter_results(tmp_path / "run")}
    assert len(results) == 2
    (quiet,) = [e for e in results["quiet"].trace if e.kind == "tool"]
    assert quiet.error is None
    assert quiet.result == {"temperature": 18, "city": "Paris"}
    (noisy,) = [e for e in results["noisy"].trace if e.kind == "tool"]
    assert noisy.error is not None
    assert "wrote a line that is not JSON-RPC: 'debug: looking up the weather'" in noisy.error
    assert "Traceback" not in capfd.readouterr().err


@pytest.fixture
def silent_http() -> Iterator[str]:
    """Accepts connections and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    sock.settimeout(0.2)
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        while not stop.is_set():
            try:
                held.append(sock.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    stop.set()
    thread.join(5)
    for conn in held:
        conn.close()
    sock.close()


def test_a_silent_http_server_is_refused_within_its_timeout(silent_http: str) -> None:
    with pytest.raises(UserError) as err:
        list_mcp_tools(McpSource(url=silent_http, timeout_s=2))
    assert str(err.value).endswith("did not list its tools within 2s"), str(err.value)


def test_an_http_reply_that_is_not_json_is_one_line(
    capfd: pytest.CaptureFixture[str],
) -> None:
    with HostileServer("garbage") as srv, pytest.raises(UserError) as err:
        list_mcp_tools(McpSource(url=srv.url + "/mcp", timeout_s=10))
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"--mcp: the MCP server '{srv.url}/mcp'") or message.startswith(
        "--mcp: could not connect to the MCP server"
    ), message
    assert "did not list its tools" not in message  # it failed at once, not at the timeout
    assert "Traceback" not in capfd.readouterr().err


def test_an_http_reply_over_the_cap_is_refused(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("AGENTGAUGE_MAX_RESPONSE_BYTES", "1M")
    with HostileServer("lying-length") as srv, pytest.raises(UserError) as err:
        list_mcp_tools(McpSource(url=srv.url + "/mcp", timeout_s=10))
    message = str(err.value)
    assert "declares a body of 9.313 GiB, over the limit of 1 MiB" in message, message
    assert "Traceback" not in capfd.readouterr().err


#: answers the handshake, then pages its tools forever with the same cursor
ENDLESS_PAGES = """
import json, sys
def send(o):
    sys.stdout.write(json.dumps(o) + "\\n")
    sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    mid = m.get("id")
    if mid is None:
        continue
    if m["method"] == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "x", "version": "1"}}})
    elif m["method"] == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "tools": [{"name": "t", "inputSchema": {"type": "object"}}], "nextCursor": "same"}})
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no"}})
"""


def test_a_listing_that_never_ends_is_refused(tmp_path: Path) -> None:
    source = _source(tmp_path, ENDLESS_PAGES, timeout_s=30)
    with pytest.raises(UserError) as err:
        list_mcp_tools(source, tmp_path)
    assert "lists its tools without end (cursor 'same' again, after 2 page(s))" in str(err.value)


def test_a_server_leaves_no_process_behind(tmp_path: Path) -> None:
    """A server that starts a helper and exits normally: the helper goes with it."""
    helper = (
        "import subprocess, sys\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        "open('child', 'w').write(str(child.pid))\n"
    )
    source = _source(tmp_path, helper + NOISY, timeout_s=30)
    tools, load = list_mcp_tools(source, tmp_path)
    assert [t.name for t in tools] == ["get_weather"]
    assert load.ok
    pid = int((tmp_path / "child").read_text())
    for _ in range(100):  # the kill is sent; the kernel reaps the orphan on its own time
        if _gone(pid):
            break
        threading.Event().wait(0.05)
    assert _gone(pid)
