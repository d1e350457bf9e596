"""``agentgauge generate`` on the world examples: examples/users (a declarative world) and
examples/retail (a Python world, with --allow-suite-code) write suites that validate, audit
clean, are the same for the same seed, and that the oracle agent passes."""

from __future__ import annotations

from pathlib import Path

import pytest
from generate_helpers import REPO

from agentgauge.generate import GenerateConfig, OracleAgent, generate_suite, write_generated
from agentgauge.mutation import AuditConfig, audit_suite
from agentgauge.rundir import iter_results
from agentgauge.runner import RunConfig, SuiteCodePolicy, run_suite
from agentgauge.suites import check_suite, load_suite


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
