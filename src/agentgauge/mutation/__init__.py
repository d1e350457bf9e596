"""Expectation mutation testing: can each case of a suite fail at all?

For every case, plausible wrong transcripts are built from the case itself (the wrong tool, no
call, an extra call, an argument dropped or changed, calls reordered, a text-only answer, a
refusal, a clarifying question, a forbidden call, an echoed tool error, an unsupported number)
and scored with the real scorers. A mutant that passes shows an axis on which the case cannot
fail; a case whose every mutant passes tests nothing. The right transcript (the expected calls
and reference reply) is scored too: it should pass.

```python
from agentgauge import load_suite
from agentgauge.mutation import audit_suite

audit = audit_suite(load_suite("examples/quickstart"))
for case in audit.cases:
    print(case.case_id, case.surviving_axes, case.reference.passed)
```

``agentgauge validate --mutate SUITE`` prints the same audit (docs/mutation.md).
"""

from ._audit import (
    AuditConfig,
    AxisCount,
    CaseAudit,
    MutantVerdict,
    ReferenceVerdict,
    SkippedScorer,
    SuiteAudit,
    audit_case,
    audit_suite,
)
from ._mutants import AXES, Axis, CaseMutants, Mutant, mutate_case
from ._report import audit_findings, audit_summary, case_findings

__all__ = [
    "AXES",
    "AuditConfig",
    "Axis",
    "AxisCount",
    "CaseAudit",
    "CaseMutants",
    "Mutant",
    "MutantVerdict",
    "ReferenceVerdict",
    "SkippedScorer",
    "SuiteAudit",
    "audit_case",
    "audit_findings",
    "audit_suite",
    "audit_summary",
    "case_findings",
    "mutate_case",
]
