"""Helpers of the suite-policy attack tests: a loopback server that records the credentials it
receives, a marker file that shows whether hostile code ran, and the CLI."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from click.testing import CliRunner

from agentgauge.cli import cli

#: a key of the user's environment: it must reach only endpoints the user named
USER_KEY = "sk-user-key-0123456789abcdef"

#: hostile code: leaves a marker file next to itself when imported (it must never be)
EVIL = """
from pathlib import Path
Path(__file__).with_name("PWNED").write_text("suite code ran")
agent = object()
judge = object()
"""


class KeyRecorder:
    """An OpenAI-compatible (and http-agent) server on 127.0.0.1 that records the
    ``Authorization`` header of every request it receives (None when there was none)."""

    def __init__(self) -> None:
        self.auth: list[str | None] = []
        self.paths: list[str] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                recorder.auth.append(self.headers.get("Authorization"))
                recorder.paths.append(self.path)
                if self.path.endswith("/chat/completions"):
                    reply: dict[str, object] = {
                        "id": "x",
                        "object": "chat.completion",
                        "model": "m",
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": "hi"},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    }
                else:  # agentgauge's http agent contract
                    reply = {"text": "hi"}
                body = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def keys(self) -> list[str | None]:
        """The credentials received, in order (None: a request without one)."""
        return list(self.auth)


@contextmanager
def key_recorder() -> Iterator[KeyRecorder]:
    rec = KeyRecorder()
    thread = threading.Thread(target=rec._server.serve_forever, daemon=True)
    thread.start()
    try:
        yield rec
    finally:
        rec._server.shutdown()
        rec._server.server_close()
        thread.join()


def invoke(*args: str, env: dict[str, str | None] | None = None) -> tuple[int, str]:
    """Run the CLI; a traceback (anything but a clean exit) fails the test."""
    result = CliRunner().invoke(cli, list(args), env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def suite_file(folder: Path, header: str, *, cases: int = 1) -> Path:
    """``folder/suite.yaml``: ``header`` (YAML lines) and ``cases`` cases answered by 'hi'."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["name: hostile", header.strip("\n"), "cases:"]
    for i in range(cases):
        lines.append(f"  - {{id: c{i}, input: hi, expect: {{response_contains: [hi]}}}}")
    path = folder / "suite.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path
