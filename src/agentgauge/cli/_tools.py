"""``agentgauge tools``: convert tool definitions between vendor formats."""

from __future__ import annotations

import json
from pathlib import Path

import click

from .._messages import printable
from ..errors import UserError
from ..formats import TOOL_FORMATS, read_tools_file, tools_to_format
from ..schema import ToolSpec


@click.group("tools")
def command() -> None:
    """Work with tool definitions (OpenAI, Anthropic, Gemini, MCP, agentgauge)."""


_MCP_HELP = (
    "Read the tools of a running MCP server instead of FILE: a command line started over stdio "
    '("python server.py"; you run it, as you would yourself) or a streamable-HTTP URL.'
)


def _read_tools(file: Path | None, mcp: str | None) -> list[ToolSpec]:
    """The tools of FILE, or of the MCP server ``--mcp`` names (exactly one of them)."""
    if (file is None) == (mcp is None):
        raise UserError("give a tool FILE or --mcp SERVER (one of them)")
    if file is not None:
        return read_tools_file(file)
    from ..exchange import list_mcp_tools, mcp_source_from_cli

    assert mcp is not None
    tools, load = list_mcp_tools(mcp_source_from_cli(mcp), Path.cwd())
    click.echo(
        f"MCP server {load.target}: {load.tool_count} tool(s) over {load.transport} "
        f"in {load.latency_ms:.0f} ms",
        err=True,
    )
    return tools


@command.command("convert")
@click.argument("file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--mcp", default=None, metavar="SERVER", help=_MCP_HELP)
@click.option(
    "--to",
    "fmt",
    type=click.Choice(TOOL_FORMATS),
    required=True,
    help="Target format.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write here (.yaml/.yml writes YAML, anything else JSON); default: stdout.",
)
@click.option(
    "--strict/--no-strict",
    default=None,
    help="Set OpenAI's 'strict' flag on each function (openai, openai-responses).",
)
def convert(
    file: Path | None, mcp: str | None, fmt: str, output: Path | None, strict: bool | None
) -> None:
    """Convert the tool definitions in FILE (any known format is detected), or those an MCP
    server lists (--mcp), to another format: e.g. a suite's tool file."""
    tools = _read_tools(file, mcp)
    data = tools_to_format(tools, fmt, strict=strict)
    if output is not None and output.suffix.lower() in (".yaml", ".yml"):
        import yaml

        text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    else:
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if output is None:
        click.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")
        click.echo(f"wrote {len(tools)} tool(s) as {fmt} to {output}", err=True)


def _signature(properties: dict[str, object], required: list[str]) -> str:
    parts = []
    for name, schema in properties.items():
        kind = schema.get("type", "any") if isinstance(schema, dict) else "any"
        if isinstance(kind, list):
            kind = "|".join(str(k) for k in kind)
        parts.append(f"{name}: {kind}" + ("" if name in required else "?"))
    return ", ".join(parts)


@command.command("list")
@click.argument("file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--mcp", default=None, metavar="SERVER", help=_MCP_HELP)
def list_tools(file: Path | None, mcp: str | None) -> None:
    """List the tools in FILE (any known format), or those of an MCP server (--mcp):
    name(arguments) and description.

    Optional arguments are marked with '?'.
    """
    tools = _read_tools(file, mcp)
    for tool in tools:
        description = tool.description.strip().splitlines()[0] if tool.description.strip() else ""
        click.echo(printable(f"{tool.name}({_signature(tool.properties(), tool.required())})"))
        if description:
            click.echo(printable(f"    {description}"))
    click.echo(f"{len(tools)} tool(s)", err=True)
