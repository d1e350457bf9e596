"""Reading YAML, JSON and JSONL documents while remembering where every value came from.

YAML is read with a safe loader (no custom tags, no Python objects) whose implicit types follow
YAML 1.2's core schema rather than PyYAML's YAML 1.1 defaults, so that test data means what it
says: ``10:30`` stays the string ``"10:30"`` (YAML 1.1 reads it as the integer 630),
``2026-03-20`` stays a string (not a ``date``), ``no`` / ``on`` stay strings (only ``true`` and
``false`` are booleans) and ``0123`` is the integer 123 (not octal 83).

Each reader returns the data plus a :class:`Locator` that maps a path into the data
(``("cases", 2, "expect")``) to a 1-based line number. Locators are cheap until asked: JSON
documents are only re-read for positions when a line is actually needed (an error or a lint
finding), and JSONL records know the line they came from.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol

import orjson
import yaml

from ..errors import UserError

PathElem = str | int
"""One step of a path into a document: a mapping key or a list index."""

_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


#: first characters of plain scalars that may resolve to something other than a string
_MAYBE_TYPED: Final = frozenset("-+.0123456789~nNtTfF")
_STR_TAG: Final = "tag:yaml.org,2002:str"
_SEQ_TAG: Final = "tag:yaml.org,2002:seq"
_MAP_TAG: Final = "tag:yaml.org,2002:map"


class _CoreLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """A safe loader with YAML 1.2 core-schema implicit types."""

    def resolve(self, kind: type[yaml.Node], value: Any, implicit: tuple[bool, bool]) -> str:
        # fast path for the common cases (PyYAML's resolver tries every regex for each scalar)
        if kind is yaml.ScalarNode:
            if implicit[0]:
                if value and value[0] not in _MAYBE_TYPED:
                    return _STR_TAG
                return str(super().resolve(kind, value, implicit))
            return _STR_TAG
        return _SEQ_TAG if kind is yaml.SequenceNode else _MAP_TAG


_CoreLoader.yaml_implicit_resolvers = {}
_CoreLoader.add_implicit_resolver(
    "tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""]
)
_CoreLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool",
    re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"),
)
_CoreLoader.add_implicit_resolver(
    "tag:yaml.org,2002:int",
    re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
    list("-+0123456789"),
)
_CoreLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+.0123456789"),
)


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = str(loader.construct_scalar(node))
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)


_CoreLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)


class Locator(Protocol):
    """Maps a path into a document to the 1-based line it starts on."""

    def line(self, path: Sequence[PathElem]) -> int | None: ...


@dataclass(frozen=True)
class FixedLocator:
    """Every path is on one line (a JSONL record, or a document without positions)."""

    at: int | None

    def line(self, path: Sequence[PathElem]) -> int | None:
        return self.at


@dataclass(frozen=True)
class NodeLocator:
    """Positions from a composed YAML node tree.

    For a path ending in a mapping key the key's line is returned; for a list item the item's
    line; for a path that does not exist (a missing field) the line of the deepest mapping or
    list that does.
    """

    root: yaml.Node
    #: added to every line (a sub-document that starts further down a file)
    offset: int = 0

    def line(self, path: Sequence[PathElem]) -> int | None:
        node = self.root
        at = node.start_mark.line
        for elem in path:
            found = _child(node, elem)
            if found is None:
                break
            at, node = found
        return at + 1 + self.offset

    def sub(self, path: Sequence[PathElem]) -> NodeLocator:
        """The locator of the value at ``path`` (so paths inside it are relative to it)."""
        node = self.root
        for elem in path:
            found = _child(node, elem)
            if found is None:
                break
            node = found[1]
        return NodeLocator(node, self.offset)


def _child(node: yaml.Node, elem: PathElem) -> tuple[int, yaml.Node] | None:
    """(line of the step, child node) for one step of a path, or None when there is none."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and _key_matches(key.value, elem):
                return key.start_mark.line, value
        return None
    if (
        isinstance(node, yaml.SequenceNode)
        and isinstance(elem, int)
        and 0 <= elem < len(node.value)
    ):
        item = node.value[elem]
        return item.start_mark.line, item
    return None


def _key_matches(text: str, elem: PathElem) -> bool:
    return text == elem if isinstance(elem, str) else text == str(elem)


@dataclass
class LazyJsonLocator:
    """Positions for a JSON document, found by re-reading it as YAML only when first asked."""

    text: str
    _inner: NodeLocator | FixedLocator | None = field(default=None, repr=False)

    def line(self, path: Sequence[PathElem]) -> int | None:
        if self._inner is None:
            try:
                node = yaml.compose(self.text, Loader=_CoreLoader)
            except yaml.YAMLError:
                node = None
            self._inner = NodeLocator(node) if node is not None else FixedLocator(None)
        return self._inner.line(path)


@dataclass(frozen=True)
class Document:
    """One parsed file: its data and where each part of it came from."""

    path: Path
    #: the file name as shown in messages (as the user wrote it, or relative to the suite)
    display: str
    data: Any
    locator: Locator


def _yaml_problem(display: str, err: yaml.YAMLError, text: str = "") -> str:
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    line = f":{mark.line + 1}" if mark is not None else ""
    problem = getattr(err, "problem", None) or str(err)
    context = getattr(err, "context", None)
    if problem and "could not determine a constructor for the tag" in problem:
        problem = (
            problem.replace("could not determine a constructor for the tag", "custom tag")
            + " is not allowed (suites are plain data)"
        )
    message = f"{problem} ({context})" if context and "tag" not in problem else str(problem)
    if mark is not None and text:
        lines = text.splitlines()
        if 0 <= mark.line < len(lines):
            source = lines[mark.line]
            if "\t" in source[: len(source) - len(source.lstrip())]:
                message += "; the line is indented with a tab (YAML indents with spaces only)"
    return f"{display}{line}: invalid YAML: {' '.join(message.split())}"


def _check_duplicate_keys(node: yaml.Node, display: str, problems: list[str]) -> None:
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, yaml.MappingNode):
            seen: set[str] = set()
            for key, value in current.value:
                if isinstance(key, yaml.ScalarNode) and key.value != "<<":
                    if key.value in seen:
                        problems.append(
                            f"{display}:{key.start_mark.line + 1}: duplicate key '{key.value}'"
                        )
                    seen.add(key.value)
                stack.append(value)
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)


def read_yaml_text(text: str, display: str, path: Path | None = None) -> Document:
    """Parse YAML text into a :class:`Document`; raises :class:`UserError` with the bad line."""
    loader = _CoreLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return Document(path or Path(display), display, None, FixedLocator(1))
        problems: list[str] = []
        _check_duplicate_keys(node, display, problems)
        if problems:
            raise UserError(problems[0], problems=problems)
        data = loader.construct_document(node)
    except yaml.YAMLError as err:
        raise UserError(_yaml_problem(display, err, text)) from None
    finally:
        loader.dispose()
    return Document(path or Path(display), display, data, NodeLocator(node))


def _json_problem(display: str, err: orjson.JSONDecodeError, line_offset: int = 0) -> str:
    lineno = getattr(err, "lineno", 1) + line_offset
    msg = getattr(err, "msg", str(err))
    return f"{display}:{lineno}: invalid JSON: {msg}"


def read_json_text(text: str, display: str, path: Path | None = None) -> Document:
    """Parse JSON text into a :class:`Document` (positions found lazily)."""
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError as err:
        raise UserError(_json_problem(display, err)) from None
    return Document(path or Path(display), display, data, LazyJsonLocator(text))


@dataclass(frozen=True)
class JsonlRecord:
    """One record of a JSONL file with its 1-based line number."""

    line: int
    data: Any


def iter_jsonl(text: str, display: str, problems: list[str]) -> Iterator[JsonlRecord]:
    """The records of a JSONL text; unparsable lines are added to ``problems`` and skipped.

    Blank lines and lines starting with ``//`` or ``#`` are ignored.
    """
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped[0] == "#" or stripped.startswith("//"):
            continue
        try:
            yield JsonlRecord(number, orjson.loads(stripped))
        except orjson.JSONDecodeError as err:
            msg = getattr(err, "msg", str(err))
            problems.append(f"{display}:{number}: invalid JSON: {msg}")


def read_text(path: Path, display: str, *, referenced_at: str | None = None) -> str:
    """The text of ``path``; a missing or unreadable file is a :class:`UserError`.

    ``referenced_at`` (``"suite.yaml:7: case_files[0]"``) names where the file was referenced.
    """
    with reading(display, referenced_at=referenced_at):
        return path.read_text(encoding="utf-8-sig")


@contextmanager
def reading(display: str, *, referenced_at: str | None = None) -> Iterator[None]:
    """Turn the errors of reading the file ``display`` into :class:`UserError` (as
    :func:`read_text` words them), for code that reads a file piece by piece."""
    prefix = f"{referenced_at}: " if referenced_at else f"{display}: "
    try:
        yield
    except FileNotFoundError:
        raise UserError(f"{prefix}no such file: {display}") from None
    except IsADirectoryError:
        raise UserError(f"{prefix}is a directory, expected a file: {display}") from None
    except UnicodeDecodeError as err:
        raise UserError(f"{prefix}not UTF-8 text: {display} ({err.reason})") from None
    except OSError as err:
        raise UserError(f"{prefix}cannot read {display}: {err.strerror or err}") from None


def read_document(path: Path, display: str, *, referenced_at: str | None = None) -> Document:
    """Read a YAML or JSON file (by extension; anything else is read as YAML)."""
    text = read_text(path, display, referenced_at=referenced_at)
    if path.suffix.lower() == ".json":
        return read_json_text(text, display, path)
    return read_yaml_text(text, display, path)
