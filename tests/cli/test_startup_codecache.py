"""The command line's start-up (issue 26): the bytecode cache of the methods ``dataclasses``
generates and the forward references ``typing`` compiles (``agentgauge._codecache``), and no
pydantic plugin discovery in the ``agentgauge`` process (``agentgauge.cli._startup``).
Checked by what the child processes compiled, imported and loaded, never by a timing."""

from __future__ import annotations

import collections
import dataclasses
import json
import os
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest

from agentgauge import _codecache

SUITE = """\
name: one
tools:
  - name: get_weather
    description: Weather for a city.
    parameters:
      type: object
      properties: {city: {type: string}}
      required: [city]
cases:
  - id: c1
    input: What is the weather in Paris?
    expect:
      tool_calls:
        - name: get_weather
          arguments: {city: Paris}
"""

#: the child: the CLI in-process, then what it compiled, imported and where its cache is
PROBE = """
import json, sys
from agentgauge.cli import main
from agentgauge import _codecache
code = 0
try:
    main(sys.argv[2:])
except SystemExit as exc:
    code = exc.code or 0
import dataclasses
with open(sys.argv[1], "w") as fh:
    json.dump({"code": code, "stats": _codecache.stats(), "modules": sorted(sys.modules),
               "patched": "exec" in vars(dataclasses), "path": _codecache.cache_path()}, fh)
"""


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(tmp_path / "pyc")}
    env["AGENTGAUGE_HISTORY"] = str(tmp_path / "history.sqlite")
    for name in ("PYTHONDONTWRITEBYTECODE", "AGENTGAUGE_CODE_CACHE", "PYDANTIC_DISABLE_PLUGINS"):
        env.pop(name, None)
    env.pop("AGENTGAUGE_PYDANTIC_PLUGINS", None)
    env.update(extra)
    return env


def _run(tmp_path: Path, env: dict[str, str], name: str = "run") -> dict[str, Any]:
    suite = tmp_path / "one.yaml"
    suite.write_text(SUITE)
    out = tmp_path / f"{name}.json"
    args = ["run", str(suite), "--agent", "mock:", "-o", str(tmp_path / name), "--no-cache"]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(out), *args, "--no-progress", "--no-history"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
        timeout=120,
    )
    assert out.exists(), done.stderr
    data: dict[str, Any] = json.loads(out.read_text())
    assert data["code"] == 0, done.stderr
    return data


def _verdicts(run_dir: Path) -> list[tuple[str, str, float]]:
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    return [(r["case_id"], r["status"], r["score"]) for r in rows]


# ------------------------------------------------------------------ the code objects are Python's

#: built without ``from __future__ import annotations``, so the fields' types are classes
CLASSES = """
import collections, dataclasses, typing

@dataclasses.dataclass(frozen=True)
class Frozen:
    name: str
    size: int = 0
    tags: tuple[str, ...] = ()

@dataclasses.dataclass(order=True)
class Plain:
    when: float
    items: list[int] = dataclasses.field(default_factory=list)

REF = typing.ForwardRef("dict[str, list[int]] | None")
Pair = collections.namedtuple("Pair", "left right")
"""


def _build() -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(CLASSES, "<classes>", "exec", dont_inherit=True), namespace)
    return namespace


def _methods(namespace: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for cls in (namespace["Frozen"], namespace["Plain"]):
        for name, fn in vars(cls).items():
            code = getattr(fn, "__code__", None)
            if code is not None:
                out[f"{cls.__name__}.{name}"] = (
                    code.co_code,
                    code.co_consts,
                    code.co_names,
                    code.co_varnames,
                    code.co_flags,
                    code.co_filename,
                    dict(fn.__annotations__),
                )
    new = namespace["Pair"].__new__.__code__
    out["Pair.__new__"] = (new.co_code, new.co_consts, new.co_names, new.co_flags)
    ref = namespace["REF"].__forward_code__
    out["ForwardRef"] = (ref.co_code, ref.co_consts, ref.co_names, ref.co_flags)
    return out


def test_methods_from_the_cache_are_those_python_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A class built with the cache (a miss, then a hit read back from the file) has the very
    code objects Python builds without it: no ``__future__`` flag of the cache's own module
    leaks in (the annotations stay types, not strings)."""
    monkeypatch.setattr(_codecache, "cache_path", lambda: str(tmp_path / "x.codes"))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.delenv("AGENTGAUGE_CODE_CACHE", raising=False)
    _codecache.uninstall()  # an in-process main() of another test may have installed it
    plain = _methods(_build())
    types = {"name": str, "size": int, "tags": tuple[str, ...], "return": None}
    assert plain["Frozen.__init__"][-1] == types
    try:
        assert _codecache.install()
        assert vars(dataclasses)["exec"] is not exec
        assert "compile" in vars(typing)
        assert "eval" in vars(collections)
        missed = _methods(_build())
        assert _codecache.stats()["compiled"] >= 10
        assert _codecache.save()
        _codecache.uninstall()
        assert _codecache.install()
        assert _codecache.stats()["read"] >= 10
        hit = _methods(_build())
        assert _codecache.stats()["compiled"] == 0
        assert _codecache.stats()["hits"] >= 10
        instance = _build()["Frozen"]("a", 2)
        with pytest.raises(dataclasses.FrozenInstanceError):
            instance.size = 3
        assert repr(instance) == "Frozen(name='a', size=2, tags=())"
    finally:
        _codecache.uninstall()
    assert "exec" not in vars(dataclasses)
    assert "compile" not in vars(typing)
    assert "eval" not in vars(collections)
    assert missed == plain
    assert hit == plain


def test_a_second_run_compiles_nothing_and_gives_the_same_verdicts(tmp_path: Path) -> None:
    env = _env(tmp_path)
    first = _run(tmp_path, env, "first")
    assert first["patched"] is True
    assert first["stats"]["compiled"] > 300  # pydantic's, anyio's and agentgauge's classes
    cache = Path(first["path"])
    assert cache.is_file()
    assert str(cache).startswith(str(tmp_path / "pyc"))
    second = _run(tmp_path, env, "second")
    assert second["stats"]["read"] >= first["stats"]["compiled"]
    assert second["stats"]["compiled"] == 0
    assert second["stats"]["hits"] > 300
    _run(tmp_path, {**env, "AGENTGAUGE_CODE_CACHE": "0"}, "without")
    assert _verdicts(tmp_path / "first") == _verdicts(tmp_path / "without")
    assert _verdicts(tmp_path / "second") == _verdicts(tmp_path / "without")


def test_no_cache_file_without_bytecode_writing_and_none_when_off(tmp_path: Path) -> None:
    quiet = _run(tmp_path, _env(tmp_path, PYTHONDONTWRITEBYTECODE="1"), "quiet")
    assert quiet["stats"]["compiled"] > 300
    assert not Path(quiet["path"]).exists()
    off = _run(tmp_path, _env(tmp_path, AGENTGAUGE_CODE_CACHE="0"), "off")
    assert off["patched"] is False
    assert off["stats"] == {"read": 0, "compiled": 0, "hits": 0}
    assert not Path(off["path"]).exists()


def _shapes(tmp_path: Path) -> dict[str, Path]:
    header = _codecache._HEADER
    shapes = {
        "garbage": b"\x00\x01 not a cache",
        "other interpreter": b"\x00\x00\x0d\x0a" + bytes(1) + b"x",
        "truncated": header + b"\xfb",
        "a list": header + __import__("marshal").dumps([1, 2]),
        "not code": header + __import__("marshal").dumps({("exec", "x=1"): "x=1"}),
    }
    out: dict[str, Path] = {}
    for name, data in shapes.items():
        path = tmp_path / f"{name}.codes"
        path.write_bytes(data)
        out[name] = path
    out["symlink to /dev/zero"] = tmp_path / "zero.codes"
    out["symlink to /dev/zero"].symlink_to("/dev/zero")
    out["fifo"] = tmp_path / "fifo.codes"
    os.mkfifo(out["fifo"])
    out["sparse 3 GB"] = tmp_path / "sparse.codes"
    with open(out["sparse 3 GB"], "wb") as fh:
        fh.truncate(3 * 1024**3)
    out["a directory"] = tmp_path / "dir.codes"
    out["a directory"].mkdir()
    return out


def test_a_hostile_cache_file_is_ignored(tmp_path: Path) -> None:
    """Each shape is ignored at once (no hang, no read of /dev/zero or 3 GB, no error); a
    well-formed file is read."""
    for name, path in _shapes(tmp_path).items():
        assert _codecache._read(str(path)) == {}, name
    good = tmp_path / "good.codes"
    code = compile("x = 1", "<string>", "exec")
    good.write_bytes(_codecache._HEADER + __import__("marshal").dumps({("exec", "x = 1"): code}))
    assert _codecache._read(str(good)) == {("exec", "x = 1"): code}


def test_a_run_over_a_garbage_cache_file_replaces_it(tmp_path: Path) -> None:
    env = _env(tmp_path)
    first = _run(tmp_path, env, "first")
    cache = Path(first["path"])
    cache.write_bytes(b"garbage")
    second = _run(tmp_path, env, "second")
    assert second["stats"]["read"] == 0
    assert second["stats"]["compiled"] > 300
    assert len(_codecache._read(str(cache))) == second["stats"]["compiled"]
    assert _verdicts(tmp_path / "second") == _verdicts(tmp_path / "first")


def test_a_cache_over_its_bound_keeps_only_what_was_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Left-overs (another version's methods) are dropped once the file holds too many."""
    path = tmp_path / "x.codes"
    monkeypatch.setattr(_codecache, "cache_path", lambda: str(path))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.delenv("AGENTGAUGE_CODE_CACHE", raising=False)
    old = {("exec", f"x = {i}"): compile(f"x = {i}", "<string>", "exec") for i in range(50)}
    path.write_bytes(_codecache._HEADER + __import__("marshal").dumps(old))
    _codecache.uninstall()
    try:
        monkeypatch.setattr(_codecache, "MAX_ENTRIES", 100)
        assert _codecache.install()
        _build()
        assert _codecache.save()
        kept = _codecache._read(str(path))
        assert set(old) <= set(kept)  # under the bound: everything kept
        _codecache.uninstall()
        monkeypatch.setattr(_codecache, "MAX_ENTRIES", 10)
        assert _codecache.install()
        _build()
        _codecache._new.add(("exec", "x = 0"))  # something new, so the save writes
        assert _codecache.save()
        trimmed = _codecache._read(str(path))
    finally:
        _codecache.uninstall()
    assert not set(old) & set(trimmed)
    assert len(trimmed) == len(kept) - len(old) > 0
