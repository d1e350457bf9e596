"""The one ProviderError a provider raises for a request, for the tests of misbehaving servers
(``test_body_cap.py``, ``test_malformed_replies.py``)."""

from __future__ import annotations

import asyncio

from agentgauge.errors import ProviderError
from agentgauge.providers import ModelRequest, Provider


def provider_error(provider: Provider, request: ModelRequest, label: str) -> ProviderError:
    """The ProviderError ``provider.generate(request)`` raises (the provider closed after it);
    an AssertionError naming ``label`` when the call succeeds."""

    async def go() -> ProviderError:
        try:
            await provider.generate(request)
        except ProviderError as exc:
            return exc
        finally:
            await provider.aclose()  # type: ignore[attr-defined]
        raise AssertionError(f"{label}: no error")

    return asyncio.run(go())
