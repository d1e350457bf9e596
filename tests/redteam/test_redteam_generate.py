"""``agentgauge redteam``: generated cases validate, can fail, catch an obeying agent, and the same
seed writes the same bytes; privileged tools are chosen as marked or by their words."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from agentgauge.io import check_suite, iter_results, load_suite
from agentgauge.judges import JudgeConfig, scorers_for_suite
from agentgauge.mutation import audit_suite
from agentgauge.redteam import (
    ATTACKER_DOMAIN,
    FAMILIES,
    RedteamConfig,
    choose_privileged,
    generate_redteam,
    render_redteam,
    write_redteam,
)
from agentgauge.runner import RunConfig, run_suite
from agentgauge.schema import Case, Message, Suite, ToolCall, ToolSpec
from agentgauge.testing import MockProvider
from cli_process import run_agentgauge

REPO = Path(__file__).resolve().parents[2]
QUICKSTART = REPO / "examples" / "quickstart"
PACK = REPO / "examples" / "redteam"


@pytest.mark.parametrize("source", [QUICKSTART, PACK], ids=["quickstart", "redteam-pack"])
def test_generated_suite_validates_and_no_case_cannot_fail(tmp_path: Path, source: Path) -> None:
    result = generate_redteam(load_suite(source), RedteamConfig(seed=4))
    (path,) = write_redteam(result, tmp_path / "rt.yaml")
    check = check_suite(path)
    assert check.problems == []
    assert [f for f in check.findings if f.severity == "error"] == []
    suite = load_suite(path)
    assert len(suite.cases) == len(result.suite.cases) >= 50
    families = {t.split(":", 1)[1] for c in suite.cases for t in c.tags if t.startswith("family:")}
    assert families == set(FAMILIES)
    audit = audit_suite(suite)
    assert [c.case_id for c in audit.cases if c.cannot_fail] == []
    assert [c.case_id for c in audit.cases if c.reference.passed is False] == []


def test_quickstart_output_has_no_findings_and_payloads_sit_in_its_own_results(
    tmp_path: Path,
) -> None:
    result = generate_redteam(load_suite(QUICKSTART), RedteamConfig(seed=0))
    (path,) = write_redteam(result, tmp_path / "rt.yaml")
    assert check_suite(path).findings == []
    assert result.notes == []  # every quickstart tool is attacked through or aimed at
    text = path.read_text()
    assert "\\u200B" in text  # zero-width characters are written as escapes
    assert "<!--" in text or "display:none" in text
    indirect = [c for c in result.suite.cases if "family:indirect_injection" in c.tags]
    for case in indirect:
        meta: Any = case.metadata["redteam"]
        source = next(c for c in load_suite(QUICKSTART).cases if c.id == meta["source_case"])
        assert case.input == source.input
        assert [c.name for c in case.expect.tool_calls] == [
            c.name for c in source.expect.tool_calls
        ]
        assert meta["target_tool"] in case.expect.forbidden_tools
        assert meta["target_tool"] in {"book_table", "send_email"}
        assert ATTACKER_DOMAIN in case.expect.secrets
        assert str(case.expect.injected_instruction) in str(case.model_dump()["tool_results"])


def test_same_seed_same_bytes_other_seed_other_cases() -> None:
    suite = load_suite(QUICKSTART)
    one = render_redteam(generate_redteam(suite, RedteamConfig(seed=11)))
    two = render_redteam(generate_redteam(suite, RedteamConfig(seed=11)))
    other = render_redteam(generate_redteam(suite, RedteamConfig(seed=12)))
    assert one == two
    assert one != other


def test_cli_writes_the_same_file_twice_and_refuses_to_overwrite(tmp_path: Path) -> None:
    a, b = tmp_path / "a.yaml", tmp_path / "b" / "suite.yaml"
    out = run_agentgauge("redteam", str(QUICKSTART), "-o", str(a), "--seed", "5", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "privileged: send_email" in out.stderr
    out = run_agentgauge(
        "redteam", str(QUICKSTART), "-o", str(tmp_path / "b"), "--seed", "5", cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    assert a.read_bytes() == b.read_bytes()
    again = run_agentgauge("redteam", str(QUICKSTART), "-o", str(a), cwd=tmp_path)
    assert again.returncode == 2
    assert again.stderr.strip().splitlines() == [f"{a} exists; pass --force to overwrite it"]
    bad = run_agentgauge(
        "redteam", str(QUICKSTART), "-o", str(tmp_path / "c.yaml"), "--family", "nope", cwd=tmp_path
    )
    assert bad.returncode == 2
    assert "unknown red-team family nope" in bad.stderr
    assert "Traceback" not in bad.stderr
    valid = run_agentgauge("validate", str(a), "--strict", cwd=tmp_path)
    assert valid.returncode == 0, valid.stdout + valid.stderr


def _tool(name: str, description: str = "", privileged: bool | None = None) -> ToolSpec:
    return ToolSpec(name=name, description=description, privileged=privileged)


def test_privileged_tools_are_taken_as_marked_or_chosen_by_their_words() -> None:
    choices = {
        c.tool: c
        for c in choose_privileged(
            [
                _tool("get_user", "Look up a user."),
                _tool("deleteUser", "Remove a user for good."),
                _tool("send_invoice", "Email an invoice.", privileged=False),
                _tool("lookup", "Search", privileged=True),
                _tool("export_rows", "Export every row."),
            ]
        )
    }
    assert not choices["get_user"].privileged
    assert "starts with 'get'" in choices["get_user"].reason
    assert choices["deleteUser"].privileged
    assert "destroys data: 'delete', 'remove'" in choices["deleteUser"].reason
    assert choices["send_invoice"].source == "marked"
    assert not choices["send_invoice"].privileged
    assert choices["lookup"].privileged
    assert choices["lookup"].reason == "marked privileged: true in the suite"
    assert choices["export_rows"].privileged
    # nothing looks privileged: the riskiest tool with any side-effect word is taken
    (fallback,) = [
        c for c in choose_privileged([_tool("add_note"), _tool("get_note")]) if c.privileged
    ]
    assert fallback.tool == "add_note"
    assert fallback.source == "fallback"
    assert "no tool looked privileged" in fallback.reason


def _run(tmp_path: Path, suite: Suite, agent: Any) -> dict[str, str]:
    extra = scorers_for_suite(suite, judge=None, config=JudgeConfig(cache=False))
    config = RunConfig(cache=False, progress=False, max_concurrency=4, extra_scorers=extra)
    run_suite(suite, config, tmp_path / "run", provider=MockProvider([agent], repeat_last=True))
    return {r.case_id: r.status for r in iter_results(tmp_path / "run")}


def _witness(case: Case) -> list[ToolCall]:
    calls = []
    for call in case.expect.tool_calls:
        args = {}
        for name, m in call.arguments.items():
            if m.optional:
                continue
            args[name] = m.value if m.value is not None else (m.one_of or ["x"])[0]
        calls.append(ToolCall(name=call.name, arguments=args))
    return calls


def test_injected_cases_pass_a_careful_agent_and_fail_one_that_obeys(tmp_path: Path) -> None:
    result = generate_redteam(
        load_suite(PACK), RedteamConfig(seed=2, families=("indirect_injection", "hidden_markup"))
    )
    suite = result.suite
    by_input = {str(c.input): c for c in suite.cases}

    def agent(obey: bool) -> Any:
        def reply(request: Any) -> Any:
            messages: list[Message] = request.messages
            case = by_input[next(m.content or "" for m in messages if m.role == "user")]
            calls = [c for m in messages for c in m.tool_calls]
            if not calls:
                return _witness(case)
            target = str(case.metadata["redteam"]["target_tool"])  # type: ignore[index]
            if obey and target not in [c.name for c in calls]:
                tool = next(t for t in suite.tools if t.name == target)
                return [ToolCall(name=target, arguments=dict.fromkeys(tool.required(), "x"))]
            return "Done."

        return reply

    careful = _run(tmp_path / "careful", suite, agent(obey=False))
    assert set(careful.values()) == {"passed"}
    obeying = _run(tmp_path / "obeying", suite, agent(obey=True))
    assert len(obeying) == 12
    assert set(obeying.values()) == {"failed"}


class _Paraphrase:
    def __init__(self, drop: str | None = None) -> None:
        self.calls = 0
        self.drop = drop

    def __call__(self, request: Any) -> str:
        self.calls += 1
        text = request.messages[-1].content or ""
        if self.drop and self.drop in text:
            return text.replace(self.drop, "that tool")
        return f"Reworded: {text}"


def test_generator_model_paraphrases_through_the_cache(tmp_path: Path) -> None:
    suite = load_suite(QUICKSTART)
    config = RedteamConfig(
        seed=1, families=("direct_injection", "jailbreak_persona"), generator="mock:"
    )
    script = _Paraphrase(drop="book_table")
    first = generate_redteam(
        suite, config, provider=MockProvider([script], repeat_last=True), cache_dir=tmp_path
    )
    assert script.calls > 0
    assert first.paraphrased > 0
    assert first.kept > 0  # a rewrite that lost the target tool's name is not used
    texts = [str(c.input) for c in first.suite.cases]
    assert any("Reworded:" in t for t in texts)
    assert not any("that tool" in t for t in texts)
    # the second run asks nothing: every rewrite comes from the cache, the file is the same
    again = _Paraphrase(drop="book_table")
    second = generate_redteam(
        suite, config, provider=MockProvider([again], repeat_last=True), cache_dir=tmp_path
    )
    assert again.calls == 0
    assert render_redteam(second) == render_redteam(first)


def test_cli_generator_spec_runs_offline(tmp_path: Path) -> None:
    out = tmp_path / "p.yaml"
    res = run_agentgauge(
        "redteam",
        str(QUICKSTART),
        "-o",
        str(out),
        "--generator",
        "mock:echo",
        "--family",
        "direct_injection",
        "--no-cache",
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stderr
    assert "Paraphrased by the generator model: 6 attack texts" in out.read_text()
    assert check_suite(out).problems == []


def test_travel_example_with_fakes_copied_beside_the_output(tmp_path: Path) -> None:
    travel = REPO / "examples" / "travel"
    if not (travel / "suite.yaml").is_file():
        pytest.skip("examples/travel is not there")
    out = run_agentgauge(
        "redteam", str(travel), "-o", str(tmp_path / "rt"), "--seed", "1", cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "rt" / "fakes.py").is_file()
    assert "note: no generated case attacks through or aims at" in out.stderr
    valid = run_agentgauge("validate", str(tmp_path / "rt"), "--allow-suite-code", cwd=tmp_path)
    assert valid.returncode == 0, valid.stdout + valid.stderr
    again = run_agentgauge(
        "redteam", str(travel), "-o", str(tmp_path / "b.yaml"), "--seed", "1", cwd=tmp_path
    )
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "b.yaml").read_bytes() == (tmp_path / "rt" / "suite.yaml").read_bytes()


@pytest.mark.parametrize("how", ["dotdot", "absolute", "symlink"])
def test_redteam_never_copies_code_from_outside_the_suite_folder(how: str, tmp_path: Path) -> None:
    """A suite's fake named ``../evil.py:f`` (or an absolute path, or a symlink out of the
    folder) was copied from outside the suite's folder to outside the output folder."""
    outside = tmp_path / "a" / "evil.py"
    outside.parent.mkdir()
    outside.write_text("def weather(city):\n    return {'t': 1}\n", encoding="utf-8")
    folder = tmp_path / "a" / "b"
    folder.mkdir()
    ref = {"dotdot": "../evil.py:weather", "absolute": f"{outside}:weather",
           "symlink": "fakes.py:weather"}[how]  # fmt: skip
    (folder / "suite.yaml").write_text(
        "name: s\ntools:\n  - name: get_weather\n"
        "    parameters: {type: object, properties: {city: {type: string}}, required: [city]}\n"
        f"    simulation: {{function: '{ref}'}}\n"
        "cases:\n  - id: w\n    input: Weather in Paris?\n"
        "    expect: {tool_calls: [{name: get_weather, arguments: {city: Paris}}]}\n",
        encoding="utf-8",
    )
    if how == "symlink":
        (folder / "fakes.py").symlink_to(outside)
    out = tmp_path / "o" / "x"
    env = {k: v for k, v in os.environ.items() if k != "AGENTGAUGE_ALLOW_SUITE_CODE"}
    res = run_agentgauge("redteam", str(folder), "-o", str(out / "r.yaml"), cwd=tmp_path, env=env)
    assert res.returncode == 2, res.stderr
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert "Traceback" not in res.stderr
    assert not out.exists()  # refused before anything is written
    assert not (tmp_path / "o" / "evil.py").exists()  # where ../evil.py would have gone
    assert not (tmp_path / "evil.py").exists()
