"""Endpoints that would receive the user's credentials, and the rule that keeps a suite or a run
directory from choosing one.

An agent or judge spec of a vendor API sends a credential of the user's environment
(``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``AGENTGAUGE_HTTP_TOKEN`` ...) to an endpoint: the
vendor's own, one the user named (``--base-url``, ``OPENAI_BASE_URL`` ...), or one the spec and its
options name (``openai:m?base_url=...``, a matrix entry's ``options.base_url``, ``options.base_url``
of a run.json, an ``http://`` agent's URL). When a suite or a run directory named the endpoint and
a credential of the user's would go there, it is refused unless

- the user opted in: ``--allow-suite-endpoints``, ``AGENTGAUGE_ALLOW_SUITE_ENDPOINTS=1``,
  ``allow_suite_endpoints = true`` in the user's config file, or the endpoint listed there
  (``allow_suite_endpoints = ["http://gpu-box:8000/v1"]``);
- or the user named the same endpoint (``OPENAI_BASE_URL`` ...).

It is allowed when no credential of the user's would be sent (none is set, or the spec brings a
key of its own). An endpoint that is not a plain ``http(s)://host[:port]/path`` URL (a user name or
password in it, a backslash, ``%``, spaces or control characters in the host part, another
scheme) is refused whatever the opt-in when a credential would go there: two URL parsers could
disagree about its host. Nothing here opens a connection or imports a provider.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal
from urllib.parse import parse_qsl, urlsplit

from .._secrets import scrub
from ._optin import ENDPOINTS_CONFIG_KEY, ENDPOINTS_ENV_VAR, ENDPOINTS_FLAG

__all__ = ["EndpointUse", "Verdict", "connector_use", "endpoint_use", "shown_url"]

Verdict = Literal["allowed", "needs opt-in", "refused"]


@dataclass(frozen=True, slots=True)
class _Vendor:
    """Where a vendor's provider takes its endpoint and credential from: options, environment."""

    #: options that set the endpoint, the first one set wins (as in the provider's factory)
    endpoint_options: tuple[str, ...]
    #: options that give the spec a credential of its own
    key_options: tuple[str, ...]
    #: environment variables holding the user's credential, the first one set is used
    env_keys: tuple[str, ...]
    #: environment variables naming the user's own endpoint
    env_endpoints: tuple[str, ...]
    #: the vendor's endpoint when none is named
    default: str | None
    #: credentials the vendor's SDK reads from the environment whatever the options say
    env_always: tuple[str, ...] = ()


_VENDORS: dict[str, _Vendor] = {
    "openai": _Vendor(
        ("base_url",), ("api_key",), ("OPENAI_API_KEY",), ("OPENAI_BASE_URL",),
        "https://api.openai.com/v1",
    ),
    "azure": _Vendor(
        ("endpoint", "base_url"), ("api_key",), ("AZURE_OPENAI_API_KEY",),
        ("AZURE_OPENAI_ENDPOINT",), None, ("AZURE_OPENAI_AD_TOKEN",),
    ),
    "anthropic": _Vendor(
        ("base_url",), ("api_key",), ("ANTHROPIC_API_KEY",), ("ANTHROPIC_BASE_URL",),
        "https://api.anthropic.com", ("ANTHROPIC_AUTH_TOKEN",),
    ),
    "gemini": _Vendor(
        ("base_url",), ("api_key",), ("GEMINI_API_KEY", "GOOGLE_API_KEY"), (),
        "https://generativelanguage.googleapis.com",
    ),
    # an http(s):// agent: the endpoint is the spec itself
    "http": _Vendor((), ("token", "headers"), ("AGENTGAUGE_HTTP_TOKEN",), (), None),
}  # fmt: skip


@dataclass(frozen=True, kw_only=True, slots=True)
class EndpointUse:
    """Where one agent or judge spec would send a credential of the user's, and the verdict."""

    #: the spec as written (secrets scrubbed)
    spec: str
    #: the provider prefix (``openai``, ``http`` ...)
    provider: str
    #: the endpoint it would contact (query and user name left out)
    url: str
    #: who named the endpoint when not the user (the file and field), else None
    named_by: str | None
    #: the credential of the user's that would go there (an environment variable, or "the
    #: caller's api_key"), None: none
    credential: str | None
    verdict: Verdict
    #: why it needs the opt-in or is refused (None: allowed)
    problem: str | None = None


#: what a host may hold in an endpoint a suite names: letters, digits, dots, dashes (a name or
#: an IPv4 address), or an IPv6 address in brackets
_HOST = re.compile(r"[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]")
_PORT = re.compile(r"[0-9]{1,5}")


def _plain_url_problem(url: str) -> str | None:
    """Why ``url`` is not a plain ``http(s)://host[:port]/path`` URL (None: it is)."""
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url) or "\\" in url:
        return "it holds spaces, control characters or a backslash"
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.lower() not in ("http", "https"):
        return "it is not an http:// or https:// URL"
    netloc = rest.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    if "@" in netloc:
        return "it names a user or password before the host"
    host, port = netloc, ""
    if netloc.startswith("["):
        host, bracket, tail = netloc.partition("]")
        if not bracket:
            return f"its host part '{netloc}' is not a host name or address"
        host += "]"
        if tail and not tail.startswith(":"):
            return f"its host part '{netloc}' is not a host name or address"
        port = tail[1:]
    elif ":" in netloc:
        host, _, port = netloc.rpartition(":")
    if not host or not _HOST.fullmatch(host) or (port and not _PORT.fullmatch(port)):
        return f"its host part '{netloc}' is not a host name or address"
    return None


def shown_url(url: str) -> str:
    """``url`` without its query, fragment and user name (what messages show)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return scrub(url.split("?", 1)[0])
    netloc = parts.netloc.rpartition("@")[2]
    return scrub(f"{parts.scheme}://{netloc}{parts.path}" if parts.scheme else url.split("?")[0])


def _origin(url: str) -> tuple[str, str, int, str] | None:
    """(scheme, host, port, path) of a plain URL, the host canonical (an IP address in its
    shortest form, a name in lower case); None when it does not parse."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if scheme not in ("http", "https") or not host:
        return None
    with contextlib.suppress(ValueError):
        host = str(ipaddress.ip_address(host))
    return scheme, host, port or (443 if scheme == "https" else 80), parts.path.rstrip("/")


def _same_or_under(url: str, allowed: str) -> bool:
    """Whether ``url`` is the endpoint ``allowed`` or a path under it."""
    a, b = _origin(url), _origin(allowed)
    if a is None or b is None or a[:3] != b[:3]:
        return False
    return a[3] == b[3] or a[3].startswith(b[3] + "/") or not b[3]


def _options(
    spec_query: str, spec_by: str | None, options: Mapping[str, object], by: Mapping[str, str]
) -> dict[str, tuple[object, str | None]]:
    """The options a provider factory would see, each with who named it (None: the user):
    the spec's query first, explicit options over it (as ``split_options`` merges them)."""
    merged: dict[str, tuple[object, str | None]] = {}
    for key, text in parse_qsl(spec_query, keep_blank_values=True):
        merged[key.replace("-", "_")] = (text, spec_by)
    for key, value in options.items():
        merged[key] = (value, by.get(key))
    return merged


def _first_set(
    merged: Mapping[str, tuple[object, str | None]], names: tuple[str, ...]
) -> tuple[str, object, str | None] | None:
    for name in names:
        value, who = merged.get(name, (None, None))
        if value:  # the factories use `or`: an empty value falls through
            return name, value, who
    return None


def _credential(vendor: _Vendor, merged: Mapping[str, tuple[object, str | None]]) -> str | None:
    """The user's credential the provider would send (None: none of the user's)."""
    always = next((v for v in vendor.env_always if os.environ.get(v)), None)
    own = _first_set(merged, vendor.key_options)
    if own is not None:
        return f"the {own[0]} you gave" if own[2] is None else always
    return next((v for v in vendor.env_keys if os.environ.get(v)), None) or always


def endpoint_use(
    spec: str,
    *,
    kind: str,
    spec_by: str | None,
    options: Mapping[str, object] | None = None,
    options_by: Mapping[str, str] | None = None,
    opt_in: bool | tuple[str, ...],
) -> EndpointUse | None:
    """Where ``spec`` (with ``options``) would send a credential of the user's, with the verdict
    of the rule; None: its provider sends none of the user's environment (``mock:``, ``local:``,
    ``python:`` ...). ``spec_by`` / ``options_by``: who named the spec / each option when not the
    user (``suite.yaml: defaults.agent``), None: the user. ``opt_in``: the user's opt-in."""
    prefix, sep, rest = spec.partition(":")
    key = "http" if prefix in ("http", "https") else prefix
    vendor = _VENDORS.get(key)
    if not sep or vendor is None:
        return None
    target, _, query = (spec if key == "http" else rest).partition("?")
    merged = _options(query if key != "http" else "", spec_by, options or {}, options_by or {})
    named = _first_set(merged, vendor.endpoint_options)
    user_urls = [os.environ[v] for v in vendor.env_endpoints if os.environ.get(v)]
    if key == "http":
        url, by = target, spec_by
    elif named is not None:
        url, by = str(named[1]), named[2]
    else:
        url, by = (user_urls[0] if user_urls else vendor.default or ""), None
    use = EndpointUse(
        spec=scrub(spec),
        provider=key,
        url=shown_url(url),
        named_by=by,
        credential=_credential(vendor, merged),
        verdict="allowed",
    )
    if by is None or use.credential is None or any(_same_or_under(url, u) for u in user_urls):
        return use
    return _judged(use, url, kind, opt_in)


def _judged(use: EndpointUse, url: str, kind: str, opt_in: bool | tuple[str, ...]) -> EndpointUse:
    """``use`` (a named endpoint that would receive a credential of the user's) judged."""
    from dataclasses import replace

    head = (
        f"{kind} '{use.spec}': it would send your {use.credential} to {use.url}, an endpoint "
        "a suite or run directory names, not you"
    )
    bad = _plain_url_problem(url)
    if bad is not None:
        return replace(
            use, verdict="refused", problem=f"{head}: refused whatever the opt-in: {bad}"
        )
    if opt_in is True or (
        isinstance(opt_in, tuple) and any(_same_or_under(url, a) for a in opt_in)
    ):
        return use
    return replace(
        use,
        verdict="needs opt-in",
        problem=(
            f"{head}; your credentials go only to endpoints you name (--base-url, "
            f"the provider's environment variable): pass {ENDPOINTS_FLAG} (or set "
            f"{ENDPOINTS_ENV_VAR}=1, or list the URL in {ENDPOINTS_CONFIG_KEY} of your config "
            "file) to send it there"
        ),
    )


def _vendor_key_vars() -> frozenset[str]:
    """Every environment variable a provider reads a credential of the user's from."""
    return frozenset(
        v for vendor in _VENDORS.values() for v in (*vendor.env_keys, *vendor.env_always)
    )


def connector_use(
    name: str, url: str, token_env: str | None, *, opt_in: bool | tuple[str, ...]
) -> EndpointUse | None:
    """The verdict on a suite's remote MCP server (``mcp_servers:``), whose URL the vendor's API
    calls with the token in ``token_env``: None when no token of the user's goes there; refused
    whatever the opt-in when ``token_env`` is a vendor's API key variable (a suite may not hand
    ``OPENAI_API_KEY`` to a server) or the URL is not plain; else the endpoint rule (the user's
    opt-in, or the URL listed in the user's config)."""
    if token_env is None:
        return None
    use = EndpointUse(
        spec=scrub(name),
        provider="mcp",
        url=shown_url(url),
        named_by="the suite's mcp_servers",
        credential=token_env,
        verdict="allowed",
    )
    if token_env in _vendor_key_vars():
        from dataclasses import replace

        return replace(
            use,
            verdict="refused",
            problem=(
                f"MCP server '{use.spec}': token_env {token_env} is an API key of yours; a "
                "suite may not send it to an MCP server (refused whatever the opt-in)"
            ),
        )
    return _judged(use, url, "MCP server", opt_in)
