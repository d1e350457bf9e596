"""``validate`` as one library call: load and lint a suite, list the code it names, audit it.

What ``agentgauge validate`` prints comes from :func:`validate_suite`; nothing in it runs the
agent, imports suite code or calls a model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .._suite_code import SuiteCodePolicy
from ..io import LintFinding, SuiteCheck, check_suite, find_suite_file
from ._code_check import CodeUse, suite_code_uses

if TYPE_CHECKING:
    from ..mutation import SuiteAudit

__all__ = ["SuiteValidation", "ValidateConfig", "validate_suite"]


@dataclass(frozen=True, kw_only=True)
class ValidateConfig:
    """``judge``: the judge the run would be given (its scorers are checked against it);
    ``allow_suite_code``: the user's opt-in, as ``--allow-suite-code`` (None: environment and
    user config decide); ``mutate``: also run the mutation audit (``validate --mutate``)."""

    judge: str | None = None
    allow_suite_code: bool | None = None
    mutate: bool = False


@dataclass(kw_only=True)
class SuiteValidation:
    """One suite's validation: the load/lint check (suite-code refusals added to its findings),
    every piece of code the suite names, and the mutation audit when asked for and loadable."""

    check: SuiteCheck
    code: list[CodeUse] = field(default_factory=list)
    audit: SuiteAudit | None = None
    audit_findings: list[LintFinding] = field(default_factory=list)

    def failed(self, *, strict: bool) -> bool:
        audit_failed = any(strict or f.severity == "error" for f in self.audit_findings)
        return self.check.failed(strict=strict) or audit_failed


def validate_suite(path: str | Path, config: ValidateConfig = ValidateConfig()) -> SuiteValidation:
    """Validate the suite at ``path`` (a file, a folder holding a suite file, or JSONL cases)."""
    check = check_suite(path, judge=config.judge or None)
    out = SuiteValidation(check=check, code=_suite_code(check, config))
    if config.mutate and check.loaded is not None and not check.problems:
        from ..mutation import AuditConfig, audit_findings, audit_suite

        # a Python world's class runs under the user's opt-in (its state checks are not
        # decided without it); nothing else of the suite's code runs in the audit
        suite_file = find_suite_file(Path(check.path)) or Path(check.path)
        code = SuiteCodePolicy.for_suite(suite_file, config.allow_suite_code)
        out.audit = audit_suite(check.loaded.suite, AuditConfig(code=code))
        out.audit_findings = audit_findings(out.audit, check.loaded)
    return out


def _suite_code(check: SuiteCheck, config: ValidateConfig) -> list[CodeUse]:
    """Every piece of code the suite names (what ``run`` would run), checked by the suite code
    policy without importing anything; each refusal becomes an error finding of ``check``."""
    if check.loaded is None:
        return []
    suite_file = find_suite_file(Path(check.path)) or Path(check.path)
    policy = SuiteCodePolicy.for_suite(suite_file, config.allow_suite_code)
    uses = list(suite_code_uses(check.loaded, policy, judge_given=bool(config.judge)))
    for use in uses:
        if use.problem is None and use.warning is None:
            continue
        check.findings.append(
            LintFinding(
                severity="error" if use.problem else "warning",
                code="suite-code",
                message=use.problem or use.warning or "",
                file=use.file,
                line=use.line,
                field=use.field,
                case_id=use.ref.case_id,
            )
        )
    return uses
