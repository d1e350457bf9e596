"""Every generated case is checked before it is written, and dropped with the reason when it
fails a check:

1. **validate**: the case record is a valid case, and the suite file holding it loads and
   lints without an error finding on it;
2. **audit**: the mutation audit (docs/mutation.md) finds a wrong transcript that fails it and
   the right transcript passes it (``cannot-fail`` / ``reference-fails`` drop it);
3. **satisfiable**: played through the real runner, with its scripted user, the oracle agent
   (which follows the expectations) passes it, and for a conversation both wrong agents (one
   that acts at once, one that asks and ignores the answer) fail it — a branch that an agent
   passes without listening to the user tests nothing.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .._messages import one_line
from ..mutation import AuditConfig, audit_suite, case_findings
from ..providers import Provider
from ..rundir import iter_results
from ..runner import RunConfig, SuiteCodePolicy, run_suite
from ..schema import CaseResult, Suite
from ..suites import check_suite
from ._agents import GuessingAgent, IgnoringAgent, OracleAgent
from ._config import MULTI_TURN

__all__ = ["Dropped", "check_written"]


@dataclass(frozen=True, kw_only=True)
class Dropped:
    """A generated case that was not written, and why."""

    case_id: str
    family: str
    #: ``validate``, ``audit``, ``oracle`` or ``wrong-agent``
    stage: str
    reason: str

    def line(self) -> str:
        return one_line(f"{self.case_id}: {self.stage}: {self.reason}")


def _first(text: str) -> str:
    """The first line of ``text``, printable (it may quote a tool's error: untrusted)."""
    line = one_line(text.strip().splitlines()[0]) if text.strip() else ""
    return line if len(line) <= 160 else line[:159] + "…"


def _families(suite: Suite) -> dict[str, str]:
    out = {}
    for case in suite.cases:
        meta = case.metadata.get("generate")
        out[case.id] = str(meta.get("family", "")) if isinstance(meta, dict) else ""
    return out


def check_written(
    path: Path, *, allow_code: bool, satisfiable: bool, seed: int
) -> tuple[Suite, list[Dropped], dict[str, tuple[int, int]]]:
    """Check the suite written at ``path``: (the suite, the cases to drop, per case the wrong
    transcripts the audit scored and how many of them failed)."""
    check = check_suite(path)
    if check.loaded is None:
        from ..errors import UserError

        lines = [f"generated suite does not load (a bug): {p}" for p in check.problems]
        raise UserError(lines[0] if lines else "generated suite does not load", problems=lines)
    suite = check.loaded.suite
    family = _families(suite)
    dropped: list[Dropped] = []

    def drop(case_id: str, stage: str, reason: str) -> None:
        if all(d.case_id != case_id for d in dropped):
            dropped.append(Dropped(case_id=case_id, family=family.get(case_id, ""), stage=stage,
                                   reason=_first(reason)))  # fmt: skip

    for f in check.findings:
        if f.severity == "error" and f.case_id is not None:
            drop(f.case_id, "validate", f"{f.message} [{f.code}]")
    policy = SuiteCodePolicy.for_suite(str(path), allow_code or None)
    audit = audit_suite(suite, AuditConfig(code=policy))
    figures: dict[str, tuple[int, int]] = {}
    for case in audit.cases:
        figures[case.case_id] = (len(case.checked), len(case.checked) - len(case.survivors))
        for finding in case_findings(case):
            if finding.code in ("cannot-fail", "reference-fails"):
                drop(case.case_id, "audit", f"{finding.message} [{finding.code}]")
    if satisfiable:
        left = suite.model_copy(
            update={"cases": [c for c in suite.cases if all(d.case_id != c.id for d in dropped)]}
        )
        _satisfiable(left, path, allow_code, seed, drop)
    return suite, dropped, figures


def _play(
    suite: Suite, path: Path, agent: Provider, allow_code: bool, seed: int
) -> dict[str, CaseResult]:
    with tempfile.TemporaryDirectory(prefix="agentgauge-generate-") as tmp:
        config = RunConfig(
            cache=False,
            progress=False,
            max_concurrency=4,
            seed=seed,
            suite_path=str(path),
            allow_suite_code=allow_code or None,
        )
        run_suite(suite, config, Path(tmp) / "run", provider=agent)
        return {r.case_id: r for r in iter_results(Path(tmp) / "run")}


def _satisfiable(
    suite: Suite,
    path: Path,
    allow_code: bool,
    seed: int,
    drop: Callable[[str, str, str], None],
) -> None:
    if not suite.cases:
        return
    oracle = _play(suite, path, OracleAgent(suite), allow_code, seed)
    for case in suite.cases:
        r = oracle.get(case.id)
        if r is None or r.status != "passed":
            why = "no result" if r is None else f"{r.status}: {r.explanation or ''}"
            drop(case.id, "oracle", f"the oracle agent does not pass it ({why})")
    talks = [c for c in suite.cases if set(c.tags) & {f"family:{f}" for f in MULTI_TURN}]
    if not talks:
        return
    sub = suite.model_copy(update={"cases": talks})
    wrong: Sequence[tuple[str, Provider]] = (
        ("guessing agent (acts without asking)", GuessingAgent(sub)),
        ("ignoring agent (asks, then ignores the answer)", IgnoringAgent(sub)),
    )
    for label, agent in wrong:
        results = _play(sub, path, agent, allow_code, seed)
        for case in talks:
            r = results.get(case.id)
            if r is not None and r.status == "failed":
                continue
            status = "no result" if r is None else r.status
            drop(case.id, "wrong-agent", f"the {label} is not failed by it ({status})")
