"""``run --system`` / ``--system-file`` / ``$AGENTGAUGE_SYSTEM``: the run's system prompt
reaches the agent, is recorded in run.json, keys the cache and replay, and is kept on resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.io import iter_results
from agentgauge.runner import read_manifest, read_record

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

SUITE = """\
name: prompts
defaults: {system: Suite prompt.}
cases:
  - {id: c0, input: say word 0, expect: {response_contains: [word]}}
  - {id: c1, input: say word 1, expect: {response_contains: [word]}}
  - {id: own, input: say word, system: Case prompt., expect: {response_contains: [word]}}
"""


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AGENTGAUGE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("AGENTGAUGE_SYSTEM", raising=False)
    (tmp_path / "agent.py").write_text(AGENT)
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE)
    return path


def spec(suite: Path) -> str:
    return f"python:{suite.parent / 'agent.py'}:agent"


def invoke(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.output


def run(suite: Path, out: Path, *extra: str, env: dict[str, str] | None = None) -> str:
    args = ("run", str(suite), "--agent", spec(suite), "-o", str(out), "--no-history")
    code, output = invoke(*args, *extra, env=env)
    assert code == 0, output
    return output


def texts(run_dir: Path) -> dict[str, str | None]:
    return {r.case_id: r.text for r in iter_results(run_dir)}


def calls(suite: Path) -> list[str]:
    log = suite.parent / "calls.log"
    return log.read_text().splitlines() if log.exists() else []


def test_the_agent_receives_the_run_system_prompt_and_run_json_records_it(
    suite: Path, tmp_path: Path
) -> None:
    run(suite, tmp_path / "a", "--system", "Be brief.")
    got = texts(tmp_path / "a")
    assert got["c0"] == got["c1"] == "word sys=Be brief."  # replaces defaults.system
    assert got["own"] == "word sys=Case prompt."  # a case's own prompt still wins
    assert read_record(tmp_path / "a").options["system"] == "Be brief."

    # without the flag: the suite's prompt, and run.json does not mention one
    run(suite, tmp_path / "b")
    assert texts(tmp_path / "b")["c0"] == "word sys=Suite prompt."
    assert "system" not in read_record(tmp_path / "b").options

    # --system "": no system message at all
    run(suite, tmp_path / "c", "--system", "")
    assert texts(tmp_path / "c")["c0"] == "word sys=None"
    assert read_record(tmp_path / "c").options["system"] == ""


def test_system_file_and_environment_variable(suite: Path, tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Line one.\nLine two.\n", encoding="utf-8")
    run(suite, tmp_path / "f", "--system-file", str(prompt))
    # trailing newline removed, inner ones kept
    assert read_record(tmp_path / "f").options["system"] == "Line one.\nLine two."
    assert "Line one." in calls(suite)  # the agent got both lines (logged one per line)

    run(suite, tmp_path / "e", env={"AGENTGAUGE_SYSTEM": "From the environment."})
    assert texts(tmp_path / "e")["c0"] == "word sys=From the environment."

    # a file named on the command line wins over the environment variable
    run(suite, tmp_path / "fe", "--system-file", str(prompt), env={"AGENTGAUGE_SYSTEM": "x"})
    assert read_record(tmp_path / "fe").options["system"] == "Line one.\nLine two."


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--system", "a", "--system-file", "p.txt"), "give --system or --system-file, not both"),
        (("--system-file", "missing.txt"), "--system-file missing.txt: cannot read it"),
    ],
)
def test_bad_system_flags_are_one_line_errors(
    suite: Path, tmp_path: Path, extra: tuple[str, ...], message: str
) -> None:
    code, output = invoke(
        "run", str(suite), "--agent", spec(suite), "-o", str(tmp_path / "o"), *extra
    )
    assert code == 2
    assert message in output
    assert len(output.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


def test_runs_with_different_system_prompts_never_share_cached_or_replayed_results(
    suite: Path, tmp_path: Path
) -> None:
    run(suite, tmp_path / "one", "--system", "Prompt one.")
    first = calls(suite)
    assert first.count("Prompt one.") == 2

    # another prompt: c0 and c1 reach the agent again (the case with its own prompt sends the
    # same request as before, so the cache rightly answers it)
    run(suite, tmp_path / "two", "--system", "Prompt two.")
    assert calls(suite)[len(first) :] == ["Prompt two.", "Prompt two."]
    results = {r.case_id: r for r in iter_results(tmp_path / "two")}
    assert not results["c0"].replayed
    assert not results["c1"].replayed
    assert texts(tmp_path / "two")["c0"] == "word sys=Prompt two."

    # the first prompt again: all replayed from the cache, with the first prompt's answers
    seen = len(calls(suite))
    run(suite, tmp_path / "again", "--system", "Prompt one.")
    assert len(calls(suite)) == seen
    assert all(r.replayed for r in iter_results(tmp_path / "again"))
    assert texts(tmp_path / "again") == texts(tmp_path / "one")


def _interrupt(run_dir: Path) -> None:
    """As if the run was killed after its first result."""
    results = run_dir / "results.jsonl"
    results.write_bytes(results.read_bytes().splitlines(keepends=True)[0])


def test_resume_keeps_the_system_prompt_and_refuses_another(suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run(suite, out, "--system", "Be brief.", "--no-cache")
    _interrupt(out)
    resume = ("run", "--resume", str(out), "--agent", spec(suite), "--no-history")

    code, output = invoke(*resume, "--system", "Be verbose.")
    assert code == 2
    assert "--system cannot be changed on resume" in output
    assert "'Be brief.'" in output
    assert len(output.strip().splitlines()) == 1

    # the same prompt named again is fine; not naming it keeps the recorded one
    code, output = invoke(*resume, "--system", "Be brief.")
    assert code == 0, output
    _interrupt(out)
    code, output = invoke(*resume)
    assert code == 0, output
    assert "1 resumed" in output
    assert set(texts(out).values()) == {"word sys=Be brief.", "word sys=Case prompt."}
    assert len(texts(out)) == 3

    # a run started without one refuses a prompt on resume
    plain = tmp_path / "plain"
    run(suite, plain, "--no-cache")
    _interrupt(plain)
    code, output = invoke("run", "--resume", str(plain), "--agent", spec(suite), "--system", "x")
    assert code == 2
    assert "started with system prompt none" in output


MATRIX = """\
matrix:
  agents:
    - {agent: 'python:agent.py:agent', label: shared}
    - {agent: 'python:agent.py:agent', label: own, system: Member prompt.}
"""


def test_with_many_agents_the_flag_applies_to_members_without_their_own_prompt(
    suite: Path, tmp_path: Path
) -> None:
    suite.write_text(SUITE.replace("cases:", MATRIX + "cases:"))
    out = tmp_path / "m"
    code, output = invoke(
        "run", str(suite), "-o", str(out), "--allow-suite-code", "--no-history",
        "--system", "Run prompt.", "--no-cache",
    )  # fmt: skip
    assert code == 0, output
    assert texts(out / "shared")["c0"] == "word sys=Run prompt."
    assert texts(out / "own")["c0"] == "word sys=Member prompt."  # the entry's own wins
    assert read_record(out / "shared").options["system"] == "Run prompt."
    assert read_manifest(out).options["system"] == "Run prompt."

    # a resume of the interrupted member keeps the run's prompt; another one is refused
    manifest = json.loads((out / "matrix.json").read_text())
    manifest["members"][0]["state"] = "running"
    (out / "matrix.json").write_text(json.dumps(manifest))
    _interrupt(out / "shared")
    resume = ("run", "--resume", str(out), "--allow-suite-code", "--no-history")
    code, output = invoke(*resume, "--system", "Other.")
    assert code == 2
    assert "--system cannot be changed on resume" in output
    code, output = invoke(*resume)
    assert code == 0, output
    assert set(texts(out / "shared").values()) == {"word sys=Run prompt.", "word sys=Case prompt."}
    assert len(texts(out / "shared")) == 3


def test_two_command_line_agents_both_get_the_prompt(suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "two"
    code, output = invoke(
        "run", str(suite), "-o", str(out), "--no-history", "--system", "Both.",
        "--agent", f"a={spec(suite)}", "--agent", f"b={spec(suite)}",
    )  # fmt: skip
    assert code == 0, output
    for label in ("a", "b"):
        assert texts(out / label)["c0"] == "word sys=Both.", label
        assert read_record(out / label).options["system"] == "Both."
