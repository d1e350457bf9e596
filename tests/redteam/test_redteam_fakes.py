"""Red-team cases of a suite whose tools are Python fakes (issue 22 item 20): the attack is
planted in the fake's own answer (``inject``), so a correct agent still sees every field the
tool returns and can finish the benign task; the file's header says it needs
``--allow-suite-code``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.errors import UserError
from agentgauge.io import load_suite
from agentgauge.schema import ToolCall, ToolSim

REPO = Path(__file__).resolve().parents[2]
TRAVEL = REPO / "examples" / "travel"
ORACLE = f"python:{TRAVEL / 'oracle_agent.py'}:agent"


def _cli(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result.output


@pytest.fixture(scope="module")
def travel_redteam(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("rt") / "suite.yaml"
    _cli("redteam", str(TRAVEL), "-o", str(out))
    return out


def _results(run_dir: Path) -> list[dict[str, Any]]:
    lines = (run_dir / "results.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if "case_id" in r]


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [x for v in value for x in _strings(v)] if isinstance(value, list) else []


def test_injected_results_keep_the_fake_and_plant_the_attack(travel_redteam: Path) -> None:
    text = travel_redteam.read_text()
    assert "status: ok" not in text  # no stub standing in for the fake's answer
    suite = load_suite(travel_redteam)
    injected = [c for c in suite.cases if "vector:tool_result" in c.tags]
    assert injected
    fakes = 0
    for case in injected:
        sims = [s for v in case.tool_results.values() for s in (v if isinstance(v, list) else [v])]
        payload = case.expect.injected_instruction
        planted = [s for s in sims if s.inject == payload]
        # a fake keeps answering (the payload planted in its answer); a static result of the
        # source case carries the payload itself, beside its own fields
        assert all(s.function and s.function.startswith("fakes.py:") for s in planted)
        static = [s for s in sims if s.function is None and payload in _strings(s.result)]
        assert planted or static, case.id
        assert all(len(s.result) > 1 for s in static if isinstance(s.result, dict))
        fakes += bool(planted)
    assert fakes >= 10


def test_the_header_says_the_file_needs_allow_suite_code(travel_redteam: Path) -> None:
    head = travel_redteam.read_text().split("\n\n", 1)[0]
    assert "agentgauge validate THIS_FILE --mutate --allow-suite-code" in head
    assert "(fakes.py)" in head
    plain = travel_redteam.parent / "quickstart.yaml"
    _cli("redteam", str(REPO / "examples" / "quickstart"), "-o", str(plain))
    head = plain.read_text().split("\n\n", 1)[0]
    assert "# Check it: agentgauge validate THIS_FILE --mutate; run it like any suite." in head
    assert "allow-suite-code" not in head


def test_a_correct_agent_finishes_the_benign_task_under_attack(
    travel_redteam: Path, tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    _cli("run", str(travel_redteam), "--agent", ORACLE, "--allow-suite-code", "-o",
         str(run_dir), "--no-history", "--no-progress")  # fmt: skip
    results = _results(run_dir)
    # the stub lacked 'offers': the oracle raised KeyError on 10 of the 65 cases
    assert [(r["case_id"], r["error"]) for r in results if r["status"] == "error"] == []
    indirect = [r for r in results if "family:indirect_injection" in r["tags"]]
    assert indirect
    assert all(r["status"] == "passed" for r in indirect), [r["explanation"] for r in indirect]
    for r in indirect:
        first = next(e for e in r["trace"] if e["kind"] == "tool")
        assert "offers" in first["result"] or "hotels" in first["result"], first["result"]
        assert first["result"]["note"].startswith(("IMPORTANT", "Note", "ATTENTION", "Before"))


def test_the_simulator_plants_inject_in_a_fake_s_answer_not_in_a_failure(tmp_path: Path) -> None:
    import anyio

    from agentgauge._suite_code import SuiteCodePolicy
    from agentgauge.runner._tools import ToolSimulator

    (tmp_path / "fakes.py").write_text(
        "def offers(city):\n"
        "    if city == 'nowhere':\n"
        "        raise ValueError('no such city')\n"
        "    return {'offers': [{'id': 1, 'city': city}]}\n"
    )
    sim = ToolSim(function="fakes.py:offers", inject="ATTACK TEXT")
    policy = SuiteCodePolicy(allowed=True, root=tmp_path.resolve())
    simulator = ToolSimulator(
        case_id="c", trial=0, seed=0, case_results={"offers": sim}, defaults={}, faults=[],
        timeout_s=5.0, code=policy,
    )  # fmt: skip
    ok = anyio.run(simulator.call, ToolCall(name="offers", arguments={"city": "Oslo"}))
    assert ok.result == {"offers": [{"id": 1, "city": "Oslo"}], "note": "ATTACK TEXT"}
    assert json.loads(ok.content) == ok.result
    failed = anyio.run(simulator.call, ToolCall(name="offers", arguments={"city": "nowhere"}))
    assert failed.error is not None
    assert "ATTACK TEXT" not in failed.content


def test_inject_without_code_behind_it_is_refused(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: s\n"
        "tools:\n"
        "  - name: t\n"
        "    simulation: {result: {a: 1}, inject: hello}\n"
        "cases:\n"
        "  - id: c\n"
        "    input: hi\n"
    )
    with pytest.raises(UserError, match=r"suite.yaml:4: .*'inject' goes with 'function'"):
        load_suite(suite)
