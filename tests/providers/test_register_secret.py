"""``agentgauge.providers.register_secret`` (the public way to name a secret agentgauge cannot
know of): a registered value never reaches the results journal or a report, in any form the
scrubber knows. Before, the docs sent users to the private ``agentgauge._secrets``."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

from agentgauge.metrics import summarize
from agentgauge.providers import register_secret, register_secret_url
from agentgauge.report import render_markdown, write_csv
from agentgauge.runner import RunConfig, run_suite
from agentgauge.schema import Suite

TOKEN = "tenant-token-5f0c9a2e7b"
URL_KEY = "urlkey-8d1e4b7c3a"


def _run(tmp_path: Path, reply: str) -> Path:
    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps({"text": reply}) + "\n")
    suite = Suite.model_validate(
        {
            "name": "s",
            "cases": [
                {
                    "id": "c",
                    "input": "hi",
                    "expect": {"behavior": "answer", "response_contains": ["never"]},
                }
            ],
        }
    )
    out = tmp_path / "run"
    run_suite(suite, RunConfig(agent=f"mock:{script}", cache=False, progress=False), out)
    return out


def test_a_registered_value_is_scrubbed_from_the_journal_and_the_reports(tmp_path: Path) -> None:
    register_secret(TOKEN)
    b64 = base64.b64encode(TOKEN.encode()).decode()
    out = _run(tmp_path, f"the token is {TOKEN}, encoded {b64}")
    journal = (out / "results.jsonl").read_text()
    assert TOKEN not in journal
    assert b64 not in journal
    assert "***" in journal
    csv_out = io.StringIO()
    write_csv(out, csv_out)
    markdown = render_markdown(summarize(out))
    for text in (csv_out.getvalue(), markdown):
        assert TOKEN not in text


def test_the_credentials_of_a_registered_url_are_scrubbed(tmp_path: Path) -> None:
    register_secret_url(f"https://gateway.example/v1?api_key={URL_KEY}")
    journal = (_run(tmp_path, f"key {URL_KEY}") / "results.jsonl").read_text()
    assert URL_KEY not in journal
