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

import os
import re
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final, Protocol

import orjson
import yaml

from ..errors import UserError

PathElem = str | int
"""One step of a path into a document: a mapping key or a list index."""

_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# ------------------------------------------------------------------ limits on untrusted input
# (documented in docs/suite-format.md, "Limits on untrusted input")

#: lists and mappings nested in one document (a JSONL line is a document), at most
MAX_DEPTH: Final = 100
#: nodes that YAML aliases may add to a document (beyond those written out), at most
MAX_ALIAS_NODES: Final = 100_000
#: the default of the file-size limit, in MB (the user's ``AGENTGAUGE_MAX_FILE_MB`` overrides)
DEFAULT_MAX_FILE_MB: Final = 256
MAX_FILE_ENV: Final = "AGENTGAUGE_MAX_FILE_MB"
#: YAML's own tags that build something other than JSON's plain types (refused); tags
#: unknown to the safe loader (``!!python/...``, ``!custom``) are refused by it as custom tags
_NOT_PLAIN_TAGS: Final = frozenset(
    f"tag:yaml.org,2002:{name}"
    for name in ("binary", "timestamp", "set", "omap", "pairs", "value", "yaml")
)
_YAML_TAG_PREFIX: Final = "tag:yaml.org,2002:"


def max_file_bytes() -> int:
    """The largest input file read, in bytes (``AGENTGAUGE_MAX_FILE_MB``, default 256 MB)."""
    raw = os.environ.get(MAX_FILE_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_FILE_MB * 1024 * 1024
    try:
        mb = float(raw)
    except ValueError:
        mb = -1.0
    if not mb > 0:
        raise UserError(f"{MAX_FILE_ENV}: expected a number of megabytes above 0, got {raw!r}")
    return int(mb * 1024 * 1024)


def _mb(n: int) -> str:
    return f"{round(n / (1024 * 1024), 3):g} MB"


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


#: integers a suite may hold: what JSON readers take (orjson: 64 bits, signed or unsigned)
_INT_RANGE: Final = (-(2**63), 2**64 - 1)


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
    if not _INT_RANGE[0] <= value <= _INT_RANGE[1]:
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


def shown_path(path: Sequence[PathElem], limit: int = 6) -> str:
    """``cases[0].metadata.x`` for a path (cut after ``limit`` steps: deep paths run long)."""
    from ._yaml_errors import format_path

    return format_path(path[:limit]) + ("…" if len(path) > limit else "")


def _where(display: str, line: int | None, path: Sequence[PathElem]) -> str:
    field_path = shown_path(path)
    return f"{display}:{line or 1}: {field_path}: " if field_path else f"{display}:{line or 1}: "


def too_deep_message(display: str, line: int | None, path: Sequence[PathElem]) -> str:
    return (
        f"{_where(display, line, path)}nested deeper than {MAX_DEPTH} levels of lists and "
        "mappings (the limit on input files)"
    )


_Link = tuple[Any, PathElem] | None
"""A path as a linked list (parent link, step): built per node for nothing, joined on demand."""


def _path(link: _Link) -> tuple[PathElem, ...]:
    steps: list[PathElem] = []
    while link is not None:
        link, step = link
        steps.append(step)
    return tuple(reversed(steps))


def _children(node: yaml.Node) -> Iterator[tuple[PathElem, yaml.Node, yaml.Node]]:
    """(path step, child, node whose line is the step's: the key, or the item) of a node."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            yield (key.value if isinstance(key, yaml.ScalarNode) else "?"), value, key
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            yield i, item, item


def _path_to(root: yaml.Node, target: yaml.Node) -> tuple[PathElem, ...]:
    """The path of the first place ``target`` is found under ``root`` (for a message)."""
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, _Link]] = [(root, None)]
    while stack:
        node, link = stack.pop()
        if node is target:
            return _path(link)
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.extend((child, (link, step)) for step, child, _ in _children(node))
    return ()


def _check_tree(root: yaml.Node, display: str) -> None:
    """Check a composed YAML tree before anything walks it.

    Raises :class:`UserError` for an alias that contains itself, for aliases that expand the
    document by more than :data:`MAX_ALIAS_NODES` nodes, for nesting deeper than
    :data:`MAX_DEPTH`, and for duplicate keys (all of those). Each node is visited once, however
    many aliases point at it.
    """
    if isinstance(root, yaml.ScalarNode):
        return
    scalar = yaml.ScalarNode
    height: dict[int, int] = {}  # lists and mappings nested in a collection, itself included
    size: dict[int, int] = {}  # nodes of a collection once its aliases are expanded
    again: dict[int, tuple[int, yaml.Node]] = {}  # collections reached more than once
    on_path: set[int] = set()
    written = 0
    problems: list[str] = []
    stack: list[tuple[yaml.Node, _Link, bool]] = [(root, None, False)]
    while stack:
        node, link, done = stack.pop()
        nid = id(node)
        values = [v for _, v in node.value] if isinstance(node, yaml.MappingNode) else node.value
        if done:
            on_path.discard(nid)
            deepest = 0
            count = 1
            for child in values:
                if child.__class__ is scalar:
                    count += 1
                    continue
                count += size[id(child)]
                deepest = max(deepest, height[id(child)])
            height[nid] = deepest + 1
            size[nid] = count
            continue
        if nid in height:
            reached = again.get(nid)
            again[nid] = ((reached[0] if reached else 1) + 1, node)
            continue
        on_path.add(nid)
        stack.append((node, link, True))
        written += 1
        seen: set[PathElem] = set()
        for step, child, at in _children(node):
            if child.__class__ is scalar:
                written += 1
            else:
                if id(child) in on_path:
                    raise UserError(
                        f"{_where(display, at.start_mark.line + 1, _path((link, step)))}"
                        "recursive alias: the value contains itself"
                    )
                stack.append((child, (link, step), False))
            if at is not child:  # a mapping key
                if step in seen and step != "<<":
                    where = _where(display, at.start_mark.line + 1, _path((link, step)))
                    problems.append(f"{where}duplicate key '{step}'")
                seen.add(step)
    if problems:
        raise UserError(problems[0], problems=problems)
    extra = size[id(root)] - written
    if extra > MAX_ALIAS_NODES:
        worst = max(again.values(), key=lambda pair: size[id(pair[1])] * (pair[0] - 1))[1]
        where = _where(display, worst.start_mark.line + 1, _path_to(root, worst))
        raise UserError(
            f"{where}aliases expand the document by {extra:,} nodes, more than the limit of "
            f"{MAX_ALIAS_NODES:,} (write the values out, or use fewer aliases)"
        )
    if height[id(root)] > MAX_DEPTH:
        node, steps = root, []
        for _ in range(MAX_DEPTH):
            step, node, _ = max(
                (kid for kid in _children(node) if kid[1].__class__ is not scalar),
                key=lambda kid: height[id(kid[1])],
            )
            steps.append(step)
        raise UserError(too_deep_message(display, node.start_mark.line + 1, steps))


def read_yaml_text(text: str, display: str, path: Path | None = None) -> Document:
    """Parse YAML text into a :class:`Document`; raises :class:`UserError` with the bad line."""
    loader = _CoreLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return Document(path or Path(display), display, None, FixedLocator(1))
        _check_tree(node, display)
        try:
            data = loader.construct_document(node)
        except _BadValue as bad:
            line = bad.node.start_mark.line + 1
            where = _where(display, line, _path_to(node, bad.node))
            raise UserError(f"{where}{bad.message}") from None
    except yaml.YAMLError as err:
        raise UserError(_yaml_problem(display, err, text)) from None
    finally:
        loader.dispose()
    return Document(path or Path(display), display, data, NodeLocator(node))


def out_of_range_int(data: Any) -> tuple[PathElem, ...] | None:
    """The path to the first integer beyond 64 bits (which JSON writers refuse), or None."""
    stack: list[tuple[Any, tuple[PathElem, ...]]] = [(data, ())]
    while stack:
        value, at = stack.pop()
        if isinstance(value, int) and not isinstance(value, bool):
            if not _INT_RANGE[0] <= value <= _INT_RANGE[1]:
                return at
        elif isinstance(value, dict):
            stack.extend((child, (*at, str(key))) for key, child in value.items())
        elif isinstance(value, list):
            stack.extend((child, (*at, i)) for i, child in enumerate(value))
    return None


def too_deep(data: Any, text: str | bytes | None = None) -> tuple[PathElem, ...] | None:
    """The path to the first list or mapping nested deeper than :data:`MAX_DEPTH`, or None.

    ``text`` (the JSON the data came from) makes the common case free: with no more brackets
    than the limit, the data cannot be nested deeper.
    """
    if text is not None:
        if isinstance(text, bytes):
            brackets = text.count(b"[") + text.count(b"{")
        else:
            brackets = text.count("[") + text.count("{")
        if brackets <= MAX_DEPTH:
            return None
    stack: list[tuple[Any, tuple[PathElem, ...]]] = [(data, ())]
    while stack:
        value, at = stack.pop()
        if isinstance(value, dict):
            items: Any = value.items()
        elif isinstance(value, list):
            items = enumerate(value)
        else:
            continue
        if len(at) >= MAX_DEPTH:
            return at
        stack.extend((child, (*at, key)) for key, child in items)
    return None


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
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped[0] == "#" or stripped.startswith("//"):
            continue
        try:
            data = orjson.loads(stripped)
        except orjson.JSONDecodeError as err:
            msg = getattr(err, "msg", str(err))
            problems.append(f"{display}:{number}: invalid JSON: {msg}")
            continue
        deep = too_deep(data, stripped)
        if deep is not None:
            problems.append(too_deep_message(display, number, deep))
            continue
        yield JsonlRecord(number, data)


_BOMS: Final = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)


def decode_utf8(data: bytes, display: str, *, first_line: int = 1) -> str:
    """``data`` as text (a UTF-8 byte-order mark dropped); a :class:`UserError` naming
    ``file:line`` when it is not UTF-8 (a UTF-16/32 byte-order mark is named as such)."""
    if first_line == 1:
        for bom, name in _BOMS:
            if data.startswith(bom):
                raise UserError(
                    f"{display}:1: the file is {name} text (it starts with a {name} byte-order "
                    "mark); save it as UTF-8"
                )
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + first_line
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise UserError(
            f"{display}:{line}: not UTF-8 text, byte 0x{data[err.start]:02x} at column {column} "
            f"({err.reason}); save the file as UTF-8"
        ) from None


@contextmanager
def open_input(
    path: Path, display: str, *, referenced_at: str | None = None
) -> Iterator[IO[bytes]]:
    """An input file opened for reading bytes, after checking it is one that may be read:
    a regular file (never a device, pipe or socket, which could block or never end) within the
    size limit (:func:`max_file_bytes`). Problems are :class:`UserError` as :func:`reading`
    words them."""
    limit = max_file_bytes()
    with reading(display, referenced_at=referenced_at):
        # non-blocking: opening a pipe must not wait for a writer (it is refused below)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        info = os.fstat(fd)
        prefix = f"{referenced_at}: " if referenced_at else f"{display}:1: "
        if stat.S_ISDIR(info.st_mode):
            raise UserError(f"{prefix}is a directory, expected a file: {display}")
        if not stat.S_ISREG(info.st_mode):
            raise UserError(
                f"{prefix}not a regular file: {display} (devices, pipes and sockets are not read)"
            )
        if info.st_size > limit:
            raise UserError(
                f"{prefix}{display if referenced_at else 'the file'} is larger than the "
                f"{_mb(limit)} limit on input files ({_mb(info.st_size)}; set {MAX_FILE_ENV} "
                "to raise it)"
            )
        fh = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with fh:
        yield fh


def read_bytes(path: Path, display: str, *, referenced_at: str | None = None) -> bytes:
    """The bytes of an input file (checked as :func:`open_input` does)."""
    limit = max_file_bytes()
    with open_input(path, display, referenced_at=referenced_at) as fh, reading(display):
        data = fh.read(limit + 1)
    if len(data) > limit:  # grew while being read
        prefix = f"{referenced_at}: " if referenced_at else f"{display}:1: "
        name = display if referenced_at else "the file"
        raise UserError(f"{prefix}{name} is larger than the {_mb(limit)} limit on input files")
    return data


def read_text(path: Path, display: str, *, referenced_at: str | None = None) -> str:
    """The text of ``path``; a missing, unreadable, special or too big file, or one that is
    not UTF-8, is a :class:`UserError`.

    ``referenced_at`` (``"suite.yaml:7: case_files[0]"``) names where the file was referenced.
    """
    return decode_utf8(read_bytes(path, display, referenced_at=referenced_at), display)


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
