"""examples/users through the CLI: the right agent passes every conversation, each careless one
fails the case built to catch it, and the suite validates and audits clean; the model-driven
example runs with the embedded model and replays from the cache."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.io import iter_results

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "users"


def _run(agent: str, out: Path, suite: Path = EXAMPLE, *extra: str) -> dict[str, str]:
    args = ["run", str(suite), "--agent", f"python:{EXAMPLE / 'agent.py'}:{agent}"]
    flags = ["--allow-suite-code", "--no-progress", "-o", str(out), *extra]
    res = CliRunner().invoke(cli, [*args, *flags])
    assert res.exit_code in (0, 1), res.output
    return {r.case_id: r.status for r in iter_results(out)}


@pytest.mark.parametrize(
    ("agent", "failing"),
    [
        ("agent", set()),
        ("guesser", {"clarify-order", "cancel-order"}),
        ("ignorer", {"clarify-order", "cancel-order"}),
        ("forgetful", {"memory-account"}),
    ],
)
def test_each_agent_fails_exactly_the_cases_built_to_catch_it(
    agent: str, failing: set[str], tmp_path: Path
) -> None:
    statuses = _run(agent, tmp_path / "run", EXAMPLE, "--no-cache")
    assert len(statuses) == 4
    assert {c for c, s in statuses.items() if s != "passed"} == failing
    assert all(statuses[c] == "failed" for c in failing)


def test_the_example_validates_and_audits_clean() -> None:
    res = CliRunner().invoke(cli, ["validate", str(EXAMPLE), "--mutate", "--allow-suite-code"])
    assert res.exit_code == 0, res.output
    assert "0 case(s) cannot fail" in res.output


@pytest.mark.local_model
def test_the_model_user_example_runs_and_replays_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("llama_cpp")
    monkeypatch.setenv("AGENTGAUGE_CACHE_DIR", str(tmp_path / "cache"))
    suite = EXAMPLE / "model_user.yaml"
    first = _run("agent", tmp_path / "r1", suite)
    [r1] = list(iter_results(tmp_path / "r1"))
    assert r1.user is not None
    assert (r1.user.kind, r1.user.model, r1.user.template) == ("model", "local:smollm2", "user_v1")
    assert r1.user.model_calls >= 1
    again = _run("agent", tmp_path / "r2", suite)
    [r2] = list(iter_results(tmp_path / "r2"))
    assert again == first
    assert r2.user is not None
    assert r2.user.model_calls == 0
    assert all(e.cached for e in r2.trace if e.kind in ("user", "model"))
