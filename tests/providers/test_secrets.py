"""API keys never show in provider names, reprs, pickled-free attributes or error messages."""

from __future__ import annotations

import anyio
import pytest

from agentgauge.errors import ProviderError
from agentgauge.providers import ModelRequest, close_provider, resolve_provider
from agentgauge.schema import Message
from agentgauge.testing import FakeFault, FakeOpenAIServer

SECRET = "sk-topsecret-4f9a8b7c6d5e4f3a2b1c"


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "AZURE_OPENAI_API_KEY"):
        monkeypatch.setenv(var, SECRET)
    monkeypatch.setenv("AGENTGAUGE_HTTP_TOKEN", SECRET)
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "http://127.0.0.1:9")


@pytest.mark.parametrize(
    "spec",
    [
        "openai:gpt-x",
        "openai:gpt-x?api=responses&transport=sdk",
        "azure:dep",
        "anthropic:claude-x",
        "gemini:gemini-x",
        "http://127.0.0.1:9/agent",
    ],
)
def test_no_key_in_name_or_repr(spec: str) -> None:
    if spec.startswith("anthropic"):
        pytest.importorskip("anthropic")
    if spec.startswith("gemini"):
        pytest.importorskip("google.genai")
    provider = resolve_provider(spec)
    assert SECRET not in provider.name
    assert SECRET not in repr(provider)
    assert SECRET not in str(provider)


def test_server_echoing_the_key_is_redacted() -> None:
    # a server (or proxy) that puts the key it received into its error message
    with FakeOpenAIServer([FakeFault(401, message=f"Incorrect API key provided: {SECRET}")]) as srv:
        provider = resolve_provider("openai:gpt-x", base_url=srv.base_url)

        async def go() -> None:
            try:
                await provider.generate(ModelRequest(messages=[Message(role="user", content="x")]))
            finally:
                await close_provider(provider)

        with pytest.raises(ProviderError) as info:
            anyio.run(go)
    assert "Incorrect API key provided: ***" in str(info.value)
    assert SECRET not in str(info.value)
    assert SECRET not in repr(info.value)
    assert not info.value.transient


def test_public_surfaces_list_only_public_names() -> None:
    import agentgauge.providers as providers
    import agentgauge.testing as testing

    for module in (providers, testing):
        for name in module.__all__:
            assert not name.startswith("_")
            assert hasattr(module, name)
