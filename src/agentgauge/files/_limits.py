"""Limits on untrusted input: which files are read, how big, how deep, how many aliases.

A suite, a case file, a tool file, a responses file or a BFCL file may come from someone else;
reading one must not hang, crash or read without end. Everything here refuses with a
:class:`~agentgauge.errors.UserError` naming ``file:line`` (and the field where there is one).
The limits are documented in docs/suite-format.md ("Limits on untrusted input").
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Final

import orjson
import yaml

from .._messages import format_path
from ..errors import UserError

PathElem = str | int
"""One step of a path into a document: a mapping key or a list index."""

# ------------------------------------------------------------------ limits on untrusted input
# (documented in docs/suite-format.md, "Limits on untrusted input")

#: lists and mappings nested in one document (a JSONL line is a document), at most
MAX_DEPTH: Final = 100
#: nodes that YAML aliases may add to a document (beyond those written out), at most
MAX_ALIAS_NODES: Final = 100_000
#: the default of the file-size limit, in MB (the user's ``AGENTGAUGE_MAX_FILE_MB`` overrides)
DEFAULT_MAX_FILE_MB: Final = 256
MAX_FILE_ENV: Final = "AGENTGAUGE_MAX_FILE_MB"


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


#: integers a suite may hold: what JSON readers take (orjson: 64 bits, signed or unsigned)
INT_RANGE: Final = (-(2**63), 2**64 - 1)


def shown_path(path: Sequence[PathElem], limit: int = 6) -> str:
    """``cases[0].metadata.x`` for a path (cut after ``limit`` steps: deep paths run long)."""
    return format_path(path[:limit]) + ("…" if len(path) > limit else "")


def where_prefix(display: str, line: int | None, path: Sequence[PathElem]) -> str:
    field_path = shown_path(path)
    return f"{display}:{line or 1}: {field_path}: " if field_path else f"{display}:{line or 1}: "


def too_deep_message(display: str, line: int | None, path: Sequence[PathElem]) -> str:
    return (
        f"{where_prefix(display, line, path)}nested deeper than {MAX_DEPTH} levels of lists and "
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


def path_to(root: yaml.Node, target: yaml.Node) -> tuple[PathElem, ...]:
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


def check_tree(root: yaml.Node, display: str) -> None:
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
                        f"{where_prefix(display, at.start_mark.line + 1, _path((link, step)))}"
                        "recursive alias: the value contains itself"
                    )
                stack.append((child, (link, step), False))
            if at is not child:  # a mapping key
                if step in seen and step != "<<":
                    where = where_prefix(display, at.start_mark.line + 1, _path((link, step)))
                    problems.append(f"{where}duplicate key '{step}'")
                seen.add(step)
    if problems:
        raise UserError(problems[0], problems=problems)
    extra = size[id(root)] - written
    if extra > MAX_ALIAS_NODES:
        worst = max(again.values(), key=lambda pair: size[id(pair[1])] * (pair[0] - 1))[1]
        where = where_prefix(display, worst.start_mark.line + 1, path_to(root, worst))
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


def out_of_range_int(data: Any) -> tuple[PathElem, ...] | None:
    """The path to the first integer beyond 64 bits (which JSON writers refuse), or None."""
    stack: list[tuple[Any, tuple[PathElem, ...]]] = [(data, ())]
    while stack:
        value, at = stack.pop()
        if isinstance(value, int) and not isinstance(value, bool):
            if not INT_RANGE[0] <= value <= INT_RANGE[1]:
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
    path: Path, display: str, *, referenced_at: str | None = None, whole: bool = True
) -> Iterator[IO[bytes]]:
    """An input file opened for reading bytes, after checking it is one that may be read:
    a regular file (never a device, pipe or socket, which could block or never end) within the
    size limit (:func:`max_file_bytes`; ``whole=False``: a file read line by line, whose lines
    :func:`iter_lines` caps instead). Problems are :class:`UserError` as :func:`reading`
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
        if whole and info.st_size > limit:
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


def read_plain_text(path: Path, display: str, *, referenced_at: str | None = None) -> str:
    """Like :func:`read_text`, for a file of plain text (a system prompt, a prompt template):
    a NUL byte, which no text file holds, is refused with its line."""
    data = read_bytes(path, display, referenced_at=referenced_at)
    at = data.find(b"\x00")
    if at >= 0:
        line = data.count(b"\n", 0, at) + 1
        column = at - (data.rfind(b"\n", 0, at) + 1) + 1
        raise UserError(
            f"{display}:{line}: a NUL byte at column {column}: not a text file (save it as UTF-8 "
            "text)"
        )
    return decode_utf8(data, display)


def iter_lines(path: Path, display: str) -> Iterator[tuple[int, bytes]]:
    """``(line number, line)`` of a file read line by line, each line with its line end.

    For files that may rightly be larger than the file-size limit (a run's ``results.jsonl``, a
    shard's): the file is checked as :func:`open_input` checks it but its size is not; each
    *line* must be within :func:`max_file_bytes`, so a file without line ends (a sparse or
    endless one) is refused once the limit is read, never held whole.
    """
    limit = max_file_bytes()
    with open_input(path, display, whole=False) as fh, reading(display):
        number = 0
        while True:
            raw = fh.readline(limit + 1)
            if not raw:
                return
            number += 1
            if len(raw) > limit:
                raise UserError(
                    f"{display}:{number}: the line is longer than the {_mb(limit)} limit on "
                    f"input files (a line of a file read line by line; set {MAX_FILE_ENV} to "
                    "raise it)"
                )
            yield number, raw


def parse_json(raw: bytes | str, display: str, line: int = 1, *, what: str | None = None) -> Any:
    """One JSON document (a whole file, or the JSONL line ``line``): invalid JSON (bad UTF-8,
    NUL bytes included) or nesting deeper than :data:`MAX_DEPTH` is a :class:`UserError`
    naming ``file:line`` (and ``what`` the line should have been: ``"result line"``)."""
    tail = f" (not a valid {what})" if what else ""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as err:
        msg = str(getattr(err, "msg", err))
        if "depth limit" in msg or "recursion" in msg:
            raise UserError(too_deep_message(display, line, ()) + tail) from None
        at = line + max(int(getattr(err, "lineno", 1)), 1) - 1
        raise UserError(f"{display}:{at}: invalid JSON: {' '.join(msg.split())}{tail}") from None
    deep = too_deep(data, raw)
    if deep is not None:
        raise UserError(too_deep_message(display, line, deep) + tail)
    return data


def check_database(path: Path, display: str) -> None:
    """A database file (SQLite) about to be opened must be absent (it is then made) or a
    regular file: a device, FIFO or socket could block the open or feed it without end.

    Its size is not limited (a history or cache grows by design); SQLite refuses a file that
    is not a database itself.
    """
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return
    except OSError as err:
        raise UserError(f"{display}:1: cannot read {display}: {err.strerror or err}") from None
    if stat.S_ISDIR(info.st_mode):
        raise UserError(f"{display}:1: is a directory, expected a database file: {display}")
    if not stat.S_ISREG(info.st_mode):
        raise UserError(
            f"{display}:1: not a regular file: {display} (devices, pipes and sockets are not read)"
        )


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
