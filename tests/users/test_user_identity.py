"""The simulated user is part of a result's identity: run.json records it and its config hash
covers it; ``compare`` refuses runs whose users differ (or marks them with
--allow-user-change), a gate against such a baseline fails, a matrix comparison says so."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from user_helpers import CLARIFY_CASE, ORDER_USER, OrderAgent, run, suite_of

from agentgauge.cli import cli
from agentgauge.metrics import compare, evaluate_gates, summarize_results
from agentgauge.rundir import read_record
from agentgauge.schema import Gates


def _script(tmp_path: Path, name: str) -> str:
    path = tmp_path / name
    path.write_text('{"text": "It is A7."}\n{"text": "Thanks ###STOP###"}\n' * 2)
    return f"mock:{path}"


MODEL_CASE = {**CLARIFY_CASE, "user": {k: v for k, v in ORDER_USER.items() if k != "rules"}}


def test_run_json_records_the_user_simulator_in_the_config_hash(tmp_path: Path) -> None:
    spec = _script(tmp_path, "u.jsonl")
    run(tmp_path / "a", suite_of([MODEL_CASE]), OrderAgent(), user_model=spec, seed=3)
    run(tmp_path / "b", suite_of([MODEL_CASE]), OrderAgent(), user_model=spec, seed=3)
    run(tmp_path / "c", suite_of([MODEL_CASE]), OrderAgent(), user_model=spec, seed=4)
    a, b, c = (read_record(tmp_path / n) for n in "abc")
    assert a.user_simulator is not None
    assert a.user_simulator.model_dump() == {
        "kinds": ["model"], "models": [spec], "template": "user_v1", "seed": 3,
    }  # fmt: skip
    assert a.options["user_model"] == spec
    assert a.config_hash == b.config_hash
    assert a.config_hash != c.config_hash  # another seed: another user
    run(tmp_path / "s", suite_of([CLARIFY_CASE]), OrderAgent())
    scripted = read_record(tmp_path / "s").user_simulator
    assert scripted is not None
    assert (scripted.kinds, scripted.models, scripted.template) == (["scripted"], [], None)


def _pair(tmp_path: Path) -> tuple[Path, Path, Path]:
    spec_a, spec_b = _script(tmp_path, "a.jsonl"), _script(tmp_path, "b.jsonl")
    same = tmp_path / "same"
    run(tmp_path / "base", suite_of([MODEL_CASE]), OrderAgent(), user_model=spec_a)
    run(same, suite_of([MODEL_CASE]), OrderAgent(), user_model=spec_a)
    run(tmp_path / "other", suite_of([MODEL_CASE]), OrderAgent(), user_model=spec_b)
    return tmp_path / "base", same, tmp_path / "other"


def test_compare_refuses_runs_whose_users_differ(tmp_path: Path) -> None:
    base, same, other = _pair(tmp_path)
    ok = CliRunner().invoke(cli, ["compare", str(base), str(same)])
    assert ok.exit_code == 0, ok.output
    refused = CliRunner().invoke(cli, ["compare", str(base), str(other)])
    assert refused.exit_code == 2
    assert "the runs' simulated users differ" in refused.output
    assert "Traceback" not in refused.output
    marked = CliRunner().invoke(cli, ["compare", str(base), str(other), "--allow-user-change"])
    assert marked.exit_code == 0, marked.output
    assert "warning: USER SIMULATORS DIFFER" in marked.stderr
    assert compare(base, other).warnings[0].startswith("USER SIMULATORS DIFFER: model users: mock:")


def test_a_gate_against_a_baseline_with_other_users_fails(tmp_path: Path) -> None:
    base, same, other = _pair(tmp_path)
    gates = Gates(forbid_attack_success=False)
    from agentgauge.io import iter_results

    summary = summarize_results(list(iter_results(other)))
    report = evaluate_gates(summary, gates, compare(base, other))
    assert not report.passed
    assert [c.name for c in report.failed] == ["same user simulator"]
    kept = evaluate_gates(summarize_results(list(iter_results(same))), gates, compare(base, same))
    assert kept.passed
