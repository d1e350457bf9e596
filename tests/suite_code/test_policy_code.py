"""Code a suite or a run directory names through any prefix that imports something (``python:``,
``openai-agents:``, ``langgraph:``, ``pydantic-ai:``), as an agent, a judge or a scorer, in
every command that reads it: refused with one ``file:line: field:`` line, nothing imported.

Each test here failed on the code before the one policy covered every prefix: a framework spec
as a judge was imported in ``run``, ``score``, ``validate`` (called ok), the pytest plugin,
``--resume`` of a crafted run.json and through ``judges.scorers_for_suite``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from policy_helpers import EVIL, invoke, suite_file

from agentgauge._suite_code import SuiteCodePolicy, SuiteCodeRefused
from agentgauge.io import load_suite
from agentgauge.judges import scorers_for_suite

FRAMEWORKS = ("langgraph:", "openai-agents:", "pydantic-ai:")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A suite folder with evil.py in it and another evil.py next door."""
    root = tmp_path / "suite"
    root.mkdir()
    (root / "evil.py").write_text(EVIL)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "evil.py").write_text(EVIL)
    return root


def _pwned(folder: Path) -> bool:
    return (folder / "PWNED").exists() or (folder.parent / "outside" / "PWNED").exists()


def _responses(folder: Path) -> Path:
    path = folder.parent / "responses.jsonl"
    path.write_text(json.dumps({"case_id": "c0", "text": "hi"}) + "\n")
    return path


@pytest.mark.parametrize("prefix", FRAMEWORKS)
@pytest.mark.parametrize("where", ["defaults.judge", "scorers[0].judge"])
@pytest.mark.parametrize("opt_in", [False, True])
def test_a_framework_judge_is_refused_by_run_score_and_validate(
    folder: Path, prefix: str, where: str, opt_in: bool
) -> None:
    spec = f"{prefix}evil.py:agent"
    if where == "defaults.judge":
        header, line = f"defaults:\n  judge: '{spec}'", 3
    else:
        header, line = f"scorers:\n  - scorer: equivalence\n    judge: '{spec}'", 4
    path = suite_file(folder, header)
    flags = ["--allow-suite-code"] if opt_in else []
    expected = (
        f"{path}:{line}: {where}: judge '{spec}': refused: a framework agent ({prefix}) runs "
        f"its own loop and cannot be a judge"
    )
    code, out = invoke("run", str(path), "--agent", "mock:", "-o", str(folder.parent / "r"),
                       "--no-progress", *flags)  # fmt: skip
    assert code == 2, out
    assert out.startswith(expected), out
    resp = _responses(folder)
    code, out = invoke("score", str(path), "-r", str(resp), "-o", str(folder.parent / "s"), *flags)
    assert code == 2, out
    assert out.startswith(expected), out
    code, out = invoke("validate", str(path), *flags)
    assert code == 2, out
    assert f"{path}:{line}: {where}: error: judge '{spec}': refused" in out
    assert f"{path}:{line}: {where}: '{spec}' (judge) REFUSED" in out
    assert not _pwned(folder)


@pytest.mark.parametrize(
    "spec",
    [
        "langgraph:{outside}:agent",  # an absolute path
        "langgraph:../outside/evil.py:agent",  # '..' out of the folder
        "python:../outside/evil.py:judge",
        "python:{outside}:judge",
        "pydantic-ai:this:agent",  # a module by name (importing it prints the Zen of Python)
        "python:this:judge",
    ],
)
def test_judges_outside_the_folder_or_by_module_are_refused_even_with_the_opt_in(
    folder: Path, spec: str
) -> None:
    spec = spec.format(outside=folder.parent / "outside" / "evil.py")
    path = suite_file(folder, f"defaults:\n  judge: '{spec}'")
    code, out = invoke("run", str(path), "--agent", "mock:", "-o", str(folder.parent / "r"),
                       "--no-progress", "--allow-suite-code")  # fmt: skip
    assert code == 2, out
    assert out.startswith(f"{path}:3: defaults.judge: judge '{spec}': refused"), out
    assert "Beautiful is better" not in out
    assert not _pwned(folder)


@pytest.mark.parametrize("spec", ["LANGGRAPH:evil.py:agent", " langgraph:evil.py:agent",
                                  "langgraph :evil.py:agent", "Python:evil.py:judge"])  # fmt: skip
def test_case_and_space_tricks_name_no_provider_and_import_nothing(folder: Path, spec: str) -> None:
    path = suite_file(folder, f"defaults:\n  judge: '{spec}'")
    code, out = invoke("run", str(path), "--agent", "mock:", "-o", str(folder.parent / "r"),
                       "--no-progress", "--allow-suite-code")  # fmt: skip
    assert code == 2, out
    assert "unknown" in out
    assert not _pwned(folder)


def test_a_framework_agent_of_the_suite_needs_the_opt_in_and_stays_in_the_folder(
    folder: Path,
) -> None:
    path = suite_file(folder, "defaults:\n  agent: 'langgraph:../outside/evil.py:agent'")
    code, out = invoke("run", str(path), "-o", str(folder.parent / "r"), "--no-progress",
                       "--allow-suite-code")  # fmt: skip
    assert code == 2
    assert out.startswith(f"{path}:3: defaults.agent: agent 'langgraph:../outside/evil.py:agent'"
                          ": refused: '..' leaves the suite's folder"), out  # fmt: skip
    path = suite_file(folder, "defaults:\n  agent: 'langgraph:evil.py:agent'")
    code, out = invoke("run", str(path), "-o", str(folder.parent / "r2"), "--no-progress")
    assert code == 2
    assert "suite code runs only if you allow it: pass --allow-suite-code" in out
    assert not _pwned(folder)


def test_the_pytest_plugin_refuses_a_framework_judge(folder: Path) -> None:
    path = suite_file(folder, "defaults:\n  agent: 'mock:'\n  judge: 'langgraph:evil.py:agent'")
    target = folder / "agentgauge_evil.yaml"
    path.rename(target)
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
         "--agentgauge-run-dir", str(folder.parent / "runs"), "--agentgauge-allow-suite-code"],
        cwd=folder, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert out.returncode != 0, out.stdout
    assert "cannot be a judge" in out.stdout + out.stderr
    assert not _pwned(folder)


def _finished_run(folder: Path) -> Path:
    path = suite_file(folder, "", cases=2)
    run_dir = folder.parent / "run"
    code, out = invoke("run", str(path), "--agent", "mock:", "-o", str(run_dir), "--no-progress")
    assert code == 0, out
    lines = (run_dir / "results.jsonl").read_text().splitlines(keepends=True)
    (run_dir / "results.jsonl").write_text(lines[0])  # as if killed after the first case
    return run_dir


@pytest.mark.parametrize(
    ("key", "spec"),
    [
        ("judge", "langgraph:{outside}:agent"),
        ("judge", "openai-agents:../outside/evil.py:agent"),
        ("judge", "pydantic-ai:evil.py:agent"),
        ("agent", "langgraph:{outside}:agent"),
        ("agent", "openai-agents:evil.py:agent"),
    ],
)
def test_resume_of_a_crafted_run_json_imports_nothing(folder: Path, key: str, spec: str) -> None:
    run_dir = _finished_run(folder)
    record = json.loads((run_dir / "run.json").read_text())
    record[key] = spec.format(outside=folder.parent / "outside" / "evil.py")
    (run_dir / "run.json").write_text(json.dumps(record, indent=2))
    code, out = invoke("run", "--resume", str(run_dir), "--no-progress", "--allow-suite-code")
    assert code == 2, out
    assert out.startswith(f"{run_dir}/run.json:"), out
    assert f": {key}: " in out.splitlines()[0]
    assert not _pwned(folder)


def test_scorers_for_suite_applies_the_policy(folder: Path) -> None:
    """The Python entry point takes a suite (data): its judges pass the policy too."""
    path = suite_file(folder, "defaults:\n  judge: 'langgraph:evil.py:agent'")
    suite = load_suite(path)
    policy = SuiteCodePolicy(root=folder.resolve(), allowed=True)
    with pytest.raises(SuiteCodeRefused, match="cannot be a judge"):
        scorers_for_suite(suite, code=policy)
    with pytest.raises(SuiteCodeRefused, match="cannot be a judge"):
        scorers_for_suite(suite)  # the default policy: the current folder, no opt-in
    path = suite_file(folder, "defaults:\n  judge: 'python:evil.py:judge'")
    with pytest.raises(SuiteCodeRefused, match="suite code runs only if you allow it"):
        scorers_for_suite(load_suite(path), code=SuiteCodePolicy(root=folder, allowed=False))
    assert not _pwned(folder)
    # the caller's own judge is the caller's word
    assert scorers_for_suite(load_suite(path), judge="mock:judge", code=policy)


def test_a_python_judge_of_the_folder_runs_with_the_opt_in(folder: Path) -> None:
    """The good case: an in-folder python: judge passes (and is imported) with the opt-in."""
    (folder / "judge.py").write_text(
        "from agentgauge.judges import RuleJudge\njudge = RuleJudge()\n"
    )
    path = suite_file(folder, "defaults:\n  judge: 'python:judge.py:judge'")
    code, out = invoke("run", str(path), "--agent", "mock:echo", "-o", str(folder.parent / "r"),
                       "--no-progress", "--allow-suite-code")  # fmt: skip
    assert code == 0, out
    code, out = invoke("run", str(path), "--agent", "mock:echo", "-o", str(folder.parent / "r2"),
                       "--no-progress")  # fmt: skip
    assert code == 2
    assert "suite code runs only if you allow it" in out


def test_resume_with_your_suite_takes_its_code_from_your_suite_folder(tmp_path: Path) -> None:
    """``run SUITE --resume DIR``: the code of SUITE's folder runs, never that of the folder a
    crafted run.json's ``suite_path`` points to (before: the policy's folder came from
    run.json, so its fakes.py was imported)."""
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    good = "def lookup(city='', state=None):\n    return {'ok': True}\n"
    header = (
        "tools:\n  - name: t\n    parameters: {type: object}\n"
        "    simulation: {function: 'fakes:lookup'}"
    )
    path = suite_file(mine, header, cases=2)
    (mine / "fakes.py").write_text(good)
    suite_file(theirs, header, cases=2)
    (theirs / "fakes.py").write_text(EVIL + good)
    run_dir = tmp_path / "run"
    code, out = invoke("run", str(path), "--agent", "mock:", "-o", str(run_dir), "--no-progress",
                       "--allow-suite-code")  # fmt: skip
    assert code == 0, out
    journal = run_dir / "results.jsonl"
    journal.write_text(journal.read_text().splitlines(keepends=True)[0])
    record = json.loads((run_dir / "run.json").read_text())
    record["suite_path"] = str(theirs / "suite.yaml")
    (run_dir / "run.json").write_text(json.dumps(record, indent=2))
    code, out = invoke("run", str(path), "--resume", str(run_dir), "--no-progress",
                       "--allow-suite-code")  # fmt: skip
    assert code == 0, out
    assert not (theirs / "PWNED").exists()


@pytest.mark.parametrize(
    "context",
    [
        "{outside}:agent",  # an absolute path
        "../outside/evil.py:agent",
        "os:system",  # a module by name
        "this:x",
        "evil.py:agent&context=os:system",  # the adapter keeps the last one
        "not a name",
    ],
)
def test_a_framework_agents_context_function_is_suite_code_too(folder: Path, context: str) -> None:
    """``?context=FILE.py:function`` names a second piece of code in the spec (before: it was
    imported from anywhere, or from a module, once the agent's own file passed)."""
    context = context.format(outside=folder.parent / "outside" / "evil.py")
    spec = f"langgraph:evil.py:agent?context={context}"
    path = suite_file(folder, f"defaults:\n  agent: '{spec}'")
    code, out = invoke("run", str(path), "-o", str(folder.parent / "r"), "--no-progress",
                       "--allow-suite-code")  # fmt: skip
    assert code == 2, out
    assert out.startswith(f"{path}:3: defaults.agent: agent '{spec}': "), out
    code, out = invoke("validate", str(path), "--allow-suite-code")
    assert code == 2, out
    assert "(agent) REFUSED" in out
    assert not _pwned(folder)


def test_a_context_function_of_the_suite_folder_is_made_absolute(folder: Path) -> None:
    (folder / "ctx.py").write_text("def make(ctx):\n    return {}\n")
    policy = SuiteCodePolicy(root=folder.resolve(), allowed=True)
    spec = policy.check_spec("langgraph:evil.py:agent?context=ctx.py:make", "agent")
    assert spec == (
        f"langgraph:{(folder / 'evil.py').resolve()}:agent?context={(folder / 'ctx.py').resolve()}"
        ":make"
    )
    own = policy.check_spec("pydantic-ai:evil.py:agent?context=make_context", "agent")
    assert own.endswith("evil.py:agent?context=make_context")
    assert not _pwned(folder)
