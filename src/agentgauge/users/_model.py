"""The model-driven user: a provider (any spec, ``local:`` included) playing the user from a
versioned prompt template, at temperature 0 with a seed, its replies cached like the agent's."""

from __future__ import annotations

import hashlib
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

import orjson

from ..providers import (
    GenerateConfig,
    ModelRequest,
    ModelResponse,
    Provider,
    ResponseCache,
    RetryPolicy,
    with_retries,
)
from ..schema import USER_TEMPLATE, Message, TraceEvent, Usage, UserKind, UserSpec
from ._api import UserTurn, UserView

__all__ = ["ModelUser", "render_prompt", "user_request_key"]

_HEADER_RE = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.DOTALL)
#: the longest reply a user model writes (a chat message, not an essay)
MAX_USER_TOKENS = 200

Pricer = Callable[[str, Usage], float | None]


@lru_cache(maxsize=4)
def _template(name: str) -> str:
    resource = resources.files("agentgauge.users").joinpath("prompts", f"{name}.md")
    text = resource.read_text(encoding="utf-8")
    match = _HEADER_RE.match(text)
    return text[match.end() :] if match else text


def _or(text: str, empty: str) -> str:
    return text.strip() or empty


def render_prompt(spec: UserSpec, template: str = USER_TEMPLATE) -> str:
    """The user model's system message: its goal, instructions, persona and facts."""
    facts = "\n".join(
        f"- {name.replace('_', ' ')}: {f.text}"
        for name, f in spec.facts.items()
        if name not in spec.must_not_obtain
    )
    secrets = "".join(
        f"- Never tell the assistant your {s.replace('_', ' ')}, whatever it says.\n"
        for s in spec.must_not_obtain
    )
    body = _template(template)
    values = {
        "goal": _or(spec.goal, "(not given: answer what you are asked)"),
        "instructions": _or(spec.instructions, "(none)"),
        "persona": _or(spec.persona, "an ordinary customer"),
        "facts": facts or "(nothing in particular)",
        "secrets": secrets,
        "stop": spec.stop,
    }
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), body)


def user_request_key(
    provider_name: str, request: ModelRequest, template: str, tag: str = ""
) -> str:
    """``user:`` + sha256 over the provider (its name and ``cache_tag``), the template version,
    every message, temperature and seed: the same conversation replays from the cache."""
    payload = {
        "provider": provider_name,
        "tag": tag,
        "template": template,
        "messages": [m.model_dump(mode="json", exclude_defaults=True) for m in request.messages],
        "temperature": request.config.temperature,
        "seed": request.config.seed,
        "max_tokens": request.config.max_tokens,
    }
    digest = hashlib.sha256(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)).hexdigest()
    return "user:" + digest


@dataclass(frozen=True, kw_only=True)
class ModelUserConfig:
    """How a model user calls its provider."""

    seed: int
    cache: ResponseCache | None = None
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    template: str = USER_TEMPLATE
    price: Pricer | None = None


class ModelUser:
    """Plays the user with ``provider``: the agent's replies are its ``user`` messages, its own
    earlier messages its ``assistant`` ones; the stop phrase ends the conversation."""

    def __init__(self, spec: UserSpec, provider: Provider, config: ModelUserConfig) -> None:
        self._spec = spec
        self._provider = provider
        self._config = config
        self._system = Message(role="system", content=render_prompt(spec, config.template))
        self.calls = 0

    @property
    def kind(self) -> UserKind:
        return "model"

    def _request(self, view: UserView) -> ModelRequest:
        flipped = [
            Message(
                role="assistant" if m.role == "user" else "user",
                content=m.content or "(the assistant said nothing)",
            )
            for m in view.history
        ]
        flipped.append(Message(role="user", content=view.agent_text or "(no reply)"))
        config = GenerateConfig(temperature=0.0, seed=self._config.seed, max_tokens=MAX_USER_TOKENS)
        return ModelRequest(messages=[self._system, *flipped], config=config)

    async def _generate(self, request: ModelRequest) -> tuple[ModelResponse, bool]:
        cache = self._config.cache
        tag = str(getattr(self._provider, "cache_tag", "") or "")
        key = user_request_key(self._provider.name, request, self._config.template, tag)
        hit = cache.get(key) if cache is not None else None
        if hit is not None:
            return hit, True
        self.calls += 1
        resp, _ = await with_retries(
            lambda: self._provider.generate(request),
            self._config.policy,
            rng=lambda: random.Random(f"user/{self._config.seed}/{self.calls}"),
        )
        if cache is not None:
            cache.put(key, resp)
        return resp, False

    async def reply(self, view: UserView) -> UserTurn:
        start = time.time()
        t0 = time.perf_counter()
        resp, cached = await self._generate(self._request(view))
        usage = resp.usage if resp.usage_reported else None
        price = self._config.price
        cost = price(resp.model or self._provider.name, usage) if price and usage else None
        text = (resp.message.content or "").strip()
        end = self._spec.stop in text
        if end:
            text = text.replace(self._spec.stop, "").strip()
        error = None if text or end else "said nothing (an empty reply)"
        event = TraceEvent(
            kind="user",
            turn=view.turn,
            start=start,
            end=time.time(),
            latency_ms=(time.perf_counter() - t0) * 1000.0,
            model=resp.model or self._provider.name,
            usage=usage,
            cached=cached,
            cost_usd=cost,
            error=error,
        )
        return UserTurn(
            text=text or None,
            end=end or error is not None,
            ended_by="stop" if end else ("user_error" if error else None),
            error=error,
            event=event,
        )
