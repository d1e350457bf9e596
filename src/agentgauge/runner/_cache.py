"""The response cache: model responses on disk, keyed by a hash of the full request.

One SQLite file, ``CACHE_DIR/responses.sqlite3``. The key is a BLAKE2b hash of the provider name
(which includes the model) and its endpoint (``base_url``, when it has one), every message, every
offered tool, the generation parameters and the trial index. Requests carry no API keys
(providers read keys from their own settings, and only a hash of the endpoint is kept), so
neither keys nor values hold secrets. The same file keeps whole case results for replay (their
journal lines, which hold no secrets either; see ``_replay``).

Writes are committed in small batches (and on close): a run killed at the wrong moment may lose
the last few entries, which only means those calls are made again next time.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from pathlib import Path

import orjson

from ..providers._base import GenerateConfig, ModelResponse
from ..schema import Message, ToolSpec, Usage

CACHE_FILE = "responses.sqlite3"
_COMMIT_EVERY = 256
_COMMIT_AFTER_S = 1.0


#: bump when the key or value layout changes (old entries then simply miss)
_LAYOUT = b"agentgauge-cache-2"


class RequestKeys:
    """Makes a :class:`RequestHasher` per case; the hash of each tool list is computed once."""

    def __init__(self, provider: str, endpoint: str, config: GenerateConfig, tag: str = "") -> None:
        head = {
            "provider": provider,
            "endpoint": endpoint,
            "tag": tag,
            "temperature": config.temperature,
            "max_tokens": config.max_tokens,
            "seed": config.seed,
        }
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
    """A header line (usage, model, finish reason) and the message's own JSON."""
    header = orjson.dumps(
        [resp.usage.input_tokens, resp.usage.output_tokens, resp.model, resp.finish_reason]
    )
    return header + b"\n" + resp.message.model_dump_json(exclude_defaults=True).encode()


def decode_response(raw: bytes) -> ModelResponse:
    header, _, message = raw.partition(b"\n")
    inp, out, model, finish = orjson.loads(header)
    return ModelResponse(
        message=Message.model_validate_json(message),
        usage=Usage(input_tokens=inp, output_tokens=out),
        model=model,
        finish_reason=finish,
    )


class ResponseCache:
    """A SQLite-backed map from request hash to model response.

    The same file holds a second table, of whole case results for replay (see ``_replay``).
    """

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / CACHE_FILE
        self._db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS responses ("
            "key TEXT PRIMARY KEY, value BLOB NOT NULL, created REAL NOT NULL)"
        )
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, status TEXT NOT NULL, "
            "model_calls INTEGER NOT NULL, line BLOB NOT NULL, created REAL NOT NULL)"
        )
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
        self._pending[key] = (encode_response(response), time.time())
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
        self._pending_results[key] = (status, model_calls, line, time.time())
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
