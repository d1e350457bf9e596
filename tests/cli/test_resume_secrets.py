"""run.json records an agent URL and a ``--base-url`` without their passwords (``***``): a
resume that would send the placeholder is refused in one line, and one that gives the same
agent or endpoint again with its secret goes on with it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.testing import FakeOpenAIServer

SUITE = "name: s\ncases:\n" + "".join(
    f"  - id: c{i}\n    input: hi\n    expect: {{behavior: answer}}\n" for i in range(2)
)


def _invoke(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(cli, args)
    return result.exit_code, result.output


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE)
    return path


def test_an_agent_url_password_is_given_again_on_resume(suite: Path, tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda request: "ok") as srv:
        host = srv.url.removeprefix("http://")
        agent = f"http://bob:pw%40long1@{host}/agent"
        run_dir = tmp_path / "run"
        code, out = _invoke(["run", str(suite), "--agent", agent, "-o", str(run_dir)])
        assert code == 0, out
        recorded = json.loads((run_dir / "run.json").read_text())["agent"]
        assert recorded == f"http://bob:***@{host}/agent"
        (run_dir / "results.jsonl").write_text(
            (run_dir / "results.jsonl").read_text().splitlines()[0] + "\n"
        )  # one case left to run
        code, out = _invoke(["run", "--resume", str(run_dir), "--no-progress"])
        assert code == 2, out
        assert "the URL's password is '***', the placeholder agentgauge records" in out
        code, out = _invoke(["run", "--resume", str(run_dir), "--agent", agent])
        assert code == 0, out
        assert "1 run now, 1 resumed" in out
    assert len((run_dir / "results.jsonl").read_text().splitlines()) == 2


def test_a_base_url_password_is_given_again_on_resume(suite: Path, tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda request: "ok") as srv:
        host = srv.url.removeprefix("http://")
        base = f"http://u:b%40sepw99@{host}/v1"
        agent = "openai:m?api_key=sk-resume-0123456789abcdef"
        run_dir = tmp_path / "run"
        args = ["--agent", agent, "--base-url", base]
        code, out = _invoke(["run", str(suite), *args, "-o", str(run_dir)])
        assert code == 0, out
        record = json.loads((run_dir / "run.json").read_text())
        assert record["options"]["base_url"] == f"http://u:***@{host}/v1"
        assert record["agent"] == "openai:m"
        (run_dir / "results.jsonl").write_text(
            (run_dir / "results.jsonl").read_text().splitlines()[0] + "\n"
        )
        code, out = _invoke(["run", "--resume", str(run_dir)])
        assert code == 2, out
        assert "the URL's password is '***'" in out
        code, out = _invoke(["run", "--resume", str(run_dir), *args])
        assert code == 0, out
        assert "1 run now, 1 resumed" in out
