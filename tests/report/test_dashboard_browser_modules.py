"""The dashboard's module rows in Chromium: the ★ of a module rate follows its McNemar test
over the agents shown, recomputed when one is hidden (tests/metrics/module_pair_agents.py:
every agent passes every case; ``right`` routes 10/10, ``wrong_2`` 8/10, ``wrong_8`` 2/10)."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from test_dashboard_browser import Watched, _marks  # tests/report is on sys.path

from agentgauge.metrics import compare_matrix
from agentgauge.report import write_matrix_dashboard
from agentgauge.runner import MatrixMember, RunConfig, run_matrix

AGENTS = Path(__file__).resolve().parents[1] / "metrics" / "module_pair_agents.py"


def test_a_module_star_appears_only_when_its_test_supports_it(browser: Any, tmp_path: Path) -> None:
    cases = "".join(
        f"  - id: c{i}\n    input: q{i}\n    expect: {{response_contains: [ok]}}\n"
        "    labels: {route: skill, skill: billing}\n"
        for i in range(10)
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text(f"name: routes\ncases:\n{cases}", encoding="utf-8")
    names = ("right", "wrong_8", "wrong_2")
    members = [MatrixMember(label=n, agent=f"python:{AGENTS}:{n}") for n in names]
    out = tmp_path / "out"
    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API keeps a loop in this thread
        pool.submit(run_matrix, suite, RunConfig(cache=False), members, out).result()
    page_path = write_matrix_dashboard(out, compare_matrix(out))
    w = Watched(browser)
    page = w.page
    page.goto(page_path.as_uri())
    # right beats wrong_8 (Holm 0.023) but not wrong_2 (p = 0.5): no agent beats both
    assert _marks(page, "routing") == ["", "", ""]
    assert _marks(page, "pass rate") == ["", "", ""]
    page.locator("input[data-toggle='2']").uncheck()  # hide wrong_2
    assert _marks(page, "routing") == ["★", "", ""]
    title = page.locator(".agd-card[data-agent='0'] .agd-star").first.get_attribute("title")
    assert "routing_accuracy significantly higher than wrong_8: McNemar p = 0.00781" in (
        title or ""
    )
    page.locator("input[data-toggle='2']").check()
    page.locator("input[data-toggle='1']").uncheck()  # hide wrong_8: 10/10 against 8/10
    assert _marks(page, "routing") == ["", "", ""]
    assert _marks(page, "skill") == ["", "", ""]  # equal on the cases both routed right
    w.clean()


def test_a_diagnosis_star_follows_its_test_when_agents_are_hidden(
    browser: Any, tmp_path: Path
) -> None:
    """Intent recognition, clarification, tool-call decision and memory retention
    (tests/metrics/diagnosis_pair_runs.py): ``right`` 10/10, ``wrong_2`` 8/10, ``wrong_8``
    2/10 on each; every agent passes every case."""
    sys.path.insert(0, str(AGENTS.parent))
    from diagnosis_pair_runs import RATES, matrix

    out = matrix(tmp_path, "right", "wrong_8", "wrong_2")
    page_path = write_matrix_dashboard(out, compare_matrix(out))
    w = Watched(browser)
    page = w.page
    page.goto(page_path.as_uri())
    for label in RATES.values():  # right does not beat wrong_2 (p = 0.5): no star anywhere
        assert _marks(page, label) == ["", "", ""], label
    page.locator("input[data-toggle='2']").uncheck()  # hide wrong_2
    for metric, label in RATES.items():
        assert _marks(page, label) == ["★", "", ""], label
        row = page.locator(
            ".agd-card[data-agent='0'] .agd-row", has=page.locator(f"dt:text-is('{label}')")
        )
        title = row.locator(".agd-star").first.get_attribute("title") or ""
        assert f"{metric} significantly higher than wrong_8: McNemar p = 0.00781" in title
    page.locator("input[data-toggle='2']").check()
    page.locator("input[data-toggle='1']").uncheck()  # hide wrong_8: 10/10 against 8/10
    for label in RATES.values():
        assert _marks(page, label) == ["", "", ""], label
    assert _marks(page, "pass rate") == ["", "", ""]
    w.clean()
