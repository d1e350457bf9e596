"""Neither the environment nor the user's real config file opts in during the policy tests,
and no key of the machine's environment takes part."""

from __future__ import annotations

from pathlib import Path

import pytest

_OPT_INS = ("AGENTGAUGE_ALLOW_SUITE_CODE", "AGENTGAUGE_ALLOW_SUITE_ENDPOINTS")
_KEYS = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "AZURE_OPENAI_API_KEY",
    "AZURE_OPENAI_ENDPOINT",
    "AZURE_OPENAI_AD_TOKEN",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "AGENTGAUGE_HTTP_TOKEN",
)


@pytest.fixture(autouse=True)
def _no_opt_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (*_OPT_INS, *_KEYS):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AGENTGAUGE_CONFIG", str(tmp_path / "no-config.toml"))
