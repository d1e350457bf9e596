"""The response cache: model responses on disk, keyed by a hash of the full request.

One SQLite file, ``CACHE_DIR/responses.sqlite3``. The key is a BLAKE2b hash of the provider name
(which includes the model) and its endpoint (``base_url``, when it has one), every message, every
offered tool, the generation parameters and the trial index. Requests carry no API keys
(providers read keys from their own settings, and only a hash of the endpoint is kept), and
every value is scrubbed of registered secrets before it is stored (``_secrets``: a server that
echoes a key into an answer leaves ``***`` in the cache). The same file keeps whole case
results for replay (their journal lines, scrubbed the same way; see ``_replay``).

Writes are committed in small batches (and on close): a run killed at the wrong moment may lose
the last few entries, which only means those calls are made again next time.

:func:`cache_stats` and :func:`prune_cache` inspect and clear a cache file (``agentgauge cache``).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

import orjson

from .._secrets import register_env, scrub_bytes
from ..errors import UserError
from ..files import check_database
from ..schema import Labels, Message, ToolSpec, Usage
from ._base import GenerateConfig, ModelResponse

CACHE_FILE = "responses.sqlite3"
_COMMIT_EVERY = 256
_COMMIT_AFTER_S = 1.0


#: bump when the key or value layout changes (old entries then simply miss)
_LAYOUT = b"agentgauge-cache-3"


class RequestKeys:
    """Makes a :class:`RequestHasher` per case; the hash of each tool list is computed once."""

    def __init__(self, provider: str, endpoint: str, config: GenerateConfig, tag: str = "") -> None:
        head: dict[str, object] = {
            "provider": provider,
            "endpoint": endpoint,
            "tag": tag,
            "temperature": config.temperature,
            "max_tokens": config.max_tokens,
            "seed": config.seed,
        }
        if config.mcp_servers:  # the servers the vendor calls (never their tokens)
            head["mcp_servers"] = [[s.name, s.url, list(s.tools)] for s in config.mcp_servers]
        self._head = _LAYOUT + orjson.dumps(head, option=orjson.OPT_SORT_KEYS)
        self._suite_tools: bytes | None = None

    @property
    def head(self) -> bytes:
        """The part of every key that names the agent and the generation parameters."""
        return self._head

    @staticmethod
    def _tools_digest(tools: list[ToolSpec]) -> bytes:
        dumped = [t.model_dump(mode="json", exclude={"simulation"}) for t in tools]
        return hashlib.blake2b(
            orjson.dumps(dumped, option=orjson.OPT_SORT_KEYS), digest_size=20
        ).digest()

    def for_case(
        self, tools: list[ToolSpec], trial: int, *, suite_tools: bool = False
    ) -> RequestHasher:
        """``suite_tools``: ``tools`` is the suite's own list (hashed once per run)."""
        if suite_tools:
            if self._suite_tools is None:
                self._suite_tools = self._tools_digest(tools)
            digest = self._suite_tools
        else:
            digest = self._tools_digest(tools)
        h = hashlib.blake2b(self._head, digest_size=20)
        h.update(digest)
        h.update(b"trial=%d" % trial)
        return RequestHasher(h)


class RequestHasher:
    """Hashes a growing conversation incrementally (messages are only ever appended)."""

    __slots__ = ("_hashed", "_state")

    def __init__(self, state: hashlib.blake2b) -> None:
        self._state = state
        self._hashed = 0

    def key(self, messages: list[Message]) -> str:
        for msg in messages[self._hashed :]:
            self._state.update(b"\x1e")
            self._state.update(msg.model_dump_json(exclude_defaults=True).encode())
        self._hashed = len(messages)
        return self._state.copy().hexdigest()


def encode_response(resp: ModelResponse) -> bytes:
    """A header line (usage, model, finish reason, labels) and the message's own JSON."""
    labels = None if resp.labels is None else resp.labels.model_dump(exclude_defaults=True)
    usage = resp.usage if resp.usage_reported else None  # unknown usage stays unknown (null)
    header = orjson.dumps(
        [
            usage.input_tokens if usage else None,
            usage.output_tokens if usage else None,
            resp.model,
            resp.finish_reason,
            labels,
        ]
    )
    body = header + b"\n" + resp.message.model_dump_json(exclude_defaults=True).encode()
    for step in resp.server_steps:  # one JSON line each (a dump holds no raw newline)
        body += b"\n" + step.model_dump_json(exclude_defaults=True).encode()
    return body


def decode_response(raw: bytes) -> ModelResponse:
    header, _, rest = raw.partition(b"\n")
    message, *steps = rest.split(b"\n")
    inp, out, model, finish, labels = orjson.loads(header)
    return ModelResponse(
        message=Message.model_validate_json(message),
        server_steps=tuple(Message.model_validate_json(s) for s in steps),
        usage=Usage(input_tokens=inp or 0, output_tokens=out or 0),
        usage_reported=inp is not None,
        model=model,
        finish_reason=finish,
        labels=None if labels is None else Labels.model_validate(labels),
    )


_CREATE_RESPONSES = (
    "CREATE TABLE IF NOT EXISTS responses ("
    "key TEXT PRIMARY KEY, value BLOB NOT NULL, created REAL NOT NULL)"
)
#: whole results for replay; a cache file written before replay existed lacks it until opened
_CREATE_RESULTS = (
    "CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, status TEXT NOT NULL, "
    "model_calls INTEGER NOT NULL, line BLOB NOT NULL, created REAL NOT NULL)"
)


class ResponseCache:
    """A SQLite-backed map from request hash to model response.

    The same file holds a second table, of whole case results for replay (see ``_replay``).
    """

    def __init__(self, directory: Path) -> None:
        register_env()
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / CACHE_FILE
        self._db = _open(self.path)
        #: written but not yet committed (also answers lookups)
        self._pending: dict[str, tuple[bytes, float]] = {}
        self._pending_results: dict[str, tuple[str, int, bytes, float]] = {}
        self._last_commit = time.monotonic()

    def get(self, key: str) -> ModelResponse | None:
        pending = self._pending.get(key)
        if pending is not None:
            raw = pending[0]
        else:
            row = self._db.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
            if row is None:
                return None
            raw = row[0]
        try:
            return decode_response(raw)
        except (ValueError, TypeError):
            return None

    def put(self, key: str, response: ModelResponse) -> None:
        self._pending[key] = (scrub_bytes(encode_response(response)), time.time())
        self._maybe_flush()

    def get_result(self, key: str) -> tuple[str, int, bytes] | None:
        """A stored case result: (status, model calls, journal line)."""
        pending = self._pending_results.get(key)
        if pending is not None:
            return pending[:3]
        row = self._db.execute(
            "SELECT status, model_calls, line FROM results WHERE key = ?", (key,)
        ).fetchone()
        return None if row is None else (row[0], row[1], row[2])

    def put_result(self, key: str, status: str, model_calls: int, line: bytes) -> None:
        self._pending_results[key] = (status, model_calls, scrub_bytes(line), time.time())
        self._maybe_flush()

    def _maybe_flush(self) -> None:
        pending = len(self._pending) + len(self._pending_results)
        if pending >= _COMMIT_EVERY or time.monotonic() - self._last_commit >= _COMMIT_AFTER_S:
            self.flush()

    def flush(self) -> None:
        if not self._pending and not self._pending_results:
            return
        rows = [(k, v, t) for k, (v, t) in self._pending.items()]
        results = [(k, *r) for k, r in self._pending_results.items()]
        self._pending = {}
        self._pending_results = {}
        self._db.execute("BEGIN")
        self._db.executemany("INSERT OR REPLACE INTO responses VALUES (?, ?, ?)", rows)
        self._db.executemany("INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?)", results)
        self._db.execute("COMMIT")
        self._last_commit = time.monotonic()

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self._db.close()


# -- maintenance: what the cache holds, and removing entries (``agentgauge cache``) ------------

#: judges keep their replies in the ``responses`` table under keys ``judge:<sha256>``
JUDGE_PREFIX = "judge:"
#: keys in ``[JUDGE_PREFIX, _JUDGE_END)`` start with the prefix (a range the primary key answers)
_JUDGE_END = JUDGE_PREFIX[:-1] + chr(ord(JUDGE_PREFIX[-1]) + 1)
_IS_JUDGE = "key >= ? AND key < ?"
_MAINTENANCE_TIMEOUT_S = 5.0


@dataclass(frozen=True, slots=True)
class CacheStats:
    """What a cache file holds (``oldest``/``newest``: ``created`` of any entry, Unix seconds)."""

    path: Path
    #: the database file and its write-ahead log (``-wal``), in bytes
    size_bytes: int
    #: agent responses (``responses`` rows that are not judge replies)
    responses: int
    #: judge replies (``responses`` rows keyed ``judge:...``)
    judge_entries: int
    #: whole case results that an unchanged re-run replays
    results: int
    oldest: float | None
    newest: float | None

    @property
    def entries(self) -> int:
        return self.responses + self.judge_entries + self.results


@dataclass(frozen=True, slots=True)
class PruneReport:
    """What :func:`prune_cache` removed (or, with ``dry_run``, would remove)."""

    path: Path
    responses: int
    judge_entries: int
    results: int
    size_before: int
    size_after: int

    @property
    def entries(self) -> int:
        return self.responses + self.judge_entries + self.results

    @property
    def reclaimed_bytes(self) -> int:
        return max(0, self.size_before - self.size_after)


def default_cache_dir() -> Path:
    """``$AGENTGAUGE_CACHE_DIR``, else ``$XDG_CACHE_HOME/agentgauge``, else ``~/.cache/agentgauge``.

    (That is where the response cache lives.)
    """
    env = os.environ.get("AGENTGAUGE_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "agentgauge"


def cache_file(directory: Path) -> Path:
    """The cache database in ``directory`` (which may not exist)."""
    return directory / CACHE_FILE


def _size_on_disk(path: Path) -> int:
    total = 0
    for p in (path, path.with_name(path.name + "-wal")):
        with contextlib.suppress(OSError):  # no log: nothing to add
            total += p.stat().st_size
    return total


def _connect(path: Path, timeout: float | None) -> sqlite3.Connection:
    """An existing cache file (never creates one); locks and foreign files raise UserError.

    ``timeout``: seconds to wait for another process's lock (None: a few seconds).
    """
    if timeout is None:
        timeout = _MAINTENANCE_TIMEOUT_S
    _check_files(path)
    try:
        db = sqlite3.connect(
            f"{path.resolve().as_uri()}?mode=rw", uri=True, timeout=timeout, isolation_level=None
        )
        # a file that is not a cache fails here (no such table / not a database)
        db.execute("SELECT 1 FROM responses LIMIT 1").fetchall()
        db.execute(_CREATE_RESULTS)  # a cache written before result replay existed
    except sqlite3.Error as err:
        raise UserError(_describe(path, err)) from None
    return db


def _check_files(path: Path) -> None:
    """The cache file and its write-ahead log must be regular files (or absent): a device or
    FIFO in the cache folder would block SQLite or feed it without end."""
    for p in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        check_database(p, str(p))


def _open(path: Path) -> sqlite3.Connection:
    """The cache file opened (made when absent) in WAL mode with both tables; a file that is
    not a cache (or not a regular file) is a one-line UserError naming it."""
    _check_files(path)
    db: sqlite3.Connection | None = None
    try:
        db = sqlite3.connect(path, timeout=30.0, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(_CREATE_RESPONSES)
        db.execute(_CREATE_RESULTS)
    except sqlite3.Error as err:
        if db is not None:
            db.close()
        raise UserError(_describe(path, err) + "; delete it or run with --no-cache") from None
    return db


def _describe(path: Path, err: sqlite3.Error) -> str:
    text = str(err)
    if "locked" in text or "busy" in text:
        return f"{path} is locked by another process (a run using the cache?); try again later"
    return f"{path}:1: not a readable agentgauge cache ({text})"


def cache_stats(directory: Path, *, timeout: float | None = None) -> CacheStats | None:
    """Counts and dates of the cache in ``directory``; None when it holds no cache file."""
    path = cache_file(directory)
    if not os.path.lexists(path):  # any kind of file is there: _connect refuses a special one
        return None
    db = _connect(path, timeout)
    try:
        judge = (JUDGE_PREFIX, _JUDGE_END)
        (all_responses,) = db.execute("SELECT count(*) FROM responses").fetchone()
        (judges,) = db.execute(
            f"SELECT count(*) FROM responses WHERE {_IS_JUDGE}", judge
        ).fetchone()
        (results,) = db.execute("SELECT count(*) FROM results").fetchone()
        lo, hi = db.execute(
            "SELECT min(lo), max(hi) FROM (SELECT min(created) AS lo, max(created) AS hi "
            "FROM responses UNION ALL SELECT min(created), max(created) FROM results)"
        ).fetchone()
    except sqlite3.Error as err:
        raise UserError(_describe(path, err)) from None
    finally:
        db.close()
    return CacheStats(
        path=path,
        size_bytes=_size_on_disk(path),
        responses=all_responses - judges,
        judge_entries=judges,
        results=results,
        oldest=lo,
        newest=hi,
    )


def prune_cache(
    directory: Path,
    *,
    before: float | None = None,
    results_only: bool = False,
    dry_run: bool = False,
    timeout: float | None = None,
) -> PruneReport | None:
    """Remove cache entries and compact the file; None when ``directory`` holds no cache file.

    ``before``: only entries created before this time (Unix seconds; None: all of them).
    ``results_only``: only replayable results (model and judge responses stay).
    ``dry_run``: count what would go, change nothing. Meant for when no run is using the cache;
    a lock held longer than ``timeout`` seconds (None: a few) raises
    :class:`~agentgauge.errors.UserError`.
    """
    path = cache_file(directory)
    if not os.path.lexists(path):  # any kind of file is there: _connect refuses a special one
        return None
    size_before = _size_on_disk(path)
    age = "" if before is None else " AND created < ?"
    aged: tuple[float | str, ...] = () if before is None else (before,)
    judge = (JUDGE_PREFIX, _JUDGE_END)
    db = _connect(path, timeout)
    try:
        # BEGIN IMMEDIATE: the counts are those of the rows deleted (no writer slips in between)
        db.execute("BEGIN" if dry_run else "BEGIN IMMEDIATE")
        selections = [(f"FROM results WHERE 1{age}", aged)]
        if not results_only:
            selections.append((f"FROM responses WHERE NOT ({_IS_JUDGE}){age}", (*judge, *aged)))
            selections.append((f"FROM responses WHERE {_IS_JUDGE}{age}", (*judge, *aged)))
        counts = [0, 0, 0]  # results, responses, judge replies
        for i, (rows, params) in enumerate(selections):
            (counts[i],) = db.execute(f"SELECT count(*) {rows}", params).fetchone()
            if counts[i] and not dry_run:
                db.execute(f"DELETE {rows}", params)
        db.execute("COMMIT")
        if not dry_run:
            (free,) = db.execute("PRAGMA freelist_count").fetchone()
            if sum(counts) or free:
                db.execute("VACUUM")
            # move the log into the file and truncate it, so the size on disk shrinks now
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    except sqlite3.Error as err:
        if db.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
        raise UserError(_describe(path, err)) from None
    finally:
        db.close()
    return PruneReport(
        path=path,
        responses=counts[1],
        judge_entries=counts[2],
        results=counts[0],
        size_before=size_before,
        size_after=size_before if dry_run else _size_on_disk(path),
    )
