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
from ._catalog import SCORER_INFO, ScorerInfo, matches_case, scorer_ref_issues
from ._catalog_checks import PASS_FAIL, PYTHON_PREFIX, rubric_issues, rubric_scale
from ._expect import (
    MATCHER_KEYS,
    ArgMatcher,
    ArgsMatch,
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
from ._gates import Gates, Percentile, RegressionMetric, ScorerGate
from ._jsonschema import suite_json_schema
from ._matrix import LABEL_PATTERN, Matrix, MatrixEntry, agent_label, valid_label
from ._result import CaseResult, RunRecord, Score, Status, TraceEvent
from ._sources import McpSource, ToolMode, ToolSource
from ._tool import FaultKind, FaultRate, ToolSim, ToolSpec

__all__ = [
    "CATEGORY_STRATA",
    "FORMAT_VERSION",
    "KNOWN_CATEGORIES",
    "LABEL_PATTERN",
    "MATCHER_KEYS",
    "PASS_FAIL",
    "PYTHON_PREFIX",
    "SCORER_INFO",
    "ArgMatcher",
    "ArgsMatch",
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
    "Matrix",
    "MatrixEntry",
    "McpSource",
    "Message",
    "Model",
    "OrderMode",
    "PartialValue",
    "Percentile",
    "RegressionMetric",
    "ResponseFormat",
    "ResultRef",
    "Role",
    "RunRecord",
    "Score",
    "ScorerGate",
    "ScorerInfo",
    "ScorerRef",
    "Status",
    "Suite",
    "ToolCall",
    "ToolMode",
    "ToolSim",
    "ToolSource",
    "ToolSpec",
    "TraceEvent",
    "Turn",
    "Usage",
    "agent_label",
    "expand_matcher",
    "matches_case",
    "rubric_issues",
    "rubric_scale",
    "scorer_ref_issues",
    "suite_json_schema",
    "tool",
    "tool_from_function",
    "valid_label",
]
