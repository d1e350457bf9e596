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
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol

import orjson
import yaml

from ..errors import UserError
from ._limits import INT_RANGE, check_tree, path_to, where_prefix

# re-exported: modules that read input files take these from here as well
from ._limits import PathElem as PathElem
from ._limits import open_input as open_input
from ._limits import read_text as read_text
from ._limits import too_deep as too_deep
from ._limits import too_deep_message as too_deep_message

_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: YAML's own tags that build something other than JSON's plain types (refused); tags
#: unknown to the safe loader (``!!python/...``, ``!custom``) are refused by it as custom tags
_NOT_PLAIN_TAGS: Final = frozenset(
    f"tag:yaml.org,2002:{name}"
    for name in ("binary", "timestamp", "set", "omap", "pairs", "value", "yaml")
)
_YAML_TAG_PREFIX: Final = "tag:yaml.org,2002:"


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

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        tag = node.tag or ""
        if tag in _NOT_PLAIN_TAGS:
            raise _BadValue(
                node,
                f"tag !!{tag[len(_YAML_TAG_PREFIX) :]} is not allowed (suites are plain data: "
                "strings, numbers, true/false, null, lists and mappings)",
            )
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, TypeError, OverflowError, LookupError) as err:
            shown = node.value if isinstance(node, yaml.ScalarNode) else ""
            shown = shown if len(shown) <= 40 else shown[:39] + "…"
            what = tag.removeprefix(_YAML_TAG_PREFIX)
            raise _BadValue(node, f"cannot read {shown!r} as {what}: {err}") from None


class _BadValue(Exception):
    """A value the constructor cannot build (``!!float abc``), with its node."""

    def __init__(self, node: yaml.Node, message: str) -> None:
        super().__init__(message)
        self.node = node
        self.message = message


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
    if len(text) > 30:
        raise ValueError("integer out of range (at most 64 bits; quote it to keep it as text)")
    if text.startswith("0o"):
        value = int(text[2:], 8)
    elif text.startswith("0x"):
        value = int(text[2:], 16)
    else:
        value = int(text, 10)
    if not INT_RANGE[0] <= value <= INT_RANGE[1]:
        raise ValueError("integer out of range (at most 64 bits; quote it to keep it as text)")
    return value


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


def _line_of_offset(err: yaml.YAMLError, text: str) -> int | None:
    """The 1-based line of a reader error (it has a position, not a line)."""
    position = getattr(err, "position", None)
    if not isinstance(position, int):
        return None
    if _BaseLoader is not yaml.SafeLoader:  # libyaml counts bytes of the UTF-8 text
        return text.encode("utf-8", "surrogatepass")[:position].count(b"\n") + 1
    return text.count("\n", 0, position) + 1


def _yaml_problem(display: str, err: yaml.YAMLError, text: str = "") -> str:
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    line = f":{mark.line + 1}" if mark is not None else ""
    if isinstance(err, yaml.reader.ReaderError):
        char = err.character
        code = f"#x{ord(char) if isinstance(char, str) else char:04x}"
        at = _line_of_offset(err, text)
        return f"{display}:{at or 1}: invalid YAML: unacceptable character {code} ({err.reason})"
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
    return f"{display}{line or ':1'}: invalid YAML: {' '.join(message.split())}"


def read_yaml_text(text: str, display: str, path: Path | None = None) -> Document:
    """Parse YAML text into a :class:`Document`; raises :class:`UserError` with the bad line."""
    loader = _CoreLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return Document(path or Path(display), display, None, FixedLocator(1))
        check_tree(node, display)
        try:
            data = loader.construct_document(node)
        except _BadValue as bad:
            line = bad.node.start_mark.line + 1
            where = where_prefix(display, line, path_to(node, bad.node))
            raise UserError(f"{where}{bad.message}") from None
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
    locator = LazyJsonLocator(text)
    deep = too_deep(data, text)
    if deep is not None:
        raise UserError(too_deep_message(display, locator.line(deep[:6]), deep))
    return Document(path or Path(display), display, data, locator)


@dataclass(frozen=True)
class JsonlRecord:
    """One record of a JSONL file with its 1-based line number."""

    line: int
    data: Any


def iter_jsonl(text: str, display: str, problems: list[str]) -> Iterator[JsonlRecord]:
    """The records of a JSONL text; unparsable lines are added to ``problems`` and skipped.

    Blank lines and lines starting with ``//`` or ``#`` are ignored.
    """
    return jsonl_records(enumerate(text.splitlines(), start=1), display, problems.append)


def jsonl_records(
    lines: Iterable[tuple[int, str]], display: str, problem: Callable[[str], object]
) -> Iterator[JsonlRecord]:
    """The records of numbered JSONL lines (``(number, line)``, 1-based); a line that is no
    JSON, or nested too deep, is given to ``problem`` as ``file:line: message`` and skipped.

    Blank lines and lines starting with ``//`` or ``#`` are ignored.
    """
    for number, raw in lines:
        stripped = raw.strip()
        if not stripped or stripped[0] == "#" or stripped.startswith("//"):
            continue
        try:
            data = orjson.loads(stripped)
        except orjson.JSONDecodeError as err:
            msg = getattr(err, "msg", str(err))
            problem(f"{display}:{number}: invalid JSON: {msg}")
            continue
        deep = too_deep(data, stripped)
        if deep is not None:
            problem(too_deep_message(display, number, deep))
            continue
        yield JsonlRecord(number, data)


def read_document(path: Path, display: str, *, referenced_at: str | None = None) -> Document:
    """Read a YAML or JSON file (by extension; anything else is read as YAML)."""
    text = read_text(path, display, referenced_at=referenced_at)
    if path.suffix.lower() == ".json":
        return read_json_text(text, display, path)
    return read_yaml_text(text, display, path)
