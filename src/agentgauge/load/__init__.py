"""Load tests of an agent (``agentgauge load``, docs/load.md): many concurrent sessions, each a
whole case (turns, tools, world, faults, scoring), scheduled by a profile on the runner's own
machinery — closed loop (virtual users with a think time) or open loop (Poisson arrivals), held,
in k6-style stages, or a step ramp that finds the saturation point — measured per interval
(latency and TTFT percentiles, sessions/s, errors by kind, tokens/min, pass rate against the
unloaded baseline) and gated by thresholds (``p95<500``, ``error_rate<0.01``,
``quality_ratio>0.9``).
"""

from ._arrivals import poisson_arrivals
from ._model import (
    CostEstimate,
    LoadReport,
    Percentiles,
    Saturation,
    StepStats,
    ThresholdVerdict,
    Totals,
    WindowStats,
)
from ._plan import LoadLimits, LoadPlan, Segment, make_plan
from ._run import LOAD_FILE, LOAD_SAMPLES_FILE, LoadOutcome, read_load, run_load_file
from ._schedule import LoadSchedule
from ._stats import error_kind, percentile
from ._thresholds import evaluate

__all__ = [
    "LOAD_FILE",
    "LOAD_SAMPLES_FILE",
    "CostEstimate",
    "LoadLimits",
    "LoadOutcome",
    "LoadPlan",
    "LoadReport",
    "LoadSchedule",
    "Percentiles",
    "Saturation",
    "Segment",
    "StepStats",
    "ThresholdVerdict",
    "Totals",
    "WindowStats",
    "error_kind",
    "evaluate",
    "make_plan",
    "percentile",
    "poisson_arrivals",
    "read_load",
    "run_load_file",
]
