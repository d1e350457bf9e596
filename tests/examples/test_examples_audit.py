"""Every suite under examples/ audits clean: ``agentgauge validate --mutate`` builds wrong
transcripts from each case and scores them with the real scorers (and, for a world suite,
plays them against a fresh world: state mutants included). No wrong transcript may pass, no
case may be one that cannot fail, and every right transcript must pass.

The suites are found, not listed: a new example is audited the day it lands. A suite is a
folder's ``suite.yaml`` or another YAML file of examples/ that is a mapping with a ``name`` and
``cases`` or ``case_files`` (examples/users/model_user.yaml); case files (examples/redteam/cases)
are lists and belong to their suite.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from agentgauge.cli import cli

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "examples"

#: the suites known when this test was written: discovery may find more, never fewer
KNOWN = {
    "custom_scorer", "guardrails", "modules", "quickstart", "redteam", "retail", "support",
    "support/golden", "tool_selection", "travel", "users", "users/model_user.yaml",
}  # fmt: skip


def _is_suite(path: Path) -> bool:
    if path.name == "suite.yaml":
        return True
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return isinstance(data, dict) and "name" in data and bool({"cases", "case_files"} & set(data))


def example_suites() -> list[str]:
    """Each suite as the path ``validate`` is given, relative to examples/ (a folder for a
    ``suite.yaml``, the file itself otherwise)."""
    found = []
    for path in sorted(EXAMPLES_DIR.rglob("*.yaml")):
        if _is_suite(path):
            target = path.parent if path.name == "suite.yaml" else path
            found.append(target.relative_to(EXAMPLES_DIR).as_posix())
    return found


SUITES = example_suites()


def test_every_known_example_suite_is_found() -> None:
    assert set(SUITES) >= KNOWN


def audit(target: Path) -> tuple[int, dict[str, Any], str]:
    res = CliRunner().invoke(
        cli,
        ["validate", "--mutate", str(target), "--allow-suite-code", "--judge", "mock:judge",
         "--format", "json"],
        catch_exceptions=False,
    )  # fmt: skip
    report = json.loads(res.output)
    [suite] = report["suites"]
    return res.exit_code, suite, res.output


@pytest.mark.parametrize("name", SUITES)
def test_the_example_audits_clean(name: str) -> None:
    code, suite, output = audit(EXAMPLES_DIR / name)
    assert code == 0, output
    m = suite["mutation"]
    assert m["cases"] == suite["cases"] > 0
    assert m["mutants"] > 0
    surviving = [(c["case_id"], p) for c in m["case_results"] for p in c["passed_mutants"]]
    assert surviving == []
    assert m["passed_mutants"] == 0
    assert m["cannot_fail"] == []
    assert m["reference_failures"] == []
    assert [(f["case_id"], f["message"]) for f in m["findings"]] == []


def test_the_audit_of_an_example_fails_when_a_case_cannot_fail(tmp_path: Path) -> None:
    """The checks above can fail: the quickstart with one case's expectation emptied (every
    transcript meets it) has surviving mutants and a case that cannot fail."""
    source = EXAMPLES_DIR / "quickstart" / "suite.yaml"
    data = yaml.safe_load(source.read_text(encoding="utf-8"))
    first = data["cases"][0]
    first["expect"] = {}
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    _, suite, output = audit(tmp_path)
    m = suite["mutation"]
    assert [c if isinstance(c, str) else c["case_id"] for c in m["cannot_fail"]] == [first["id"]]
    assert m["passed_mutants"] == 3
    assert [p["axis"] for c in m["case_results"] for p in c["passed_mutants"]] == [
        "text_only", "refusal", "clarify"]  # fmt: skip
    assert "cannot fail" in m["findings"][0]["message"], output
