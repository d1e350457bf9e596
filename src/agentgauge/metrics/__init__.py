"""Metrics by slice, statistics, run comparison, gates and run history (docs/metrics.md)."""

from ._compare import CaseChange, Comparison, MetricDelta, SampleSize, compare
from ._files import load_gates_file, resolve_gates, summarize, write_summary
from ._gating import GateCheck, GateReport, evaluate_gates, gate_run
from ._history import HistoryEntry, history_path, read_history, record_run, sparkline
from ._model import (
    SUMMARY_VERSION,
    ConfusionCell,
    Cost,
    Coverage,
    Diagnosis,
    Failure,
    IntentStats,
    Latency,
    Mean,
    Performance,
    Rate,
    Slice,
    Summary,
    ToolSelection,
    Trials,
)
from ._summarize import summarize_results

__all__ = [
    "SUMMARY_VERSION",
    "CaseChange",
    "Comparison",
    "ConfusionCell",
    "Cost",
    "Coverage",
    "Diagnosis",
    "Failure",
    "GateCheck",
    "GateReport",
    "HistoryEntry",
    "IntentStats",
    "Latency",
    "Mean",
    "MetricDelta",
    "Performance",
    "Rate",
    "SampleSize",
    "Slice",
    "Summary",
    "ToolSelection",
    "Trials",
    "compare",
    "evaluate_gates",
    "gate_run",
    "history_path",
    "load_gates_file",
    "read_history",
    "record_run",
    "resolve_gates",
    "sparkline",
    "summarize",
    "summarize_results",
    "write_summary",
]
