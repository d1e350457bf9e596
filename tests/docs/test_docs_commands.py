"""What users read must be true: every ``agentgauge`` command line of the docs names a real
subcommand and real options, every relative link reaches a file and a heading, every repository
path in inline code exists. Offline: the click tree and the files of this checkout only.

``python tests/docs/docs_lint.py`` prints the findings and the counts checked."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from docs_lint import (
    Report,
    agentgauge_invocations,
    check_docs,
    command_lines,
    split_shell,
)
from docs_markdown import github_slug, parse
from docs_options import (
    commands,
    option_rows,
    row_problems,
    run_defaults,
    undocumented,
    used_options,
)

ROOT = Path(__file__).resolve().parents[2]


def _check(tmp_path: Path, text: str, files: dict[str, str] | None = None) -> Report:
    for name, content in (files or {}).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(content, encoding="utf-8")
    doc = tmp_path / "docs" / "guide.md"
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(text, encoding="utf-8")
    return check_docs(tmp_path, [doc])


def _messages(report: Report) -> list[str]:
    return [str(finding) for finding in report.findings]


def test_the_docs_are_true() -> None:
    report = check_docs(ROOT)
    assert _messages(report) == []
    # the extraction itself must keep finding what the docs say (a reader that finds nothing
    # passes vacuously): the docs held 418 commands, 250 links and 173 paths when this was written
    assert report.docs >= 30
    assert report.commands >= 300
    assert report.links >= 200
    assert report.paths >= 120


def test_a_wrong_option_is_found_with_its_line(tmp_path: Path) -> None:
    text = "# Guide\n\n```bash\nagentgauge validate x\nagentgauge run SUITE --agnet mock:\n```\n"
    assert _messages(_check(tmp_path, text)) == [
        "docs/guide.md:5: option: agentgauge run: no such option --agnet"
    ]


def test_a_right_command_has_no_finding(tmp_path: Path) -> None:
    text = (
        "```console\n$ agentgauge run SUITE --agent mock: -o runs/new \\\n"
        "    --max-concurrency 4 --no-cache --shard=2/4\nsummary --agnet is output, not a command\n"
        "$ agentgauge cache clear --older-than 30d --yes && agentgauge tools list --mcp X\n```\n"
        "Inline: `agentgauge report RUN_DIR --format markdown`, `agentgauge --version`.\n"
    )
    report = _check(tmp_path, text)
    assert _messages(report) == []
    assert report.commands == 5


def test_unknown_commands_and_nested_commands(tmp_path: Path) -> None:
    text = (
        "```sh\nagentgauge rum x\nagentgauge cache infos\nagentgauge tools list --strict\n"
        "FOO=1 agentgauge cache info --format json | jq . # agentgauge nothing --here\n```\n"
        "and `agentgauge import bfcl F --to-yaml`\n"
    )
    assert _messages(_check(tmp_path, text)) == [
        "docs/guide.md:2: command: agentgauge: no such command 'rum'",
        "docs/guide.md:3: command: agentgauge cache: no such command 'infos'",
        "docs/guide.md:4: option: agentgauge tools list: no such option --strict",
        "docs/guide.md:7: option: agentgauge import: no such option --to-yaml",
    ]


def test_an_option_value_that_looks_like_an_option_is_a_value(tmp_path: Path) -> None:
    text = "```bash\nagentgauge run S --filter '-slow' --agent mock: --seed -1 -o -\n```\n"
    assert _messages(_check(tmp_path, text)) == []


def test_placeholders_are_allowed(tmp_path: Path) -> None:
    text = "`agentgauge COMMAND --help`, `agentgauge <command> ...`, `agentgauge run --<option>`\n"
    assert _messages(_check(tmp_path, text)) == []


def test_a_broken_link_and_a_broken_anchor_are_found(tmp_path: Path) -> None:
    files = {"docs/other.md": "# Other\n\n## Gate `--baseline` (exit 1)\n\n## Memory {#memory}\n"}
    text = (
        "See [a](other.md#gate---baseline-exit-1), [b](other.md#memory), [c](#guide),\n"
        "[d](../README.md) and [e](other.md#nope); ![f](img/x.png) [g](https://x.org/#y)\n\n"
        "# Guide\n"
    )
    assert _messages(_check(tmp_path, text, files)) == [
        "docs/guide.md:2: link: ../README.md: no such file ../README.md",
        "docs/guide.md:2: link: img/x.png: no such file img/x.png",
        "docs/guide.md:2: link: other.md#nope: no heading #nope in other.md",
    ]


def test_a_missing_repository_path_is_found(tmp_path: Path) -> None:
    files = {"examples/quickstart/suite.yaml": "", "src/agentgauge/files/_limits.py": ""}
    text = (
        "`examples/quickstart/suite.yaml`, `src/agentgauge/files/_limits.py:40`,\n"
        "`examples/NAME/suite.yaml`, `examples/*/suite.yaml`, `python examples/gone.py`\n\n"
        "```bash\nagentgauge import bfcl examples/missing -o examples/output-is-not-checked\n```\n"
    )
    assert _messages(_check(tmp_path, text, files)) == [
        "docs/guide.md:2: program: examples/gone.py: no such program",
        "docs/guide.md:2: path: no such path examples/gone.py",
        "docs/guide.md:5: path: no such path examples/missing",
    ]


def test_github_slugs() -> None:
    assert github_slug("Gate `--baseline` (exit 1)") == "gate---baseline-exit-1"
    assert github_slug("[Links](x.md) and *emphasis*: a_b, ≥ 3") == "links-and-emphasis-a_b--3"
    assert github_slug("Ünïcode Heading") == "ünïcode-heading"


def test_duplicate_headings_and_explicit_ids(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("# A\n\n## Notes\n\n## Notes\n\n```\n# Not a heading\n```\n## B {#bee}\n")
    anchors = parse(path).anchors
    assert {"a", "notes", "notes-1", "bee", "b", "b-bee"} <= anchors
    assert "not-a-heading" not in anchors


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("agentgauge run s --agent a", [["run", "s", "--agent", "a"]]),
        ("pip install agentgauge", []),
        ("cd x && agentgauge gate r > out.txt", [["gate", "r"]]),
        ("time .venv/bin/agentgauge validate s", [["validate", "s"]]),
        ("echo agentgauge run --nope", []),
    ],
)
def test_invocations_in_a_shell_line(line: str, expected: list[list[str]]) -> None:
    assert list(agentgauge_invocations(split_shell(line))) == expected


def test_continuations_and_prompts(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text(
        "```console\n$ agentgauge run s \\\n  --agent a\nagentgauge output line\n```\n"
        "```\nagentgauge validate s\nnot a command\n```\n```python\nagentgauge = 1\n```\n"
    )
    assert list(command_lines(parse(path))) == [
        (2, "agentgauge run s    --agent a"),
        (7, "agentgauge validate s"),
    ]


def test_commands_in_workflows_comments_and_prose(tmp_path: Path) -> None:
    text = (
        "```yaml\n- run: agentgauge gate runs/full --baselin b/\n- name: merge\n"
        "  run: agentgauge merge runs/* -o runs/all --allow-missing\n"
        "# Check it: agentgauge validate THIS_FILE --mutat; run it with care\n"
        "- agentgauge: not a command\n```\n"
        "```python\nsubprocess.run('agentgauge run --nope')\n```\n"
        "```console\n$ python -m agentgauge run s --agnt a\n```\n"
        "`run --gate`, `score --respones R`, `continue with agentgauge run --resum DIR`,\n"
        "`the placeholder agentgauge records --instead`, `import bfcl F --to jsonl`\n"
    )
    assert _messages(_check(tmp_path, text)) == [
        "docs/guide.md:2: option: agentgauge gate: no such option --baselin",
        "docs/guide.md:5: option: agentgauge validate: no such option --mutat",
        "docs/guide.md:12: option: agentgauge run: no such option --agnt",
        "docs/guide.md:14: option: agentgauge run: no such option --resum",
        "docs/guide.md:14: option: agentgauge score: no such option --respones",
    ]


def test_module_paths_are_read_under_src(tmp_path: Path) -> None:
    files = {"src/agentgauge/runner/_gc.py": "", "src/agentgauge/_secrets.py": ""}
    text = (
        "`runner/_gc.py`, `agentgauge/_secrets.py`, `runner/_gone.py`, `agentgauge/_nope.py`,\n"
        "`agentgauge/__pycache__/x.codes` (generated), `runner/` (a word)\n"
    )
    assert _messages(_check(tmp_path, text, files)) == [
        "docs/guide.md:1: path: no such path src/agentgauge/_nope.py",
        "docs/guide.md:1: path: no such path src/agentgauge/runner/_gone.py",
    ]


def test_the_repository_programs_and_their_options(tmp_path: Path) -> None:
    files = {
        "benchmarks/bench_x.py": 'parser.add_argument("--runs")\nparser.add_argument("--cache")',
        "src/agentgauge/testing/fake.py": "p.add_argument('--latency-ms')",
        "src/agentgauge/pytest_plugin.py": 'group.addoption("--agentgauge-agent")',
    }
    text = (
        "```bash\npython benchmarks/bench_x.py --runs 3 --no-cache --runz 3\n"
        "python -X importtime benchmarks/gone.py --runs 1\n"
        "cd x && python -m agentgauge.testing.fake --latency-ms 5 --port 9 &\n"
        "python -m pip install --no-deps x; python -m agentgauge run s --agnt a\n```\n"
        "`pytest -x --agentgauge-agent A --agentgauge-agnet B`, `bench_x.py --run 1` (here),\n"
        "`benchmarks/bench_x.py` (a path, not a run)\n"
    )
    (tmp_path / "docs" / "bench_x.py").parent.mkdir(parents=True)
    (tmp_path / "docs" / "bench_x.py").write_text('"--runs"')
    report = _check(tmp_path, text, files)
    assert _messages(report) == [
        "docs/guide.md:2: program: benchmarks/bench_x.py: no such option --runz",
        "docs/guide.md:3: program: benchmarks/gone.py: no such program",
        "docs/guide.md:4: program: -m agentgauge.testing.fake: no such option --port",
        "docs/guide.md:5: option: agentgauge run: no such option --agnt",
        "docs/guide.md:7: program: bench_x.py: no such option --run",
        "docs/guide.md:7: program: pytest: no such option --agentgauge-agnet",
    ]
    assert report.programs == 6


def test_a_wrong_choice_or_number_is_found(tmp_path: Path) -> None:
    text = (
        "```bash\nagentgauge report r --format xlsx -o out\nagentgauge import bfkl F -o s/\n"
        "agentgauge run s --agent mock: --trials three --mode=bfcl --tool-mode real\n"
        "agentgauge report r --format=markdown [--format html] && agentgauge run s --trials N\n"
        "agentgauge history [--limit 20] --window $W && agentgauge tools convert t --to mcp\n```\n"
    )
    assert _messages(_check(tmp_path, text)) == [
        "docs/guide.md:2: value: agentgauge report: --format xlsx: 'xlsx' is not one of"
        " 'console', 'markdown', 'junit', 'json', 'csv', 'html'.",
        "docs/guide.md:3: value: agentgauge import: bfkl: 'bfkl' is not one of 'acebench',"
        " 'bfcl', 'golden', 'suite', 'tool-selection', 'tooltalk', 'when2call'.",
        "docs/guide.md:4: value: agentgauge run: --trials three: 'three' is not a valid integer"
        " range.",
    ]


def test_the_python_the_docs_show(tmp_path: Path) -> None:
    text = (
        "```python\nfrom agentgauge import RunConfig, run_suite\n"
        "from agentgauge.suites import load_suite, lodd_suite\n"
        "from agentgauge.nowhere import x\nfrom agentgauge.io import iter_results\n"
        "from agentgauge.scoring import _api, thing, annotations\nimport agentgauge.runner\n```\n"
        "`agentgauge.formats.tools_to_format(t, 'mcp')`, `agentgauge.io.results_to_otlp(...)`,\n"
        "`agentgauge.route` (a trace attribute), `agentgauge.runner.no_such(x)`,\n"
        "`agentgauge.metrics._stats` (where it is implemented), `agentgauge.metrics._gone`,\n"
        "`from agentgauge.io import load_suite` keeps working (a sentence about the facade)\n"
    )
    assert _messages(_check(tmp_path, text)) == [
        "docs/guide.md:3: python: agentgauge.suites has no name lodd_suite",
        "docs/guide.md:4: python: no module agentgauge.nowhere",
        "docs/guide.md:5: python: agentgauge.io is the compatibility facade: import iter_results"
        " from agentgauge.rundir",
        "docs/guide.md:6: python: _api is private (a name with a leading _)",
        "docs/guide.md:6: python: agentgauge.scoring has no name thing",
        "docs/guide.md:6: python: annotations is not public in agentgauge.scoring (not in its"
        " __all__)",
        "docs/guide.md:9: python: agentgauge.io is the compatibility facade: import results_to_otlp"
        " from agentgauge.exchange",
        "docs/guide.md:10: python: agentgauge.runner has no name no_such",
        "docs/guide.md:11: python: agentgauge.metrics has no name _gone",
    ]


def test_code_to_copy_never_reaches_a_private_module(tmp_path: Path) -> None:
    # docs/tool-formats.md told readers to call formats._convert.to_gemini: the imports were
    # checked, the attribute chains of a block and a call in inline code were not
    text = (
        "```python\nimport agentgauge.formats\nimport agentgauge.suites as su\n"
        "from agentgauge import formats\nfrom agentgauge.formats import tools_to_format\n"
        "agentgauge.formats._convert.to_gemini(tool, json_schema=True)\n"
        "formats._names.tool_name_problem('x')\nsu._lint.lint_suite(s).count\n"
        "tools_to_format(tools, 'gemini', json_schema=True)\n"
        "formats.tools_to_format(tools, 'gemini').get('x')\nprint(agentgauge.__version__)\n```\n"
        "Call `agentgauge.formats._convert.to_gemini(tool, json_schema=True)`; it is implemented\n"
        "in `agentgauge.formats._convert` (a pointer, not code), as `tools_to_format(...)` is.\n"
    )
    assert _messages(_check(tmp_path, text)) == [
        "docs/guide.md:6: python: agentgauge.formats._convert is private (a module with a"
        " leading _)",
        "docs/guide.md:7: python: agentgauge.formats._names is private (a module with a leading _)",
        "docs/guide.md:8: python: agentgauge.suites._lint is private (a module with a leading _)",
        "docs/guide.md:13: python: agentgauge.formats._convert is private (a module with a"
        " leading _)",
    ]


def test_a_yaml_block_agentgauge_cannot_read_is_found(tmp_path: Path) -> None:
    text = (
        "```yaml\ncases:\n  - {id: a, input: Weather in Paris?}\n```\n"
        "```yaml\ncases:\n  - id: a\n   input: x\n```\n"
    )
    report = _check(tmp_path, text)
    assert [(f.line, f.kind) for f in report.findings] == [(6, "yaml")]
    assert report.yaml == 2


def test_an_agent_spec_with_an_unknown_provider_is_found(tmp_path: Path) -> None:
    text = (
        "```bash\nagentgauge run s --agent opnai:gpt-4o-mini --agent echo=mock:echo\n"
        "agentgauge compare a b --judge anthropc:claude && agentgauge history --agent 'openai:*'\n"
        "agentgauge run s --agent nosuch:x --agent A --judge SPEC --user-model local:smollm2\n```\n"
    )
    messages = _messages(_check(tmp_path, text))
    assert [m.split(": unknown provider spec")[0] for m in messages] == [
        "docs/guide.md:2: value: agentgauge run: --agent opnai:gpt-4o-mini",
        "docs/guide.md:3: value: agentgauge compare: --judge anthropc:claude",
    ]


def test_a_module_whose_extra_is_missing_is_not_a_doc_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import docs_python

    def missing(name: str) -> object:
        raise ModuleNotFoundError(f"no {name}", name="grpc" if "grpc" in name else name)

    monkeypatch.setattr("docs_python.importlib.import_module", missing)
    assert docs_python.import_problem("agentgauge.exchange.otlp_grpc", "send") is None
    assert docs_python.import_problem("agentgauge.nowhere", "x") == "no module agentgauge.nowhere"


def test_an_option_alone_in_prose_must_exist_somewhere(tmp_path: Path) -> None:
    files = {"benchmarks/bench_x.py": 'parser.add_argument("--runs")'}
    text = (
        "Use `--max-concurrency 8`, `--resume DIR`, `--runs` (a benchmark's), `--no-deps` (pip's)\n"
        "or `--max-concurency 8`; `run --gate` and `pip install --nope` are command lines.\n"
    )
    report = _check(tmp_path, text, files)
    assert _messages(report) == [
        "docs/guide.md:2: option: --max-concurency is no option of agentgauge or of its programs"
    ]
    assert report.lone_options == 5


def test_a_suite_block_that_does_not_load_is_found(tmp_path: Path) -> None:
    text = (
        "```yaml\ncases:\n  - id: a\n    input: Hi\n    expect: {behavior: no_tool}\n```\n"
        "```yaml\nname: s\ncases:\n  - id: b\n    input: Hi\n    user:\n      goal: g\n"
        "      rules:\n        - {when: [x], say: Great, thanks!, end: true}\n```\n"
        "```yaml\ncases:\n  - id: c\n    input: ...\n```\n"
    )
    report = _check(tmp_path, text)
    assert [(f.line, f.kind, "thanks!" in f.message) for f in report.findings] == [
        (8, "yaml", True)
    ]


def test_suite_and_case_fragments_are_loaded_in_a_suite(tmp_path: Path) -> None:
    text = (
        "```yaml\nexpect: {behavior: no_tool}\n```\n"  # a case's part: fine
        "```yaml\n    expect:\n      behavior: ansver\n```\n"  # indented in a list item
        "```yaml\ngates: {min_pass_rate: 0.9}\n```\n"  # a suite's part: fine
        "```yaml\ngates: {min_pass_rat: 0.9}\n```\n"
        "```yaml\ncase_files: [cases/*.jsonl]\n```\n"  # names files beside it: not loaded
        "```yaml\njobs: {test: {runs-on: ubuntu-latest}}\n```\n"  # not agentgauge's
    )
    report = _check(tmp_path, text)
    found = [(f.line, f.kind) for f in report.findings]
    assert found == [(5, "yaml"), (12, "yaml")]
    assert "ansver" in report.findings[0].message
    assert "min_pass_rat" in report.findings[1].message


def test_a_call_with_an_argument_the_api_lacks_is_found(tmp_path: Path) -> None:
    text = (
        "```python\nfrom agentgauge import RunConfig, load_suite\n"
        "from agentgauge.judges import Judge, JudgeConfig\n\n"
        "config = RunConfig(agent='mock:', max_concurrency=8, max_concurency=8)\n"
        "suite = load_suite('suite.yaml', 'extra', 'more')\n"
        "judge = Judge.from_config(JudgeConfig(spec='mock:', sampels=3))\n"
        "other = RunConfig(**{'agent': 'mock:'})\n```\n"
    )
    assert _messages(_check(tmp_path, text)) == [
        "docs/guide.md:5: python: RunConfig() takes no argument max_concurency",
        "docs/guide.md:6: python: load_suite() takes 1 positional argument(s), given 3",
        "docs/guide.md:7: python: JudgeConfig() takes no argument sampels",
    ]


# --- every option documented, option tables true ------------------------------------------


def test_every_option_of_every_command_is_in_the_docs() -> None:
    from agentgauge.cli import cli

    used = used_options(ROOT, cli)
    assert undocumented(cli, used) == []
    # the reading must keep finding the commands (a reader that finds none passes vacuously)
    assert len(list(commands(cli))) >= 20
    assert sum(len(options) for options in used.values()) >= 250


def test_an_option_no_doc_shows_is_found(tmp_path: Path) -> None:
    @click.group()
    def root() -> None: ...

    @root.command("run")
    @click.argument("suite")
    @click.option("--agent")
    @click.option("--cache/--no-cache", default=True)
    @click.option("--secret-knob")
    @click.option("--told", hidden=True)
    def run(suite: str, agent: str, cache: bool, secret_knob: str, told: str) -> None: ...

    @root.command("other")
    @click.option("--x")
    def other(x: str) -> None: ...

    doc = tmp_path / "docs" / "guide.md"
    doc.parent.mkdir()
    doc.write_text("```bash\nagentgauge run s --agent a --no-cache\n```\n`--x` (not of run)\n")
    assert undocumented(root, used_options(tmp_path, root, [doc])) == [
        "agentgauge other",
        "agentgauge run --secret-knob",
    ]


#: the option tables of the docs: (doc, the line the table follows, its command)
OPTION_TABLES = [
    ("docs/running.md", "## Options", "run", 27),
    ("docs/running.md", "### Provider limits", "run", 2),
    ("docs/judges.md", "| option | default | meaning |", "compare", 6),
    ("docs/generate.md", "## Options", "generate", 10),
    ("docs/redteam.md", "| option | |", "redteam", 7),
    ("docs/reports.md", "| option | meaning |", "report", 4),
]


@pytest.mark.parametrize(("doc", "heading", "name", "rows"), OPTION_TABLES)
def test_the_option_tables_give_the_real_variables_and_defaults(
    doc: str, heading: str, name: str, rows: int
) -> None:
    from agentgauge.cli import cli

    command = cli.get_command(click.Context(cli), name)
    assert command is not None
    found = option_rows(ROOT / doc, heading, ROOT)
    assert len(found) >= rows  # the table is still read
    defaults = run_defaults() if name == "run" else {}
    assert [p for row in found for p in row_problems(row, command, defaults)] == []


def test_a_wrong_table_row_is_found(tmp_path: Path) -> None:
    from agentgauge.cli import cli

    doc = tmp_path / "docs" / "guide.md"
    doc.parent.mkdir()
    doc.write_text(
        "## Options\n\n| flag | env var | default | |\n|---|---|---|---|\n"
        "| `--retries N` | `AGENTGAUGE_RETRIES` | 3 | wrong default |\n"
        "| `--seed N` | `AGENTGAUGE_RANDOM` | 0 | wrong variable |\n"
        "| `--max-concurrency N` | `AGENTGAUGE_MAX_CONCURRENCY` | 8 | the run's default is 16 |\n"
        "| `--cache/--no-cache` | `AGENTGAUGE_CACHE` | off | a switch that is on |\n"
        "| `--trials K` | `AGENTGAUGE_TRIALS` | `defaults.trials` (1) | right |\n"
        "| `--gone` | | | no such option |\n"
    )
    run = cli.get_command(click.Context(cli), "run")
    assert run is not None
    found = [
        p
        for row in option_rows(doc, "## Options", tmp_path)
        for p in row_problems(row, run, run_defaults())
    ]
    assert found == [
        "docs/guide.md:5: --retries: the table's default '3', not 2",
        "docs/guide.md:6: --seed: the table names AGENTGAUGE_RANDOM, it reads AGENTGAUGE_SEED",
        "docs/guide.md:7: --max-concurrency: the table's default '8', not 16",
        "docs/guide.md:8: --cache: the table's default 'off', not True",
        "docs/guide.md:10: run has no option --gone",
    ]
