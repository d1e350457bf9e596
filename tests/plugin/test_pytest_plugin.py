"""The pytest plugin: suite files become one pytest item per case, failures explain themselves."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

SUITE = textwrap.dedent(
    """
    name: plugin-demo
    defaults:
      agent: "mock:echo"
    tools:
      - name: get_weather
        parameters:
          type: object
          properties: {city: {type: string}}
          required: [city]
    cases:
      - id: echo-hello
        input: hello there
        expect:
          behavior: answer
          response_contains: [hello]
      - id: weather-paris
        input: What's the weather in Paris?
        expect:
          tool_calls:
            - name: get_weather
              arguments: {city: Paris}
    """
)


def _pytest(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-v", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )


def test_suite_file_is_collected_as_one_item_per_case(tmp_path: Path) -> None:
    (tmp_path / "agentgauge_demo.yaml").write_text(SUITE)
    out = _pytest(tmp_path, "--agentgauge-run-dir", str(tmp_path / "runs"))
    assert "agentgauge_demo.yaml::echo-hello PASSED" in out.stdout, out.stdout + out.stderr
    assert "agentgauge_demo.yaml::weather-paris FAILED" in out.stdout
    assert "expected a call to get_weather" in out.stdout
    assert out.returncode == 1
    assert (tmp_path / "runs" / "agentgauge_demo" / "results.jsonl").exists()


def test_suite_given_on_the_command_line(tmp_path: Path) -> None:
    suite_dir = tmp_path / "suites"
    suite_dir.mkdir()
    (suite_dir / "suite.yaml").write_text(SUITE)
    out = _pytest(tmp_path, "--agentgauge", str(suite_dir), "-k", "echo")
    assert "echo-hello PASSED" in out.stdout, out.stdout + out.stderr
    assert "weather-paris" not in out.stdout.replace("deselected", "")
    assert out.returncode == 0


def test_invalid_suite_is_a_collection_error_with_the_line(tmp_path: Path) -> None:
    (tmp_path / "agentgauge_bad.yaml").write_text("name: bad\ncases:\n  - id: a\n    inptu: hi\n")
    out = _pytest(tmp_path)
    assert out.returncode == 2
    assert "agentgauge_bad.yaml:4" in out.stdout
