"""An abandoned call of the embedded model stops (a case timeout must not leave it decoding).

The runner abandons a model call when its case times out; the call's thread used to go on
decoding to ``max_tokens`` while holding the model's lock, so the next case's time ran out
waiting for a reply nobody read (28 of 40 retail cases timed out, 25 with no model call). A
fake llama stands in for the model: it decodes "tokens" until its stopping criterion says stop.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from agentgauge.providers import ModelRequest
from agentgauge.providers._base import GenerateConfig
from agentgauge.schema import Message

pytest.importorskip("llama_cpp")

from agentgauge.providers import _local, _local_model

MAX_STEPS = 2_000  # 10 s of fake decoding at 5 ms a token: far longer than any case waits


class _FakeLlama:
    def __init__(self, max_steps: int = MAX_STEPS) -> None:
        self.max_steps = max_steps
        self.calls = 0
        self.steps = 0
        self.stopped_early = False
        self.done = threading.Event()

    def create_completion(self, *, stopping_criteria: Any = None, **_: Any) -> dict[str, Any]:
        self.calls += 1
        try:
            for step in range(1, self.max_steps + 1):
                self.steps = step
                if stopping_criteria is not None and stopping_criteria(None, None):
                    self.stopped_early = True
                    break
                time.sleep(0.005)
            return {"choices": [{"text": "{}", "finish_reason": "stop"}], "usage": {}}
        finally:
            self.done.set()


class _FakeModel(_local_model._LoadedModel):
    def render(self, turns: list[dict[str, str]]) -> str:
        return "prompt"

    def tokens(self, text: str) -> list[int]:
        return [1, 2, 3]


def _provider(llama: _FakeLlama) -> _local.LocalProvider:
    provider = _local.LocalProvider(Path("fake.gguf"), name="local:fake")
    provider._model = _FakeModel(llama)
    provider._grammar = lambda *_a, **_k: None  # type: ignore[method-assign]
    return provider


REQUEST = ModelRequest(
    messages=[Message(role="user", content="Is it fine?")],
    config=GenerateConfig(response_schema={"type": "object"}),
)


def test_a_call_abandoned_mid_reply_stops_decoding_and_frees_the_model() -> None:
    llama = _FakeLlama()
    provider = _provider(llama)

    async def main() -> None:
        with anyio.move_on_after(0.2):  # the case's timeout
            await provider.generate(REQUEST)

    anyio.run(main)
    assert llama.done.wait(30)
    assert llama.stopped_early  # without the flag it decodes all MAX_STEPS tokens
    assert llama.steps < MAX_STEPS
    assert provider._model is not None
    assert provider._model.lock.acquire(timeout=30)  # the lock is free again
    provider._model.lock.release()


def test_a_call_abandoned_while_it_waited_for_the_model_never_decodes() -> None:
    llama = _FakeLlama()
    provider = _provider(llama)
    cancelled = threading.Event()
    cancelled.set()
    with pytest.raises(_local._Cancelled):
        provider._serve(REQUEST, cancelled)
    assert llama.calls == 0


def test_a_call_nobody_abandons_decodes_its_whole_reply() -> None:
    llama = _FakeLlama(max_steps=20)
    provider = _provider(llama)
    response = anyio.run(provider.generate, REQUEST)
    assert response.message.content == "{}"
    assert llama.calls == 1
    assert not llama.stopped_early  # the criterion stops only abandoned calls
