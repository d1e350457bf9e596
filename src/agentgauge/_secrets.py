"""The one place where secrets are scrubbed from everything agentgauge writes or prints.

A process-wide registry holds every credential the user configured: the API keys and tokens in
the environment (the provider variables, any ``*_API_KEY`` / ``*_TOKEN`` / ``*_SECRET`` /
``*_PASSWORD`` variable, ``AGENTGAUGE_*`` keys), the keys a provider was given in its spec,
options or credential headers (providers :func:`register` them when they resolve a key), and
the credentials inside a URL the user gave (:func:`register_url`: the password of
``user:pass@``, the value of a key-like query parameter such as ``?api_key=``). Every writer
asks this module before bytes reach disk or a terminal: the results journal, the response
cache, ``run.json``, ``summary.json``, every report format, the OpenTelemetry export, captured
cases, the console and the CLI's error lines.

**Forms.** A secret is replaced by ``***`` in every form it can take there: as is, JSON-escaped
(a results line; also ASCII-only, and as the HTML report embeds JSON in a ``<script>``, with
``<``, ``>``, ``&`` as ``\\u003c``...), HTML-escaped (the HTML report), percent-encoded (a URL,
a form body: ``%2B``, ``+`` for a space), base64 (standard and URL-safe, padded or not)
and, for a URL's ``user:pass``, the base64 of ``user:pass`` that HTTP Basic auth sends.

**Length rule** (:func:`strength`):

- 8 characters or more: replaced wherever it occurs, inside longer text too;
- 4 to 7 characters: replaced only as a whole token (not touching a letter, digit or ``_`` on
  either side), and only when it cannot be told from ordinary text: all letters of one case
  style (a word: ``none``, ``Test``, ``EMPTY``) or a known placeholder (:data:`PLACEHOLDERS`,
  what local servers are given) is not a secret. A token rule cannot cut a word or a number in
  two, and a value of letters *and* digits or symbols never equals a field name of our JSON,
  so the files stay valid;
- 3 characters or fewer, or without a letter (a number, punctuation: what every file is made
  of), at any length: not a secret (a 3-character key is guessed in seconds; replacing ``42``
  or ``----`` would corrupt numbers and tables).

The scrub is a no-op when nothing is registered; otherwise a ``bytes in`` test per long form,
one regular expression for the short ones, a ``replace`` only where one occurs.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import IO, Any, Literal
from urllib.parse import quote, quote_plus, unquote, urlsplit, urlunsplit

__all__ = [
    "PLACEHOLDERS",
    "REDACTED",
    "ScrubbingStream",
    "public_url",
    "register",
    "register_basic",
    "register_env",
    "register_header",
    "register_url",
    "registered",
    "scrub",
    "scrub_bytes",
    "strength",
]

REDACTED = "***"
_REDACTED_B = REDACTED.encode()
#: values this long or longer are scrubbed wherever they occur
MIN_LENGTH = 8
#: values this long (and shorter than MIN_LENGTH) are scrubbed as whole tokens
SHORT_LENGTH = 4
#: values local servers are commonly given as a key: never treated as secrets
PLACEHOLDERS = frozenset(
    {
        "none",
        "null",
        "empty",
        "dummy",
        "test",
        "fake",
        "local",
        "unused",
        "changeme",
        "ollama",
        "lm-studio",
        "lmstudio",
        "no-key",
        "nokey",
        "sk-none",
        "sk-test",
        "sk-xxx",
        "sk-1234",
        "sk-no-key-required",
        "true",
        "false",
    }
)

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
CREDENTIAL_HEADER = re.compile(
    r"auth|key|token|secret|cookie|password|credential|session|signature", re.I
)
#: URL query parameters whose values are credentials (``?api_key=``, ``&sig=``...)
SECRET_PARAM = re.compile(
    r"^(?:api[_-]?key|apikey|key|token|access[_-]?token|auth|secret|password|passwd|pwd"
    r"|sig|signature|code|client[_-]?secret|x-api-key|x-goog-api-key)$"
    r"|[_-](?:key|token|secret|password)$",
    re.I,
)
_TOKEN_EDGE = r"A-Za-z0-9_"

_lock = threading.Lock()
_values: set[str] = set()
# long forms, longest first (a key that contains another is replaced whole)
_text: tuple[str, ...] = ()
_bytes: tuple[bytes, ...] = ()
# short forms, as one alternation matched as whole tokens
_short_text: re.Pattern[str] | None = None
_short_bytes: re.Pattern[bytes] | None = None
# the short forms themselves: a substring test first, the regular expression only on a hit
_short_forms: tuple[str, ...] = ()
_short_forms_b: tuple[bytes, ...] = ()


def strength(value: str) -> Literal["long", "short"] | None:
    """How a value is scrubbed: everywhere (``long``), as a whole token (``short``) or not at
    all (None: too short, or indistinguishable from text; see the module doc)."""
    value = value.strip()
    if len(value) < SHORT_LENGTH or value.lower() in PLACEHOLDERS:
        return None
    if not any(c.isalpha() for c in value) or _is_number(value):
        return None  # numbers and punctuation: what every file is made of
    if len(value) >= MIN_LENGTH:
        return "long"
    if value.isalpha() and (value.islower() or value.isupper() or value.istitle()):
        return None  # a word
    return "short"


def _is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


def _b64(value: str) -> set[str]:
    raw = value.encode()
    forms = {base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()}
    return forms | {f.rstrip("=") for f in forms}


def _variants(value: str) -> set[str]:
    import orjson

    out = {value, html.escape(value, quote=True), html.escape(value, quote=False)}
    escaped = orjson.dumps(value).decode()[1:-1]
    # JSON as is, as placed in an HTML <script> (<, >, & as \u003c...), and ASCII-only
    script = escaped.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
    out |= {escaped, script, json.dumps(value)[1:-1]}
    encoded = {quote(value, safe=""), quote(value), quote_plus(value)}
    # percent-encoding with lower-case hex digits (%2b) is as valid as upper-case
    out |= encoded | {re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), e) for e in encoded}
    out |= _b64(value)
    return {v for v in out if v}


def _token_pattern(forms: Iterable[str]) -> str:
    alternation = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
    return f"(?<![{_TOKEN_EDGE}])(?:{alternation})(?![{_TOKEN_EDGE}])"


def _rebuild() -> None:
    global _text, _bytes, _short_text, _short_bytes, _short_forms, _short_forms_b
    long_forms: set[str] = set()
    short_forms: set[str] = set()
    for value in _values:
        forms = _variants(value)
        if strength(value) == "long":
            long_forms |= forms
        else:
            short_forms |= forms
    # a short value's long forms (its base64 may be 8 characters) stay token-matched: they
    # are as easy to find in unrelated text as the value itself
    ordered = sorted(long_forms, key=len, reverse=True)
    _text = tuple(ordered)
    _bytes = tuple(f.encode() for f in ordered)
    _short_forms = tuple(sorted(short_forms))
    _short_forms_b = tuple(f.encode() for f in _short_forms)
    if short_forms:
        pattern = _token_pattern(short_forms)
        _short_text = re.compile(pattern)
        _short_bytes = re.compile(pattern.encode())
    else:
        _short_text = _short_bytes = None


def register(*values: str | None) -> None:
    """Treat each value as a secret from now on (see the length rule in the module doc)."""
    new = {v.strip() for v in values if v and strength(v) is not None} - _values
    if not new:
        return
    with _lock:
        _values.update(new)
        _rebuild()


def register_basic(user: str, password: str) -> None:
    """A ``user:password`` pair: the password, and the base64 HTTP Basic auth sends."""
    register(password)
    if password and strength(password) is not None:
        pair = f"{user}:{password}"
        register(pair, *_b64(pair))


def register_header(value: str | None) -> None:
    """A credential header's value: as a whole, and the credential inside ``Bearer X`` /
    ``Basic X`` (for Basic also the decoded ``user:password`` and the password)."""
    if not value:
        return
    register(value)
    scheme, _, credential = value.strip().partition(" ")
    credential = credential.strip()
    if not credential:
        return
    register(credential)
    if scheme.lower() == "basic":
        try:
            pair = base64.b64decode(credential, validate=True).decode()
        except ValueError:
            return
        user, sep, password = pair.partition(":")
        if sep:
            register_basic(user, password)


def register_url(url: str | None) -> None:
    """The credentials inside a URL: the password of its userinfo (as written and decoded,
    and as Basic auth sends it) and the values of key-like query parameters."""
    if not url or ("@" not in url and "?" not in url):
        return
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return
    if parts.password:
        raw_password = parts.netloc.rpartition("@")[0].partition(":")[2]
        register(raw_password)
        register_basic(unquote(parts.username or ""), unquote(parts.password))
    for raw_name, raw_value in _raw_query(parts.query):
        if SECRET_PARAM.search(unquote(raw_name)):
            register(raw_value, unquote(raw_value), unquote(raw_value.replace("+", " ")))


def _raw_query(query: str) -> list[tuple[str, str]]:
    out = []
    for piece in query.split("&"):
        name, sep, value = piece.partition("=")
        if sep and value:
            out.append((name, value))
    return out


def public_url(url: str) -> str:
    """``url`` as it may be recorded: the userinfo password and key-like query values
    replaced by ``***`` (both registered first), everything else as written."""
    register_url(url)
    try:
        parts = urlsplit(url)
    except ValueError:
        return scrub(url)
    netloc = parts.netloc
    if parts.password is not None:
        userinfo, _, host = netloc.rpartition("@")
        netloc = f"{userinfo.partition(':')[0]}:{REDACTED}@{host}"
    query = "&".join(
        f"{name}={REDACTED}" if sep and value and SECRET_PARAM.search(unquote(name)) else piece
        for piece in parts.query.split("&")
        if piece
        for name, sep, value in [piece.partition("=")]
    )
    return scrub(urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment)))


def is_secret_env_name(name: str) -> bool:
    """Whether an environment variable of that name holds a secret."""
    return name.upper() in _ENV_NAMES or _ENV_PATTERN.search(name) is not None


def register_env(environ: Mapping[str, str] | None = None) -> None:
    """Register the value of every secret-named environment variable (see the module doc)."""
    env = os.environ if environ is None else environ
    register(*(value for name, value in env.items() if is_secret_env_name(name)))


def registered() -> bool:
    """Whether any secret is registered (scrubbing is a no-op otherwise)."""
    return bool(_bytes) or _short_text is not None


def scrub(text: str) -> str:
    """``text`` with every registered secret replaced by ``***``."""
    for secret in _text:
        if secret in text:
            text = text.replace(secret, REDACTED)
    short = _short_text
    if short is not None and any(f in text for f in _short_forms):
        text = short.sub(REDACTED, text)
    return text


def scrub_bytes(data: bytes) -> bytes:
    """:func:`scrub` for serialised bytes (UTF-8: a secret is matched in its encoded form)."""
    for secret in _bytes:
        if secret in data:
            data = data.replace(secret, _REDACTED_B)
    short = _short_bytes
    if short is not None and any(f in data for f in _short_forms_b):
        data = short.sub(_REDACTED_B, data)
    return data


def _reset() -> None:
    """Forget every registered secret (the tests isolate one from another with it)."""
    global _text, _bytes, _short_text, _short_bytes, _short_forms, _short_forms_b
    with _lock:
        _values.clear()
        _text, _bytes, _short_text, _short_bytes = (), (), None, None
        _short_forms, _short_forms_b = (), ()


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
        self._inner.write(scrub(text) if registered() else text)
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)
