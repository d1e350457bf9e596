"""A suite's ``tools_from: {mcp: ...}`` during a run: the policy check, one session per run,
and the tool mode of each case.

The server is started (or connected to) once, before the first case; its tools are listed once
and merged into the suite (a tool the suite defines itself wins), and the session stays open
for the run so ``real`` cases can send their calls to it (``ToolSimulator(real=...)``).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._suite_code import ENV_VAR, FLAG, SuiteCodePolicy
from ..errors import SuiteCodeRefused
from ..schema import Case, JsonValue, McpSource, Suite, ToolMode

if TYPE_CHECKING:
    from ..exchange import McpConnection

__all__ = ["RunTools", "case_tool_mode", "check_mcp_command", "open_run_tools"]


def check_mcp_command(source: McpSource, policy: SuiteCodePolicy) -> None:
    """A suite's MCP ``command`` is a program the suite makes you run: refused without the
    user's opt-in (a URL runs nothing here and needs none)."""
    if source.command is None or policy.allowed:
        return
    raise SuiteCodeRefused(
        f"tools_from.mcp.command '{source.target}': the suite starts this program (an MCP "
        f"server) in {policy.root}; suite code runs only if you allow it: pass {FLAG} "
        f"(or set {ENV_VAR}=1)"
    )


def case_tool_mode(case: Case, suite: Suite, override: ToolMode | None) -> ToolMode:
    """``--tool-mode`` (``override``), else the case's ``tool_mode``, else the suite default."""
    if override is not None:
        return override
    return case.tool_mode or suite.defaults.tool_mode


@dataclass(frozen=True, kw_only=True)
class RunTools:
    """The suite with the served tools merged in, the open session (None without
    ``tools_from``) and how loading went (``run.json`` ``options.tool_source``)."""

    suite: Suite
    connection: McpConnection | None = None
    load: dict[str, JsonValue] | None = None


@contextlib.asynccontextmanager
async def open_run_tools(suite: Suite, policy: SuiteCodePolicy) -> AsyncIterator[RunTools]:
    """Open the suite's tool source for the run (nothing to do without ``tools_from``)."""
    if suite.tools_from is None:
        yield RunTools(suite=suite)
        return
    from ..exchange import merge_tools, open_mcp

    source = suite.tools_from.mcp
    check_mcp_command(source, policy)
    async with open_mcp(source, policy.root) as conn:
        merged = suite.model_copy(update={"tools": merge_tools(suite.tools, conn.tools)})
        yield RunTools(suite=merged, connection=conn, load=conn.load.as_json())
