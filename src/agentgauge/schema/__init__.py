"""Pydantic models of every format agentgauge reads or writes."""

from ._base import FORMAT_VERSION, JsonValue, Message, Model, Role, ToolCall, Usage
from ._case import (
    CATEGORY_STRATA,
    KNOWN_CATEGORIES,
    Case,
    Defaults,
    Labels,
    ScorerRef,
    Suite,
    Turn,
)
from ._expect import (
    MATCHER_KEYS,
    ArgMatcher,
    Behavior,
    CallExpectation,
    Expectation,
    ExtraArguments,
    OrderMode,
    PartialValue,
    ResponseFormat,
    ResultRef,
    expand_matcher,
)
from ._from_function import tool, tool_from_function
from ._gates import Gates, Percentile, ScorerGate
from ._result import CaseResult, RunRecord, Score, Status, TraceEvent
from ._tool import FaultKind, FaultRate, ToolSim, ToolSpec

__all__ = [
    "CATEGORY_STRATA",
    "FORMAT_VERSION",
    "KNOWN_CATEGORIES",
    "MATCHER_KEYS",
    "ArgMatcher",
    "Behavior",
    "CallExpectation",
    "Case",
    "CaseResult",
    "Defaults",
    "Expectation",
    "ExtraArguments",
    "FaultKind",
    "FaultRate",
    "Gates",
    "JsonValue",
    "Labels",
    "Message",
    "Model",
    "OrderMode",
    "PartialValue",
    "Percentile",
    "ResponseFormat",
    "ResultRef",
    "Role",
    "RunRecord",
    "Score",
    "ScorerGate",
    "ScorerRef",
    "Status",
    "Suite",
    "ToolCall",
    "ToolSim",
    "ToolSpec",
    "TraceEvent",
    "Turn",
    "Usage",
    "expand_matcher",
    "tool",
    "tool_from_function",
]
