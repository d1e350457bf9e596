"""``agentgauge validate`` checks the ``scorers:`` section: exact lines, exit codes, --judge."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from agentgauge.cli import cli

SUITE = """\
name: judged
tools:
  - name: get_weather
    parameters: {type: object, properties: {city: {type: string}}, required: [city]}
cases:
  - id: weather-ny
    input: Weather in New York?
    expect: {tool_calls: [{name: get_weather, arguments: {city: New York}}]}
"""


def validate(
    tmp_path: Path, scorers: str, *args: str, env: dict[str, str] | None = None
) -> tuple[int, list[str]]:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE + scorers, encoding="utf-8")
    result = CliRunner().invoke(cli, ["validate", str(path), "--quiet", *args], env=env)
    assert "Traceback" not in result.output
    return result.exit_code, result.stdout.splitlines()


def test_unknown_scorer_exits_2_with_file_line_and_suggestion(tmp_path: Path) -> None:
    code, lines = validate(tmp_path, "scorers:\n  - scorer: similarity\n  - scorer: simlarity\n")
    assert code == 2
    assert lines == [
        f"{tmp_path / 'suite.yaml'}:11: scorers[1].scorer: error: unknown scorer 'simlarity' "
        "(did you mean 'similarity'?) [unknown-scorer]"
    ]


def test_bad_scorer_arguments_exit_2(tmp_path: Path) -> None:
    scorers = (
        "scorers:\n  - scorer: groundedness\n    judge: mock:judge\n    args: {min_score: four}\n"
    )
    code, lines = validate(tmp_path, scorers)
    assert code == 2
    assert lines == [
        f"{tmp_path / 'suite.yaml'}:12: scorers[0].args.min_score: error: 'four' is a string; "
        "'min_score' must be an integer from 1 to 5 [bad-scorer-args]"
    ]


def test_valid_scorers_section_passes(tmp_path: Path) -> None:
    scorers = """\
defaults: {judge: "openai:gpt-4o-mini"}
scorers:
  - scorer: equivalence
  - scorer: numeric_grounding
    args: {ignore: [1, 2]}
  - scorer: similarity
    args: {threshold: 0.8}
"""
    assert validate(tmp_path, scorers) == (0, [])


def test_missing_judge_is_a_warning_that_judge_or_its_env_var_settles(tmp_path: Path) -> None:
    scorers = "scorers:\n  - scorer: behavior_judge\n"

    def no_judge(*args: str, env: dict[str, str] | None = None) -> list[str]:
        # --strict prints warnings under --quiet (the suite's category-mix warnings too)
        return [
            x for x in validate(tmp_path, scorers, "--strict", *args, env=env)[1] if "no-judge" in x
        ]

    [line] = no_judge()
    assert line.startswith(f"{tmp_path / 'suite.yaml'}:10: scorers[0].scorer: warning: ")
    assert "scorer 'behavior_judge' needs a judge and none is set" in line
    assert validate(tmp_path, scorers) == (0, [])  # a warning only: the run may get --judge
    assert no_judge("--judge", "mock:judge") == []
    assert no_judge(env={"AGENTGAUGE_JUDGE": "mock:judge"}) == []
