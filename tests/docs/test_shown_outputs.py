"""What the docs show a command printing is what it prints today.

Each test reads a command and the output shown under it from a doc (README.md, docs/*.md, an
example's README), runs that very command line offline in a scratch folder (``examples/`` is
linked into it, so the docs' relative paths work; the inputs a doc names but does not ship are
written there first), and compares the output line by line with what the doc shows:

* a shown line is a pattern: ``...`` inside it stands for any text, a line that is only ``...``
  for any number of lines; everything else must match exactly (trailing spaces aside);
* ``whole=True``: the doc shows the whole output, from its first line to its last; otherwise
  the shown lines must appear in the output in that order (an extract);
* paths of the scratch folder are written as the doc writes them (``/home/me/...``).

So a change of wording, a count or a table layout fails here until the doc says the same again.
Run ids, times and sizes are replaced by placeholders only where a doc shows a live run's.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.rundir import iter_results
from agentgauge.suites import load_suite

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "exchange" / "fixtures"
_WILD = "\x00"


# --- reading what a doc shows ------------------------------------------------------------


@dataclass(frozen=True)
class Shown:
    """A command line a doc shows and the output lines shown under it."""

    where: str
    command: str
    output: list[str]


def _blocks(doc: str) -> Iterator[tuple[int, list[str]]]:
    """(first line number, lines) of each fenced block of ``doc``, indentation removed."""
    lines = (ROOT / doc).read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opened = re.match(r"^(\s*)(`{3,}|~{3,})", lines[index])
        index += 1
        if not opened:
            continue
        indent, fence, body, start = len(opened.group(1)), opened.group(2), [], index + 1
        while index < len(lines) and not lines[index].strip().startswith(fence):
            body.append(lines[index][indent:])
            index += 1
        index += 1
        yield start, body


def shown_under(doc: str, command: str, *, containing: str = "", then: str = "") -> Shown:
    """The output a doc shows under ``$ command ...`` (a prompt line starting with ``command``,
    continuation lines joined, holding ``containing``, its output starting with ``then``): its
    lines up to the next prompt or the end of the block."""
    for start, body in _blocks(doc):
        for offset, line in enumerate(body):
            if not line.strip().startswith(f"$ {command}"):
                continue
            full, index = line.strip()[2:], offset
            while full.endswith("\\"):
                index += 1
                full = full[:-1] + " " + body[index].strip()
            output = []
            for out in body[index + 1 :]:
                if out.strip().startswith("$ "):
                    break
                output.append(out)
            if containing in full and (output[:1] or [""])[0].startswith(then):
                return Shown(f"{doc}:{start + offset}", full, output)
    raise AssertionError(f"{doc}: no line '$ {command}' in a block (was the doc changed?)")


def shown_block(doc: str, first: str) -> Shown:
    """A whole block of ``doc`` whose first line starts with ``first`` (an output shown alone)."""
    for start, body in _blocks(doc):
        if body and body[0].strip().startswith(first):
            return Shown(f"{doc}:{start}", "", body)
    raise AssertionError(f"{doc}: no block starting {first!r} (was the doc changed?)")


# --- comparing -----------------------------------------------------------------------------


def _pattern(line: str) -> re.Pattern[str] | str:
    text = line.rstrip()
    if text.strip() in ("...", "…"):
        return _WILD
    parts = [re.escape(part) for part in re.split(r"\s*\.\.\.\s*", text)]
    return re.compile(r".*?".join(parts) + r"\s*")


def mismatch(shown: list[str], actual: list[str], *, whole: bool) -> str | None:
    """Why ``actual`` (output lines) does not show what ``shown`` (a doc's lines) shows, or
    None. In ``whole`` mode every actual line must be accounted for."""
    while shown and not shown[-1].strip():
        shown = shown[:-1]
    actual = [line.rstrip() for line in actual]
    while actual and not actual[-1]:
        actual = actual[:-1]
    position, skipping = 0, not whole
    for line in shown:
        pattern = _pattern(line)
        if pattern == _WILD or (skipping and not line.strip()):
            skipping = True  # a blank line after "..." belongs to what is left out
            continue
        assert isinstance(pattern, re.Pattern)
        found = None
        for index in range(position, len(actual) if skipping else min(position + 1, len(actual))):
            if pattern.fullmatch(actual[index]):
                found = index
                break
        if found is None:
            near = actual[position] if position < len(actual) else "<end of output>"
            return f"the doc shows {line.rstrip()!r}; the command prints {near!r} there"
        position, skipping = found + 1, not whole
    if whole and not skipping and position < len(actual):
        return f"the command prints more than the doc shows: {actual[position]!r}"
    return None


def assert_shows(shown: Shown, output: str, *, whole: bool = True) -> None:
    problem = mismatch(shown.output, output.splitlines(), whole=whole)
    assert problem is None, f"{shown.where}: {problem}\n--- the command printed:\n{output}"


# --- running -------------------------------------------------------------------------------


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch folder to run the docs' commands in, with the repository's examples."""
    (tmp_path / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AGENTGAUGE_NO_HISTORY", "1")
    monkeypatch.setenv("COLUMNS", "100")
    return tmp_path


def run(command: str, **replace: str) -> tuple[int, str]:
    """Run a doc's ``agentgauge ...`` command line in-process: exit code, stdout + stderr."""
    for old, new in replace.items():
        command = command.replace(old, new)
    words = shlex.split(command, comments=True)
    assert words[0] == "agentgauge", command
    result = CliRunner().invoke(cli, words[1:], catch_exceptions=False)
    return result.exit_code, result.output


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# --- validate and the mutation audit -------------------------------------------------------


def test_validate_quickstart(here: Path) -> None:
    shown = shown_block("docs/suite-format.md", "examples/quickstart: suite 'quickstart'")
    code, output = run("agentgauge validate examples/quickstart")
    assert code == 0
    assert_shows(shown, output)


def test_the_mutation_audit_of_the_quickstart(here: Path) -> None:
    shown = shown_block("docs/mutation.md", "examples/quickstart: mutation audit:")
    code, output = run("agentgauge validate --mutate examples/quickstart")
    assert code == 0
    audit = output[output.index("examples/quickstart: mutation audit:") :]
    assert_shows(shown, audit)
    wrong = re.search(r"(\d+) wrong transcripts", audit)
    assert wrong is not None
    prose = (ROOT / "docs/mutation.md").read_text(encoding="utf-8")
    assert f"quickstart's {wrong.group(1)} wrong transcripts" in prose


#: (doc, the sentence's pattern with the count as its group, the suite it counts)
AUDIT_COUNTS = [
    ("examples/guardrails/README.md", r"# ([\d,]+) wrong transcripts", "examples/guardrails"),
    ("examples/modules/README.md", r"--mutate`: ([\d,]+) wrong\s", "examples/modules"),
    (
        "examples/tool_selection/README.md",
        r"--mutate`: ([\d,]+) wrong\s",
        "examples/tool_selection",
    ),
    ("examples/travel/README.md", r"builds ([\d,]+) wrong\s", "examples/travel"),
    ("examples/redteam/README.md", r"finding; ([\d,]+) wrong transcripts", "examples/redteam"),
    ("examples/retail/README.md", r"builds ([\d,]+) wrong transcripts", "examples/retail"),
    ("examples/support/README.md", r"clean: ([\d,]+) wrong transcripts", "examples/support/golden"),
]


@pytest.mark.parametrize(
    ("doc", "sentence", "suite"), AUDIT_COUNTS, ids=[a[2] for a in AUDIT_COUNTS]
)
def test_the_examples_mutation_counts(doc: str, sentence: str, suite: str) -> None:
    said = re.search(sentence, (ROOT / doc).read_text(encoding="utf-8"))
    assert said is not None, f"{doc}: no sentence {sentence!r} (was the doc changed?)"
    code, output = run(f"agentgauge validate --mutate {ROOT / suite} --allow-suite-code")
    audit = re.search(r"mutation audit: \d+ cases, (\d+) wrong transcripts, (\d+) passed", output)
    assert code == 0, output
    assert audit is not None, output
    assert (said.group(1).replace(",", ""), audit.group(2)) == (audit.group(1), "0"), doc


#: (the README's words, the example, its case count)
EXAMPLE_SIZES = [
    ("20 commented cases over six tools", "examples/quickstart", 20, 6),
    ("64 cases in five categories", "examples/travel", 64, None),
    ("15 everyday tools, the five kinds of expected behaviour, 105 cases",
     "examples/tool_selection", 105, 15),
    ("40 cases graded by the state", "examples/retail", 40, None),
    ("a 200-row RAG golden set", "examples/support", 200, None),
    ("175 attack cases in 14 families", "examples/redteam", 175, None),
    ("nine cases, one per guardrail", "examples/guardrails", 9, 8),
    ("four conversations with scripted simulated users", "examples/users", 4, 2),
]  # fmt: skip


@pytest.mark.parametrize(("words", "example", "cases", "tools"), EXAMPLE_SIZES)
def test_the_readme_examples_table(words: str, example: str, cases: int, tools: int | None) -> None:
    assert words in (ROOT / "README.md").read_text(encoding="utf-8")
    suite = load_suite(ROOT / example)
    assert len(suite.cases) == cases
    if tools is not None:
        assert len(suite.tools) == tools
    if example == "examples/redteam":
        tags = {t for case in suite.cases for t in case.tags if t.startswith("family:")}
        assert len(tags - {"family:control"}) == 14  # and the benign controls


def test_the_readme_lists_every_example() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    folders = sorted(
        p.name for p in (ROOT / "examples").iterdir() if p.is_dir() and p.name[0].isalpha()
    )
    assert len(folders) >= 12
    assert [f for f in folders if f"](examples/{f}/" not in readme] == []


def test_the_guardrails_example(here: Path) -> None:
    doc = "examples/guardrails/README.md"
    for function, passed in (("agent", 9), ("careless", 0)):
        shown = shown_under(doc, "agentgauge run examples/guardrails", containing=f":{function} ")
        assert f"# {passed}/9" in shown.command, shown.where
        command = shown.command.split(" #")[0]
        code, _ = run(f"{command} -o runs/{function} --no-progress")
        assert code == 0
        results = list(iter_results(here / "runs" / function))
        assert (len(results), sum(r.status == "passed" for r in results)) == (9, passed)
    explanations = {r.case_id: r.explanation.splitlines() for r in results}
    failures = shown_block(doc, "policy-from-the-kb ")
    listed = dict(line.split(None, 1) for line in failures.output)
    assert sorted(listed) == sorted(explanations), f"{failures.where}: one line per case"
    for case, why in listed.items():
        problem = mismatch([why.replace(" …", " ...")], explanations[case], whole=False)
        assert problem is None, f"{failures.where}: {case}: {problem}"


def _explanation_lines(run_dir: Path) -> dict[str, list[str]]:
    return {r.case_id: r.explanation.splitlines() for r in iter_results(run_dir)}


def _entries(lines: list[str], *, with_case: bool) -> list[tuple[str, str]]:
    """(case id or "", text) of each entry of a README's block of explanations; an indented
    line continues the entry above it."""
    entries: list[tuple[str, str]] = []
    for line in lines:
        if line.startswith(" ") and entries:
            case, text = entries[-1]
            entries[-1] = (case, f"{text} {line.strip()}")
        elif with_case:
            case, text = line.split(None, 1)
            entries.append((case, text))
        else:
            entries.append(("", line))
    return entries


#: (README, the block's first words, the run's arguments, whether a line starts with the case)
EXPLAINED = [
    ("examples/custom_scorer/README.md", "assert: reply:", "examples/custom_scorer/suite.yaml"
     " --agent python:examples/custom_scorer/oracle_agent.py:careless", False),
    ("examples/retail/README.md", "cancel-user-says-no ",
     "examples/retail --agent python:examples/retail/oracle_agent.py:hasty", True),
]  # fmt: skip


@pytest.mark.parametrize(("doc", "first", "args", "with_case"), EXPLAINED)
def test_the_explanations_a_readme_shows(
    here: Path, doc: str, first: str, args: str, with_case: bool
) -> None:
    shown = shown_block(doc, first)
    run(f"agentgauge run {args} --allow-suite-code -o runs/x --no-progress")
    explained = _explanation_lines(here / "runs/x")
    for case, text in _entries(shown.output, with_case=with_case):
        pattern = [text.replace("…", "...")]
        cases = [case] if case else sorted(explained)
        assert any(mismatch(pattern, explained[c], whole=False) is None for c in cases), (
            f"{shown.where}: no explanation of {case or 'any case'} shows {text!r}"
        )


AUDITED = """\
name: t
tools:
  - name: b
    parameters: {type: object, properties: {y: {type: string}}, required: [y]}
cases:
  - id: ok
    category: tool_call
    input: q
    expect: {tool_calls: [{name: b, arguments: {y: k}}]}
  - id: weak
    category: clarify
    input: q
    expect: {reference: It is sunny.}
  - id: bad-reference
    category: clarify
    input: Book a flight to Portland.
    expect: {behavior: clarify, reference: Ask which Portland is meant.}

# a matcher that lets a wrong value through
  - id: loose
    category: tool_call
    input: q
    expect: {tool_calls: [{name: b, arguments: {y: {regex: "^(a|.+)$"}}}]}
"""


def test_the_mutation_audit_findings(here: Path) -> None:
    write(here / "suite.yaml", AUDITED)
    code, output = run("agentgauge validate --mutate suite.yaml")
    assert code == 2  # a case that cannot fail is an error
    assert_shows(shown_block("docs/mutation.md", "suite.yaml:10: cases[1]"), output, whole=False)


#: (README, the sentence with the pass rate as its group, the run's arguments)
WRONG_AGENTS = [
    ("examples/travel/README.md", r"fails four gates: pass rate ([\d.]+) %",
     "examples/travel --allow-suite-code --agent python:examples/travel/oracle_agent.py:careless"),
    ("examples/modules/README.md", r"`kb_for_everything`\*\*: ([\d.]+) % pass rate",
     "examples/modules --agent python:examples/modules/oracle_agent.py:kb_for_everything"
     " --allow-suite-code"),
    ("examples/tool_selection/README.md", r"`search_everything`\*\*[^:]*: ([\d.]+) % pass rate",
     "examples/tool_selection --judge mock:judge --allow-suite-code"
     " --agent python:examples/tool_selection/oracle_agent.py:search_everything"),
    ("examples/retail/README.md", r"hasty +# (\d+)/40: the state is wrong",
     "examples/retail --allow-suite-code --agent python:examples/retail/oracle_agent.py:hasty"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("doc", "sentence", "args"), WRONG_AGENTS, ids=[w[0] for w in WRONG_AGENTS]
)
def test_the_examples_wrong_agents(here: Path, doc: str, sentence: str, args: str) -> None:
    said = re.search(sentence, (ROOT / doc).read_text(encoding="utf-8"))
    assert said is not None, f"{doc}: no sentence {sentence!r} (was the doc changed?)"
    code, output = run(f"agentgauge run {args} -o runs/x --no-progress")
    assert code == 0, output
    results = list(iter_results(here / "runs/x"))
    passed = sum(r.status == "passed" for r in results)
    measured = str(passed) if "/40" in sentence else f"{100 * passed / len(results):.1f}"
    assert said.group(1) == measured, f"{doc}: the README says {said.group(1)}, the run {measured}"


# --- errors the docs show ---------------------------------------------------------------


def test_an_import_that_stops_on_bad_json(here: Path) -> None:
    shown = shown_under("docs/importers.md", "agentgauge import when2call broken.jsonl")
    row = {"question": "Hi?", "correct_answer": "direct", "answers": {"direct": "Hello."}}
    write(here / "broken.jsonl", json.dumps(row) + "\n{question: 1}\n")
    code, output = run(shown.command)
    assert code == 2
    assert_shows(shown, output)


def test_the_when2call_import(here: Path, shared_data: Path) -> None:
    shown = shown_under("docs/importers.md", "agentgauge import when2call ../shared/data")
    code, output = run(shown.command, **{"../shared/data": str(shared_data)})
    assert code == 0
    assert_shows(shown, output)


def test_the_bfcl_multi_turn_import(here: Path, shared_data: Path) -> None:
    shown = shown_under(
        "docs/bfcl.md", "agentgauge import bfcl ../shared/data/bfcl-v4/BFCL_v4_multi"
    )
    code, output = run(shown.command, **{"../shared/data": str(shared_data)})
    assert code == 0
    assert_shows(shown, output, whole=False)


def test_a_suite_profile_over_the_bounds(here: Path) -> None:
    shown = shown_block("docs/load.md", "suite.yaml:14: load.stages[1].target")
    case = "  - {id: a, input: hi, expect: {behavior: answer}}\n"
    stages = "  stages:\n    - {duration: 10s, target: 5}\n    - {duration: 10s, target: 5000}\n"
    write(
        here / "suite.yaml",
        "name: s\ncases:\n" + case + "\n" * 6 + "load:\n  mode: open\n" + stages,
    )
    code, output = run("agentgauge load suite.yaml --agent mock:")
    assert code == 2
    assert_shows(shown, output)


def test_every_problem_of_a_large_suite_before_a_call(here: Path) -> None:
    shown = shown_under("docs/large-suites.md", "agentgauge run suite --agent mock:")
    case = '{"id": "case-%03d", "input": "hi", "expect": {"behavior": "answer"}}\n'
    write(here / "suite/suite.yaml", "name: s\ncase_files: [cases.jsonl]\n")
    lines = [case % 0, '{"id": "case-001"}\n', case % 2, "{bad\n", case % 3, case % 0]
    write(here / "suite/cases.jsonl", "".join(lines))
    code, output = run(shown.command)
    assert shown.output[-2:] == ["$ echo $?", "2"] or shown_under(
        "docs/large-suites.md", "echo $?"
    ).output == [str(code)]
    assert code == 2
    assert_shows(shown, output)
    assert not (here / "runs/x/results.jsonl").exists()


def _tiny_suite(here: Path) -> None:
    write(
        here / "suite.yaml", "name: s\ncases:\n  - {id: a, input: hi, expect: {behavior: answer}}\n"
    )


@pytest.mark.parametrize("rate", ["5/hour", "0/s"])
def test_a_bad_rate_limit(here: Path, rate: str) -> None:
    _tiny_suite(here)
    shown = shown_under("docs/running.md", f"agentgauge run suite.yaml --rate-limit {rate}")
    code, output = run(shown.command)
    assert code == 2
    assert_shows(shown, output)


def test_a_matrix_member_that_can_never_run(here: Path) -> None:
    _tiny_suite(here)
    shown = shown_under("docs/running.md", "agentgauge run suite.yaml --agent nosuch:x")
    code, output = run(shown.command)
    assert code == 2
    assert_shows(shown, output)
    assert not (here / "runs").exists()


def test_a_suite_whose_gates_cannot_be_read(here: Path) -> None:
    shown = shown_under("docs/gates-and-ci.md", "agentgauge gate runs/pr-123", then="/ci/")
    suite = write(here / "ci/suites/support.yaml", "name: support\ngates:\n  min_pass_rate: 0.5\n"
                  "cases:\n  - {id: a, input: hi, expect: {behavior: answer}}\n")  # fmt: skip
    code, _ = run(f"agentgauge run {suite} --agent mock:echo -o runs/pr-123 --no-progress")
    assert code == 0
    suite.write_text(suite.read_text().replace("0.5", "high"))
    code, output = run(shown.command)
    assert code == 2
    assert_shows(shown, output.replace(str(here), ""))


def test_suite_code_refused_and_listed(here: Path) -> None:
    doc = "docs/suite-format.md"
    tool = (
        "name: shop\ntools:\n  - name: add_to_cart\n    description: Add an item.\n"
        "    parameters: {{type: object, properties: {{sku: {{type: string}}}}}}\n"
        "    simulation: {{function: {fn}}}\n"
    )
    case = "cases:\n  - {id: c1, input: hi, expect: {behavior: answer}}\n"
    shop = here / "suites" / "shop"
    write(shop / "fakes.py", "def add_to_cart(sku):\n    return {}\n")
    for fn in ("subprocess:getoutput", "fakes:add_to_cart"):
        write(shop / "suite.yaml", tool.format(fn=fn) + case)
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(shop)
            code, output = run("agentgauge run suite.yaml --agent mock:")
        assert code == 2
        shown = shown_block(doc, "suite.yaml:6: tools[0].simulation.function")
        wanted = [line for line in shown.output if f"'{fn}'" in line]
        assert_shows(Shown(shown.where, "", wanted), output.replace(str(here), "/home/me"))
    # the validate listing: the suite's agent and a case's refused fake
    header = tool.format(fn="fakes:add_to_cart").replace(
        "\n    simulation", "\n\n\n\n    simulation"
    )
    write(shop / "suite.yaml", header + "defaults:\n  agent: python:agent.py:agent\n"
          "case_files: [cases.jsonl]\n")  # fmt: skip
    write(shop / "agent.py", "def agent(messages):\n    return 'ok'\n")
    ok = '{"id": "c%d", "input": "hi", "expect": {"behavior": "answer"}}\n'
    refused = '{"id": "c4", "input": "hi", "expect": {"behavior": "answer"}, '
    refused += '"tool_results": {"pay": {"function": "os:system"}}}\n'
    write(shop / "cases.jsonl", ok % 1 + ok % 2 + ok % 3 + refused)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(here / "suites")
        code, output = run("agentgauge validate shop")
    assert code == 2
    shown = shown_block(doc, "code this suite runs (3):")
    assert_shows(shown, output.replace(str(here), "/home/me"), whole=False)


def test_an_endpoint_the_suite_names(here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = "docs/suite-format.md"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-docs-test-0123456789")
    write(here / "suite.yaml", 'name: ep\ndefaults:\n  agent: "openai:m?base_url=http://10.0.0.5/v1"\n'
          "cases:\n  - id: c1\n    input: hi\n    expect: {behavior: answer}\nscorers:\n"
          "  - {scorer: equivalence, judge: openai:gpt-4o-mini}\n")  # fmt: skip
    code, output = run("agentgauge run suite.yaml")
    assert code == 2
    assert_shows(shown_block(doc, "suite.yaml:3: defaults.agent: agent 'openai:m?"), output)
    code, output = run("agentgauge validate suite.yaml")
    assert_shows(shown_block(doc, "agents and judges this suite names (2):"), output, whole=False)


def test_the_scorers_section_checked(here: Path) -> None:
    doc = "docs/judges.md"
    write(here / "suite.yaml", "name: s\ncases:\n  - id: c1\n    input: hi\n"
          "    expect: {behavior: answer}\n  - id: c2\n    input: ho\n"
          "    expect: {behavior: answer}\n\nscorers:\n  - scorer: groundednes\n"
          "  - scorer: similarity\n    args: {treshold: 0.5}\n  - scorer: groundedness\n"
          "    args: {min_score: four}\n  - scorer: safety\n  - scorer: numeric_grounding\n"
          "  - scorer: task_completion\n    args:\n      required:\n        - get_weather\n"
          "        - 3\n")  # fmt: skip
    code, output = run("agentgauge validate suite.yaml")
    assert code == 2
    assert_shows(shown_block(doc, "suite.yaml:11: scorers[0].scorer"), output, whole=False)
    code, output = run("agentgauge run suite.yaml --agent mock:")
    assert code == 2
    assert_shows(shown_block(doc, "scorers[0].scorer: unknown scorer"), output, whole=False)


# --- tools ---------------------------------------------------------------------------------


def test_tools_convert_and_list(here: Path) -> None:
    doc = "docs/tool-formats.md"
    unit = {"type": ["string", "null"], "enum": ["celsius", "fahrenheit", None]}
    parameters = {"type": "object", "required": ["city"],
                  "properties": {"city": {"type": "string"}, "unit": unit}}  # fmt: skip
    weather = {"name": "get_weather", "description": "Current weather for a city."}
    weather["parameters"] = parameters
    write(here / "openai_tools.json", json.dumps([{"type": "function", "function": weather}]))
    shown = shown_under(doc, "agentgauge tools convert openai_tools.json --to gemini")
    code, output = run(shown.command)
    assert code == 0
    assert json.loads(output) == json.loads("\n".join(shown.output))  # shown compacted

    bad = [{"name": "a"}, {"name": "b"}, {"title": "Docs", "url": "https://x"}]
    write(here / "tools.json", json.dumps(bad))
    shown = shown_under(doc, "agentgauge tools convert tools.json --to anthropic")
    code, output = run(shown.command)
    assert code == 2
    assert_shows(shown, output)

    lines = ["{", '"tools": [', "", "", "", "", "", '{"name": "ok"},', '{"name": "bad\\nname"}']
    write(here / "tools.json", "\n".join(lines) + "\n]}\n")
    shown = shown_under(doc, "agentgauge tools list tools.json", then="tools.json:9")
    code, output = run(shown.command)
    assert code == 2
    assert_shows(shown, output)


def test_tools_list(here: Path) -> None:
    def tool(name: str, description: str, **props: str) -> dict[str, object]:
        schema = {k: {"type": v.rstrip("?")} for k, v in props.items()}
        required = [k for k, v in props.items() if not v.endswith("?")]
        parameters = {"type": "object", "properties": schema, "required": required}
        return {"name": name, "description": description, "parameters": parameters}

    tools = [
        tool(
            "get_weather", "Current weather for a city.\nMore.", location="string", unit="string?"
        ),
        tool(
            "book_hotel", "Book a hotel room.", city="string", check_in="string", nights="integer"
        ),
    ]
    write(here / "tools.json", json.dumps(tools))
    shown = shown_under(
        "docs/tool-formats.md", "agentgauge tools list tools.json", then="get_weather"
    )
    code, output = run(shown.command)
    assert code == 0
    assert_shows(shown, output.replace("2 tool(s)\n", ""))


# --- capture, generate, redteam, matrix, cache ---------------------------------------------


def test_a_production_failure_becomes_a_case(here: Path) -> None:
    shown = shown_under("docs/bring-your-agent.md", "agentgauge capture traces/conv-8841.json")
    (here / "traces").mkdir()
    shutil.copy(FIXTURES / "otel" / "failed_booking.json", here / "traces" / "conv-8841.json")
    code, output = run(shown.command)
    assert code == 0
    assert_shows(shown, output)


def test_generate_the_quickstart(here: Path) -> None:
    shown = shown_under("docs/generate.md", "agentgauge generate examples/quickstart -o generated")
    code, output = run(shown.command)
    assert code == 0
    assert_shows(shown, output)


def test_redteam_the_quickstart(here: Path) -> None:
    shown = shown_under("docs/redteam.md", "agentgauge redteam examples/quickstart")
    code, output = run(shown.command)
    assert code == 0
    assert_shows(shown, output)


def test_the_matrix_comment(here: Path) -> None:
    import sys

    sys.path.insert(0, str(ROOT / "tests"))
    from matrix_helpers import words_suite

    shown = shown_block("docs/reports.md", "<!-- agentgauge-matrix -->")
    suite = words_suite(here, extra="gates: {min_pass_rate: 0.5}\n")
    code, output = run(f"agentgauge run {suite} --agent mock: --agent echo=mock:echo -o out --gate")
    assert code == 1  # the mock member fails its gate
    skipped = [line if not line.startswith("...") else "..." for line in shown.output]
    comment = (here / "out" / "comparison.md").read_text(encoding="utf-8")
    assert_shows(Shown(shown.where, "", skipped), comment)
    assert (
        "matrix: out  (2 agents; wrote comparison.json, comparison.md, junit.xml, dashboard.html)"
        in output
    )


def test_the_pull_request_comment_of_a_real_run(here: Path) -> None:
    """gates-and-ci.md's comment, rendered from the two runs it was made from (kept in
    tests/docs/runs: the embedded model's run is too slow to repeat in a test). Only the
    worst-failure rows the doc trims may be left out."""
    shutil.copytree(ROOT / "tests" / "docs" / "runs", here / "runs")
    shown = shown_block("docs/gates-and-ci.md", "<!-- agentgauge-report -->")
    command = "agentgauge report runs/local-smollm2 --format markdown --baseline runs/mock-echo"
    code, output = run(command)
    assert code == 0
    lines = output.splitlines()
    worst = lines.index("<details><summary>Worst failures</summary>")
    kept = set(shown.output)
    lines = lines[:worst] + [x for x in lines[worst:] if not x.startswith("| `") or x in kept]
    assert_shows(shown, "\n".join(lines))


def test_cache_info_and_clear(here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The labels and the lines of ``cache info`` and ``cache clear``; the figures (sizes, dates,
    counts) are the doc's cache's, so each number is read as any number."""
    monkeypatch.setenv("AGENTGAUGE_CACHE_DIR", str(here / "cache"))
    code, _ = run("agentgauge run examples/quickstart --agent mock:echo -o runs/q --no-progress")
    assert code == 0

    def normal(text: str) -> str:
        text = text.replace(str(here / "cache"), "/home/me/.cache/agentgauge")
        text = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\+00:00", "DATE", text)
        text = re.sub(r"\d+[smhd] ago", "AGE", text)
        text = re.sub(r"[\d.]+ k?B\b", "SIZE", text)
        return re.sub(r"\d[\d,]*", "N", text)

    for command in ("agentgauge cache info", "agentgauge cache clear --older-than 30d",
                    "agentgauge cache clear --results-only"):  # fmt: skip
        shown = shown_under("docs/running.md", command)
        code, output = run(command)
        assert code == 0
        lines = [normal(line) for line in shown.output]
        assert_shows(Shown(shown.where, command, lines), normal(output))


# --- the comparison itself -----------------------------------------------------------------


def test_the_comparison_finds_a_stale_doc() -> None:
    printed = ["wrote x.yaml: 71 cases (a 6, b 5)", "  axis  cases", "  text_call  15", "done"]
    assert (
        mismatch(["wrote x.yaml: 71 cases (a 6, ...)", "...", "done"], printed, whole=True) is None
    )
    assert mismatch(["  axis  cases", "done"], printed, whole=False) is None
    # a count, a missing row, a line the doc no longer shows, an order the output does not have
    assert mismatch(["wrote x.yaml: 70 cases (a 6, ...)", "..."], printed, whole=True)
    assert mismatch(printed[:2] + printed[3:], printed, whole=True)
    assert mismatch(printed[:3], printed, whole=True)
    assert mismatch(["done", "  axis  cases"], printed, whole=False)
