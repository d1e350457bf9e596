"""An agent behind an HTTP endpoint (``--agent http://host:port/path``).

The contract (JSON both ways), documented in docs/providers.md::

    POST URL
    {"messages": [{"role": "user", "content": "..."}, ...],
     "tools": [{"name": "...", "description": "...", "parameters": {...JSON Schema...}}],
     "config": {"temperature": 0.0, "max_tokens": null, "seed": 0}}

    200 OK
    {"text": "...", "tool_calls": [{"name": "...", "arguments": {...}, "id": "..."}],
     "usage": {"input_tokens": 12, "output_tokens": 3}, "model": "...",
     "labels": {"route": "...", "skill": "...", "intents": ["..."]}}

Every reply field is optional; a field not listed here is an error (the case errors), never
silently dropped. Non-2xx replies become ProviderErrors (429/5xx transient,
``Retry-After`` honoured). ``AGENTGAUGE_HTTP_TOKEN`` (or the ``token`` option) is sent as a
bearer token; ``headers`` adds more.
"""

from __future__ import annotations

import base64
import os
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

import orjson

from .._secrets import register_url
from ..errors import ProviderError, UserError
from ..schema import Labels, Message, ToolCall, Usage
from ._base import ModelRequest, ModelResponse
from ._common import (
    MALFORMED,
    malformed_reply,
    parse_arguments,
    refuse_placeholder,
    token_count,
)
from ._wire import WireClient

__all__ = ["HttpProvider", "create", "request_body", "response_from_body"]


def _message(m: Message) -> dict[str, Any]:
    out: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.tool_calls:
        out["tool_calls"] = [
            {"name": c.name, "arguments": c.arguments, "id": c.id} for c in m.tool_calls
        ]
    if m.tool_call_id is not None:
        out["tool_call_id"] = m.tool_call_id
    if m.name is not None:
        out["name"] = m.name
    return out


def request_body(request: ModelRequest) -> dict[str, Any]:
    """The JSON body agentgauge POSTs to an HTTP agent."""
    c = request.config
    return {
        "messages": [_message(m) for m in request.messages],
        "tools": [
            {"name": t.name, "description": t.description, "parameters": t.parameters}
            for t in request.tools
        ],
        "config": {"temperature": c.temperature, "max_tokens": c.max_tokens, "seed": c.seed},
    }


#: the fields of a reply, of a tool call in it and of its usage; anything else is an error
REPLY_FIELDS = ("text", "tool_calls", "usage", "model", "labels")
_CALL_FIELDS = ("name", "arguments", "id")
_USAGE_FIELDS = ("input_tokens", "output_tokens")
_LABEL_FIELDS = ("route", "skill", "intents", "knowledge", "fallback")


def _refuse_unknown(raw: dict[str, Any], known: tuple[str, ...], what: str, where: str) -> None:
    """A key the contract does not know would be dropped without a trace: refuse it."""
    extra = [k for k in raw if k not in known]
    if not extra:
        return
    from .._messages import did_you_mean

    hint = did_you_mean(str(extra[0]), known)
    if not hint and any(k in _LABEL_FIELDS for k in extra):
        hint = " (report route, skill and intents inside 'labels')"
    raise ProviderError(
        f"{where}: unknown field(s) {sorted(map(str, extra))} in {what}{hint}; "
        f"known: {', '.join(known)}",
        transient=False,
    )


def _labels(raw: Any, where: str) -> Labels | None:
    """``labels: {route, skill, intents, knowledge, fallback}``: what the agent chose, for the
    module metrics (the knowledge items it retrieved, best first; whether it fell back)."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ProviderError(
            f"{where}: 'labels' must be an object {{route, skill, intents}}", transient=False
        )
    _refuse_unknown(raw, _LABEL_FIELDS, "'labels'", where)
    route, skill, intents = raw.get("route"), raw.get("skill"), raw.get("intents")
    for key, value in (("route", route), ("skill", skill)):
        if value is not None and not isinstance(value, str):
            raise ProviderError(f"{where}: labels.{key} must be a string", transient=False)
    if intents is None:
        intents = []
    if not isinstance(intents, list) or not all(isinstance(i, str) for i in intents):
        raise ProviderError(f"{where}: labels.intents must be a list of strings", transient=False)
    knowledge, fallback = raw.get("knowledge") or [], raw.get("fallback")
    if not isinstance(knowledge, list) or not all(isinstance(i, str) for i in knowledge):
        raise ProviderError(f"{where}: labels.knowledge must be a list of strings", transient=False)
    if fallback is not None and not isinstance(fallback, bool):
        raise ProviderError(f"{where}: labels.fallback must be true or false", transient=False)
    if route is None and skill is None and not intents and not knowledge and fallback is None:
        return None
    return Labels(route=route, skill=skill, intents=intents, knowledge=knowledge, fallback=fallback)


def response_from_body(body: Any, where: str = "http agent") -> ModelResponse:
    """Read an HTTP agent's (or a python: agent's dict) reply.

    A malformed reply — not an object, a field of the wrong type, or a field the contract does
    not know (which would otherwise be dropped without a trace, e.g. ``tool_call`` for
    ``tool_calls`` or a top-level ``route``) — is a non-transient ProviderError.
    """
    if not isinstance(body, dict):
        raise ProviderError(
            f"{where}: expected a JSON object, got {str(body)[:100]}", transient=False
        )
    if "error" in body and not body.get("text") and not body.get("tool_calls"):
        # an error reported in a 200 reply is a failed call, never an (empty) answer
        from ._common import first_bytes

        raise ProviderError(
            f"{where}: the agent replied with an error: {first_bytes(orjson.dumps(body['error']))}",
            transient=False,
        )
    _refuse_unknown(body, REPLY_FIELDS, "the reply", where)
    text = body.get("text")
    if text is not None and not isinstance(text, str):
        text = str(text)
    calls: list[ToolCall] = []
    raw_calls = body.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raise ProviderError(f"{where}: 'tool_calls' must be a list", transient=False)
    for i, raw in enumerate(raw_calls):
        if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
            raise ProviderError(f"{where}: tool_calls[{i}] needs a 'name'", transient=False)
        _refuse_unknown(raw, _CALL_FIELDS, f"tool_calls[{i}]", where)
        calls.append(
            ToolCall(
                name=raw["name"],
                arguments=parse_arguments(raw.get("arguments")),
                id=str(raw["id"]) if raw.get("id") is not None else None,
            )
        )
    reported = body.get("usage") is not None
    usage = body.get("usage") or {}
    if not isinstance(usage, dict):
        raise ProviderError(f"{where}: 'usage' must be an object", transient=False)
    _refuse_unknown(usage, _USAGE_FIELDS, "'usage'", where)
    return ModelResponse(
        message=Message(role="assistant", content=text, tool_calls=calls),
        usage=Usage(
            input_tokens=token_count(usage.get("input_tokens")),
            output_tokens=token_count(usage.get("output_tokens")),
        ),
        usage_reported=reported,
        model=str(body.get("model") or ""),
        finish_reason="tool_calls" if calls else "stop",
        labels=_labels(body.get("labels"), where),
    )


class HttpProvider:
    """POSTs the conversation to ``url`` and reads text and/or tool calls back."""

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        headers: dict[str, str] | None = None,
        timeout_s: float | None = 600.0,
        name: str | None = None,
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise UserError(f"--agent: '{url}' is not an http(s) URL")
        refuse_placeholder(url.split("@")[-1], url=url)
        # a password in the URL and a key in its query string are the user's credentials:
        # scrubbed from everything written, in every form (``_secrets``)
        register_url(url)
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
        if ":" in host.rpartition(":")[0]:  # an IPv6 literal
            host = f"[{parts.hostname}]" + (f":{parts.port}" if parts.port else "")
        # requests go to the URL without its userinfo, which travels as Basic auth instead
        self.url = urlunsplit((parts.scheme, host, parts.path, parts.query, ""))
        # the name never carries credentials or a query string (which may hold a key)
        self.name = name or urlunsplit((parts.scheme, host, parts.path, "", ""))
        all_headers = dict(headers or {})
        secrets: list[str] = [v for v in all_headers.values() if v]
        if token:
            all_headers["Authorization"] = f"Bearer {token}"
            secrets.append(token)
        if parts.username is not None and not any(
            k.lower() == "authorization" for k in all_headers
        ):
            pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
            all_headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
        if parts.password:
            secrets.append(unquote(parts.password))
        self._wire = WireClient(self.name, all_headers, timeout_s=timeout_s, secrets=tuple(secrets))

    def __repr__(self) -> str:
        return f"HttpProvider(name={self.name!r})"

    async def aclose(self) -> None:
        await self._wire.aclose()

    async def generate(self, request: ModelRequest) -> ModelResponse:
        body = await self._wire.post_json(self.url, request_body(request))
        try:
            return response_from_body(body, self.name)
        except MALFORMED as exc:  # e.g. usage {"input_tokens": "many"}: one line on the case
            raise malformed_reply(self.name, exc) from None


def create(rest: str, **options: Any) -> HttpProvider:
    """``http://...`` / ``https://...``; options ``token``, ``headers``, ``timeout_s``."""
    options.pop("base_url", None)
    token = options.pop("token", None) or os.environ.get("AGENTGAUGE_HTTP_TOKEN")
    headers = options.pop("headers", None)
    timeout = options.pop("timeout_s", 600.0)
    name = options.pop("name", None)
    if options:
        raise UserError(f"{rest}: unknown option(s) {sorted(options)}")
    return HttpProvider(
        rest,
        token=token,
        headers=headers,
        timeout_s=None if timeout is None else float(timeout),
        name=name,
    )
