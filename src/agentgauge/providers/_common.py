"""Helpers every adapter shares: secret redaction, tool-argument parsing, error mapping."""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar
from urllib.parse import parse_qsl

import orjson

from .._secrets import register, register_env, register_url
from .._secrets import scrub as scrub_registered
from ..errors import MissingExtraError, ProviderError, UserError

__all__ = [
    "RAW_ARGUMENTS_KEY",
    "SECRET_ENV_VARS",
    "SdkProvider",
    "error_from_status",
    "first_bytes",
    "malformed_reply",
    "parse_arguments",
    "parse_retry_after",
    "redact",
    "require",
    "split_options",
    "token_count",
]

#: when a model's tool-call arguments are not a JSON object, they are kept verbatim under this
#: key (``{"__raw_arguments__": "{\"city\": \"Par"}``) so scorers can report the malformed call
RAW_ARGUMENTS_KEY = "__raw_arguments__"

#: environment variables whose values are secrets: scrubbed from every error message
SECRET_ENV_VARS = (
    "OPENAI_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "AGENTGAUGE_HTTP_TOKEN",
)

# key-shaped substrings (OpenAI/Anthropic "sk-...", Google "AIza...", bearer tokens, key= params)
_SECRET_PATTERNS = re.compile(
    r"(?P<sk>\bsk-[A-Za-z0-9_\-]{12,})"
    r"|(?P<aiza>\bAIza[0-9A-Za-z_\-]{20,})"
    r"|(?P<bearer>(?i:bearer)\s+[A-Za-z0-9._~+/=\-]{8,})"
    r"|(?P<param>(?i:\b(?:api[_-]?key|key|token|x-goog-api-key)\s*[=:]\s*)[\"']?)(?P<val>[A-Za-z0-9._~+/\-]{8,})"
)

REDACTED = "***"


def register_secret(*values: str | None) -> None:
    """Treat each value as a secret from now on, in this process: it is scrubbed (as ``***``,
    in every encoding agentgauge knows: raw, JSON- and HTML-escaped, percent-encoded, base64)
    from everything agentgauge writes or prints — results, reports, caches, logs, exports.
    For a credential agentgauge cannot know of (a key your ``python:`` agent reads from a
    file, a tenant token in a header). Values under 4 characters are ignored, 4–7 are scrubbed
    only as a whole token (docs/providers.md)."""
    register(*values)


def register_secret_url(url: str | None) -> None:
    """Treat the credentials inside ``url`` as secrets (:func:`register_secret`): the password
    of its userinfo and the values of key-like query parameters (``?api_key=...``)."""
    register_url(url)


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """Remove API keys from ``text``: the given secrets and those of the environment are
    registered with ``agentgauge._secrets`` (the one redaction point: every form, the length
    rule) and scrubbed, then anything shaped like a key (``sk-...``, ``AIza...``,
    ``Bearer ...``, ``api_key=...``) is replaced too."""
    register_env()
    register(*secrets)
    text = scrub_registered(text)

    def scrub(m: re.Match[str]) -> str:
        if m.group("param") is not None:
            return m.group("param") + REDACTED
        if m.group("bearer") is not None:
            return "Bearer " + REDACTED
        return REDACTED

    return _SECRET_PATTERNS.sub(scrub, text)


def first_bytes(data: bytes | str, secrets: Iterable[str | None] = (), n: int = 200) -> str:
    """The start of a reply body for an error message: one line, shortened, redacted."""
    head = data[:4096]
    text = head.decode(errors="replace") if isinstance(head, bytes) else head
    # redacted before it is shortened: a cut must not leave the first half of a key behind
    text = " ".join(redact(text, secrets).split())
    short = text[:n] + ("..." if len(text) > n or len(data) > 4096 else "")
    return repr(short) if short else "an empty body"


def parse_arguments(raw: Any) -> dict[str, Any]:
    """Tool-call arguments as a dict, whatever the model sent.

    A JSON object string is parsed; an empty string or ``None`` is ``{}``; anything else
    (truncated JSON, a JSON list, plain text) is kept verbatim under :data:`RAW_ARGUMENTS_KEY`
    so that it is visible to scorers and never crashes the run.
    """
    if isinstance(raw, dict):
        return raw
    if raw is None:
        return {}
    if isinstance(raw, str | bytes):
        if not raw.strip():
            return {}
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return {
                RAW_ARGUMENTS_KEY: raw if isinstance(raw, str) else raw.decode(errors="replace")
            }
        if isinstance(value, dict):
            return value
        return {RAW_ARGUMENTS_KEY: raw if isinstance(raw, str) else raw.decode(errors="replace")}
    return {RAW_ARGUMENTS_KEY: orjson.dumps(raw, default=str).decode()}


#: what reading a reply of the wrong shape raises inside an adapter's converters
MALFORMED = (ValueError, TypeError, AttributeError, KeyError, IndexError)

#: a token count above this is not a count (a server sending nonsense)
_MAX_TOKENS = 10**12


def token_count(value: Any) -> int:
    """A usage field as a token count: absent is 0; anything but a non-negative integer (or a
    float or digit string holding one) is a ValueError, read as a malformed reply."""
    if value is None or value == "":
        return 0
    if isinstance(value, bool):
        raise ValueError(f"a token count must be an integer, not {value!r}")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    elif isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if not isinstance(value, int) or not 0 <= value <= _MAX_TOKENS:
        raise ValueError(
            f"a token count must be an integer from 0 to 10**12, not {str(value)[:40]!r}"
        )
    return value


def malformed_reply(provider: str, exc: BaseException) -> ProviderError:
    """A reply the adapter could not read (a field of the wrong type or shape), as one line."""
    errors = getattr(exc, "errors", None)
    detail = ""
    if callable(errors):  # a pydantic ValidationError: its first problem
        try:
            first = errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            detail = f"{where}: {first.get('msg', '')}" if where else str(first.get("msg", ""))
        except (TypeError, IndexError, AttributeError):
            detail = ""
    if not detail:
        lines = str(exc).strip().splitlines()
        detail = lines[0] if lines else ""
    detail = " ".join(redact(detail).split())[:200]
    return ProviderError(
        f"{provider}: the reply could not be read ({type(exc).__name__}"
        + (f": {detail})" if detail else ")"),
        transient=False,
    )


def parse_retry_after(
    headers: Mapping[str, str] | None, *, now: float | None = None
) -> float | None:
    """Seconds to wait from ``Retry-After`` (seconds or an HTTP date) or ``retry-after-ms``."""
    if not headers:
        return None
    ms = headers.get("retry-after-ms") or headers.get("Retry-After-Ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after") or headers.get("Retry-After")
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    import email.utils  # only for an HTTP date (a one-case run never needs the email package)

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def error_from_status(
    provider: str,
    status: int,
    body: str | bytes = b"",
    headers: Mapping[str, str] | None = None,
    *,
    secrets: Iterable[str | None] = (),
) -> ProviderError:
    """A ProviderError for an HTTP failure, with the server's message (redacted, shortened)."""
    text = body.decode(errors="replace") if isinstance(body, bytes) else body
    detail = text
    try:
        parsed = orjson.loads(text) if text else None
    except orjson.JSONDecodeError:
        parsed = None
    if isinstance(parsed, dict):
        err = parsed.get("error", parsed)
        if isinstance(err, dict) and err.get("message"):
            detail = str(err["message"])
        elif isinstance(err, str):
            detail = err
    detail = " ".join(detail.split())[:300]
    message = redact(f"{provider}: HTTP {status}" + (f": {detail}" if detail else ""), secrets)
    return ProviderError(message, status=status, retry_after=parse_retry_after(headers))


def require(module: str, package: str, extra: str) -> Any:
    """Import an optional dependency or raise a MissingExtraError naming the pip command."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(package, extra) from None


class SdkProvider:
    """State shared by the adapters built on a vendor SDK: model, name, key, endpoint, client.

    Subclasses set ``prefix`` (the spec prefix) and ``sdk`` (module, pip package, extra: imported
    at construction, so a missing extra fails early with the pip command) and create their SDK
    client lazily in ``_client``; the key stays private and never appears in ``name`` or ``repr``.
    """

    prefix: ClassVar[str]
    sdk: ClassVar[tuple[str, str, str]]

    def __init__(
        self,
        model: str,
        *,
        api_key: str,
        base_url: str | None = None,
        timeout_s: float | None = 600.0,
    ) -> None:
        self.model = model
        self.name = f"{self.prefix}:{model}"
        self._api_key = api_key
        register(api_key)  # scrubbed from everything agentgauge writes
        register_url(base_url)  # and a password or key inside the endpoint's URL
        #: the endpoint when not the vendor's default (part of the runner's cache key)
        self.base_url = base_url
        self._timeout_s = timeout_s
        self._client: Any = None
        self._sdk = require(*self.sdk)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def refuse_placeholder(where: str, key: str | None = None, url: str | None = None) -> None:
    """A key or URL password that is ``***`` is what agentgauge records in place of a secret
    (run.json, matrix.json): sending it would fail with a confusing 401. A UserError instead."""
    from urllib.parse import unquote, urlsplit

    password = None
    if url and "@" in url:
        try:
            password = urlsplit(url).password
        except ValueError:
            password = None
    if key == REDACTED or (password is not None and unquote(password) == REDACTED):
        what = "key" if key == REDACTED else "URL's password"
        raise UserError(
            f"{where}: the {what} is '***', the placeholder agentgauge records instead of a "
            "secret (a resumed run.json?): give the real one again (--agent, --judge, "
            "--base-url or the environment)"
        )


def split_options(rest: str, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Split ``MODEL?key=value&...`` into the model and options (explicit options win)."""
    model, sep, query = rest.partition("?")
    merged: dict[str, Any] = {}
    if sep:
        for key, value in parse_qsl(query, keep_blank_values=True):
            merged[key.replace("-", "_")] = value
    merged.update(options)
    if not model:
        raise UserError("--agent: the spec needs a model name, e.g. 'openai:gpt-4o-mini'")
    for name in ("base_url", "endpoint"):
        refuse_placeholder(f"model '{model}'", url=str(merged.get(name) or ""))
    refuse_placeholder(f"model '{model}'", key=merged.get("api_key"))
    return model, merged


def as_bool(value: Any) -> bool:
    """An option value from a spec query string (``1``/``true``/``yes``) or Python."""
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


def sdk_error(
    provider: str, exc: BaseException, secrets: Iterable[str | None] = ()
) -> ProviderError:
    """Map a vendor SDK exception to a ProviderError: HTTP status (``status_code`` or ``code``),
    ``Retry-After`` from the response headers, connection errors and timeouts as transient; a
    reply over the body cap (``_bodycap``, wrapped by the SDK) as a non-transient error."""
    from ._bodycap import too_large_in

    too_large = too_large_in(exc)
    if too_large is not None:
        return too_large.as_provider_error(provider)
    response = getattr(exc, "response", None)
    status = getattr(exc, "status_code", None)
    if not isinstance(status, int):
        status = getattr(exc, "code", None)
    if isinstance(status, int) and 100 <= status < 600:
        headers = getattr(response, "headers", None)
        try:
            body: str | bytes = getattr(response, "content", b"") or b""
            if not isinstance(body, str | bytes):
                body = b""
        except Exception:  # a streamed response whose body was not read
            body = b""
        if not body:
            body = str(exc)
        return error_from_status(provider, status, body, headers, secrets=secrets)
    kind = type(exc).__name__
    detail = redact(f"{kind}: {exc}", secrets)
    if "Timeout" in kind or "Connection" in kind or isinstance(exc, OSError | TimeoutError):
        return ProviderError(f"{provider}: connection failed: {detail}", transient=True)
    return ProviderError(f"{provider}: {detail}", transient=False)
