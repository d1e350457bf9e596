from __future__ import annotations

import pytest

from agentgauge.providers._common import (
    RAW_ARGUMENTS_KEY,
    error_from_status,
    parse_arguments,
    parse_retry_after,
    redact,
    split_options,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ({"a": 1}, {"a": 1}),
        ("", {}),
        ("  ", {}),
        (None, {}),
        ('{"a": 1', {RAW_ARGUMENTS_KEY: '{"a": 1'}),
        ("[1, 2]", {RAW_ARGUMENTS_KEY: "[1, 2]"}),
        ("just text", {RAW_ARGUMENTS_KEY: "just text"}),
        (b'{"b": 2}', {"b": 2}),
        ([1], {RAW_ARGUMENTS_KEY: "[1]"}),
    ],
)
def test_parse_arguments(raw: object, expected: dict[str, object]) -> None:
    assert parse_arguments(raw) == expected


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"Retry-After": "1.5"}, 1.5),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:10 GMT"}, 10.0),
        ({"retry-after": "Wed, 21 Oct 2015 07:27:00 GMT"}, 0.0),
        ({"retry-after": "soon"}, None),
        ({}, None),
        (None, None),
    ],
)
def test_parse_retry_after(headers: dict[str, str] | None, expected: float | None) -> None:
    now = 1445412480.0  # 2015-10-21 07:28:00 UTC
    assert parse_retry_after(headers, now=now) == expected


def test_redact_known_and_key_shaped_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "plainsecretvalue42")
    text = (
        "failed with key sk-proj-abcdefghijklmnop1234 and AIzaSyA1234567890abcdefghijklmnop"
        " header Authorization: Bearer eyJhbGciOi.payload.sig url ?key=ZZZZZZZZZZZZ&x=1"
        " env plainsecretvalue42 custom hunter2hunter2"
    )
    out = redact(text, ["hunter2hunter2"])
    for secret in (
        "sk-proj-abcdefghijklmnop1234",
        "AIzaSyA1234567890abcdefghijklmnop",
        "eyJhbGciOi",
        "ZZZZZZZZZZZZ",
        "plainsecretvalue42",
        "hunter2hunter2",
    ):
        assert secret not in out
    assert "failed with key" in out
    assert "&x=1" in out


def test_redact_leaves_ordinary_text_alone() -> None:
    text = "HTTP 400: max_tokens is too large; monkey business; task-123"
    assert redact(text) == text


def test_error_from_status_reads_message_and_retry_after() -> None:
    err = error_from_status(
        "openai:m",
        429,
        b'{"error": {"message": "Rate limit for key sk-abcdefghijklmnopqrstu"}}',
        {"retry-after": "2"},
    )
    assert err.status == 429
    assert err.retry_after == 2.0
    assert err.transient
    assert "Rate limit" in str(err)
    assert "sk-abcdefghijklmnopqrstu" not in str(err)
    bad = error_from_status("openai:m", 400, "plain text failure")
    assert not bad.transient
    assert str(bad) == "openai:m: HTTP 400: plain text failure"


def test_split_options() -> None:
    assert split_options("gpt-4o?api=responses&base-url=http://x/v1", {"api": "chat"}) == (
        "gpt-4o",
        {"api": "chat", "base_url": "http://x/v1"},
    )
    assert split_options("m", {}) == ("m", {})


def test_importing_providers_imports_no_vendor_sdk() -> None:
    import subprocess
    import sys

    code = (
        "import sys, agentgauge.providers, agentgauge.testing;"
        "from agentgauge.providers import resolve_provider;"
        "resolve_provider('mock:');"
        "bad = [m for m in ('openai', 'anthropic', 'google.genai', 'llama_cpp', 'aiohttp')"
        " if m in sys.modules];"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
