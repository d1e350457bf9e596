"""``agentgauge gate OUT`` on a matrix folder: each member gated, exit 1 naming the failing one."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from agentgauge.cli import cli


def words_suite(tmp_path: Path, gates: str = "") -> Path:
    """Four cases only an echoing agent (``mock:echo``) passes; ``mock:`` passes none."""
    cases = "".join(
        f"  - id: say-{i}\n    category: echo\n    input: please say word{i}\n"
        f"    expect: {{response_contains: [word{i}]}}\n"
        for i in range(4)
    )
    path = tmp_path / "suite.yaml"
    path.write_text(f"name: words\n{gates}cases:\n{cases}")
    return path


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def run_matrix(tmp_path: Path, out: Path, *agents: str, gates: str = "") -> None:
    args = ["run", str(words_suite(tmp_path, gates)), "-o", str(out), "--no-history"]
    for a in agents:
        args += ["--agent", a]
    code, output = invoke(*args)
    assert code in (0, 1), output
    assert (out / "matrix.json").is_file()


def test_a_member_failing_its_gate_fails_the_matrix_and_is_named(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_matrix(
        tmp_path, out, "quiet=mock:", "echo=mock:echo", gates="gates: {min_pass_rate: 0.5}\n"
    )
    code, output = invoke("gate", str(out))
    assert code == 1, output
    lines = output.splitlines()
    assert "quiet (mock:): gate: FAILED" in lines
    assert "echo (mock:echo): gate: PASSED" in lines
    assert lines[-1] == "matrix gate (2 members): FAILED: quiet (mock:) failed its gates"
    # the failing check itself is printed under its member
    quiet_at = lines.index("quiet (mock:): gate: FAILED")
    assert lines[quiet_at + 1].startswith("  FAIL pass rate")
    code, text = invoke("gate", str(out), "--json")
    assert code == 1
    data = json.loads(text)
    assert data["passed"] is False
    verdicts = {m["label"]: (m["verdict"], m["report"]["passed"]) for m in data["members"]}
    assert verdicts == {"quiet": ("failed", False), "echo": ("passed", True)}


def test_both_members_passing_exit_0(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_matrix(tmp_path, out, "a=mock:echo", "b=mock:echo", gates="gates: {min_pass_rate: 0.5}\n")
    code, output = invoke("gate", str(out))
    assert code == 0, output
    assert output.splitlines()[-1] == "matrix gate (2 members): PASSED"
    # a gates file that is not there is a usage error, not a verdict
    code, output = invoke("gate", str(out), "--gates", str(tmp_path / "none.yaml"))
    assert code == 2
    assert "Traceback" not in output


def test_gates_file_is_used_for_each_member(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_matrix(tmp_path, out, "a=mock:echo", "b=mock:")
    assert invoke("gate", str(out))[0] == 0  # the suite sets no thresholds
    gates = tmp_path / "gates.yaml"
    gates.write_text("min_pass_rate: 0.5\n")
    code, output = invoke("gate", str(out), "--gates", str(gates))
    assert code == 1, output
    assert output.splitlines()[-1] == "matrix gate (2 members): FAILED: b (mock:) failed its gates"


def test_a_member_that_could_not_run_fails_the_gate(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_matrix(tmp_path, out, "echo=mock:echo", "broken=openai:no-key")
    code, output = invoke("gate", str(out))
    assert code == 1, output
    assert "broken (openai:no-key): could not run: " in output
    assert "echo (mock:echo): gate: PASSED" in output
    assert output.splitlines()[-1] == (
        "matrix gate (2 members): FAILED: broken (openai:no-key) could not run"
    )
    assert "Traceback" not in output
    # a member left unfinished (an interrupted run) is no pass either
    manifest = json.loads((out / "matrix.json").read_text())
    manifest["members"][1]["state"] = "running"
    (out / "matrix.json").write_text(json.dumps(manifest))
    code, output = invoke("gate", str(out))
    assert code == 1
    assert (
        "broken (openai:no-key): did not finish: running; "
        f"resume with agentgauge run --resume {out}" in output
    )


def test_a_matrix_baseline_pairs_members_by_label(tmp_path: Path) -> None:
    gates = "gates: {max_regression_points: 10}\n"
    base = tmp_path / "base"
    new = tmp_path / "new"
    # in the baseline both echo; in the new matrix 'b' stopped echoing: only b regressed
    run_matrix(tmp_path, base, "a=mock:echo", "b=mock:echo", gates=gates)
    run_matrix(tmp_path, new, "a=mock:echo", "b=mock:", gates=gates)
    assert invoke("gate", str(new))[0] == 0  # without a baseline nothing regresses
    code, output = invoke("gate", str(new), "--baseline", str(base), "--json")
    assert code == 1, output
    members = {m["label"]: m for m in json.loads(output)["members"]}
    assert members["a"]["verdict"] == "passed"
    assert members["a"]["baseline"] == str(base / "a")
    assert members["b"]["verdict"] == "failed"
    assert members["b"]["baseline"] == str(base / "b")
    # a member the baseline does not have: its thresholds only, with a warning saying so
    other = tmp_path / "other"
    run_matrix(tmp_path, other, "a=mock:echo", "c=mock:echo", gates=gates)
    code, output = invoke("gate", str(other), "--baseline", str(base))
    assert code == 0, output
    assert "baseline" in output
    assert "no member 'c'" in output
    # one run as the baseline of every member: b regressed against a's run
    code, output = invoke("gate", str(new), "--baseline", str(base / "a"))
    assert code == 1
    assert output.splitlines()[-1] == "matrix gate (2 members): FAILED: b (mock:) failed its gates"


def test_a_matrix_baseline_of_a_single_run_is_a_usage_error(tmp_path: Path) -> None:
    base = tmp_path / "base"
    run_matrix(tmp_path, base, "a=mock:echo", "b=mock:echo")
    code, output = invoke("gate", str(base / "a"), "--baseline", str(base))
    assert code == 2
    assert output.strip().splitlines()[-1].startswith(f"--baseline {base}: a matrix folder")
