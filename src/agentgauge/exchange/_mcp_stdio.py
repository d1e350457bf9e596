"""The stdio transport of an MCP server we start, and the watch over a misbehaving one.

The SDK's own stdio client logs a traceback for every line a server writes that is not
JSON-RPC and, when it stops a server, waits up to about 4.5 s (a flush window, a grace period
after stdin closes, SIGTERM, SIGKILL) whatever deadline the caller had. This transport reads
the server's stdout itself: a line that is not JSON-RPC (or longer than the reply cap) is a
*fault* reported to the :class:`McpWatch` (never logged), and a server left because of a fault,
a timeout or a cancellation is killed at once (its whole process group); one that ends
normally gets :data:`GRACE_S` to exit after its stdin closes; what a server started and left
behind in its process group is killed in both cases.

:class:`McpWatch` also catches what the SDK logs (``mcp.*`` loggers) while a session is open:
records of level ERROR and above are faults (a streamable-HTTP reply that is not JSON, a body
over the cap), everything else is dropped, and nothing reaches the console.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, TextIO

import anyio

__all__ = ["GRACE_S", "McpWatch", "quiet_sdk_logs", "stdio_transport"]

#: seconds a server that ends normally has to exit after its stdin closes
GRACE_S = 2.0


class McpWatch:
    """The faults a server showed (the first, the last) and who to tell when one happens."""

    def __init__(self) -> None:
        self.fault: str | None = None
        self.last: str | None = None
        #: faults seen so far (a call compares it before and after)
        self.count = 0
        self._listeners: list[Callable[[], object]] = []

    def report(self, fault: str) -> None:
        self.count += 1
        self.last = " ".join(fault.split())[:300]
        if self.fault is None:
            self.fault = self.last
        for listener in list(self._listeners):
            listener()

    def listen(self, callback: Callable[[], object]) -> Callable[[], None]:
        """Call ``callback`` on each fault from now on; returns the function that stops it."""
        self._listeners.append(callback)

        def stop() -> None:
            if callback in self._listeners:
                self._listeners.remove(callback)

        return stop

    async def on_message(self, message: Any) -> None:
        """The session's ``message_handler``: a transport error is a fault, the rest is not."""
        if isinstance(message, Exception):
            lines = str(message).strip().splitlines()
            detail = f": {lines[0]}" if lines else ""
            self.report(f"sent something that could not be read ({type(message).__name__}{detail})")


class _LogCatcher(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.watches: list[McpWatch] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno < logging.ERROR:
            return
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None:
            lines = str(exc).strip().splitlines()
            text = f"failed ({type(exc).__name__}" + (f": {lines[0]}" if lines else "") + ")"
        else:
            text = f"failed ({record.getMessage()})"
        for watch in list(self.watches):
            watch.report(text)


_catcher = _LogCatcher()


@contextlib.contextmanager
def quiet_sdk_logs(watch: McpWatch) -> Any:
    """While the block runs, the SDK's log records go to ``watch`` instead of the console."""
    logger = logging.getLogger("mcp")
    if not _catcher.watches:
        logger.addHandler(_catcher)
        logger.propagate = False
    _catcher.watches.append(watch)
    try:
        yield
    finally:
        _catcher.watches.remove(watch)
        if not _catcher.watches:
            logger.removeHandler(_catcher)
            logger.propagate = True


async def _pump_stdout(process: Any, send: Any, watch: McpWatch, max_line: int) -> None:
    import mcp_types
    from mcp.shared.message import SessionMessage

    buffer = b""
    async for chunk in process.stdout:
        lines = (buffer + chunk).split(b"\n")
        buffer = lines.pop()
        if len(buffer) > max_line:
            watch.report(f"wrote a line longer than {max_line} bytes")
            return
        for line in lines:
            if not line.strip():
                continue
            try:
                message = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except ValueError:
                text = line[:120].decode("utf-8", "replace")
                watch.report(f"wrote a line that is not JSON-RPC: {text!r}")
                continue
            await send.send(SessionMessage(message))


async def _pump_stdin(process: Any, receive: Any) -> None:
    async for session_message in receive:
        data = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
        await process.stdin.send(data.encode() + b"\n")


def _kill_group(process: Any) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, OSError):
        process.kill()


async def _exited(process: Any, timeout: float) -> bool:
    """Whether the process exits within ``timeout`` (its return code, not ``wait()``, which
    also waits for its pipes: a child it left holding them would make it look hung)."""
    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(0.02)
    return process.returncode is not None


async def _stop(process: Any, graceful: bool) -> None:
    """Close stdin; give a server that ended normally GRACE_S to exit; then kill its process
    group: the server if it is still there, and whatever it started and left behind."""
    with contextlib.suppress(Exception):
        await process.stdin.aclose()
    if graceful:
        await _exited(process, GRACE_S)
    _kill_group(process)
    await _exited(process, GRACE_S)
    # its pipes and transport, before the event loop that owns them closes
    with anyio.move_on_after(GRACE_S), contextlib.suppress(Exception):
        await process.aclose()


@contextlib.asynccontextmanager
async def stdio_transport(
    argv: list[str],
    *,
    env: dict[str, str],
    cwd: Path,
    errlog: TextIO,
    watch: McpWatch,
    max_line: int,
) -> AsyncIterator[tuple[Any, Any]]:
    """Start ``argv`` and yield the (read, write) streams the MCP client session uses."""
    process = await anyio.open_process(
        argv, env=env, cwd=str(cwd), stderr=errlog, start_new_session=True
    )
    read_send, read_receive = anyio.create_memory_object_stream[Any](0)
    # buffered: the session's last courtesy write (a cancel) must not wait for a writer
    # task that a timeout already cancelled
    write_send, write_receive = anyio.create_memory_object_stream[Any](64)
    graceful = False
    try:
        async with anyio.create_task_group() as tg:

            async def reader() -> None:
                with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                    async with read_send:
                        await _pump_stdout(process, read_send, watch, max_line)

            async def writer() -> None:
                with contextlib.suppress(
                    anyio.ClosedResourceError, anyio.BrokenResourceError, OSError
                ):
                    async with write_receive:
                        await _pump_stdin(process, write_receive)

            tg.start_soon(reader)
            tg.start_soon(writer)
            try:
                yield read_receive, write_send
                graceful = watch.fault is None
            finally:
                with anyio.CancelScope(shield=True):
                    await _stop(process, graceful)
                tg.cancel_scope.cancel()
    finally:
        for stream in (read_send, read_receive, write_send, write_receive):
            stream.close()
