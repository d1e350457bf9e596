"""One model asked a system prompt and a text, every reply kept in the response cache.

What ``agentgauge generate --generator`` and ``agentgauge redteam --generator`` both need: a
request at temperature 0 with the user's seed, its cache key from the spec, the messages, the
seed and the temperature (under the caller's prefix), one event loop in a thread for every call
(network clients stay on their loop), and a count of the calls made and the replies the cache
answered.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Self

import orjson

from ..schema import Message
from ._base import GenerateConfig, ModelRequest, ModelResponse, close_provider
from ._registry import resolve_provider

if TYPE_CHECKING:
    from ._base import Provider
    from ._cache import ResponseCache

__all__ = ["CachedAsker"]


class CachedAsker:
    """``ask(system, text)``: the model's reply, from the cache when asked before. Subclasses
    name their cache keys' ``key_prefix``; ``close()`` closes the cache and the provider."""

    key_prefix: ClassVar[str] = "ask:"

    def __init__(
        self,
        spec: str,
        *,
        provider: Provider | None = None,
        cache: bool = True,
        cache_dir: Path | None = None,
        seed: int = 0,
    ) -> None:
        self.spec = spec
        self.provider = provider if provider is not None else resolve_provider(spec)
        self.seed = seed
        self.calls = 0
        self.cached = 0
        self._cache: ResponseCache | None = None
        import anyio.from_thread  # only a caller that asks a model needs the thread's loop

        # one event loop (in a thread) for every call: network clients stay on their loop
        self._portal_cm = anyio.from_thread.start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        if cache:
            from ._cache import ResponseCache, default_cache_dir

            self._cache = ResponseCache(cache_dir or default_cache_dir())

    @classmethod
    def for_generator(
        cls,
        generator: str | None,
        provider: Provider | None,
        *,
        cache: bool,
        cache_dir: Path | None,
        seed: int,
    ) -> Self:
        """The asker of ``--generator SPEC``, or of ``provider`` (any object with ``async
        generate(request)``), its cache keys under the provider's ``name``."""
        spec = generator or str(getattr(provider, "name", "provider"))
        return cls(spec, provider=provider, cache=cache, cache_dir=cache_dir, seed=seed)

    def _key(self, request: ModelRequest) -> str:
        payload = {
            "spec": self.spec,
            "messages": [
                m.model_dump(mode="json", exclude_defaults=True) for m in request.messages
            ],
            "seed": request.config.seed,
            "temperature": request.config.temperature,
        }
        digest = hashlib.sha256(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)).hexdigest()
        return self.key_prefix + digest

    async def _ask(self, request: ModelRequest) -> ModelResponse:
        return await self.provider.generate(request)

    def ask(self, system: str, text: str) -> str:
        """The model's reply to ``text`` under ``system``, stripped (from the cache when asked
        before)."""
        request = ModelRequest(
            messages=[Message(role="system", content=system), Message(role="user", content=text)],
            config=GenerateConfig(temperature=0.0, seed=self.seed),
        )
        key = self._key(request)
        response = self._cache.get(key) if self._cache is not None else None
        if response is not None:
            self.cached += 1
        else:
            response = self._portal.call(self._ask, request)
            self.calls += 1
            if self._cache is not None:
                self._cache.put(key, response)
        return (response.message.content or "").strip()

    def close(self) -> None:
        if self._cache is not None:
            self._cache.close()
        try:
            self._portal.call(close_provider, self.provider)
        finally:
            self._portal_cm.__exit__(None, None, None)
