"""Every file agentgauge reads goes through ``agentgauge.files`` (issue 21, item 4).

A scan of ``src/agentgauge`` for the ways Python reads a file — ``read_text()``,
``read_bytes()``, ``open(...)`` for reading, ``json.load``, ``yaml.safe_load`` / ``yaml.load``,
``tomllib.load``, ``sqlite3.connect``, ``os.open`` — outside ``files/``. Each place that may do
so is listed below with the reason (the package's own resources, its own temporary files, a
reader with limits of its own); a new one fails here until it reads through
``agentgauge.files`` or is listed with its reason.
"""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "agentgauge"

#: a read of a file (writes: open(..., "w"/"a"/"x"...) are not reads)
READ = re.compile(
    r"\.read_text\(|\.read_bytes\(|(?<![\w.])open\((?![^)]*[\"'][wax])|\.open\((?![^)]*[\"'][wax])"
    r"|json\.load\(|yaml\.(?:safe_)?load\(|tomllib\.load\(|sqlite3\.connect\("
)

#: (module, text on the line) -> why it may read directly
ALLOWED: dict[tuple[str, str], str] = {
    ("providers/_local.py", "Path(__file__).read_bytes()"): "hashes its own source",
    ("providers/_local.py", "Path(_local_convert.__file__).read_bytes()"): "its own source",
    ("providers/_local.py", "Path(_local_model.__file__).read_bytes()"): "its own source",
    ("providers/_cache.py", "sqlite3.connect(path, timeout=30.0"): "after _check_files",
    ("providers/_cache.py", "db = sqlite3.connect("): "_connect: after _check_files",
    ("metrics/_history.py", "sqlite3.connect(path, timeout=10"): "after check_database",
    ("metrics/_history.py", "sqlite3.connect(uri, uri=True)"): "the old history: is_file()",
    ("metrics/_history.py", 'sqlite3.connect(":memory:"'): "no file",
    ("metrics/_spill.py", 'with open(path, "rb") as fh:'): "its own temporary files",
    ("judges/_templates.py", "resource.read_text("): "the templates shipped in the package",
    ("users/_model.py", "resource.read_text("): "the user template shipped in the package",
    ("report/_html.py", '/ "templates" / name).read_text('): "shipped templates",
    ("report/_dashboard.py", '/ "templates" / name).read_text('): "shipped templates",
    ("_git.py", "with _open(path) as fh:"): "_git has limits of its own (layer 0)",
    ("_git.py", "with _open(self.path) as fh:"): "_git's own limited open",
    ("_git.py", "fd = os.open(path, os.O_RDONLY | getattr(os"): "_git's own non-blocking open",
    ("_suite_code/_paths.py", "fd = os.open(path, flags, 0o644)"): "a write (open_regular)",
    ("runner/_proc_worker.py", "os.open(os.devnull, os.O_RDONLY)"): "a worker's stdin: no file",
    # agentgauge's own bytecode cache beside its .pyc (layer 0, below files/): opened
    # O_NOFOLLOW | O_NONBLOCK, a regular file of this user, at most MAX_BYTES read; anything
    # else is ignored (tests/cli/test_startup_codecache.py::test_a_hostile_cache_file_is_ignored)
    ("_codecache.py", "fd = os.open(path, flags)"): "its own cache file, bounded (layer 0)",
}


def direct_reads(root: Path) -> list[str]:
    """``module:line: code`` of every direct read outside ``files/`` that is not allowed."""
    found = []
    for path in sorted(root.rglob("*.py")):
        module = path.relative_to(root).as_posix()
        if module.startswith("files/"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if not READ.search(code) or code.lstrip().startswith(('"', "'")):
                continue
            if any(mod == module and text in code for mod, text in ALLOWED):
                continue
            found.append(f"{module}:{number}: {line.strip()}")
    return found


def test_every_reader_goes_through_agentgauge_files() -> None:
    assert direct_reads(SRC) == []


def test_the_scan_finds_a_direct_read(tmp_path: Path) -> None:
    """The scan can fail: each way of reading a file, written in a module, is found."""
    pkg = tmp_path / "runner"
    pkg.mkdir()
    (pkg / "_bad.py").write_text(
        "import json, sqlite3, tomllib, yaml\n"
        "a = path.read_text()\n"
        "b = path.read_bytes()\n"
        "with open(path) as fh: pass\n"
        "with open(path, 'rb') as fh: pass\n"
        "with path.open() as fh: pass\n"
        "c = json.load(fh)\n"
        "d = yaml.safe_load(fh)\n"
        "e = tomllib.load(fh)\n"
        "f = sqlite3.connect(path)\n"
        "fd = os.open(path, os.O_RDONLY)\n"
        "with open(path, 'w') as fh: pass\n"  # a write: not a read
        "with open(path, 'ab') as fh: pass\n",
        encoding="utf-8",
    )
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "_ok.py").write_text("a = path.read_text()\n", encoding="utf-8")
    found = direct_reads(tmp_path)
    assert [f.split(":")[1] for f in found] == [str(n) for n in range(2, 12)]
