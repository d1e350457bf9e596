"""A small disk cache of judge replies (SQLite), keyed by provider, full prompt and parameters."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from pathlib import Path

import orjson

from ..providers._base import ModelRequest


def request_key(provider_name: str, request: ModelRequest) -> str:
    """sha256 over the provider name, every message and the generation parameters."""
    payload = {
        "provider": provider_name,
        "messages": [m.model_dump(mode="json", exclude_defaults=True) for m in request.messages],
        "temperature": request.config.temperature,
        "seed": request.config.seed,
        "max_tokens": request.config.max_tokens,
    }
    return hashlib.sha256(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)).hexdigest()


class JudgeCache:
    """Replies of judge calls, one row per request key. Safe to share between threads."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS judge_replies (key TEXT PRIMARY KEY, text TEXT NOT NULL)"
        )

    def get(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute(
                "SELECT text FROM judge_replies WHERE key = ?", (key,)
            ).fetchone()
        return None if row is None else str(row[0])

    def put(self, key: str, text: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO judge_replies (key, text) VALUES (?, ?)", (key, text)
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()


__all__ = ["JudgeCache", "request_key"]
