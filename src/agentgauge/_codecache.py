"""A bytecode cache for the source Python compiles while classes are built (issue 26, start-up).

``dataclasses`` writes each generated method (``__init__``, ``__repr__``, ``__eq__``, a frozen
class's ``__setattr__`` ...) as Python source and ``exec``s it, and ``typing.ForwardRef``
``compile``s every annotation written as a string (``from __future__ import annotations``,
which pydantic then resolves). A one-case ``agentgauge run`` builds ~150 dataclasses (pydantic's,
anyio's, annotated_types', agentgauge's) and ~1,500 forward references: parsing and compiling
that source was a quarter of the whole process's instructions, the same text every time (and
``collections.namedtuple`` ``eval``s each tuple's ``__new__``). Regular expressions too: ``re``
parses and compiles each pattern in Python (~100 at import: YAML's reader and resolver, the
behaviour heuristics' phrase lists, the secret patterns ...), about a quarter of the Python a
one-case run executes, the same every time; only the last step, ``_sre.compile`` of the
compiled program, is C.

:func:`install` (the command line's ``main`` and a ``--workers`` process, never a library
import) gives those modules an ``exec`` / ``compile`` / ``eval`` that keeps each code object,
keyed by its exact source text and mode, in one file beside agentgauge's own bytecode
(``importlib.util.cache_from_source``: the package's ``__pycache__``, or
``PYTHONPYCACHEPREFIX``); :func:`save` writes what was new at exit. The code
object of a text is what ``compile`` makes of it (same file name, mode, no inherited
``__future__`` flags, the interpreter's optimisation level is part of the file's header), so a
class is built exactly as before, only faster. The file is trusted as the ``.pyc`` files beside
it are: written like them (never with ``PYTHONDONTWRITEBYTECODE``), read only if it is a regular
file of this user, of bounded size, for this interpreter (magic number), else ignored and
rewritten. ``AGENTGAUGE_CODE_CACHE=0`` turns it off.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # the regular expression engine
import builtins
import contextlib
import importlib.util
import marshal
import os
import stat
import sys
from array import array
from types import CodeType
from typing import Any

__all__ = ["cache_path", "install", "save", "stats", "uninstall"]

#: the file's header: the interpreter's bytecode magic number and optimisation level, the
#: regular expression engine's (its compiled programs' format), and this file's format (2: only
#: patterns of a module's or a class's body; a file of an earlier format is ignored, rewritten)
_HEADER = (
    importlib.util.MAGIC_NUMBER
    + bytes([sys.flags.optimize & 0xFF])
    + (_sre.MAGIC & 0xFFFFFFFF).to_bytes(4, "little")
    + b"\x02"
)
#: a file larger than this is ignored (the cache of a one-case run is ~0.7 MB, ~950 entries)
MAX_BYTES = 8 * 1024 * 1024
#: entries kept at most (what every command uses, and older versions' left-overs); above it, a
#: save keeps only what this process used
MAX_ENTRIES = 5_000

_Key = tuple[str, str]
#: a compiled pattern as ``_sre.compile`` takes it: flags, program, groups, group names both ways
#: (the program as the bytes of 32-bit code words: read back in C, where a list of ints would be
#: checked one by one)
_Regex = tuple[int, bytes, int, dict[str, int], tuple[str | None, ...]]
#: the array type of the engine's code word (4 bytes; "" on an engine with another size)
_WORD = next((t for t in "IL" if array(t).itemsize == _sre.CODESIZE == 4), "")
_cache: dict[_Key, CodeType] = {}
#: keyed ("re<flags>", pattern)
_regexes: dict[_Key, _Regex] = {}
_used: set[_Key] = set()
_new: set[_Key] = set()
_counts = {"read": 0, "compiled": 0, "hits": 0}
_installed: list[tuple[Any, str, Any]] = []  # (module, attribute, what it was), to undo


def cache_path() -> str:
    """Where the cache lives: beside this module's own ``.pyc``."""
    pyc = importlib.util.cache_from_source(__file__)
    return pyc[: -len(".pyc")] + ".codes"


def _is_regex(key: _Key, value: Any) -> bool:
    if not key[0].startswith("re") or not isinstance(value, tuple) or len(value) != 5:
        return False
    flags, code, groups, index, names = value
    return (
        isinstance(flags, int)
        and isinstance(code, bytes)
        and len(code) % 4 == 0
        and isinstance(groups, int)
        and isinstance(index, dict)
        and all(isinstance(k, str) and isinstance(v, int) for k, v in index.items())
        and isinstance(names, tuple)
        and all(n is None or isinstance(n, str) for n in names)
    )


def _read(path: str) -> dict[_Key, Any]:
    """The cache file's entries; nothing if it is missing, not ours, too large or not valid."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return {}
    try:
        info = os.fstat(fd)
        mine = not hasattr(os, "geteuid") or info.st_uid == os.geteuid()
        if not stat.S_ISREG(info.st_mode) or not mine or info.st_size > MAX_BYTES:
            return {}
        with os.fdopen(os.dup(fd), "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError:
        return {}
    finally:
        os.close(fd)
    if not raw.startswith(_HEADER) or len(raw) > MAX_BYTES:
        return {}
    try:
        data = marshal.loads(raw[len(_HEADER) :])
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        k: v
        for k, v in data.items()
        if isinstance(k, tuple)
        and len(k) == 2
        and all(isinstance(p, str) for p in k)
        and (isinstance(v, CodeType) or _is_regex(k, v))
    }


def _code(source: str, mode: str) -> CodeType:
    key = (mode, source)
    code = _cache.get(key)
    if code is None:
        # as dataclasses' exec and typing's compile make it: no __future__ flag of this module
        code = builtins.compile(source, "<string>", mode, dont_inherit=True)
        _cache[key] = code
        _new.add(key)
        _counts["compiled"] += 1
    else:
        _counts["hits"] += 1
    _used.add(key)
    return code


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    """``exec`` for ``dataclasses``: a source text's code object comes from the cache."""
    if type(source) is str:
        source = _code(source, "exec")
    builtins.exec(source, globals, locals)


def _compile(source: Any, filename: Any, mode: str, *args: Any, **kwargs: Any) -> Any:
    """``compile`` for ``typing`` (a forward reference's ``compile(text, '<string>', 'eval')``)."""
    if type(source) is str and filename == "<string>" and not args and not kwargs:
        return _code(source, mode)
    return builtins.compile(source, filename, mode, *args, **kwargs)


def _eval(source: Any, globals: Any = None, locals: Any = None, /) -> Any:
    """``eval`` for ``collections`` (a named tuple's ``__new__``, written as a lambda's source)."""
    if type(source) is str:
        source = _code(source, "eval")
    return builtins.eval(source, globals, locals)


def _regex(pattern: Any, flags: int = 0) -> Any:
    """``re``'s compile of a pattern: the parse and the program from the cache, then the
    engine's own ``_sre.compile``, with the arguments ``re._compiler.compile`` gives it."""
    if type(pattern) is not str or type(flags) is not int or flags & _RE_DEBUG:
        return _re_compile(pattern, flags)
    key = (f"re{flags}", pattern)
    entry = _regexes.get(key)
    if entry is None:
        if not _from_a_body(sys._getframe(1)):
            return _re_compile(pattern, flags)
        from re import _compiler, _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(pattern, flags)
        code = array(_WORD, _compiler._code(parsed, flags)).tobytes()
        index = dict(parsed.state.groupdict)
        names: list[str | None] = [None] * parsed.state.groups
        for name, i in index.items():
            names[i] = name
        entry = (flags | parsed.state.flags, code, parsed.state.groups - 1, index, tuple(names))
        _regexes[key] = entry
        _new.add(key)
        _counts["compiled"] += 1
    else:
        _counts["hits"] += 1
    _used.add(key)
    program = array(_WORD, entry[1]).tolist()
    return _sre.compile(pattern, entry[0], program, entry[2], dict(entry[3]), entry[4])


#: ``re.DEBUG``: such a pattern prints its program as it is compiled, so it is never cached
_RE_DEBUG = 128
#: a function's code (not a module's or a class's body)
_CO_OPTIMIZED = 0x0001


def _from_a_body(frame: Any) -> bool:
    """Whether the pattern is compiled by a module's or a class's body (past ``re``'s own
    frames): a pattern written in the source, such as YAML's or the behaviour heuristics'.
    One a function compiles is often made from data — the scrubber's pattern of your short
    secrets, a suite's ``regex``, ``tokenize``'s pattern from a set of prefixes (its text
    differs from one process to the next) — and is compiled as before, never written to the
    cache file."""
    while frame is not None and frame.f_globals.get("__name__") == "re":
        frame = frame.f_back
    return frame is not None and not frame.f_code.co_flags & _CO_OPTIMIZED


def _re_compile(pattern: Any, flags: int = 0) -> Any:
    """The compile ``re`` had (set by :func:`install`)."""
    return _installed_re[0](pattern, flags)


_installed_re: list[Any] = []


def install() -> bool:
    """Give ``dataclasses``, ``typing`` and ``collections`` the cached ``exec`` / ``compile`` /
    ``eval``; False if turned off (``AGENTGAUGE_CODE_CACHE=0``) or already installed."""
    if os.environ.get("AGENTGAUGE_CODE_CACHE", "1") == "0" or _installed:
        return False
    import collections
    import dataclasses
    import typing

    for key, value in _read(cache_path()).items():
        if isinstance(value, CodeType):
            _cache[key] = value
        else:
            _regexes[key] = value
    _counts["read"] = len(_cache) + len(_regexes)
    patches: list[tuple[Any, str, Any]] = [
        (dataclasses, "exec", _exec),
        (typing, "compile", _compile),
        (collections, "eval", _eval),
    ]
    compiler = _re_compiler()
    if compiler is not None and _WORD:
        _installed_re[:] = [compiler.compile]
        patches.append((compiler, "compile", _regex))
    for module, name, replacement in patches:
        _installed.append((module, name, module.__dict__.get(name, _MISSING)))
        setattr(module, name, replacement)
    return True


_MISSING = object()


def _re_compiler() -> Any:
    """``re._compiler`` if it has the pieces :func:`_regex` uses (Python 3.11 and later)."""
    try:
        from re import _compiler, _parser  # type: ignore[attr-defined]
    except ImportError:
        return None
    parts = (getattr(_compiler, "compile", None), getattr(_compiler, "_code", None))
    if None in parts or getattr(_parser, "parse", None) is None:
        return None
    return _compiler


def stats() -> dict[str, int]:
    """This process's figures: entries read from the file, sources compiled, cache hits."""
    return dict(_counts)


def uninstall() -> None:
    """Give ``dataclasses`` and ``typing`` back the built-ins and forget the cache (tests)."""
    while _installed:
        module, name, was = _installed.pop()
        if was is _MISSING:
            delattr(module, name)
        else:
            setattr(module, name, was)
    _cache.clear()
    _regexes.clear()
    _installed_re.clear()
    _used.clear()
    _new.clear()
    _counts.update(read=0, compiled=0, hits=0)


def save() -> bool:
    """Write the cache if this process compiled something new (never with
    ``PYTHONDONTWRITEBYTECODE``); True if written. Failures are silent, as a ``.pyc``'s are."""
    if not _installed or not _new or sys.dont_write_bytecode:
        return False
    every: dict[_Key, Any] = {**_cache, **_regexes}
    keep = every if len(every) <= MAX_ENTRIES else {k: every[k] for k in _used if k in every}
    path = cache_path()
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(_HEADER + marshal.dumps(keep))
        os.replace(tmp, path)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return False
    _new.clear()
    return True
