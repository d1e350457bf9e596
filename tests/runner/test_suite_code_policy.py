"""The suite code policy: what Python code a suite may run (a file of its own folder, with the
user's opt-in), checked before anything is imported."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from runner_helpers import agent, weather_agent

from agentgauge._suite_code import (
    ENV_VAR,
    SuiteCodePolicy,
    SuiteCodeRefused,
    code_refs,
    with_checked_judges,
)
from agentgauge.errors import UserError
from agentgauge.io import iter_results, load_suite
from agentgauge.runner import RunConfig, run_suite
from agentgauge.runner._tools import load_function
from agentgauge.schema import Suite

#: a fake that leaves a marker file when its module is imported (it must never be, when refused)
FAKES = textwrap.dedent(
    """
    from pathlib import Path
    Path(__file__).with_name("IMPORTED").write_text("module code ran")

    def lookup(city="", state=None):
        state["n"] = state.get("n", 0) + 1
        return {"city": city, "calls": state["n"]}

    def agent(messages, tools):
        return "hello from the suite's agent"
    """
)


@pytest.fixture(autouse=True)
def _no_opt_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Neither the environment nor the user's real config file opts in during these tests."""
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setenv("AGENTGAUGE_CONFIG", str(tmp_path / "no-config.toml"))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A suite folder holding fakes.py (and a file outside it, next door)."""
    root = tmp_path / "suite"
    root.mkdir()
    (root / "fakes.py").write_text(FAKES)
    (tmp_path / "outside.py").write_text(FAKES)
    return root


def policy(root: Path, allowed: bool = True) -> SuiteCodePolicy:
    return SuiteCodePolicy(root=root.resolve(), allowed=allowed)


@pytest.mark.parametrize(
    ("ref", "module"),
    [("subprocess:getoutput", "subprocess"), ("os:system", "os"), ("builtins:eval", "builtins")],
)
def test_an_installed_module_is_never_imported(folder: Path, ref: str, module: str) -> None:
    with pytest.raises(SuiteCodeRefused) as err:
        policy(folder).check_function(ref)
    assert str(err.value) == (
        f"tool function '{ref}': refused: no file {module}.py in the suite's folder "
        f"{folder.resolve()}; a fake must be a Python file of the suite's own folder "
        f"(an installed module such as '{module}' is never imported)"
    )


def test_paths_leaving_the_folder_are_refused_even_with_the_opt_in(folder: Path) -> None:
    p = policy(folder)
    with pytest.raises(SuiteCodeRefused, match=r"refused: '\.\.' leaves the suite's folder"):
        p.check_function("../outside.py:lookup")
    with pytest.raises(SuiteCodeRefused, match=r"refused: '\.\.' leaves"):
        p.check_function("sub/../../outside.py:lookup")
    with pytest.raises(SuiteCodeRefused, match="refused: an absolute path"):
        p.check_function(f"{folder.parent / 'outside.py'}:lookup")
    with pytest.raises(SuiteCodeRefused, match="refused: an absolute path"):
        p.check_function(f"{folder / 'fakes.py'}:lookup")  # absolute, even pointing inside
    (folder / "link.py").symlink_to(folder.parent / "outside.py")
    with pytest.raises(SuiteCodeRefused, match=r"outside the suite's folder .*symlink"):
        p.check_function("link.py:lookup")
    with pytest.raises(SuiteCodeRefused, match="outside the suite's folder"):
        p.check_spec("python:link.py:agent", "agent")
    assert not (folder / "IMPORTED").exists()
    assert not (folder.parent / "IMPORTED").exists()


def test_a_symlink_inside_the_folder_and_the_file_forms_are_accepted(folder: Path) -> None:
    (folder / "sub").mkdir()
    (folder / "sub" / "more.py").write_text("def f():\n    return 1\n")
    (folder / "alias.py").symlink_to(folder / "fakes.py")
    p = policy(folder)
    assert p.check_function("alias.py:lookup").file == (folder / "fakes.py").resolve()
    assert p.check_function("fakes:lookup").file == (folder / "fakes.py").resolve()
    assert p.check_function("sub.more:f").shown(p.root) == "sub/more.py:f"
    assert p.check_function("sub/more.py:f").shown(p.root) == "sub/more.py:f"
    with pytest.raises(SuiteCodeRefused, match=r"'sub/data\.json' is not a \.py file"):
        p.check_function("sub/data.json:f")
    with pytest.raises(SuiteCodeRefused, match="'1x' is not a Python name"):
        p.check_function("fakes.py:1x")


def test_without_the_opt_in_an_in_folder_file_is_refused_naming_the_flag(folder: Path) -> None:
    with pytest.raises(SuiteCodeRefused) as err:
        load_function("fakes:lookup", policy(folder, allowed=False))
    assert str(err.value) == (
        "tool function 'fakes:lookup': runs fakes.py:lookup from the suite's folder; suite code "
        "runs only if you allow it: pass --allow-suite-code (or set AGENTGAUGE_ALLOW_SUITE_CODE=1)"
    )
    assert not (folder / "IMPORTED").exists()  # refused before the import


def test_with_the_opt_in_the_file_is_loaded_by_path(folder: Path) -> None:
    fn, takes_state = load_function("fakes.py:lookup", policy(folder))
    assert takes_state
    assert fn(city="Paris", state={}) == {"city": "Paris", "calls": 1}
    assert (folder / "IMPORTED").exists()
    assert "fakes" not in sys.modules  # never under a module name another import could reach


def test_opt_in_from_the_environment_and_from_the_users_config(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not SuiteCodePolicy.for_suite(folder / "suite.yaml").allowed
    monkeypatch.setenv(ENV_VAR, "1")
    assert SuiteCodePolicy.for_suite(folder / "suite.yaml").allowed
    assert not SuiteCodePolicy.for_suite(folder, allow=False).allowed  # the flag wins
    monkeypatch.setenv(ENV_VAR, "0")
    assert not SuiteCodePolicy.for_suite(folder).allowed
    monkeypatch.setenv(ENV_VAR, "perhaps")
    with pytest.raises(UserError, match="expected 1 or 0"):
        SuiteCodePolicy.for_suite(folder)
    monkeypatch.delenv(ENV_VAR)
    config = tmp_path / "config.toml"
    monkeypatch.setenv("AGENTGAUGE_CONFIG", str(config))
    config.write_text("allow_suite_code = true\n")
    assert SuiteCodePolicy.for_suite(folder).allowed
    config.write_text(f'allow_suite_code = ["{folder.parent}"]\n')  # suites under a folder
    assert SuiteCodePolicy.for_suite(folder / "suite.yaml").allowed
    config.write_text(f'allow_suite_code = ["{tmp_path / "elsewhere"}"]\n')
    assert not SuiteCodePolicy.for_suite(folder / "suite.yaml").allowed
    config.write_text("allow_suite_code = 'yes'\n")
    with pytest.raises(UserError, match="expected true, false or a list of folders"):
        SuiteCodePolicy.for_suite(folder)


def test_a_suite_cannot_opt_itself_in(folder: Path) -> None:
    (folder / "suite.yaml").write_text(
        "name: s\ndefaults: {allow_suite_code: true}\ncases: [{id: a, input: hi}]\n"
    )
    with pytest.raises(UserError, match="allow_suite_code"):
        load_suite(folder)


def _suite(folder: Path, body: str) -> Path:
    path = folder / "suite.yaml"
    path.write_text(textwrap.dedent(body))
    return path


TOOL = """\
name: s
tools:
  - name: get_weather
    parameters: {type: object, properties: {city: {type: string}}}
    simulation: {function: "fakes:lookup"}
cases:
  - id: a
    input: Weather in Paris?
    expect: {tool_calls: [{name: get_weather}]}
"""


def test_a_run_refuses_before_importing_anything_and_runs_with_the_opt_in(
    folder: Path, tmp_path: Path
) -> None:
    path = _suite(folder, TOOL)
    suite = load_suite(path)
    provider = agent(weather_agent)
    off = RunConfig(cache=False, progress=False, suite_path=str(path))
    with pytest.raises(SuiteCodeRefused, match="pass --allow-suite-code"):
        run_suite(suite, off, tmp_path / "r0", provider=provider)
    assert provider.calls == 0
    assert not (folder / "IMPORTED").exists()
    on = RunConfig(cache=False, progress=False, suite_path=str(path), allow_suite_code=True)
    run_suite(suite, on, tmp_path / "r1", provider=provider)
    (result,) = iter_results(tmp_path / "r1")
    tool = next(e for e in result.trace if e.kind == "tool")
    assert tool.fault is None
    assert (folder / "IMPORTED").exists()


def test_one_refused_reference_stops_the_others_from_being_imported(
    folder: Path, tmp_path: Path
) -> None:
    path = _suite(
        folder,
        TOOL + '    tool_results: {get_weather: {function: "os:system"}}\n',
    )
    config = RunConfig(cache=False, progress=False, suite_path=str(path), allow_suite_code=True)
    with pytest.raises(SuiteCodeRefused, match="tool function 'os:system': refused"):
        run_suite(load_suite(path), config, tmp_path / "r", provider=agent(weather_agent))
    assert not (folder / "IMPORTED").exists()  # fakes:lookup passed, but nothing was imported


def test_the_suites_python_agent_is_suite_code(folder: Path, tmp_path: Path) -> None:
    path = _suite(
        folder,
        """\
        name: s
        defaults: {agent: "python:fakes.py:agent?thread=0"}
        cases: [{id: a, input: hi, expect: {behavior: answer}}]
        """,
    )
    suite = load_suite(path)
    off = RunConfig(cache=False, progress=False, suite_path=str(path))
    with pytest.raises(SuiteCodeRefused, match=r"agent 'python:fakes\.py:agent\?thread=0': runs"):
        run_suite(suite, off, tmp_path / "r0")
    assert not (folder / "IMPORTED").exists()
    out = run_suite(suite, RunConfig(**{**_kw(off), "allow_suite_code": True}), tmp_path / "r1")
    assert out.record.agent == "python:fakes.py:agent?thread=0"  # as the suite wrote it
    assert out.record.options["agent_source"] == "suite"
    (result,) = iter_results(tmp_path / "r1")
    assert result.status == "passed"


def _kw(config: RunConfig) -> dict[str, object]:
    return {"cache": config.cache, "progress": config.progress, "suite_path": config.suite_path}


@pytest.mark.parametrize(
    "spec",
    ["python:os:system", "python:agentgauge.testing:MockProvider", "python:../outside.py:agent"],
)
def test_a_suite_may_not_name_a_module_or_a_file_outside_as_its_agent(
    folder: Path, tmp_path: Path, spec: str
) -> None:
    path = _suite(
        folder, f'name: s\ndefaults: {{agent: "{spec}"}}\ncases: [{{id: a, input: hi}}]\n'
    )
    config = RunConfig(cache=False, progress=False, suite_path=str(path), allow_suite_code=True)
    with pytest.raises(SuiteCodeRefused, match="refused"):
        run_suite(load_suite(path), config, tmp_path / "r")


def test_the_callers_own_agent_is_not_suite_code(folder: Path, tmp_path: Path) -> None:
    # --agent python:... names a file outside the suite's folder: the user's choice, no opt-in
    path = _suite(folder, "name: s\ncases: [{id: a, input: hi, expect: {behavior: answer}}]\n")
    config = RunConfig(
        agent=f"python:{folder.parent / 'outside.py'}:agent?thread=0",
        cache=False,
        progress=False,
        suite_path=str(path),
    )
    run_suite(load_suite(path), config, tmp_path / "r")
    assert [r.status for r in iter_results(tmp_path / "r")] == ["passed"]
    assert (folder.parent / "IMPORTED").exists()


def test_judge_specs_of_the_suite_are_checked_and_made_absolute(folder: Path) -> None:
    suite = Suite.model_validate(
        {
            "name": "s",
            "defaults": {"judge": "python:fakes.py:agent"},
            "scorers": [
                {"scorer": "relevance", "judge": "mock:judge"},
                {"scorer": "relevance", "judge": "python:sub/../fakes.py:agent"},
            ],
        }
    )
    refs = [(r.kind, r.field) for r in code_refs(suite)]
    assert refs == [("judge", ("defaults", "judge")), ("judge", ("scorers", 1, "judge"))]
    with pytest.raises(SuiteCodeRefused, match="pass --allow-suite-code"):
        with_checked_judges(suite, policy(folder, allowed=False), judge_given=False)
    with pytest.raises(SuiteCodeRefused, match=r"'\.\.' leaves"):
        with_checked_judges(suite, policy(folder), judge_given=False)
    ok = suite.model_copy(update={"scorers": suite.scorers[:1]})
    checked = with_checked_judges(ok, policy(folder), judge_given=False)
    assert checked.defaults.judge == f"python:{(folder / 'fakes.py').resolve()}:agent"
    assert checked.scorers[0].judge == "mock:judge"
    # with --judge given, defaults.judge is not used, so it is not checked
    bare = with_checked_judges(ok, policy(folder, allowed=False), judge_given=True)
    assert bare.defaults.judge == "python:fakes.py:agent"


def test_the_pytest_plugin_refuses_and_takes_the_option(folder: Path, tmp_path: Path) -> None:
    (folder / "agentgauge_demo.yaml").write_text(TOOL)

    def pytest_run(*args: str) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k != ENV_VAR}
        env["AGENTGAUGE_CONFIG"] = str(tmp_path / "no-config.toml")
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
            cwd=folder,
            capture_output=True,
            text=True,
            check=False,
            env=env,
        )

    out = pytest_run("--agentgauge-agent", "mock:")
    assert out.returncode == 1, out.stdout + out.stderr
    assert (
        "agentgauge_demo.yaml:5: tools[0].simulation.function: tool function 'fakes:lookup': "
        "runs fakes.py:lookup from the suite's folder; suite code runs only if you allow it: "
        "pass --allow-suite-code" in out.stdout
    ), out.stdout
    assert "Traceback" not in out.stdout
    assert not (folder / "IMPORTED").exists()
    out = pytest_run("--agentgauge-agent", "mock:", "--agentgauge-allow-suite-code")
    # allowed: the fake is imported, and the case is scored (mock: never calls the tool, so it
    # fails on its expectation, not on the code)
    assert "expected a call to get_weather" in out.stdout, out.stdout + out.stderr
    assert "allow-suite-code" not in out.stdout
    assert (folder / "IMPORTED").exists()
