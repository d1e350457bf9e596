"""The cache key of a judge request (the entries live in the runner's response cache)."""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from ..providers import ModelRequest


def request_key(provider_name: str, request: ModelRequest) -> str:
    """``judge:`` + sha256 over the provider name, every message and the generation parameters."""
    payload: dict[str, Any] = {
        "provider": provider_name,
        "messages": [m.model_dump(mode="json", exclude_defaults=True) for m in request.messages],
        "temperature": request.config.temperature,
        "seed": request.config.seed,
        "max_tokens": request.config.max_tokens,
    }
    if request.config.response_schema is not None:
        payload["response_schema"] = request.config.response_schema
    digest = hashlib.sha256(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)).hexdigest()
    return "judge:" + digest


__all__ = ["request_key"]
