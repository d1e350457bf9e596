"""Run history: a SQLite file of finished runs keyed by (suite, agent, run id), for trends.

Where it lives (:func:`history_path`): the path given (``--history PATH``), else
``$AGENTGAUGE_HISTORY``, else the user's data folder (``$XDG_DATA_HOME/agentgauge/history.sqlite``,
by default ``~/.local/share/agentgauge/history.sqlite``) — never the current directory. A file
of the old layout (``.agentgauge/history.sqlite`` in the working directory, one row per run id)
is imported once into the default file, with a one-line notice (:func:`import_legacy`).

Each run keeps its identity (suite, agent, git commit, start time, run directory, judge) and
its metrics in a ``metrics`` table: the headline rates, latency and cost
(:data:`HISTORY_METRICS`) and every scorer's mean as ``scorers.NAME`` (a judge's
``scorers.judge.groundedness``), so new metrics never need a new column. Trends are in
:mod:`._trend`; ``agentgauge history`` prints them.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from pathlib import Path

from ..errors import UserError
from ._history_entry import (
    HISTORY_METRICS,
    MODULE_HISTORY_METRICS,
    SCORER_PREFIX,
    HistoryEntry,
    agent_identity,
    entry_of,
    fully_replayed,
)
from ._model import Summary

__all__ = [
    "HISTORY_METRICS",
    "LEGACY_HISTORY",
    "MODULE_HISTORY_METRICS",
    "SCORER_PREFIX",
    "HistoryEntry",
    "agent_identity",
    "default_history_path",
    "entry_of",
    "fully_replayed",
    "group_runs",
    "history_path",
    "import_legacy",
    "read_history",
    "record_run",
]

#: where histories were kept before they moved to the user's data folder
LEGACY_HISTORY = Path(".agentgauge") / "history.sqlite"

#: ``PRAGMA application_id`` of a history file ("AGgH"), so a foreign SQLite file is told apart
_APP_ID = 0x41476748
#: ``PRAGMA user_version`` of the current layout (0 with a ``runs`` table: the old layout)
_VERSION = 2
_KEY = ("suite", "agent", "run_id")

_RUNS = """
CREATE TABLE IF NOT EXISTS runs (
    suite TEXT NOT NULL,
    agent TEXT NOT NULL,
    run_id TEXT NOT NULL,
    git_commit TEXT,
    started_at TEXT NOT NULL,
    run_dir TEXT NOT NULL,
    cases INTEGER NOT NULL,
    results INTEGER NOT NULL,
    judge TEXT,
    judge_samples INTEGER,
    git_dirty INTEGER,
    PRIMARY KEY (suite, agent, run_id)
)"""
_METRICS = """
CREATE TABLE IF NOT EXISTS metrics (
    suite TEXT NOT NULL,
    agent TEXT NOT NULL,
    run_id TEXT NOT NULL,
    name TEXT NOT NULL,
    value REAL,
    low REAL,
    high REAL,
    n INTEGER,
    PRIMARY KEY (suite, agent, run_id, name)
)"""
_INDEXES = (
    "CREATE INDEX IF NOT EXISTS runs_by_time ON runs (suite, agent, started_at)",
    "CREATE TABLE IF NOT EXISTS imports (source TEXT PRIMARY KEY, at TEXT NOT NULL, "
    "runs INTEGER NOT NULL)",
)
#: columns added after the layout was first written: added to an older file when it is opened
_LATER_COLUMNS = {"judge": "TEXT", "judge_samples": "INTEGER", "git_dirty": "INTEGER"}


def default_history_path() -> Path:
    """``$XDG_DATA_HOME/agentgauge/history.sqlite`` (a relative ``XDG_DATA_HOME`` is ignored,
    as the XDG spec says), else ``~/.local/share/agentgauge/history.sqlite``."""
    xdg = os.environ.get("XDG_DATA_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"
    return base / "agentgauge" / "history.sqlite"


def history_path(path: Path | str | None = None) -> Path:
    """The history file: ``path`` if given, else ``$AGENTGAUGE_HISTORY``, else
    :func:`default_history_path`."""
    if path:
        return Path(path).expanduser()
    env = os.environ.get("AGENTGAUGE_HISTORY")
    return Path(env).expanduser() if env else default_history_path()


def _notice(message: str) -> None:
    print(f"note: {message}", file=sys.stderr)


def _tables(conn: sqlite3.Connection) -> set[str]:
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return {str(r[0]) for r in rows}


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {str(r[1]) for r in conn.execute(f"PRAGMA table_info({table})").fetchall()}


def _layout(conn: sqlite3.Connection, path: Path) -> int:
    """The file's layout version: 0 the old one-row-per-run-id table, ``_VERSION`` current,
    -1 empty; a foreign or newer file is a :class:`UserError`."""
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    tables = _tables(conn)
    if app_id == _APP_ID:
        if version > _VERSION:
            raise UserError(
                f"{path}: run history of a newer agentgauge (layout {version}, this one reads "
                f"up to {_VERSION}); upgrade agentgauge or point --history elsewhere"
            )
        return int(version)
    if not tables and app_id == 0:
        return -1
    if app_id == 0 and "runs" in tables and set(_KEY) <= _columns(conn, "runs"):
        return 0
    shown = ", ".join(sorted(tables)) or "none"
    raise UserError(
        f"{path}: not an agentgauge run history (a SQLite file with tables: {shown}); "
        "point --history (or AGENTGAUGE_HISTORY) at another file"
    )


def _create(conn: sqlite3.Connection) -> None:
    conn.execute(_RUNS)
    conn.execute(_METRICS)
    for statement in _INDEXES:
        conn.execute(statement)
    conn.execute(f"PRAGMA application_id = {_APP_ID}")
    conn.execute(f"PRAGMA user_version = {_VERSION}")


def _upgrade_v0(conn: sqlite3.Connection) -> None:
    """The old layout (``runs`` keyed by run id, one column per metric) rewritten as the
    current one, in the caller's transaction: identities move to the new ``runs``, each metric
    column becomes rows of ``metrics``."""
    old = _columns(conn, "runs")
    conn.execute("ALTER TABLE runs RENAME TO runs_v0")
    _create(conn)
    keep = ("git_commit", "started_at", "run_dir", "cases", "results")
    defaults = {"git_commit": "NULL", "started_at": "''", "run_dir": "''", "cases": "0"}
    picked = [f'"{c}"' if c in old else defaults.get(c, "0") for c in keep]
    cols = ["suite", "agent", "run_id", *keep]
    conn.execute(
        f"INSERT OR REPLACE INTO runs ({', '.join(cols)}) "
        f"SELECT suite, agent, run_id, {', '.join(picked)} FROM runs_v0"
    )
    for metric in (c for c in old if c not in {*_KEY, *keep}):
        conn.execute(
            "INSERT OR REPLACE INTO metrics (suite, agent, run_id, name, value) "
            f'SELECT suite, agent, run_id, ?, "{metric}" FROM runs_v0 '
            f'WHERE "{metric}" IS NOT NULL',
            [metric],
        )
    conn.execute("DROP TABLE runs_v0")


def _prepare(conn: sqlite3.Connection, path: Path) -> None:
    """Bring the file to the current layout (created, upgraded, missing columns added)."""
    layout = _layout(conn, path)
    if layout == _VERSION and _LATER_COLUMNS.keys() <= _columns(conn, "runs"):
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        layout = _layout(conn, path)  # another process may have upgraded it meanwhile
        if layout == 0:
            _upgrade_v0(conn)
        elif layout == -1:
            _create(conn)
        present = _columns(conn, "runs")
        for name, kind in _LATER_COLUMNS.items():
            if name not in present:
                conn.execute(f"ALTER TABLE runs ADD COLUMN {name} {kind}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


@contextmanager
def _opened(path: Path, *, create: bool) -> Iterator[sqlite3.Connection]:
    """A connection to the history at ``path`` in the current layout; any SQLite failure
    (a corrupt file, a locked one, a folder) is a one-line :class:`UserError`."""
    from ..files import check_database

    check_database(path, str(path))  # a device or FIFO would block SQLite or feed it without end
    try:
        if create:
            path.parent.mkdir(parents=True, exist_ok=True)
        with closing(sqlite3.connect(path, timeout=10, isolation_level=None)) as conn:
            _prepare(conn, path)
            yield conn
    except sqlite3.Error as exc:
        raise UserError(f"{path}:1: cannot use the run history: {exc}") from None
    except OSError as exc:
        raise UserError(f"{path}:1: cannot use the run history: {exc.strerror or exc}") from None


def import_legacy(
    path: Path, *, legacy: Path = LEGACY_HISTORY, notify: Callable[[str], None] = _notice
) -> int:
    """Import the runs of an old-layout history at ``legacy`` (relative: to the working
    directory) into ``path``, once per source file (later calls import nothing); returns the
    runs imported. The old file is left where it is; ``notify`` says so in one line."""
    if not legacy.is_file() or legacy.resolve() == path.resolve():
        return 0
    source = str(legacy.resolve())
    with _opened(path, create=True) as conn:
        if conn.execute("SELECT 1 FROM imports WHERE source = ?", [source]).fetchone():
            return 0
        try:
            uri = f"{Path(source).as_uri()}?mode=ro"
            with closing(sqlite3.connect(uri, uri=True)) as old:
                if _layout(old, legacy) == -1:
                    entries: list[HistoryEntry] = []
                else:
                    entries = _read(old, legacy, suite=None, agent=None, upgrade=True)
        except sqlite3.Error as exc:
            raise UserError(f"{legacy}: cannot read the old run history: {exc}") from None
        conn.execute("BEGIN IMMEDIATE")
        for e in entries:
            _insert(conn, e, replace=False)
        conn.execute(
            "INSERT INTO imports (source, at, runs) VALUES (?, ?, ?)",
            [source, datetime.now(UTC).isoformat(timespec="seconds"), len(entries)],
        )
        conn.execute("COMMIT")
    notify(
        f"imported {len(entries)} run(s) from the old history {legacy} into {path} (the run "
        f"history no longer lives in the working directory; delete {legacy} when you like)"
    )
    return len(entries)


def _resolved(path: Path | str | None) -> Path:
    """:func:`history_path`, with the old working-directory file imported into the default one."""
    target = history_path(path)
    if not path and not os.environ.get("AGENTGAUGE_HISTORY"):
        try:
            import_legacy(target)
        except UserError as exc:  # a broken old file must not block the new history
            _notice(f"the old history was not imported: {exc}")
    return target


def _insert(conn: sqlite3.Connection, e: HistoryEntry, *, replace: bool) -> None:
    key = [e.suite, e.agent, e.run_id]
    verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
    cur = conn.execute(
        f"{verb} INTO runs (suite, agent, run_id, git_commit, started_at, run_dir, cases, "
        "results, judge, judge_samples, git_dirty) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            *key,
            *(e.git_commit, e.started_at, e.run_dir, e.cases, e.results),
            *(e.judge, e.judge_samples, e.git_dirty),
        ],
    )
    if not cur.rowcount:
        return  # kept the row already there (an import never overwrites)
    conn.execute("DELETE FROM metrics WHERE suite = ? AND agent = ? AND run_id = ?", key)
    conn.executemany(
        "INSERT INTO metrics (suite, agent, run_id, name, value, low, high) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            [*key, name, value, *(e.intervals.get(name) or (None, None))]
            for name, value in e.metrics.items()
        ],
    )


def record_run(
    run_dir: Path,
    summary: Summary | None = None,
    *,
    path: Path | str | None = None,
    notify: Callable[[str], None] = _notice,
) -> Path | None:
    """Add (or replace) this run's row, keyed by (suite, agent, run id); returns the file.

    The summary is computed when not given. Runs without ``run.json`` are not recorded, nor
    shards (``run --shard``: part of a run; ``agentgauge merge`` records the whole), nor a run
    whose every result was replayed from the cache (an earlier run's results: it would count
    one measurement twice in the trends; ``notify`` says so). A file that is not a history, or
    cannot be written, is a :class:`UserError`.
    """
    if summary is None:
        from ._files import summarize

        summary = summarize(Path(run_dir))
    entry = entry_of(Path(run_dir), summary)
    if entry is None:
        return None
    if fully_replayed(summary):
        notify(
            f"run history: {run_dir} not recorded: all {summary.overall.results} results were "
            "replayed from the cache (an earlier run's results, not a new measurement); "
            "run with --no-replay to measure again"
        )
        return None
    target = _resolved(path)
    with _opened(target, create=True) as conn:
        conn.execute("BEGIN IMMEDIATE")
        _insert(conn, entry, replace=True)
        conn.execute("COMMIT")
    return target


def _matches(value: str, pattern: str | None) -> bool:
    return pattern is None or value == pattern or fnmatchcase(value, pattern)


def _exact(suite: str | None, agent: str | None) -> tuple[str, list[str]]:
    """A ``WHERE`` clause for the names given exactly (a glob is matched in Python), so a
    large history is read by its (suite, agent) index."""
    terms = [
        (f"{col} = ?", value)
        for col, value in (("suite", suite), ("agent", agent))
        if value is not None and not any(ch in value for ch in "*?[")
    ]
    if not terms:
        return "", []
    return " WHERE " + " AND ".join(t for t, _ in terms), [v for _, v in terms]


def _read(
    conn: sqlite3.Connection,
    path: Path,
    *,
    suite: str | None,
    agent: str | None,
    upgrade: bool = False,
) -> list[HistoryEntry]:
    """Every run matching ``suite`` / ``agent`` (globs), oldest first. ``upgrade``: read an
    old-layout file (read-only) through an in-memory copy in the current layout."""
    if upgrade and _layout(conn, path) == 0:
        with closing(sqlite3.connect(":memory:", isolation_level=None)) as memory:
            conn.backup(memory)
            _prepare(memory, path)
            return _read(memory, path, suite=suite, agent=agent)
    where, args = _exact(suite, agent)
    runs = conn.execute(
        "SELECT suite, agent, run_id, git_commit, started_at, run_dir, cases, results, judge, "
        f"judge_samples, git_dirty FROM runs{where} ORDER BY started_at, rowid",
        args,
    ).fetchall()
    picked = {
        (r[0], r[1], r[2]): r for r in runs if _matches(r[0], suite) and _matches(r[1], agent)
    }
    entries: dict[tuple[str, str, str], HistoryEntry] = {
        k: HistoryEntry(
            suite=r[0],
            agent=r[1],
            run_id=r[2],
            git_commit=r[3],
            started_at=r[4],
            run_dir=r[5],
            cases=r[6],
            results=r[7],
            judge=r[8],
            judge_samples=r[9],
            git_dirty=None if r[10] is None else bool(r[10]),
            metrics={},
        )
        for k, r in picked.items()
    }
    for s, a, rid, name, value, low, high in conn.execute(
        f"SELECT suite, agent, run_id, name, value, low, high FROM metrics{where}", args
    ):
        e = entries.get((s, a, rid))
        if e is None:
            continue
        e.metrics[name] = value
        if low is not None and high is not None:
            e.intervals[name] = (low, high)
    return list(entries.values())


def read_history(
    *,
    suite: str | None = None,
    agent: str | None = None,
    limit: int | None = 20,
    path: Path | str | None = None,
    side_files: bool = True,
) -> list[HistoryEntry]:
    """The recorded runs, oldest first: of ``suite`` and ``agent`` when given (exact names or
    globs such as ``openai:*``), at most the latest ``limit`` of each (suite, agent).

    ``side_files``: a row whose run directory now holds feedback or reviews added after the
    run has the metrics they feed recomputed from it, the recorded value kept in
    ``HistoryEntry.recorded`` (``_history_feedback.py``).

    A missing file is an empty history; a file that is not one is a :class:`UserError`. An
    exact ``agent`` naming a Python file is matched as :func:`agent_identity` records it.
    """
    if agent is not None and not any(ch in agent for ch in "*?["):
        agent = agent_identity(agent)
    target = _resolved(path)
    if not target.exists():
        return []
    with _opened(target, create=False) as conn:
        entries = _read(conn, target, suite=suite, agent=agent)
    if limit is not None:
        groups: dict[tuple[str, str], list[HistoryEntry]] = {}
        for e in entries:
            groups.setdefault((e.suite, e.agent), []).append(e)
        kept = {id(e) for g in groups.values() for e in g[-limit:]}
        entries = [e for e in entries if id(e) in kept]
    if side_files:
        from ._history_feedback import with_side_files

        entries = with_side_files(entries)
    return entries


def group_runs(entries: Sequence[HistoryEntry]) -> dict[tuple[str, str], list[HistoryEntry]]:
    """``entries`` by (suite, agent), in the order each pair first appears."""
    out: dict[tuple[str, str], list[HistoryEntry]] = {}
    for e in entries:
        out.setdefault((e.suite, e.agent), []).append(e)
    return out
