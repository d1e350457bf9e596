"""Stateful tool fakes referenced by tests as ``runner_fakes:NAME`` (this folder is on sys.path)."""

from __future__ import annotations

import os
from typing import Any


def add_to_cart(item: str, state: dict[str, Any]) -> dict[str, Any]:
    cart = state.setdefault("cart", [])
    cart.append(item)
    return {"cart": list(cart)}


async def lookup(city: str) -> dict[str, Any]:
    return {"city": city, "temp_c": 20}


def broken(**_: Any) -> Any:
    raise RuntimeError("database is locked")


async def hangs(**_: Any) -> Any:
    import anyio

    await anyio.sleep(30)
    return "never"


def leaks_key(**_: Any) -> Any:
    raise RuntimeError(f"401 for key {os.environ['OPENAI_API_KEY']}")
