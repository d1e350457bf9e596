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


class RequestHasher:
    """Hashes a growing conversation incrementally (messages are only ever appended)."""

    __slots__ = ("_hashed", "_state")

    def __init__(
        self,
        provider: str,
        tools: list[ToolSpec],
        config: GenerateConfig,
        trial: int,
        endpoint: str = "",
    ) -> None:
        h = hashlib.blake2b(digest_size=20)
        head = {
            "provider": provider,
            "endpoint": endpoint,
            "tools": [t.model_dump(mode="json", exclude={"simulation"}) for t in tools],
            "temperature": config.temperature,
            "max_tokens": config.max_tokens,
            "seed": config.seed,
            "trial": trial,
        }
        h.update(orjson.dumps(head, option=orjson.OPT_SORT_KEYS))
        self._state = h
        self._hashed = 0

    def key(self, messages: list[Message]) -> str:
        for msg in messages[self._hashed :]:
            self._state.update(b"\x1e")
            self._state.update(orjson.dumps(msg.model_dump(mode="json", exclude_defaults=True)))
        self._hashed = len(messages)
        return self._state.copy().hexdigest()


def encode_response(resp: ModelResponse) -> bytes:
    return orjson.dumps(
        {
            "message": resp.message.model_dump(mode="json", exclude_defaults=True),
            "usage": [resp.usage.input_tokens, resp.usage.output_tokens],
            "model": resp.model,
            "finish_reason": resp.finish_reason,
        }
    )


def decode_response(raw: bytes) -> ModelResponse:
    data = orjson.loads(raw)
    inp, out = data["usage"]
    return ModelResponse(
        message=Message.model_validate(data["message"]),
        usage=Usage(input_tokens=inp, output_tokens=out),
        model=data["model"],
        finish_reason=data["finish_reason"],
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
        self._pending: list[tuple[str, bytes, float]] = []
        self._last_commit = time.monotonic()

    def get(self, key: str) -> ModelResponse | None:
        row = self._db.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return decode_response(row[0])
        except (ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, response: ModelResponse) -> None:
        self._pending.append((key, encode_response(response), time.time()))
        now = time.monotonic()
        if len(self._pending) >= _COMMIT_EVERY or now - self._last_commit >= _COMMIT_AFTER_S:
            self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        rows, self._pending = self._pending, []
        self._db.execute("BEGIN")
        self._db.executemany("INSERT OR REPLACE INTO responses VALUES (?, ?, ?)", rows)
        self._db.execute("COMMIT")
        self._last_commit = time.monotonic()

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self._db.close()
