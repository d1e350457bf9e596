"""The pytest plugin runs a suite as `agentgauge run` does: with its ``scorers:`` section."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SUITE = """\
name: plugin-scorers
scorers:
  - scorer: numeric_grounding
cases:
  - id: made-up
    input: How warm is it in Oslo? It was 12 degrees this morning.
    expect: {behavior: answer}
"""


def test_a_made_up_number_fails_the_item_through_the_suite_scorer(tmp_path: Path) -> None:
    (tmp_path / "agentgauge_grounded.yaml").write_text(SUITE)
    script = tmp_path / "agent.jsonl"
    script.write_text(json.dumps({"text": "It is 37 degrees in Oslo."}) + "\n")
    args = ["--agentgauge-agent", f"mock:{script}", "--agentgauge-run-dir", str(tmp_path / "r")]
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-v", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "agentgauge_grounded.yaml::made-up FAILED" in out.stdout, out.stdout + out.stderr
    assert "37" in out.stdout
    assert out.returncode == 1
