"""``agentgauge generate`` on the world examples: examples/users (a declarative world) and
examples/retail (a Python world, with --allow-suite-code) write suites that validate, audit
clean, are the same for the same seed, and that the oracle agent passes."""

from __future__ import annotations

from pathlib import Path

import pytest
from generate_helpers import REPO

from agentgauge.generate import (
    GenerateConfig,
    GuessingAgent,
    IgnoringAgent,
    OracleAgent,
    generate_suite,
    write_generated,
)
from agentgauge.mutation import AuditConfig, audit_suite
from agentgauge.providers import ModelRequest, ModelResponse
from agentgauge.rundir import iter_results
from agentgauge.runner import RunConfig, SuiteCodePolicy, run_suite
from agentgauge.suites import check_suite, load_suite


class _OtherRecord(OracleAgent):
    """The oracle, but each call's first string argument names another record (its value
    with a character changed): the world's state must catch it."""

    async def generate(self, request: ModelRequest) -> ModelResponse:
        reply = await super().generate(request)
        calls = []
        for c in reply.message.tool_calls:
            name = next((k for k, v in c.arguments.items() if isinstance(v, str) and v), None)
            if name is not None:
                value = str(c.arguments[name])
                other = value[:-1] + "9" if value[-1] != "9" else value + "0"
                c = c.model_copy(update={"arguments": {**c.arguments, name: other}})
            calls.append(c)
        return ModelResponse(message=reply.message.model_copy(update={"tool_calls": calls}))


@pytest.mark.parametrize(("example", "code"), [("users", False), ("retail", True)])
def test_world_example_generates_a_clean_satisfiable_suite(
    example: str, code: bool, tmp_path: Path
) -> None:
    source = REPO / "examples" / example
    if not (source / "suite.yaml").is_file():
        pytest.skip(f"examples/{example} is not there")
    config = GenerateConfig(seed=5, allow_suite_code=code)
    first = generate_suite(source, config)
    assert generate_suite(source, config).text == first.text  # same seed, same bytes
    out = write_generated(first, tmp_path / "out", source_dir=source)[0]
    check = check_suite(out)
    assert check.problems == []
    assert [f.format() for f in check.findings if f.severity == "error"] == []
    suite = load_suite(out)
    assert any(c.expect.state is not None for c in suite.cases)  # graded by the world's state
    assert any(c.user is not None for c in suite.cases)
    policy = SuiteCodePolicy.for_suite(str(out), code or None)
    audit = audit_suite(suite, AuditConfig(code=policy))
    assert audit.cannot_fail == []
    assert audit.reference_failures == []
    run = RunConfig(cache=False, progress=False, suite_path=str(out), allow_suite_code=code or None)
    run_suite(suite, run, tmp_path / "run", provider=OracleAgent(suite))
    assert {r.status for r in iter_results(tmp_path / "run")} == {"passed"}
    # and it discriminates: the agents that get a conversation or a record wrong fail
    talks = {c.id for c in suite.cases if c.user is not None}
    graded = {c.id for c in suite.cases if c.expect.state is not None}
    for wrong, cases in ((GuessingAgent(suite), talks), (IgnoringAgent(suite), talks),
                         (_OtherRecord(suite), graded)):  # fmt: skip
        out_dir = tmp_path / type(wrong).__name__
        run_suite(suite, run, out_dir, provider=wrong)
        results = {r.case_id: r for r in iter_results(out_dir)}
        assert {results[c].status for c in cases} == {"failed"}, type(wrong).__name__
