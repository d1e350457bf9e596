"""agentgauge: test and evaluate LLM agents that call tools.

The public Python API. Everything the command line does is one call to a function here.
"""

from ._version import __version__
from .errors import AgentGaugeError, ProviderError, UserError
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
)

__all__ = [
    "AgentGaugeError",
    "ArgMatcher",
    "CallExpectation",
    "Case",
    "CaseResult",
    "Expectation",
    "Message",
    "ProviderError",
    "Score",
    "Suite",
    "ToolCall",
    "ToolSpec",
    "UserError",
    "__version__",
]
