"""``agentgauge tools``: convert tool definitions between vendor formats."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..io._convert import TOOL_FORMATS, read_tools_file, tools_to_format


@click.group("tools")
def command() -> None:
    """Work with tool definitions (OpenAI, Anthropic, Gemini, MCP, agentgauge)."""


@command.command("convert")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
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
def convert(file: Path, fmt: str, output: Path | None, strict: bool | None) -> None:
    """Convert the tool definitions in FILE (any known format is detected) to another format."""
    tools = read_tools_file(file)
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
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
def list_tools(file: Path) -> None:
    """List the tools in FILE (any known format): name(arguments) and description.

    Optional arguments are marked with '?'.
    """
    tools = read_tools_file(file)
    for tool in tools:
        description = tool.description.strip().splitlines()[0] if tool.description.strip() else ""
        click.echo(f"{tool.name}({_signature(tool.properties(), tool.required())})")
        if description:
            click.echo(f"    {description}")
    click.echo(f"{len(tools)} tool(s)", err=True)
