"""agentgauge: test and evaluate LLM agents that call tools.

The public Python API. Everything the command line does is one call to a function here.
Names are imported lazily on first use, so ``import agentgauge`` (and ``agentgauge --help``)
stays fast and never imports a vendor SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_exports
from ._version import __version__

if TYPE_CHECKING:
    from .errors import AgentGaugeError, ProviderError, UserError
    from .exchange import read_responses
    from .importers import import_suite
    from .metrics import compare, gate_run, summarize, write_summary
    from .runner import (
        RunConfig,
        RunOutcome,
        arun_suite,
        run_suite,
        run_suite_file,
        score_responses,
    )
    from .schema import (
        ArgMatcher,
        CallExpectation,
        Case,
        CaseResult,
        Expectation,
        Message,
        Score,
        Suite,
        ToolCall,
        ToolSpec,
        tool,
        tool_from_function,
    )
    from .scoring import score_case
    from .suites import check_suite, lint_suite, load_suite

#: public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "AgentGaugeError": "agentgauge.errors",
    "ProviderError": "agentgauge.errors",
    "UserError": "agentgauge.errors",
    "ArgMatcher": "agentgauge.schema",
    "CallExpectation": "agentgauge.schema",
    "Case": "agentgauge.schema",
    "CaseResult": "agentgauge.schema",
    "Expectation": "agentgauge.schema",
    "Message": "agentgauge.schema",
    "Score": "agentgauge.schema",
    "Suite": "agentgauge.schema",
    "ToolCall": "agentgauge.schema",
    "ToolSpec": "agentgauge.schema",
    "tool": "agentgauge.schema",
    "tool_from_function": "agentgauge.schema",
    "load_suite": "agentgauge.io",
    "lint_suite": "agentgauge.io",
    "check_suite": "agentgauge.io",
    "RunConfig": "agentgauge.runner",
    "RunOutcome": "agentgauge.runner",
    "arun_suite": "agentgauge.runner",
    "run_suite": "agentgauge.runner",
    "run_suite_file": "agentgauge.runner",
    "import_suite": "agentgauge.io",
    "read_responses": "agentgauge.io",
    "score_case": "agentgauge.scoring",
    "score_responses": "agentgauge.runner",
    "summarize": "agentgauge.metrics",
    "write_summary": "agentgauge.metrics",
    "compare": "agentgauge.metrics",
    "gate_run": "agentgauge.metrics",
}

__all__ = [
    "AgentGaugeError",
    "ArgMatcher",
    "CallExpectation",
    "Case",
    "CaseResult",
    "Expectation",
    "Message",
    "ProviderError",
    "RunConfig",
    "RunOutcome",
    "Score",
    "Suite",
    "ToolCall",
    "ToolSpec",
    "UserError",
    "__version__",
    "arun_suite",
    "check_suite",
    "compare",
    "gate_run",
    "import_suite",
    "lint_suite",
    "load_suite",
    "read_responses",
    "run_suite",
    "run_suite_file",
    "score_case",
    "score_responses",
    "summarize",
    "tool",
    "tool_from_function",
    "write_summary",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
