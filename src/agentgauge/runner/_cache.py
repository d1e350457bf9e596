"""The response cache: model responses on disk, keyed by a hash of the full request.

One SQLite file, ``CACHE_DIR/responses.sqlite3``. The key is a BLAKE2b hash of the provider name
(which includes the model) and its endpoint (``base_url``, when it has one), every message, every
offered tool, the generation parameters and the trial index. Requests carry no API keys
(providers read keys from their own settings, and only a hash of the endpoint is kept), so
neither keys nor values hold secrets.

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
    """A SQLite-backed map from request hash to model response."""

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
        #: written but not yet committed (also answers lookups)
        self._pending: dict[str, tuple[bytes, float]] = {}
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
        now = time.monotonic()
        if len(self._pending) >= _COMMIT_EVERY or now - self._last_commit >= _COMMIT_AFTER_S:
            self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        rows = [(k, v, t) for k, (v, t) in self._pending.items()]
        self._pending = {}
        self._db.execute("BEGIN")
        self._db.executemany("INSERT OR REPLACE INTO responses VALUES (?, ?, ?)", rows)
        self._db.execute("COMMIT")
        self._last_commit = time.monotonic()

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self._db.close()
