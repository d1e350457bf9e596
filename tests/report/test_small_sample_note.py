"""Issue 22 item 11: the "(< 200)" sample-size warnings of a small run are one footnote, with
or without ``--gate``, not a warning line per gated slice."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.metrics import summarize
from agentgauge.report import render_markdown

SUITE = """name: small
gates:
  min_pass_rate: 0.5
  min_category_pass_rate: {echo: 0.5}
  scorers:
    assert: {min_mean: 0.5}
scorers:
  - scorer: assert
    args: {contains: [word]}
cases:
  - {id: c1, category: echo, input: please say word1, expect: {response_contains: [word1]}}
  - {id: c2, category: echo, input: please say word2, expect: {response_contains: [word2]}}
"""


@pytest.mark.parametrize("gate", [False, True])
def test_a_small_run_says_it_once(tmp_path: Path, gate: bool) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE)
    run = tmp_path / "run"
    args = ["run", str(suite), "--agent", "mock:echo", "-o", str(run), "--no-cache"]
    out = CliRunner().invoke(cli, [*args, "--gate"] if gate else args)
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())  # the console wraps long lines
    assert "only 2 scored results" not in text
    assert text.count("few scored results (< 200") == 1
    assert "pass rate (2), pass rate [echo] (2), scorer assert (2)" in text
    md = render_markdown(summarize(run))
    assert md.count("few scored results") == 1
    assert "only 2 scored results" not in md


def test_fold_keeps_the_other_warnings() -> None:
    from agentgauge.metrics import fold_small_samples

    small = "pass rate: only 5 scored results (< 200); the interval is wide and the gate can flip on a few cases"  # noqa: E501
    rest, note = fold_small_samples([small, "routing accuracy: 3 scored result(s) ..."])
    assert rest == ["routing accuracy: 3 scored result(s) ..."]
    assert note is not None
    assert "pass rate (5)" in note
    assert fold_small_samples(["x"]) == (["x"], None)
