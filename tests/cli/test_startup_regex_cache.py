"""The command line's cache of compiled regular expressions (``agentgauge._codecache``, issue 26
start-up): a pattern from the cache is the pattern ``re`` builds (``Pattern.__eq__`` compares the
compiled program, the flags and the text), read back from the file too; a malformed entry is
ignored; patterns that differ from process to process are not kept. No timings."""

from __future__ import annotations

import marshal
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentgauge import _codecache

PATTERNS = [
    # YAML's reader: the costliest of a run (a class of every printable code point)
    "[^\t\n\r -~\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]",
    r"(?P<year>[0-9]{4})-(?P<month>[0-9]{1,2})(?:-(\d+))?",
    r"\b(?:i (?:can ?not|can't|cannot|won't)|unable to)\b",
    r"(?i)^(?:yes|no|on|off)$",
    r"(?x) a \s+ b  # verbose",
]
FLAGS = [0, int(re.IGNORECASE), int(re.MULTILINE | re.DOTALL), int(re.ASCII)]


@pytest.fixture
def installed() -> Iterator[None]:
    was = _codecache._installed_re[:] if _codecache._installed else None
    if was is None:
        assert _codecache.install()
    yield
    if was is None:
        _codecache.uninstall()


def _in_a_body(pattern: str, flags: int) -> re.Pattern[str]:
    """The pattern compiled as a module's body compiles it (``X = re.compile(...)``)."""
    namespace: dict[str, object] = {"pattern": pattern, "flags": flags}
    exec("import re\ncompiled = re._compiler.compile(pattern, flags)\n", namespace)
    compiled = namespace["compiled"]
    assert isinstance(compiled, re.Pattern)
    return compiled


def _own(pattern: str, flags: int) -> re.Pattern[str]:
    from re import _compiler  # type: ignore[attr-defined]

    compiled: re.Pattern[str] = _codecache._installed_re[0](pattern, flags)
    assert _compiler.compile is _codecache._regex
    return compiled


@pytest.mark.usefixtures("installed")
def test_a_cached_pattern_is_the_one_re_builds() -> None:
    for pattern in PATTERNS:
        for flags in FLAGS:
            if flags & re.ASCII and "\U00010000" in pattern:
                continue
            want = _own(pattern, flags)
            first = _in_a_body(pattern, flags)  # compiled and kept
            assert (f"re{flags}", pattern) in _codecache._regexes
            again = _in_a_body(pattern, flags)  # from the cache
            for got in (first, again):
                assert got == want  # the same program, flags and text
                assert (got.groups, dict(got.groupindex), got.flags) == (
                    want.groups,
                    dict(want.groupindex),
                    want.flags,
                )
    date = _in_a_body(PATTERNS[1], 0).match("2026-12-02")
    assert date is not None
    assert date.groupdict() == {"year": "2026", "month": "12"}
    assert date.group(3) == "02"


def test_a_wrong_pattern_program_is_told_apart() -> None:
    """The check can fail: ``==`` tells two programs apart (a cached entry of another pattern's
    program under this text would be found)."""
    assert re.compile("a+b") != re.compile("a*b")
    assert re.compile("ab", re.I) != re.compile("ab")


#: a child: the cache installed, the patterns compiled, then written (save) or compared to
#: re's own (after a read of the file)
CHILD = """
import re, sys
from agentgauge import _codecache
_codecache.install()
from re import _compiler
patterns = %r
got = []
for p in patterns:  # in the module's body (a comprehension is a function)
    got.append(_compiler.compile(p, 0))
if sys.argv[1] == "save":
    assert _codecache.save()
else:
    own = _codecache._installed_re[0]
    assert _codecache.stats()["hits"] == len(patterns), _codecache.stats()
    assert all(g == own(p, 0) for g, p in zip(got, patterns))
    print("same")
"""


def test_patterns_read_back_from_the_file_are_the_ones_re_builds(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(tmp_path / "pyc")}
    for name in ("PYTHONDONTWRITEBYTECODE", "AGENTGAUGE_CODE_CACHE"):
        env.pop(name, None)
    code = CHILD % (PATTERNS,)
    for step in ("save", "check"):
        done = subprocess.run(
            [sys.executable, "-c", code, step],
            capture_output=True,
            text=True,
            env=env,
            check=False,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["same"]


def test_a_malformed_pattern_entry_is_ignored(tmp_path: Path) -> None:
    good = (0, bytes(12), 0, {}, (None,))
    shapes = {
        "a program that is not bytes": (0, [1, 2, 3], 0, {}, (None,)),
        "not whole code words": (0, bytes(5), 0, {}, (None,)),
        "short": (0, bytes(4)),
        "a group name that is not text": (0, bytes(4), 1, {1: 1}, (None, 1)),
    }
    for name, entry in shapes.items():
        path = tmp_path / "bad.codes"
        path.write_bytes(_codecache._HEADER + marshal.dumps({("re0", "a"): entry}))
        assert _codecache._read(str(path)) == {}, name
    path = tmp_path / "good.codes"
    path.write_bytes(_codecache._HEADER + marshal.dumps({("re0", "a"): good}))
    assert _codecache._read(str(path)) == {("re0", "a"): good}
    # an entry in a code key's place (or the reverse) is not taken
    path.write_bytes(_codecache._HEADER + marshal.dumps({("exec", "a"): good}))
    assert _codecache._read(str(path)) == {}


@pytest.mark.usefixtures("installed")
def test_only_patterns_written_in_a_body_are_kept(capsys: pytest.CaptureFixture[str]) -> None:
    """A pattern a function makes from data is never written to the cache file: the
    scrubber's pattern of a short secret, tokenize's (its text differs in each process), a
    debug pattern (it prints its program); one written in a module's body is kept."""
    from agentgauge import _secrets

    before = set(_codecache._regexes)
    _in_a_body("xyz+q", int(re.DEBUG))  # prints its program, as without the cache
    assert "LITERAL" in capsys.readouterr().out
    import tokenize

    prefixes = "|".join(sorted({"rb", "b", "f"}))
    tokenize._compile(f"zz(?:{prefixes})")  # type: ignore[attr-defined]
    assert _secrets.strength("k3Y9z") == "short"  # scrubbed through a pattern
    _secrets.register("k3Y9z")
    try:
        assert "k3Y9z" not in _secrets.scrub("the k3Y9z here")
    finally:
        _secrets._reset()
    assert set(_codecache._regexes) == before
    assert not any("k3Y9z" in key[1] for key in _codecache._regexes)
    _in_a_body("xyz+q", 0)
    assert set(_codecache._regexes) - before == {("re0", "xyz+q")}
