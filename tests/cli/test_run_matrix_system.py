"""A matrix entry's ``system:``: each member sends its own system prompt, is never served
another member's cached responses or replayed results, and keeps its prompt on resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.io import iter_results
from agentgauge.runner import RunConfig, read_manifest, read_record
from agentgauge.runner._config import options_config
from agentgauge.runner._plan import recorded_options

#: an agent that answers with the system message it received and logs every call it gets
AGENT = """\
from pathlib import Path
from agentgauge.providers import ModelResponse
from agentgauge.schema import Message

async def agent(request):
    system = next((m.content for m in request.messages if m.role == 'system'), None)
    with open(Path(__file__).with_name('calls.log'), 'a') as log:
        log.write(f'{system}\\n')
    return ModelResponse(message=Message(role='assistant', content=f'word sys={system}'))
"""

SPEC = "python:agent.py:agent"

MATRIX = (
    "matrix:\n  agents:\n"
    f"    - {{agent: '{SPEC}', label: plain}}\n"
    f"    - {{agent: '{SPEC}', label: terse, system: 'Answer in one sentence.'}}\n"
    f"    - {{agent: '{SPEC}', label: careful, system: 'Ask before acting when unsure.'}}\n"
    f"    - {{agent: '{SPEC}', label: bare, system: ''}}\n"
)


def write_suite(tmp_path: Path, matrix: str = MATRIX, words: int = 3) -> Path:
    (tmp_path / "agent.py").write_text(AGENT)
    cases = "".join(
        f"  - id: c{i}\n    input: say word {i}\n    expect: {{response_contains: [word]}}\n"
        for i in range(words)
    )
    cases += (
        "  - id: own\n    input: say word\n    system: Case prompt.\n"
        "    expect: {response_contains: [word]}\n"
        "  - id: listed\n    input: [{role: system, content: Input prompt.},"
        " {role: user, content: say word}]\n    expect: {response_contains: [word]}\n"
    )
    path = tmp_path / "suite.yaml"
    path.write_text(f"name: prompts\ndefaults: {{system: Suite prompt.}}\n{matrix}cases:\n{cases}")
    return path


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def texts(run_dir: Path) -> dict[str, str | None]:
    return {r.case_id: r.text for r in iter_results(run_dir)}


def calls(tmp_path: Path) -> list[str]:
    log = tmp_path / "calls.log"
    return log.read_text().splitlines() if log.exists() else []


EXPECTED = {
    "plain": "sys=Suite prompt.",
    "terse": "sys=Answer in one sentence.",
    "careful": "sys=Ask before acting when unsure.",
    "bare": "sys=None",  # system: "" sends no system prompt at all
}


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cache"
    monkeypatch.setenv("AGENTGAUGE_CACHE_DIR", str(path))
    return path


def test_members_with_one_agent_send_their_own_system_prompt_and_never_share_results(
    tmp_path: Path, cache_dir: Path
) -> None:
    suite = write_suite(tmp_path)
    out = tmp_path / "out"
    code, output = invoke("run", str(suite), "-o", str(out), "--allow-suite-code", "--no-history")
    assert code == 0, output
    for label, text in EXPECTED.items():
        got = texts(out / label)
        # a member run after another with the same agent got its own answers, not the cached
        # or replayed ones of the member before it
        assert {got[f"c{i}"] for i in range(3)} == {f"word {text}"}, label
        # a case's own system prompt still wins over the member's, as does its input's
        assert got["own"] == "word sys=Case prompt.", label
        assert got["listed"] == "word sys=Input prompt.", label
    # every member reached the agent for its own cases; a case with its own prompt sends one
    # request for all four members, so the response cache rightly answers three of them
    first = calls(tmp_path)
    assert set(first) == {
        "Suite prompt.",
        "Answer in one sentence.",
        "Ask before acting when unsure.",
        "None",
        "Case prompt.",
        "Input prompt.",
    }
    assert len(first) == 4 * 3 + 2
    # run.json: the member's prompt is recorded only when it set one (a member without one
    # keeps the configuration hash a run without the feature had)
    records = {label: read_record(out / label) for label in EXPECTED}
    assert "system" not in records["plain"].options
    assert records["terse"].options["system"] == "Answer in one sentence."
    assert records["bare"].options["system"] == ""
    assert len({r.config_hash for r in records.values()}) == 4
    assert len({r.suite_hash for r in records.values()}) == 1  # the suite file's hash
    manifest = {m.label: m.system for m in read_manifest(out).members}
    assert manifest == {
        "plain": None,
        "terse": "Answer in one sentence.",
        "careful": "Ask before acting when unsure.",
        "bare": "",
    }

    # the same matrix again: everything comes from the cache, and each member gets its own
    again = tmp_path / "again"
    code, output = invoke(
        "run", str(suite), "-o", str(again), "--allow-suite-code", "--no-history"
    )  # fmt: skip
    assert code == 0, output
    assert calls(tmp_path) == first  # the agent was not called again
    for label in EXPECTED:
        results = list(iter_results(again / label))
        assert all(r.replayed for r in results), label
        assert texts(again / label) == texts(out / label), label


def test_without_replay_each_member_is_answered_from_its_own_cached_responses(
    tmp_path: Path, cache_dir: Path
) -> None:
    suite = write_suite(tmp_path, words=2)
    args = ("--allow-suite-code", "--no-history")
    assert invoke("run", str(suite), "-o", str(tmp_path / "a"), *args)[0] == 0
    first = calls(tmp_path)
    code, output = invoke("run", str(suite), "-o", str(tmp_path / "b"), *args, "--no-replay")
    assert code == 0, output
    assert calls(tmp_path) == first  # every request answered by the response cache
    for label, text in EXPECTED.items():
        got = texts(tmp_path / "b" / label)
        assert not any(r.replayed for r in iter_results(tmp_path / "b" / label))
        assert got == {
            "c0": f"word {text}",
            "c1": f"word {text}",
            "own": "word sys=Case prompt.",
            "listed": "word sys=Input prompt.",
        }


def test_a_resumed_member_keeps_its_system_prompt(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agentgauge.runner._file as file_mod

    real = file_mod.run_suite_file

    def killed_during_terse(path, config, run_dir, **kw):  # type: ignore[no-untyped-def]
        outcome = real(path, config, run_dir, **kw)
        if Path(run_dir).name == "terse":  # as if killed after its first result
            results = Path(run_dir) / "results.jsonl"
            results.write_bytes(results.read_bytes().splitlines(keepends=True)[0])
            raise KeyboardInterrupt
        return outcome

    monkeypatch.setattr(file_mod, "run_suite_file", killed_during_terse)
    suite = write_suite(tmp_path)
    out = tmp_path / "out"
    code, output = invoke("run", str(suite), "-o", str(out), "--allow-suite-code", "--no-cache")
    assert code == 130, output
    monkeypatch.setattr(file_mod, "run_suite_file", real)
    code, output = invoke("run", "--resume", str(out), "--allow-suite-code", "--no-history")
    assert code == 0, output
    assert "1 resumed" in output
    for label, text in EXPECTED.items():
        got = texts(out / label)
        assert len(got) == 5, label
        assert {got[f"c{i}"] for i in range(3)} == {f"word {text}"}, label
    assert read_record(out / "terse").options["system"] == "Answer in one sentence."

    # the suite's prompt of a started member changed: resuming would mix two prompts
    manifest = json.loads((out / "matrix.json").read_text())
    manifest["members"][1]["state"] = "running"
    (out / "matrix.json").write_text(json.dumps(manifest))
    suite.write_text(suite.read_text().replace("Answer in one sentence.", "Be brief."))
    code, output = invoke("run", "--resume", str(out), "--allow-suite-code", "--no-history")
    assert code == 2
    assert "system prompt of the member 'terse'" in output
    assert "Traceback" not in output
    assert len(output.strip().splitlines()) == 1


def test_run_json_keeps_the_system_prompt_for_resume_and_omits_it_when_unset() -> None:
    opts = recorded_options(RunConfig(system="Be brief."), 1)
    assert opts["system"] == "Be brief."
    assert options_config(opts)["system"] == "Be brief."
    assert options_config(recorded_options(RunConfig(system=""), 1))["system"] == ""
    unset = recorded_options(RunConfig(), 1)
    assert "system" not in unset
    assert options_config(unset)["system"] is None


def test_validate_accepts_members_that_differ_only_in_their_system_prompt(tmp_path: Path) -> None:
    labelled = (
        "matrix:\n  agents:\n"
        "    - {agent: 'mock:', label: a, system: one}\n"
        "    - {agent: 'mock:', label: b, system: two}\n"
    )
    code, output = invoke("validate", str(write_suite(tmp_path, matrix=labelled, words=1)))
    assert code == 0, output
    assert "error:" not in output
    # without labels they would share one run directory
    twins = (
        "matrix:\n  agents:\n"
        "    - {agent: 'mock:', system: one}\n    - {agent: 'mock:', system: two}\n"
    )
    code, output = invoke("validate", str(write_suite(tmp_path, matrix=twins, words=1)))
    assert code == 2
    assert "agents[1] has the label 'mock'" in output
    # a system prompt is text
    bad = "matrix:\n  agents:\n    - {agent: 'mock:', system: [one]}\n    - mock:echo\n"
    code, output = invoke("validate", str(write_suite(tmp_path, matrix=bad, words=1)))
    assert code == 2
    assert "matrix.agents[0]" in output
    assert "system" in output
    assert "Traceback" not in output
