"""What ``agentgauge generate`` reads: a suite (file or folder) or a file of tool definitions
(OpenAI, Anthropic, Gemini, MCP, ... as ``agentgauge tools`` reads them). Both are untrusted
input, read through the bounded readers of ``agentgauge.files``; nothing in them runs."""

from __future__ import annotations

from pathlib import Path

from ..errors import UserError
from ..files import read_document
from ..formats import read_tools_file
from ..schema import Suite
from ..suites import find_suite_file, load_suite

__all__ = ["read_source"]

_SUITE_KEYS = frozenset({"cases", "case_files", "defaults", "world", "tool_files"})


def _is_suite(path: Path) -> bool:
    if path.is_dir() or path.suffix.lower() == ".jsonl":
        return True
    data = read_document(path, str(path)).data
    if not isinstance(data, dict):
        return False
    return bool(_SUITE_KEYS & set(data)) or ("tools" in data and "name" in data
                                             and "model" not in data)  # fmt: skip


def read_source(path: Path) -> tuple[Suite, Path | None]:
    """The suite at ``path`` (a tools file: a suite of those tools and no cases) and the folder
    its own files (a world class, fakes) are in."""
    if not path.exists() and not path.is_symlink():
        raise UserError(f"{path}: no such file or folder")
    if _is_suite(path):
        file = find_suite_file(path)
        suite = load_suite(path)
        return suite, file.parent if file is not None else None
    tools = read_tools_file(path)
    return Suite(name=path.stem.replace(" ", "-") or "tools", tools=tools), path.parent
