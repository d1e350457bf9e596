"""The one place where secrets are scrubbed from everything agentgauge writes or prints.

A process-wide registry holds the values of every configured secret: the API keys and tokens in
the environment (the provider variables, any ``*_API_KEY`` / ``*_TOKEN`` / ``*_SECRET`` variable,
``AGENTGAUGE_*`` keys), and the keys a provider was given in its spec, options or headers
(providers :func:`register` them when they resolve a key). Every writer asks this module before
bytes reach disk or a terminal: the results journal, the response cache, ``run.json``,
``summary.json``, every report format, the console and the CLI's error lines. A secret is
replaced by ``***`` wherever it appears, also inside a model's answer, a ``model`` field or tool
arguments that a server echoed back.

The scrub is a no-op when nothing is registered; otherwise a ``bytes in`` test per secret
variant and a ``replace`` only where one occurs, over the serialised line.
"""

from __future__ import annotations

import html
import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import IO, Any

__all__ = [
    "REDACTED",
    "ScrubbingStream",
    "register",
    "register_env",
    "registered",
    "scrub",
    "scrub_bytes",
]

REDACTED = "***"
_REDACTED_B = REDACTED.encode()
#: shorter values are not treated as secrets (``1``, ``true``, ``none`` would wreck every line)
MIN_LENGTH = 8

#: environment variables holding secrets: the providers' own, and any name shaped like a key
_ENV_NAMES = frozenset(
    {
        "OPENAI_API_KEY",
        "AZURE_OPENAI_API_KEY",
        "AZURE_OPENAI_AD_TOKEN",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "AGENTGAUGE_HTTP_TOKEN",
    }
)
_ENV_PATTERN = re.compile(
    r"(?:^|_)(?:API_?KEY|TOKEN|SECRET|SECRET_KEY|ACCESS_KEY|AUTH_KEY|PASSWORD)$"
    r"|^AGENTGAUGE_\w*(?:KEY|TOKEN|SECRET)",
    re.IGNORECASE,
)
#: request header names whose values are credentials
CREDENTIAL_HEADER = re.compile(r"auth|key|token|secret|cookie|password|credential", re.I)

_lock = threading.Lock()
_values: set[str] = set()
# the forms a secret takes in what is written: as is, JSON-escaped, HTML-escaped; longest first
_text: tuple[str, ...] = ()
_bytes: tuple[bytes, ...] = ()


def _variants(value: str) -> set[str]:
    import orjson

    out = {value, html.escape(value, quote=True), html.escape(value, quote=False)}
    out.add(orjson.dumps(value).decode()[1:-1])
    return out


def register(*values: str | None) -> None:
    """Treat each value as a secret from now on (shorter than 8 characters: ignored)."""
    global _text, _bytes
    new = {v.strip() for v in values if v and len(v.strip()) >= MIN_LENGTH} - _values
    if not new:
        return
    with _lock:
        _values.update(new)
        forms: set[str] = set()
        for value in _values:
            forms |= _variants(value)
        ordered = sorted(forms, key=len, reverse=True)
        _text = tuple(ordered)
        _bytes = tuple(f.encode() for f in ordered)


def is_secret_env_name(name: str) -> bool:
    """Whether an environment variable of that name holds a secret."""
    return name.upper() in _ENV_NAMES or _ENV_PATTERN.search(name) is not None


def register_env(environ: Mapping[str, str] | None = None) -> None:
    """Register the value of every secret-named environment variable (see the module doc)."""
    env = os.environ if environ is None else environ
    register(*(value for name, value in env.items() if is_secret_env_name(name)))


def registered() -> bool:
    """Whether any secret is registered (scrubbing is a no-op otherwise)."""
    return bool(_bytes)


def scrub(text: str) -> str:
    """``text`` with every registered secret replaced by ``***``."""
    for secret in _text:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def scrub_bytes(data: bytes) -> bytes:
    """:func:`scrub` for serialised bytes (UTF-8: a secret is matched in its encoded form)."""
    for secret in _bytes:
        if secret in data:
            data = data.replace(secret, _REDACTED_B)
    return data


class ScrubbingStream:
    """A text stream that scrubs what is written to it before passing it on.

    It wraps ``sys.stdout``/``sys.stderr`` for the duration of a CLI command and the file a
    report is written to; every other attribute (``isatty``, ``encoding``, ``fileno``...) is the
    wrapped stream's.
    """

    def __init__(self, inner: IO[str] | Any) -> None:
        self._inner = inner

    @property
    def inner(self) -> Any:
        return self._inner

    def write(self, text: str) -> int:
        self._inner.write(scrub(text) if _text else text)
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)
