"""Identifiers in the Markdown report stay code spans whatever backticks they hold."""

from __future__ import annotations

import pytest

from agentgauge.report._markdown import _code


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain-id", "`plain-id`"),
        ("a`b", "``a`b``"),
        ("x``y", "```x``y```"),
        ("`edge", "`` `edge ``"),
    ],
)
def test_code_span_fence_is_longer_than_any_backtick_run(text: str, expected: str) -> None:
    assert _code(text) == expected
