"""Tools from a running MCP server (``tools_from: {mcp: ...}``), through the official SDK.

:func:`open_mcp` starts (stdio) or connects to (streamable HTTP) a server, lists its tools once
and keeps the session open for the run: the tool definitions are read once per run (the cache
of a run), and in ``real`` tool mode :meth:`McpConnection.call` sends a call to the server.
:func:`list_mcp_tools` is the one-shot form the ``agentgauge tools`` commands use.

Every failure to start, connect or list is one :class:`~agentgauge.errors.UserError` line
naming the server; the measured load (success, latency, tool count) is a :class:`McpLoad`,
recorded in ``run.json``. The ``mcp`` package is imported only here, and only when used.
"""

from __future__ import annotations

import contextlib
import math
import os
import shlex
import tempfile
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import anyio
import orjson

from ..errors import MissingExtraError, UserError
from ..schema import JsonValue, McpSource, ToolSpec
from ._mcp_stdio import McpWatch, quiet_sdk_logs, stdio_transport

__all__ = [
    "McpCallResult",
    "McpConnection",
    "McpLoad",
    "list_mcp_tools",
    "mcp_source_from_cli",
    "merge_tools",
    "open_mcp",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class McpLoad:
    """How loading the tool module went: recorded in run.json as ``options.tool_source``."""

    target: str
    transport: str
    ok: bool
    latency_ms: float
    tool_count: int
    error: str | None = None

    def as_json(self) -> dict[str, JsonValue]:
        return {
            "kind": "mcp",
            "target": self.target,
            "transport": self.transport,
            "ok": self.ok,
            "latency_ms": round(self.latency_ms, 3),
            "tool_count": self.tool_count,
            "error": self.error,
        }


@dataclass(frozen=True, kw_only=True, slots=True)
class McpCallResult:
    """One real call: the text the agent sees, the value recorded, and the error if any."""

    content: str
    result: JsonValue
    error: str | None


def _sdk() -> Any:
    try:
        import mcp
    except ImportError:
        raise MissingExtraError("mcp", "mcp") from None
    return mcp


def mcp_source_from_cli(value: str) -> McpSource:
    """``--mcp "python server.py"`` (a command line, split like a shell) or ``--mcp URL``."""
    value = value.strip()
    if value.startswith(("http://", "https://")):
        return McpSource(url=value)
    try:
        argv = shlex.split(value)
    except ValueError as exc:
        raise UserError(f"--mcp {value!r}: {exc}") from None
    if not argv:
        raise UserError("--mcp: give a server command line or an http(s):// URL")
    return McpSource(command=argv)


def _tool_spec(tool: Any) -> ToolSpec:
    """An SDK ``Tool`` as our ToolSpec, through the MCP tool-format converter; its calls are
    MCP calls (``type: mcp`` in expectations)."""
    from ..formats import tools_from_data

    data = tool.model_dump(by_alias=True, mode="json", exclude_none=True)
    data.setdefault("inputSchema", {"type": "object", "properties": {}})
    (spec,) = tools_from_data(data)
    return spec.model_copy(update={"mcp": True})


def _text_of(result: Any) -> tuple[str, JsonValue]:
    """What the agent sees of a ``CallToolResult``, and the JSON value recorded for it."""
    structured = getattr(result, "structured_content", None)
    texts = [
        block.text
        for block in result.content
        if getattr(block, "type", None) == "text" and isinstance(block.text, str)
    ]
    if structured is not None:
        value: JsonValue = structured
        if isinstance(structured, dict) and set(structured) == {"result"}:
            value = structured["result"]  # the SDK wraps a plain return value so
        return orjson.dumps(value).decode(), value
    text = "\n".join(texts)
    if not texts:
        kinds = sorted({str(getattr(b, "type", "?")) for b in result.content})
        text = f"[{', '.join(kinds)} content]" if kinds else ""
    try:
        parsed: JsonValue = orjson.loads(text)
    except orjson.JSONDecodeError:
        parsed = text
    return text, parsed


class McpConnection:
    """An open session with one MCP server: its tools (listed once) and real calls."""

    def __init__(
        self,
        source: McpSource,
        client: Any,
        tools: list[ToolSpec],
        load: McpLoad,
        watch: McpWatch | None = None,
    ) -> None:
        self.source = source
        self._client = client
        self.tools = tools
        self.load = load
        self.names = frozenset(t.name for t in tools)
        self._watch = watch or McpWatch()

    async def call(
        self, name: str, arguments: dict[str, JsonValue], timeout_s: float
    ) -> McpCallResult:
        """Send one tool call to the server. A tool error, a protocol error, a line that is not
        JSON-RPC while it runs or a dropped connection is an error result the agent sees,
        never an exception."""
        where = f"MCP server {self.source.target}"
        faults = self._watch.count
        with anyio.CancelScope() as scope:
            stop_listening = self._watch.listen(scope.cancel)
            try:
                with anyio.fail_after(timeout_s):
                    result = await self._client.call_tool(name, dict(arguments))
            except TimeoutError:
                return _error_result(f"tool '{name}' timed out after {timeout_s:g}s ({where})")
            except Exception as exc:
                detail = " ".join(str(exc).split())[:300]
                return _error_result(
                    f"{where}: tool '{name}' failed: {type(exc).__name__}: {detail}"
                )
            finally:
                stop_listening()
        if scope.cancelled_caught or self._watch.count != faults:
            return _error_result(f"{where}: tool '{name}': the server {self._watch.last}")
        text, value = _text_of(result)
        if getattr(result, "is_error", False):
            return _error_result(text or f"tool '{name}' reported an error")
        return McpCallResult(content=text, result=value, error=None)


def _error_result(msg: str) -> McpCallResult:
    return McpCallResult(
        content=orjson.dumps({"error": msg}).decode(), result={"error": msg}, error=msg
    )


def _transport(
    source: McpSource, root: Path, errlog: TextIO | None, watch: McpWatch, stack: Any
) -> Any:
    """What ``mcp.Client`` connects through: our stdio transport for a command, the SDK's
    streamable-HTTP client (its httpx2 client given the reply cap) for a URL."""
    from ..providers import cap_httpx_client, max_response_bytes

    if source.url is not None:
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        http = stack.push_async_callback  # the SDK leaves a client it was given open
        client = cap_httpx_client(create_mcp_http_client())
        http(client.aclose)
        return streamable_http_client(source.url, http_client=client)
    assert source.command is not None
    assert errlog is not None
    return stdio_transport(
        list(source.command),
        env=dict(os.environ) | source.env,
        cwd=root,
        errlog=errlog,
        watch=watch,
        max_line=max_response_bytes(),
    )


def _last_line(errlog: TextIO | None) -> str:
    if errlog is None:
        return ""
    with contextlib.suppress(OSError, ValueError):
        errlog.seek(0)
        lines = [line.strip() for line in errlog.read()[-4000:].splitlines() if line.strip()]
        if lines:
            return f" (server stderr: {lines[-1][:300]})"
    return ""


def _innermost(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _failure(source: McpSource, exc: BaseException, where: str) -> str:
    inner = _innermost(exc)
    detail = str(inner).splitlines()[0] if str(inner) else type(inner).__name__
    how = "start" if source.command is not None else "connect to"
    return (
        f"{where}: could not {how} the MCP server '{source.target}': "
        f"{type(inner).__name__}: {detail}"
    )


def _open_error(
    source: McpSource, where: str, watch: McpWatch, exc: BaseException | None, errlog: TextIO | None
) -> UserError:
    """The one line for a server that could not be started, reached or listed."""
    inner = None if exc is None else _innermost(exc)
    if isinstance(inner, UserError):
        return inner  # our own refusal, raised inside the client's task group
    detail = _last_line(errlog)
    if watch.fault is not None:
        return UserError(f"{where}: the MCP server '{source.target}' {watch.fault}{detail}")
    if exc is None or isinstance(exc, TimeoutError):
        return UserError(
            f"{where}: the MCP server '{source.target}' did not list its tools "
            f"within {source.timeout_s:g}s{detail}"
        )
    return UserError(_failure(source, exc, where) + detail)


#: pages of ``tools/list`` read before the listing is called endless
_MAX_PAGES = 1000


async def _list_tools(client: Any, source: McpSource, where: str) -> list[Any]:
    listed = await client.list_tools()
    raw = list(listed.tools)
    seen: set[str] = set()
    while listed.next_cursor:
        cursor = str(listed.next_cursor)
        if cursor in seen or len(seen) >= _MAX_PAGES:
            raise UserError(
                f"{where}: the MCP server '{source.target}' lists its tools without end "
                f"(cursor {cursor[:40]!r} again, after {len(seen) + 1} page(s))"
                if cursor in seen
                else f"{where}: the MCP server '{source.target}' lists more than "
                f"{_MAX_PAGES} pages of tools"
            )
        seen.add(cursor)
        listed = await client.list_tools(cursor=cursor)
        raw.extend(listed.tools)
    return raw


def _chosen(source: McpSource, raw: list[Any], where: str) -> list[ToolSpec]:
    tools = [_tool_spec(t) for t in raw]
    if not source.tools:
        _check_names(source, tools, range(len(tools)), where)
        return tools
    by_name = {t.name: t for t in tools}
    missing = [n for n in source.tools if n not in by_name]
    if missing:
        raise UserError(
            f"{where}: the MCP server '{source.target}' has no tool "
            f"{', '.join(repr(m) for m in missing)} (it has: {', '.join(sorted(by_name))})"
        )
    index = {t.name: i for i, t in reversed(list(enumerate(tools)))}
    _check_names(source, tools, [index[n] for n in source.tools], where)
    return [by_name[n] for n in source.tools]


def _check_names(
    source: McpSource, tools: Sequence[ToolSpec], chosen: Iterable[int], where: str
) -> None:
    """Refuse a served tool whose name no provider accepts (the rule a tools file's names
    follow, docs/tool-formats.md#tool-names), before any of it is sent to an agent or written:
    only the tools a suite takes (``tools_from.mcp.tools``) are checked, so naming the others
    leaves it out."""
    from ..formats import tool_name_problem

    for i in chosen:
        why = tool_name_problem(tools[i].name)
        if why is not None:
            keep = "" if source.tools else " (name the tools to use in tools_from.mcp.tools)"
            raise UserError(
                f"{where}: the MCP server '{source.target}': tools/list: tools[{i}].name: "
                f"{why}{keep}"
            )


@contextlib.asynccontextmanager
async def open_mcp(
    source: McpSource, root: Path | str = ".", *, where: str = "tools_from.mcp"
) -> AsyncIterator[McpConnection]:
    """Start or connect to the server, list its tools, and keep the session open.

    ``root`` is the folder a ``command`` runs in (the suite's). This does not check the suite
    code policy: the caller does (a suite's ``command`` needs the user's opt-in). Raises a
    one-line UserError when the server cannot be started, reached or listed in
    ``source.timeout_s`` (one deadline for the start, the handshake and the listing), writes
    something that is not JSON-RPC, or lacks a tool ``source.tools`` names; ``where`` starts it.
    """
    mcp = _sdk()
    t0 = time.perf_counter()
    watch = McpWatch()
    opened = False
    failure: BaseException | None = None
    async with contextlib.AsyncExitStack() as resources:
        resources.enter_context(quiet_sdk_logs(watch))
        errlog: TextIO | None = None
        if source.command is not None:
            errlog = resources.enter_context(tempfile.TemporaryFile("w+", encoding="utf-8"))  # noqa: SIM115
        server = _transport(source, Path(root), errlog, watch, resources)
        with anyio.CancelScope(deadline=anyio.current_time() + source.timeout_s) as scope:
            stop_listening = watch.listen(scope.cancel)  # a fault ends the opening at once
            try:
                async with mcp.Client(
                    server, read_timeout_seconds=source.timeout_s, message_handler=watch.on_message
                ) as client:
                    tools = _chosen(source, await _list_tools(client, source, where), where)
                    stop_listening()
                    scope.deadline = math.inf  # the session lives on for the run
                    load = McpLoad(
                        target=source.target,
                        transport="stdio" if source.command is not None else "streamable-http",
                        ok=True,
                        latency_ms=(time.perf_counter() - t0) * 1000.0,
                        tool_count=len(tools),
                    )
                    opened = True
                    yield McpConnection(source, client, tools, load, watch)
            except (MissingExtraError, UserError):
                raise
            except Exception as exc:
                if opened:
                    raise
                failure = exc
            finally:
                stop_listening()
        if not opened:
            raise _open_error(source, where, watch, failure, errlog)


def list_mcp_tools(
    source: McpSource, root: Path | str = ".", *, where: str = "--mcp"
) -> tuple[list[ToolSpec], McpLoad]:
    """Start or connect to the server, list its tools and disconnect (blocking)."""

    async def main() -> tuple[list[ToolSpec], McpLoad]:
        async with open_mcp(source, root, where=where) as conn:
            return conn.tools, conn.load

    return anyio.run(main)


def merge_tools(own: Sequence[ToolSpec], served: Sequence[ToolSpec]) -> list[ToolSpec]:
    """The suite's tools, then the served ones it does not define itself (a tool the suite
    defines by the same name wins: its description, schema and simulation)."""
    names = {t.name for t in own}
    return [*own, *(t for t in served if t.name not in names)]
