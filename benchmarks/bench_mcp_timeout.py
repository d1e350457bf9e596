"""How long a misbehaving MCP server holds agentgauge, against the ``timeout_s`` it was given.

Three servers, each a loopback subprocess or HTTP endpoint that never answers properly:

- ``stdio-hang``: reads its stdin and never replies (and ignores the end of its stdin);
- ``stdio-garbage``: writes lines that are not JSON-RPC;
- ``http-hang``: an HTTP server that accepts the request and never replies.

For each, ``list_mcp_tools`` (what ``agentgauge tools list --mcp`` and a run's ``tools_from``
do) is timed with ``timeout_s`` (default 3 s) until it raises its one-line error; the medians of
``--runs`` runs are printed with the ratio wall / timeout_s.

    python benchmarks/bench_mcp_timeout.py [--timeout 3] [--runs 3]
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

HANG = """
import sys, time, signal
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


def _http_hang() -> tuple[str, threading.Event]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        sock.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            held.append(conn)  # read nothing, answer nothing
        for conn in held:
            conn.close()
        sock.close()

    threading.Thread(target=serve, daemon=True).start()
    return f"http://127.0.0.1:{sock.getsockname()[1]}/mcp", stop


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--timeout", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from agentgauge.errors import UserError
    from agentgauge.io import list_mcp_tools
    from agentgauge.schema import McpSource

    tmp = Path(tempfile.mkdtemp())
    (tmp / "hang.py").write_text(HANG)
    (tmp / "garbage.py").write_text(GARBAGE)
    url, stop = _http_hang()
    sources = {
        "stdio-hang": McpSource(command=[sys.executable, "hang.py"], timeout_s=args.timeout),
        "stdio-garbage": McpSource(command=[sys.executable, "garbage.py"], timeout_s=args.timeout),
        "http-hang": McpSource(url=url, timeout_s=args.timeout),
    }
    for name, source in sources.items():
        walls: list[float] = []
        message = ""
        for _ in range(args.runs):
            t0 = time.perf_counter()
            try:
                list_mcp_tools(source, tmp)
            except UserError as exc:
                message = str(exc)
            walls.append(time.perf_counter() - t0)
        wall = statistics.median(walls)
        print(
            f"{name:14} timeout_s={args.timeout:g}  wall median {wall:.2f}s "
            f"({min(walls):.2f}-{max(walls):.2f}, {args.runs} runs)  "
            f"ratio {wall / args.timeout:.2f}\n    {message}"
        )
    stop.set()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
