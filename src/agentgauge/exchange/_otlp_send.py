"""Sending traces to an OTLP/HTTP receiver, configured as the OpenTelemetry SDKs configure it.

The body is OTLP/HTTP's default, binary protobuf (``application/x-protobuf``), encoded with the
official ``opentelemetry-proto`` classes (the ``otlp`` extra, imported only when sending), or
OTLP/JSON on request. The environment is read as the SDK specification says:

- ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` is the URL as is; ``OTEL_EXPORTER_OTLP_ENDPOINT`` is a
  base URL that ``/v1/traces`` is appended to (an endpoint given on the command line is read as
  a base URL too, and a URL already ending in ``/v1/traces`` is kept);
- ``OTEL_EXPORTER_OTLP_TRACES_HEADERS`` (else ``OTEL_EXPORTER_OTLP_HEADERS``):
  ``key=value,key2=value2``, each part percent-decoded (``Authorization=Bearer%20tok``);
- ``OTEL_EXPORTER_OTLP_TRACES_TIMEOUT`` / ``OTEL_EXPORTER_OTLP_TIMEOUT``: milliseconds (the
  specification's unit; default 10 s), the most one request may take, as a hard deadline;
- ``OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`` / ``OTEL_EXPORTER_OTLP_PROTOCOL``: ``http/protobuf``
  (default), ``http/json`` or ``grpc`` (``_otlp_grpc``: the endpoint is then used as is);
- ``OTEL_EXPORTER_OTLP_TRACES_COMPRESSION`` / ``OTEL_EXPORTER_OTLP_COMPRESSION``: ``gzip`` or
  ``none``; ``OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE`` / ``_CERTIFICATE``: a CA bundle to trust;
- ``OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE`` / ``_CLIENT_CERTIFICATE`` and
  ``..._CLIENT_KEY``: the client's certificate chain and private key (PEM) for mutual TLS (a
  key alone is refused; a certificate file may hold the key too).

A 429, 502, 503 or 504 (and a dropped connection) is retried with backoff (1, 2, 4 ... s, or
the receiver's ``Retry-After``) as the specification says, within the same timeout; a refused
connection or another status fails at once. A refusal or an error names the URL without its
credentials or query string, and the receiver's reply with every header value replaced by
``***``: header values are never printed.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import unquote, urlsplit

from .. import _secrets
from ..errors import MissingExtraError, UserError

__all__ = [
    "DEFAULT_GRPC_PORT",
    "DEFAULT_TIMEOUT_S",
    "PROTOCOLS",
    "OtlpTarget",
    "encode_request",
    "grpc_address",
    "otlp_target",
    "post_http",
    "shown_url",
    "traces_url",
]

PROTOCOLS: Final = ("http/protobuf", "http/json", "grpc")
DEFAULT_TIMEOUT_S: Final = 10.0
#: the port of an OTLP/gRPC endpoint that names none
DEFAULT_GRPC_PORT: Final = 4317
#: the most of a receiver's reply read (it is only shown in an error)
MAX_REPLY_BYTES: Final = 4096
_TOKEN: Final = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_PREFIX: Final = "OTEL_EXPORTER_OTLP_"


@dataclass(frozen=True, kw_only=True)
class OtlpTarget:
    """Where and how traces are sent (see the module docstring for the environment)."""

    url: str
    headers: tuple[tuple[str, str], ...] = ()
    timeout_s: float = DEFAULT_TIMEOUT_S
    protocol: str = "http/protobuf"
    compression: str = "none"
    #: a CA bundle to verify the receiver's certificate with (None: the system's)
    certificate: str | None = None
    #: mutual TLS: the client certificate chain and its key (PEM files; the key may be in the
    #: certificate file), as ``(variable, path)`` so that an error names the variable
    client_certificate: tuple[str, str] | None = None
    client_key: tuple[str, str] | None = None
    #: where the timeout came from, for the error that names it
    timeout_from: str = "default"

    @property
    def shown(self) -> str:
        return shown_url(self.url)


def shown_url(url: str) -> str:
    """``url`` without credentials, query string or fragment (what messages print)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "<the OTLP endpoint>"
    host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{host}{port}{parts.path}"


def traces_url(endpoint: str, *, what: str = "--otel-endpoint") -> str:
    """``http://host:4318`` -> ``http://host:4318/v1/traces`` (a full ``/v1/traces`` URL stays)."""
    if not endpoint.startswith(("http://", "https://")):
        shown = shown_url(endpoint) if "://" in endpoint else endpoint[:80]
        raise UserError(f"{what}: expected an http:// or https:// URL, got {shown!r}")
    url = endpoint.rstrip("/")
    return url if url.endswith("/v1/traces") else f"{url}/v1/traces"


def _env(environ: Mapping[str, str], name: str) -> tuple[str, str] | None:
    """The traces-specific variable, else the general one: ``(variable, value)``."""
    for var in (f"{_PREFIX}TRACES_{name}", f"{_PREFIX}{name}"):
        value = environ.get(var, "").strip()
        if value:
            return var, value
    return None


def _headers(environ: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    found = _env(environ, "HEADERS")
    if found is None:
        return ()
    var, raw = found
    out: list[tuple[str, str]] = []
    for n, item in enumerate(raw.split(","), start=1):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        name = unquote(key).strip()
        if not sep or not _TOKEN.match(name):
            raise UserError(f"{var}: entry {n}: expected key=value with a header name as key")
        decoded = unquote(value).strip()
        if any(c in decoded for c in "\r\n\0"):
            raise UserError(f"{var}: entry {n} ({name}): the value holds a line break")
        if not decoded.isascii():
            raise UserError(f"{var}: entry {n} ({name}): the value is not ASCII")
        out.append((name.lower(), decoded))
    _secrets.register(*(v for _, v in out))
    return tuple(out)


def _timeout(environ: Mapping[str, str], given: float | None) -> tuple[float, str]:
    if given is not None:
        return given, "--timeout"
    found = _env(environ, "TIMEOUT")
    if found is None:
        return DEFAULT_TIMEOUT_S, "default"
    var, raw = found
    try:
        ms = float(raw)
    except ValueError:
        ms = -1.0
    if not ms > 0 or ms != ms or ms == float("inf"):
        raise UserError(f"{var}: expected a positive number of milliseconds, got {raw[:40]!r}")
    return ms / 1000.0, var


def _choice(environ: Mapping[str, str], name: str, given: str | None, allowed: tuple[str, ...],
            default: str) -> str:  # fmt: skip
    if given is not None:
        value, what = given, f"--{name.lower()}"
    else:
        found = _env(environ, name)
        if found is None:
            return default
        what, value = found
    value = value.strip().lower()
    if value not in allowed:
        raise UserError(f"{what}: expected one of {', '.join(allowed)}, got {value[:40]!r}")
    return value


def grpc_address(url: str, what: str) -> tuple[str, bool]:
    """``("host:port", tls)`` of an ``http://`` or ``https://`` gRPC endpoint."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise UserError(f"{what}: not a valid URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UserError(
            f"{what}: an OTLP/gRPC endpoint is http://HOST:PORT (plain) or https://HOST:PORT (TLS)"
        )
    if parts.username or parts.password:
        raise UserError(f"{what}: credentials in the URL are not sent (use the headers)")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{host}:{port or DEFAULT_GRPC_PORT}", parts.scheme == "https"


def _grpc_endpoint(endpoint: str | None, env: Mapping[str, str]) -> str | None:
    """The OTLP/gRPC endpoint, used as is (gRPC has no ``/v1/traces`` path), checked."""
    if endpoint is not None:
        url, what = endpoint.strip(), "--endpoint"
    else:
        found = _env(env, "ENDPOINT")
        if found is None:
            return None
        what, url = found
    grpc_address(url, what)
    return url


def otlp_target(
    endpoint: str | None = None,
    *,
    protocol: str | None = None,
    timeout_s: float | None = None,
    environ: Mapping[str, str] | None = None,
) -> OtlpTarget | None:
    """The target for ``endpoint`` (a base URL) or, without one, for the environment's
    endpoint; None when neither names one. Raises :class:`UserError` for a bad setting."""
    env = os.environ if environ is None else environ
    chosen = _choice(env, "PROTOCOL", protocol, PROTOCOLS, "http/protobuf")
    if chosen == "grpc":
        found_grpc = _grpc_endpoint(endpoint, env)
        if found_grpc is None:
            return None
        url = found_grpc
    elif endpoint is not None:
        url = traces_url(endpoint)
    elif (found := env.get(f"{_PREFIX}TRACES_ENDPOINT", "").strip()) != "":
        url = found
        traces_url(found, what=f"{_PREFIX}TRACES_ENDPOINT")  # the same URL check
    elif (base := env.get(f"{_PREFIX}ENDPOINT", "").strip()) != "":
        url = traces_url(base, what=f"{_PREFIX}ENDPOINT")
    else:
        return None
    timeout, timeout_from = _timeout(env, timeout_s)
    cert = _env(env, "CERTIFICATE")
    client_cert, client_key = _env(env, "CLIENT_CERTIFICATE"), _env(env, "CLIENT_KEY")
    if client_key is not None and client_cert is None:
        raise UserError(
            f"{client_key[0]}: a client key without {_PREFIX}CLIENT_CERTIFICATE (mutual TLS "
            "needs the certificate too)"
        )
    return OtlpTarget(
        url=url,
        headers=_headers(env),
        timeout_s=timeout,
        timeout_from=timeout_from,
        protocol=chosen,
        compression=_choice(env, "COMPRESSION", None, ("gzip", "none"), "none"),
        certificate=cert[1] if cert else None,
        client_certificate=client_cert,
        client_key=client_key,
    )


# ------------------------------------------------------------------------------ encoding


def _ids_as_base64(doc: Any) -> Any:
    """OTLP/JSON's hex ids as the base64 that protobuf's JSON mapping expects for bytes."""
    if isinstance(doc, dict):
        out = {}
        for key, value in doc.items():
            if key in ("traceId", "spanId", "parentSpanId") and isinstance(value, str):
                out[key] = base64.b64encode(bytes.fromhex(value)).decode()
            else:
                out[key] = _ids_as_base64(value)
        return out
    if isinstance(doc, list):
        return [_ids_as_base64(v) for v in doc]
    return doc


def encode_request(doc: Mapping[str, Any], protocol: str) -> tuple[bytes, str]:
    """An OTLP/JSON ``ExportTraceServiceRequest`` as the body for ``protocol``:
    ``(body, content type)``; protobuf through the official ``opentelemetry-proto`` classes."""
    if protocol == "http/json":
        return json.dumps(doc, ensure_ascii=False).encode(), "application/json"
    try:
        from google.protobuf import json_format
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
    except ImportError:
        raise MissingExtraError("opentelemetry-proto", "otlp") from None
    message = trace_service_pb2.ExportTraceServiceRequest()
    json_format.ParseDict(_ids_as_base64(doc), message)
    return message.SerializeToString(), "application/x-protobuf"


# ------------------------------------------------------------------------------ sending


def _hide(text: str, target: OtlpTarget) -> str:
    """``text`` with every header value (whole, percent-encoded, and each word of it) as
    ``***``, then the process-wide secret scrub."""
    forms: set[str] = set()
    for _, value in target.headers:
        from urllib.parse import quote

        forms |= {value, quote(value, safe=""), quote(value)}
        forms |= {w for w in value.split() if len(w) >= 3}
    for form in sorted((f for f in forms if len(f) >= 2), key=len, reverse=True):
        text = text.replace(form, _secrets.REDACTED)
    return _secrets.scrub(text)


def _spans_in(doc: Mapping[str, Any]) -> int:
    return sum(len(ss["spans"]) for rs in doc["resourceSpans"] for ss in rs["scopeSpans"])


#: statuses the specification says to retry (with backoff, within the timeout)
RETRYABLE: Final = frozenset({429, 502, 503, 504})


@dataclass(frozen=True, slots=True)
class _Refused:
    status: int
    text: str
    #: seconds the receiver asked to wait (``Retry-After``), when it did
    retry_after: float | None = None


async def _post_one(
    client: Any, target: OtlpTarget, body: bytes, headers: dict[str, str]
) -> _Refused | None:
    async with client.stream("POST", target.url, content=body, headers=headers) as response:
        if response.status_code < 300:
            return None
        reply = b""
        async for chunk in response.aiter_bytes():
            reply += chunk
            if len(reply) >= MAX_REPLY_BYTES:
                break
        wait = response.headers.get("retry-after", "")
    after = float(wait) if wait.strip().isdigit() else None
    return _Refused(response.status_code, reply[:200].decode("utf-8", "replace"), after)


def _refusal(target: OtlpTarget, refused: _Refused) -> UserError:
    hint = ""
    if refused.status == 415:
        other = "http/json" if target.protocol == "http/protobuf" else "http/protobuf"
        hint = f" (the receiver does not take {target.protocol}: try --protocol {other})"
    return UserError(
        f"{target.shown}: OTLP export failed: HTTP {refused.status} "
        f"{_hide(repr(refused.text), target)}{hint}"
    )


async def _send(client: Any, target: OtlpTarget, body: bytes, headers: dict[str, str]) -> None:
    """One document: retried on 429 / 502 / 503 / 504 and on a dropped connection, with
    backoff (1, 2, 4 ... s, or the receiver's ``Retry-After``), all within the timeout."""
    import ssl

    import anyio
    import httpx

    deadline = anyio.current_time() + target.timeout_s
    delay = 1.0
    last: _Refused | None = None
    while True:
        try:
            with anyio.fail_after(max(0.0, deadline - anyio.current_time())):
                refused = await _post_one(client, target, body, headers)
        except TimeoutError:
            if last is not None:  # it kept refusing until the time was up
                raise _refusal(target, last) from None
            raise UserError(
                f"{target.shown}: OTLP export failed: no answer within "
                f"{target.timeout_s:g} s (timeout from {target.timeout_from})"
            ) from None
        except httpx.HTTPError as err:
            if not isinstance(err, httpx.TransportError) or isinstance(err, httpx.ConnectError):
                reason = _hide(f"{type(err).__name__}: {err}", target)
                raise UserError(f"{target.shown}: OTLP export failed: {reason}") from None
            refused = _Refused(0, f"{type(err).__name__}: {err}")
        except ssl.SSLError as err:  # e.g. the receiver's alert after the handshake (TLS 1.3)
            reason = _hide(f"TLS: {_why(err)}", target)
            raise UserError(f"{target.shown}: OTLP export failed: {reason}") from None
        if refused is None:
            return
        last = refused if refused.status else last
        wait = max(0.1, refused.retry_after if refused.retry_after is not None else delay)
        retryable = refused.status in RETRYABLE or refused.status == 0
        if not retryable or anyio.current_time() + wait >= deadline:
            if refused.status == 0:
                reason = _hide(refused.text, target)
                raise UserError(f"{target.shown}: OTLP export failed: {reason}")
            raise _refusal(target, refused)
        await anyio.sleep(wait)
        delay *= 2


def _tls(target: OtlpTarget) -> Any:
    """httpx's ``verify``: True (the system's CAs), or an SSL context trusting the CA bundle
    and, for mutual TLS, holding the client's certificate and key. A file that cannot be used
    is a one-line error naming its variable (never the key's contents)."""
    if target.certificate is None and target.client_certificate is None:
        return True
    import ssl

    for found in (target.client_certificate, target.client_key):
        if found is not None and not os.path.isfile(found[1]):
            raise UserError(f"{found[0]}: no such file: {found[1]}")
    try:
        context = ssl.create_default_context(cafile=target.certificate)
    except (OSError, ssl.SSLError) as err:
        raise UserError(f"{_PREFIX}CERTIFICATE: cannot use the CA bundle: {_why(err)}") from None
    if target.client_certificate is None:
        return context
    var, path = target.client_certificate
    key = target.client_key[1] if target.client_key is not None else None
    try:
        # an encrypted key gets an empty password (an error) instead of OpenSSL's terminal prompt
        context.load_cert_chain(path, key, password=lambda: b"")
    except (OSError, ssl.SSLError) as err:
        raise UserError(
            f"{var}: cannot use the client certificate and key: {_why(err)} (a PEM certificate "
            "chain and the private key that matches it, unencrypted)"
        ) from None
    return context


def _why(err: BaseException) -> str:
    text = getattr(err, "reason", None) or getattr(err, "strerror", None) or str(err)
    return str(text).splitlines()[0][:200] if str(text) else type(err).__name__


async def _post_all(documents: Iterable[Mapping[str, Any]], target: OtlpTarget) -> int:
    import httpx

    verify: Any = _tls(target)
    base = dict(target.headers)
    sent = 0
    async with httpx.AsyncClient(timeout=target.timeout_s, verify=verify) as client:
        for doc in documents:
            body, content_type = encode_request(doc, target.protocol)
            headers = {**base, "Content-Type": content_type}
            if target.compression == "gzip":
                body, headers["Content-Encoding"] = gzip.compress(body), "gzip"
            await _send(client, target, body, headers)
            sent += _spans_in(doc)
    return sent


def post_http(documents: Iterable[Mapping[str, Any]], target: OtlpTarget) -> int:
    """POST each OTLP/JSON document to ``target`` (encoded for its protocol); the number of
    spans sent. Each request gets at most ``target.timeout_s`` seconds, however the receiver
    behaves. Raises :class:`UserError` when it cannot be reached, refuses or does not answer."""
    import anyio

    return anyio.run(_post_all, documents, target)
