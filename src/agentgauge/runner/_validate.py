"""``validate`` as one library call: load and lint a suite, list the code, the agent and judge
specs (with the endpoints that would receive your credentials) and the paths it names, audit it.

What ``agentgauge validate`` prints comes from :func:`validate_suite`; nothing in it runs the
agent, imports suite code, connects to anything or calls a model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .._suite_code import SuiteCodePolicy
from ..suites import LintFinding, SuiteCheck, check_suite, find_suite_file
from ._code_check import CodeUse, SpecUse, connector_problems, suite_code_uses, suite_spec_uses
from ._path_check import PathUse, suite_path_uses

if TYPE_CHECKING:
    from ..mutation import SuiteAudit

__all__ = ["SuiteValidation", "ValidateConfig", "validate_suite"]


@dataclass(frozen=True, kw_only=True)
class ValidateConfig:
    """``judge``: the judge the run would be given (its scorers are checked against it);
    ``allow_suite_code`` / ``allow_suite_endpoints``: the user's opt-ins, as
    ``--allow-suite-code`` / ``--allow-suite-endpoints`` (None: environment and user config
    decide); ``mutate``: also run the mutation audit (``validate --mutate``)."""

    judge: str | None = None
    allow_suite_code: bool | None = None
    allow_suite_endpoints: bool | None = None
    mutate: bool = False


@dataclass(kw_only=True)
class SuiteValidation:
    """One suite's validation: the load/lint check (suite-code refusals added to its findings),
    every piece of code the suite names, and the mutation audit when asked for and loadable."""

    check: SuiteCheck
    code: list[CodeUse] = field(default_factory=list)
    #: every agent and judge spec, with its endpoint and the verdict
    specs: list[SpecUse] = field(default_factory=list)
    #: every path the suite names (folders a run writes, files it reads)
    paths: list[PathUse] = field(default_factory=list)
    audit: SuiteAudit | None = None
    audit_findings: list[LintFinding] = field(default_factory=list)

    def failed(self, *, strict: bool) -> bool:
        audit_failed = any(strict or f.severity == "error" for f in self.audit_findings)
        return self.check.failed(strict=strict) or audit_failed


def validate_suite(path: str | Path, config: ValidateConfig = ValidateConfig()) -> SuiteValidation:
    """Validate the suite at ``path`` (a file, a folder holding a suite file, or JSONL cases)."""
    check = check_suite(path, judge=config.judge or None)
    out = SuiteValidation(check=check, code=_suite_code(check, config))
    if check.loaded is not None:
        policy = _policy(check, config)
        out.specs = _suite_specs(check, policy, config)
        out.paths = list(suite_path_uses(check.loaded, policy.root))
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
    uses = list(
        suite_code_uses(check.loaded, _policy(check, config), judge_given=bool(config.judge))
    )
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


def _policy(check: SuiteCheck, config: ValidateConfig) -> SuiteCodePolicy:
    suite_file = find_suite_file(Path(check.path)) or Path(check.path)
    return SuiteCodePolicy.for_suite(
        suite_file, config.allow_suite_code, config.allow_suite_endpoints
    )


def _suite_specs(
    check: SuiteCheck, policy: SuiteCodePolicy, config: ValidateConfig
) -> list[SpecUse]:
    """Every agent and judge spec the suite names, judged by the policy without connecting to
    anything; each refused endpoint becomes an error finding of ``check`` (a refused code spec
    is one already, from :func:`_suite_code`)."""
    assert check.loaded is not None
    uses = list(suite_spec_uses(check.loaded, policy, judge_given=bool(config.judge)))
    for use in uses:
        if use.problem is None or use.endpoint is None:
            continue
        check.findings.append(
            LintFinding(
                severity="error",
                code="suite-endpoint",
                message=use.problem,
                file=use.file,
                line=use.line,
                field=use.field,
            )
        )
    for file, line, where, problem in connector_problems(check.loaded, policy):
        check.findings.append(
            LintFinding(
                severity="error",
                code="suite-endpoint",
                message=problem,
                file=file,
                line=line,
                field=where,
            )
        )
    return uses
