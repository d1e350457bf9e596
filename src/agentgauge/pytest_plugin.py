"""Cases as pytest items: ``pytest`` collects agentgauge suites and reports one test per case.

A file named ``agentgauge_*.yaml`` / ``agentgauge_*.yml`` (or any suite passed with
``--agentgauge SUITE``) becomes a pytest module whose items are its cases. The suite is run once,
on first use, with the agent from ``--agentgauge-agent`` (else the suite's ``defaults.agent``,
else the embedded local model); each item then passes or fails with the scorer's explanation.

    pytest --agentgauge examples/quickstart --agentgauge-agent openai:gpt-4o-mini

The plugin is registered through the ``pytest11`` entry point and imports nothing heavy until a
suite is collected.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .schema import CaseResult, Suite

_SUITE_GLOBS = ("agentgauge_*.yaml", "agentgauge_*.yml")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agentgauge", "agentgauge agent evaluation")
    group.addoption(
        "--agentgauge",
        action="append",
        default=[],
        metavar="SUITE",
        help="collect this agentgauge suite (file or folder) as tests; repeatable",
    )
    group.addoption(
        "--agentgauge-agent",
        default=None,
        metavar="SPEC",
        help="agent under test, e.g. openai:gpt-4o-mini (default: the suite's defaults.agent)",
    )
    group.addoption(
        "--agentgauge-allow-suite-code",
        action="store_true",
        default=None,
        help="let the suites run Python files of their own folders (function: fakes, a python: "
        "agent); also AGENTGAUGE_ALLOW_SUITE_CODE=1 (see docs/suite-format.md)",
    )
    group.addoption(
        "--agentgauge-allow-suite-endpoints",
        action="store_true",
        default=None,
        help="let endpoints the suites name (a ?base_url=, a matrix entry's options.base_url) "
        "receive your API keys; also AGENTGAUGE_ALLOW_SUITE_ENDPOINTS=1 (docs/suite-format.md)",
    )
    group.addoption(
        "--agentgauge-run-dir",
        default=None,
        metavar="DIR",
        help="where run folders are written (default: a temporary folder)",
    )


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.Collector | None:
    if any(file_path.match(glob) for glob in _SUITE_GLOBS):
        collector: SuiteFile = SuiteFile.from_parent(parent, path=file_path)
        return collector
    return None


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Append the suites given with ``--agentgauge`` to the collected items."""
    for spec in config.getoption("agentgauge"):
        path = Path(spec).resolve()
        suite_file: SuiteFile = SuiteFile.from_parent(session, path=path)
        items.extend(suite_file.collect())


class CaseFailed(Exception):
    """A case did not pass; carries its results for the failure report."""

    def __init__(self, results: list[CaseResult]) -> None:
        super().__init__(results[0].case_id if results else "")
        self.results = results


class SuiteFile(pytest.File):
    """A suite file (or folder): collects one item per case, runs the suite once on demand."""

    _suite: Suite | None = None
    _results: dict[str, list[CaseResult]] | None = None

    def _load(self) -> Suite:
        if self._suite is None:
            from .suites import load_suite

            self._suite = load_suite(self.path)
        return self._suite

    def collect(self) -> Iterator[pytest.Item]:
        from .errors import UserError

        try:
            suite = self._load()
        except UserError as err:
            raise self.CollectError("\n".join(err.problems)) from None
        for case in suite.cases:
            yield CaseItem.from_parent(self, name=case.id, case_id=case.id)

    def results(self) -> dict[str, list[CaseResult]]:
        """Run the suite (once) and index the results by case id."""
        if self._results is None:
            from .rundir import iter_results
            from .runner import RunConfig, run_suite_file

            config = self.config
            base = config.getoption("agentgauge_run_dir")
            root = Path(base) if base else Path(tempfile.mkdtemp(prefix="agentgauge-pytest-"))
            run_dir = root / self.path.stem
            agent = config.getoption("agentgauge_agent")
            run_config = RunConfig(
                agent=agent,
                progress=False,
                suite_path=str(self.path),
                allow_suite_code=config.getoption("agentgauge_allow_suite_code"),
                allow_suite_endpoints=config.getoption("agentgauge_allow_suite_endpoints"),
            )
            # the same entry point as `agentgauge run`: suite code checked with file:line
            # refusals, the suite's scorers: section wired in
            run_suite_file(self.path, run_config, run_dir)
            by_case: dict[str, list[CaseResult]] = {}
            for result in iter_results(run_dir):
                by_case.setdefault(result.case_id, []).append(result)
            self._results = by_case
        return self._results


class CaseItem(pytest.Item):
    """One case of a suite; passes when every trial of the case passed."""

    def __init__(self, *, case_id: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case_id = case_id

    def runtest(self) -> None:
        assert isinstance(self.parent, SuiteFile)
        results = self.parent.results().get(self.case_id, [])
        if not results or any(r.status != "passed" for r in results):
            raise CaseFailed(results)

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> str:
        if isinstance(excinfo.value, CaseFailed):
            if not excinfo.value.results:
                return f"{self.case_id}: no result recorded"
            lines = []
            for r in excinfo.value.results:
                why = r.error or r.explanation or "failed"
                lines.append(f"{self.case_id} [trial {r.trial}] {r.status}: {why}")
            return "\n".join(lines)
        from .errors import UserError

        if isinstance(excinfo.value, UserError):  # bad input (refused suite code): no traceback
            return "\n".join(excinfo.value.problems)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"agentgauge case {self.case_id}"
