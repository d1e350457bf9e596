"""Simulated users on worker processes (``--workers 2``): the same verdicts, seeds and turns as
in one process, and the model user's replies cached there too — a second run on workers makes
no user-model call."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.io import iter_results

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "users"
USER_MODEL = """
from agentgauge.providers import ModelResponse
from agentgauge.schema import Message

async def play(request):
    agent = request.messages[-1].content or ""
    text = "My order number is A7." if "order number" in agent else "Thanks ###STOP###"
    return ModelResponse(message=Message(role="assistant", content=text))
"""


def _run(tmp_path: Path, out: str, workers: int) -> list[tuple[object, ...]]:
    args = [
        "run", str(EXAMPLE / "model_user.yaml"), "--agent", f"python:{EXAMPLE / 'agent.py'}:agent",
        "--user-model", f"python:{tmp_path / 'user.py'}:play", "--allow-suite-code",
        "--no-progress", "--no-history", "--trials", "2", "--workers", str(workers),
        "-o", str(tmp_path / out),
    ]  # fmt: skip
    env = {"AGENTGAUGE_CACHE_DIR": str(tmp_path / f"cache{workers}")}
    res = CliRunner().invoke(cli, args, env=env)
    assert res.exit_code == 0, res.output
    rows = []
    for r in sorted(iter_results(tmp_path / out), key=lambda r: r.trial):
        assert r.user is not None
        rows.append((r.trial, r.status, r.user.seed, r.user.turns, r.user.model_calls))
    return rows


def test_model_users_on_workers_match_one_process_and_replay(tmp_path: Path) -> None:
    (tmp_path / "user.py").write_text(USER_MODEL)  # once: the python: provider's cache tag
    one = _run(tmp_path, "one", 1)
    assert one == [(0, "passed", 0, 3, 2), (1, "passed", 1, 3, 2)]
    assert _run(tmp_path, "two", 2) == one
    again = _run(tmp_path, "again", 2)  # the workers' cache from the run before
    assert [row[4] for row in again] == [0, 0]
    assert [row[:4] for row in again] == [row[:4] for row in one]
