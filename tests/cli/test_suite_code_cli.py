"""``run`` and ``validate`` refuse code a suite may not run with one ``file:line: field: message``
line (exit 2, no traceback, nothing imported), and run / list it with ``--allow-suite-code``."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.io import iter_results

ENV = "AGENTGAUGE_ALLOW_SUITE_CODE"

FAKES = textwrap.dedent(
    """
    from pathlib import Path
    Path(__file__).with_name("IMPORTED").write_text("module code ran")

    def lookup(city="", state=None):
        return {"city": city, "temp_c": 21}

    def agent(messages, tools):
        return "hi from the suite's agent"
    """
)

SUITE = """\
name: code
tools:
  - name: get_weather
    parameters: {{type: object, properties: {{city: {{type: string}}}}}}
    simulation: {{function: "{ref}"}}
cases:
  - id: paris
    input: Weather in Paris?
    expect: {{tool_calls: [{{name: get_weather, arguments: {{city: Paris}}}}]}}
"""

#: the agent calls get_weather, then answers
SCRIPT = (
    json.dumps({"calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]})
    + "\n"
    + json.dumps({"text": "21 degrees"})
    + "\n"
)


@pytest.fixture(autouse=True)
def _no_opt_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setenv("AGENTGAUGE_CONFIG", str(tmp_path / "no-config.toml"))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "suite"
    root.mkdir()
    (root / "fakes.py").write_text(FAKES)
    (tmp_path / "outside.py").write_text(FAKES)
    (root / "link.py").symlink_to(tmp_path / "outside.py")
    (tmp_path / "script.jsonl").write_text(SCRIPT)
    return root


def write_suite(folder: Path, ref: str) -> Path:
    path = folder / "suite.yaml"
    path.write_text(SUITE.format(ref=ref))
    return path


def invoke(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def run(folder: Path, *extra: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    script = folder.parent / "script.jsonl"
    out_dir = folder.parent / "run"
    args = ["run", str(folder), "--agent", f"mock:{script}", "-o", str(out_dir), "--no-cache"]
    return invoke(*args, "--no-progress", *extra, env=env)


def refusal_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if "tools[0].simulation.function" in line]


@pytest.mark.parametrize(
    ("ref", "why"),
    [
        ("subprocess:getoutput", "refused: no file subprocess.py in the suite's folder"),
        ("os:system", "refused: no file os.py in the suite's folder"),
        ("builtins:eval", "refused: no file builtins.py in the suite's folder"),
        ("../outside.py:lookup", "refused: '..' leaves the suite's folder"),
        ("{abs}:lookup", "refused: an absolute path"),
        ("link.py:lookup", "outside the suite's folder"),
    ],
)
def test_run_and_validate_refuse_with_one_line_even_with_the_opt_in(
    folder: Path, ref: str, why: str
) -> None:
    ref = ref.replace("{abs}", str(folder.parent / "outside.py"))
    suite = write_suite(folder, ref)
    for command in (
        lambda: run(folder, "--allow-suite-code"),
        lambda: invoke("validate", str(folder), "--allow-suite-code", "-q"),
    ):
        code, out = command()
        assert code == 2, out
        assert "Traceback" not in out
        (line,) = refusal_lines(out)
        assert line.startswith(f"{suite}:5: tools[0].simulation.function: "), line
        assert f"tool function '{ref}': " in line
        assert why in line
    assert not (folder / "IMPORTED").exists()
    assert not (folder.parent / "IMPORTED").exists()
    assert not (folder.parent / "run" / "results.jsonl").exists()


def test_without_the_opt_in_an_in_folder_fake_is_refused_naming_the_flag(folder: Path) -> None:
    suite = write_suite(folder, "fakes:lookup")
    code, out = run(folder)
    assert code == 2
    assert out.strip() == (
        f"{suite}:5: tools[0].simulation.function: tool function 'fakes:lookup': runs "
        "fakes.py:lookup from the suite's folder; suite code runs only if you allow it: pass "
        "--allow-suite-code (or set AGENTGAUGE_ALLOW_SUITE_CODE=1)"
    )
    code, out = invoke("validate", str(folder))
    assert code == 2
    assert "error: tool function 'fakes:lookup': runs fakes.py:lookup" in out
    assert "pass --allow-suite-code" in out
    assert (
        f"    {suite}:5: tools[0].simulation.function: {(folder / 'fakes.py').resolve()}:lookup "
        "(tool get_weather, every case) needs --allow-suite-code"
    ) in out
    assert not (folder / "IMPORTED").exists()


@pytest.mark.parametrize("how", ["flag", "env"])
def test_with_the_opt_in_an_in_folder_fake_runs(folder: Path, how: str) -> None:
    write_suite(folder, "fakes.py:lookup")
    if how == "flag":
        code, out = run(folder, "--allow-suite-code")
    else:
        code, out = run(folder, env={ENV: "1"})
    assert code == 0, out
    (result,) = iter_results(folder.parent / "run")
    (tool,) = [e for e in result.trace if e.kind == "tool"]
    assert tool.fault is None
    assert result.status == "passed", result.explanation
    assert (folder / "IMPORTED").exists()


def test_validate_lists_every_piece_of_code_per_tool_and_case(folder: Path) -> None:
    suite = folder / "suite.yaml"
    suite.write_text(
        SUITE.format(ref="fakes:lookup")
        + '    tool_results: {get_weather: [{result: 1}, {function: "fakes.py:lookup"}]}\n'
        + 'defaults: {agent: "python:fakes.py:agent"}\n'
        + "case_files: [more.jsonl]\n"
    )
    case = {
        "id": "lyon",
        "input": "Weather in Lyon?",
        "tool_results": {"get_weather": {"function": "os:system"}},
    }
    (folder / "more.jsonl").write_text(json.dumps(case) + "\n")
    code, out = invoke("validate", str(folder), "--allow-suite-code")
    assert code == 2, out  # os:system is refused
    fakes = (folder / "fakes.py").resolve()
    listing = out[out.index("code this suite runs (4):") :].splitlines()[1:]
    listing = listing[: listing.index("  agents and judges this suite names (1):")]
    assert listing == [
        f"    {suite}:5: tools[0].simulation.function: {fakes}:lookup (tool get_weather, "
        "every case) allowed",
        f"    {suite}:11: defaults.agent: {fakes}:agent (agent) allowed",
        f"    {suite}:10: cases[0].tool_results.get_weather[1].function: {fakes}:lookup "
        "(tool get_weather, case paris) allowed",
        f"    {folder / 'more.jsonl'}:1: tool_results.get_weather.function: 'os:system' "
        "(tool get_weather, case lyon) REFUSED",
    ]
    code, out = invoke("validate", str(folder), "--allow-suite-code", "--format", "json")
    code_entries = json.loads(out)["suites"][0]["code"]
    assert [(c["kind"], c["function"], c["allowed"], c["case_id"]) for c in code_entries] == [
        ("tool function", "lookup", True, None),
        ("agent", "agent", True, None),
        ("tool function", "lookup", True, "paris"),
        ("tool function", None, False, "lyon"),
    ]
    assert not (folder / "IMPORTED").exists()  # validate imports nothing


def test_validate_warns_when_the_function_is_not_defined_in_the_file(folder: Path) -> None:
    write_suite(folder, "fakes.py:lokup")
    code, out = invoke("validate", str(folder), "--allow-suite-code")
    assert code == 0, out
    assert "warning: fakes.py:lokup: no top-level 'lokup' in the file" in out
    write_suite(folder, "fakes.py:lookup")
    code, out = invoke("validate", str(folder), "--allow-suite-code")
    assert "no top-level" not in out


def test_a_refused_fake_in_a_case_file_points_into_that_file(folder: Path) -> None:
    (folder / "suite.yaml").write_text(
        "name: s\ntools: [{name: get_weather}]\ncase_files: [cases.jsonl]\n"
    )
    case = {"id": "a", "input": "x", "tool_results": {"get_weather": {"function": "os:system"}}}
    (folder / "cases.jsonl").write_text("\n" + json.dumps(case) + "\n")
    code, out = run(folder, "--allow-suite-code")
    assert code == 2
    assert out.startswith(
        f"{folder / 'cases.jsonl'}:2: tool_results.get_weather.function: "
        "tool function 'os:system': refused"
    ), out


def test_the_suites_judge_is_suite_code_but_the_command_lines_is_not(folder: Path) -> None:
    suite = folder / "suite.yaml"
    suite.write_text(
        SUITE.format(ref="fakes:lookup")
        + "scorers:\n  - {scorer: relevance, judge: 'python:os:system'}\n"
    )
    code, out = run(folder, "--allow-suite-code")
    assert code == 2
    assert out.startswith(f"{suite}:11: scorers[0].judge: judge 'python:os:system': refused"), out


def test_resume_runs_a_python_agent_only_when_the_command_line_names_it(folder: Path) -> None:
    write_suite(folder, "fakes:lookup")
    agent_file = folder.parent / "outside.py"
    run_dir = folder.parent / "run"
    spec = f"python:{agent_file}:agent"
    args = ["run", str(folder), "--agent", spec, "-o", str(run_dir), "--no-progress"]
    code, out = invoke(*args, "--allow-suite-code")
    assert code == 0, out
    journal = run_dir / "results.jsonl"
    journal.write_text("")  # as if killed before the first result
    code, out = invoke("run", "--resume", str(run_dir), "--allow-suite-code")
    assert code == 2
    assert out.strip() == (
        f"{run_dir}/run.json:7: agent: --resume names the agent '{spec}', Python code; it "
        f"runs only when you name it yourself: add --agent {spec}"
    )
    code, out = invoke(
        "run", "--resume", str(run_dir), "--agent", spec, "--allow-suite-code", "--no-progress"
    )
    assert code == 0, out
    code, out = invoke("run", "--resume", str(run_dir), "--agent", "mock:")
    assert code == 2
    assert "--agent cannot be changed on resume" in out


def test_resume_checks_a_judge_read_back_from_run_json(folder: Path) -> None:
    write_suite(folder, "fakes:lookup")
    (folder / "suite.yaml").write_text(
        (folder / "suite.yaml").read_text() + "scorers:\n  - {scorer: relevance}\n"
    )
    run_dir = folder.parent / "run"
    code, out = run(folder, "--allow-suite-code", "--judge", "mock:judge")
    assert code == 0, out
    (run_dir / "results.jsonl").write_text("")
    record = json.loads((run_dir / "run.json").read_text())
    assert record["judge"] == "mock:judge"
    record["judge"] = "python:os:system"  # a run directory someone else prepared
    (run_dir / "run.json").write_text(json.dumps(record))
    code, out = invoke("run", "--resume", str(run_dir), "--allow-suite-code", "--no-progress")
    assert code == 2
    assert out.strip() == (
        f"{run_dir}/run.json:1: judge: judge 'python:os:system': refused: a suite may name only "
        "a Python file of its own folder (python:file.py:name), never a module ('os') (to use "
        "a judge of your own, give --judge SPEC)"
    )
    code, out = invoke(
        "run", "--resume", str(run_dir), "--allow-suite-code", "--judge", "mock:judge"
    )
    assert code == 0, out
