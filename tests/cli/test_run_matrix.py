"""``agentgauge run`` with many agents: run directories, manifest, comparison, resume, gates."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.io import iter_results
from agentgauge.metrics import read_matrix
from agentgauge.runner import read_manifest, read_record
from matrix_helpers import words_suite


def invoke(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.output


def test_two_agents_write_two_runs_and_one_comparison_in_every_format(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, output = invoke(
        "run", str(words_suite(tmp_path)), "--agent", "mock:", "--agent", "echo=mock:echo",
        "-o", str(out), "--no-history", "--no-cache",
    )  # fmt: skip
    assert code == 0, output
    for label, agent, passed in (("mock", "mock:", 1), ("echo", "mock:echo", 8)):
        run_dir = out / label
        assert read_record(run_dir).agent == agent
        results = list(iter_results(run_dir))
        assert len(results) == 9
        assert sum(r.status == "passed" for r in results) == passed
        summary = json.loads((run_dir / "summary.json").read_text())
        assert summary["overall"]["pass_rate"]["passed"] == passed
    manifest = read_manifest(out)
    assert [(m.label, m.agent, m.state) for m in manifest.members] == [
        ("mock", "mock:", "done"),
        ("echo", "mock:echo", "done"),
    ]
    comparison = read_matrix(out)  # comparison.json
    assert comparison.ranking == ["echo", "mock"]
    [pair] = comparison.pairs
    assert (pair.a, pair.b, pair.a_only, pair.b_only) == ("mock", "echo", 1, 8)
    assert pair.p_value == pytest.approx(0.0390625)  # exact: 2 * (1 + 9) / 2**9
    assert pair.significant
    assert pair.better == "echo"
    echo = comparison.agent("echo")
    assert echo is not None
    assert echo.scenarios["echo"].pass_rate.passed == 8
    assert echo.scenarios["fixed"].pass_rate.passed == 0
    md = (out / "comparison.md").read_text()
    assert md.startswith("<!-- agentgauge-matrix -->")
    assert "echo passes significantly more cases than mock" in md
    suites = ET.parse(out / "junit.xml").getroot().findall("testsuite")
    assert [(s.get("name"), s.get("tests"), s.get("failures")) for s in suites] == [
        ("mock", "9", "8"),
        ("echo", "9", "1"),
    ]
    # the console: each member's summary, then the comparison
    assert output.index("mock: mock:") < output.index("echo: mock:echo") < output.index("Pairwise")
    code, rendered = invoke("report", str(out), "--format", "markdown")
    assert code == 0
    assert "echo passes significantly more cases than mock" in rendered


def test_an_equal_pair_is_not_significant(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, output = invoke(
        "run", str(words_suite(tmp_path)), "--agent", "a=mock:", "--agent", "b=mock:",
        "-o", str(out), "--no-history",
    )  # fmt: skip
    assert code == 0, output
    [pair] = read_matrix(out).pairs
    assert (pair.a_only, pair.b_only, pair.p_value, pair.significant) == (0, 0, 1.0, False)
    assert pair.better is None
    assert "no pair of agents differs significantly" in (out / "comparison.md").read_text()


def test_the_suite_matrix_runs_its_members_with_their_options(tmp_path: Path) -> None:
    extra = (
        "matrix:\n  agents:\n    - mock:echo\n"
        "    - {agent: 'mock:', label: says-word0, options: {text: 'word0 word1'}}\n"
    )
    suite = words_suite(tmp_path, words=3, extra=extra)
    out = tmp_path / "out"
    code, output = invoke("run", str(suite), "-o", str(out), "--no-history")
    assert code == 0, output
    assert [m.label for m in read_manifest(out).members] == ["mock-echo", "says-word0"]
    texts = {r.text for r in iter_results(out / "says-word0")}
    assert texts == {"word0 word1"}  # the option reached the provider
    assert read_matrix(out).agent("says-word0").quality.pass_rate.passed == 2  # type: ignore[union-attr]
    # one --agent: today's single run of that agent, the matrix is not used
    single = tmp_path / "single"
    assert invoke("run", str(suite), "--agent", "mock:", "-o", str(single))[0] == 0
    assert (single / "results.jsonl").is_file()
    assert not (single / "matrix.json").exists()


def test_a_repeated_spec_in_the_suite_matrix_is_a_located_error(tmp_path: Path) -> None:
    extra = "matrix:\n  agents: ['mock:', 'mock:']\n"
    suite = words_suite(tmp_path, words=1, extra=extra)
    code, output = invoke("run", str(suite), "-o", str(tmp_path / "out"))
    assert code == 2
    [line] = output.strip().splitlines()
    assert line.startswith(f"{suite}:")
    assert "matrix.agents" in line
    assert "agents[1] has the label 'mock' of agents[0]" in line
    assert not (tmp_path / "out").exists()
    code, output = invoke("validate", str(suite))
    assert code == 2
    assert "agents[1] has the label 'mock'" in output


def test_a_python_agent_in_the_matrix_needs_the_suite_code_opt_in(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(
        "from agentgauge.providers import ModelResponse\n"
        "from agentgauge.schema import Message\n"
        "async def agent(request):\n"
        "    return ModelResponse(message=Message(role='assistant', content='word0'))\n"
    )
    extra = "matrix:\n  agents: [mock:echo, 'python:agent.py:agent']\n"
    suite = words_suite(tmp_path, words=1, extra=extra)
    out = tmp_path / "out"
    code, output = invoke("run", str(suite), "-o", str(out), env={"AGENTGAUGE_CONFIG": "/none"})
    assert code == 2
    assert "matrix.agents[1]" in output
    assert "--allow-suite-code" in output
    assert not out.exists()  # nothing ran, not even the first member


def test_a_matrix_entry_sets_the_generation_of_its_agent(tmp_path: Path) -> None:
    """temperature, max_tokens and seed reach the requests of that member only."""
    (tmp_path / "agent.py").write_text(
        "from agentgauge.providers import ModelResponse\n"
        "from agentgauge.schema import Message\n"
        "async def agent(request):\n"
        "    c = request.config\n"
        "    text = f'word0 t={c.temperature} m={c.max_tokens} s={c.seed}'\n"
        "    return ModelResponse(message=Message(role='assistant', content=text))\n"
    )
    extra = (
        "matrix:\n  agents:\n    - python:agent.py:agent\n"
        "    - {agent: 'python:agent.py:agent', label: warm, temperature: 0.7, max_tokens: 64,"
        " seed: 5}\n"
    )
    suite = words_suite(tmp_path, words=1, extra=extra)
    out = tmp_path / "out"
    code, output = invoke("run", str(suite), "-o", str(out), "--allow-suite-code")
    assert code == 0, output
    plain = {r.text for r in iter_results(out / "python-agent.py-agent")}
    warm = {r.text for r in iter_results(out / "warm")}
    assert plain == {"word0 t=0.0 m=None s=0"}
    assert warm == {"word0 t=0.7 m=64 s=5"}
    # resume of the finished matrix: nothing runs, so nothing needs the opt-in
    env = {"AGENTGAUGE_CONFIG": "/none"}
    code, output = invoke("run", "--resume", str(out), "--no-history", env=env)
    assert code == 0, output
    # a member left to run is the suite's code again: refused without the opt-in
    manifest = json.loads((out / "matrix.json").read_text())
    manifest["members"][1]["state"] = "failed"
    (out / "matrix.json").write_text(json.dumps(manifest))
    code, output = invoke("run", "--resume", str(out), "--no-history", env=env)
    assert code == 2
    assert "--allow-suite-code" in output
    code, output = invoke("run", "--resume", str(out), "--no-history", "--allow-suite-code")
    assert code == 0, output
    assert {r.text for r in iter_results(out / "warm")} == {"word0 t=0.7 m=64 s=5"}


def test_a_member_that_cannot_run_is_recorded_and_the_others_run(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, output = invoke(
        "run", str(words_suite(tmp_path)), "--agent", "mock:echo",
        "--agent", "nosuch-model=openai:no-key", "-o", str(out), "--no-history",
    )  # fmt: skip
    assert code == 1  # a missing key is found when the member starts (and --resume can finish it)
    assert "member nosuch-model (openai:no-key) could not run" in output
    assert "Traceback" not in output
    states = {m.label: (m.state, m.error) for m in read_manifest(out).members}
    assert states["mock-echo"] == ("done", None)
    assert states["nosuch-model"][0] == "failed"
    assert "OPENAI_API_KEY" in (states["nosuch-model"][1] or "")
    comparison = read_matrix(out)
    assert comparison.ranking[-1] == "nosuch-model"
    assert comparison.pairs == []


def test_gates_are_checked_per_member(tmp_path: Path) -> None:
    suite = words_suite(tmp_path, extra="gates: {min_pass_rate: 0.5}\n")
    out = tmp_path / "out"
    code, output = invoke(
        "run", str(suite), "--agent", "mock:", "--agent", "mock:echo", "-o", str(out), "--gate",
        "--no-history",
    )  # fmt: skip
    assert code == 1
    assert "gate failed: mock (mock:): pass rate" in output
    assert "gate failed: mock-echo" not in output
    comparison = read_matrix(out)
    assert comparison.agent("mock-echo").gates_passed is True  # type: ignore[union-attr]
    assert comparison.agent("mock").gates_passed is False  # type: ignore[union-attr]


def test_resume_of_a_matrix_interrupted_after_its_first_member(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first member is left untouched, the interrupted one resumed, the third started."""
    import agentgauge.runner._file as file_mod

    real = file_mod.run_suite_file

    def killed_during_second(path, config, run_dir, **kw):  # type: ignore[no-untyped-def]
        outcome = real(path, config, run_dir, **kw)
        if Path(run_dir).name == "second":  # as if killed after its first result
            results = Path(run_dir) / "results.jsonl"
            results.write_bytes(results.read_bytes().splitlines(keepends=True)[0])
            raise KeyboardInterrupt
        return outcome

    monkeypatch.setattr(file_mod, "run_suite_file", killed_during_second)
    out = tmp_path / "out"
    args = ("--agent", "first=mock:echo", "--agent", "second=mock:", "--agent", "third=mock:")
    code, output = invoke("run", str(words_suite(tmp_path)), *args, "-o", str(out))
    assert code == 130
    assert f"agentgauge run --resume {out}" in output
    states = [(m.label, m.state) for m in read_manifest(out).members]
    assert states == [("first", "done"), ("second", "running"), ("third", "pending")]
    first = (out / "first" / "results.jsonl").read_bytes()
    monkeypatch.setattr(file_mod, "run_suite_file", real)

    code, output = invoke("run", "--resume", str(out), "--no-history")
    assert code == 0, output
    assert (out / "first" / "results.jsonl").read_bytes() == first  # untouched
    assert "1 resumed" in output  # the kept result of the second member was not run again
    for label in ("second", "third"):
        assert len(list(iter_results(out / label))) == 9
    assert [m.state for m in read_manifest(out).members] == ["done", "done", "done"]
    assert len(read_matrix(out).pairs) == 3
    # a flag the manifest keeps cannot change on resume
    code, output = invoke("run", "--resume", str(out), "--trials", "3")
    assert code == 2
    assert "--trials cannot be changed on resume" in output


def test_validate_checks_the_matrix_agents(tmp_path: Path) -> None:
    extra = "matrix:\n  agents:\n    - mock:echo\n    - {agent: 'nosuch:x', label: down}\n"
    suite = words_suite(tmp_path, words=1, extra=extra)
    code, output = invoke("validate", str(suite))
    assert code == 2
    assert f"{suite}:5: matrix.agents[1].agent: error: unknown provider spec 'nosuch:x'" in output
    good = words_suite(tmp_path, words=1, extra="matrix:\n  agents: [mock:echo]\n")
    code, output = invoke("validate", str(good))
    assert code == 0, output
    assert "[matrix-of-one]" in output
    assert "[unknown-provider]" not in output


def test_each_member_is_recorded_in_the_run_history(tmp_path: Path) -> None:
    from agentgauge.metrics import read_history

    history = tmp_path / "history.sqlite"
    code, output = invoke(
        "run", str(words_suite(tmp_path, words=2)), "--agent", "mock:", "--agent", "mock:echo",
        "-o", str(tmp_path / "out"), "--history", str(history),
    )  # fmt: skip
    assert code == 0, output
    rows = read_history(path=history)
    assert sorted(r.agent for r in rows) == ["mock:", "mock:echo"]


def test_a_secret_in_a_spec_never_names_a_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-test-9876543210zyxwvuTSR"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    out = tmp_path / "out"
    code, output = invoke(
        "run", str(words_suite(tmp_path, words=1)), "--agent", f"mock:?text={secret}",
        "--agent", "mock:echo", "-o", str(out), "--no-history",
    )  # fmt: skip
    assert code == 0, output
    assert secret not in output
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["mock-echo", "mock-text"]
    for path in out.rglob("*"):
        assert secret not in str(path)
        if path.is_file() and path.name != "results.jsonl":
            assert secret not in path.read_text(encoding="utf-8"), path


def test_a_python_agent_of_the_command_line_is_named_again_on_resume(tmp_path: Path) -> None:
    agent = tmp_path / "agent.py"
    agent.write_text(
        "from agentgauge.providers import ModelResponse\n"
        "from agentgauge.schema import Message\n"
        "async def agent(request):\n"
        "    return ModelResponse(message=Message(role='assistant', content='word0'))\n"
    )
    spec = f"python:{agent}:agent"
    out = tmp_path / "out"
    args = ("--agent", "mock:echo", "--agent", f"mine={spec}")
    code, output = invoke("run", str(words_suite(tmp_path, words=1)), *args, "-o", str(out))
    assert code == 0, output
    manifest = json.loads((out / "matrix.json").read_text())
    manifest["members"][1]["state"] = "failed"  # as if it had not finished
    (out / "matrix.json").write_text(json.dumps(manifest))
    code, output = invoke("run", "--resume", str(out), "--no-history")
    assert code == 2
    assert f"it runs only when you name it yourself: add --agent {spec}" in output
    code, output = invoke("run", "--resume", str(out), "--agent", spec, "--no-history")
    assert code == 0, output
    code, output = invoke("run", "--resume", str(out), "--agent", "mock:", "--no-history")
    assert code == 2
    assert "--agent cannot be changed on resume" in output
