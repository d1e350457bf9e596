"""The fuzz's targets outside the suite loader (issue 21, item 4): a run directory's files
(run.json, results.jsonl), shards, a matrix folder's matrix.json, and the files named on the
command line (--gates, --labels, --system-file, a mock: script), a matrix's comparison.json
(read by ``agentgauge.metrics.read_matrix``) and the user's config file.

Each base file is static text (the fuzz is seeded: the same bytes every time), valid as it is;
``test_fuzz.py`` mutates it like any other target and runs the command that reads it. The
commands run through the CLI in the worker: exit 2 is a rejection (its stderr lines, each of
which must name ``file:line``), exit 0 or 1 an acceptance, anything else a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _result(case_id: str, status: str, trial: int = 0) -> dict[str, Any]:
    return {
        "version": 1,
        "case_id": case_id,
        "trial": trial,
        "status": status,
        "score": 1.0 if status == "passed" else 0.0,
        "scores": [
            {
                "name": "tool_selection",
                "value": 1.0 if status == "passed" else 0.0,
                "passed": status == "passed",
                "explanation": "expected a call to get_weather",
            }
        ],
        "category": "happy_path",
        "tags": ["weather"],
        "expected_behavior": "tool_call",
        "expected_tools": ["get_weather"],
        "calls": [{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}],
        "text": "It is sunny.",
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": "It is sunny."},
        ],
        "trace": [{"kind": "model", "turn": 0, "start": 1.0, "end": 1.5, "latency_ms": 500.0}],
        "usage": {"input_tokens": 20, "output_tokens": 6},
        "model_calls": 1,
        "latency_ms": 512.5,
        "cost_usd": 0.0001,
    }


def _record(**extra: Any) -> str:
    record = {
        "version": 1,
        "run_id": "fuzz-run",
        "suite": "fuzz",
        "suite_path": "suite.yaml",
        "suite_hash": "ca880bfbf6fe15d477ec4a0d",
        "agent": "mock:",
        "started_at": "2026-12-01T21:00:55+00:00",
        "finished_at": "2026-12-01T21:00:56+00:00",
        "agentgauge_version": "0.1.0",
        "trials": 1,
        "case_count": 3,
        "options": {"trials": 1, "max_concurrency": 4, "retries": 2, "seed": 0},
        "config_hash": "003cb6c0c6606dab7b3ad5b5",
        **extra,
    }
    return json.dumps(record, indent=2) + "\n"


def _lines(*rows: dict[str, Any]) -> str:
    return "".join(json.dumps(row) + "\n" for row in rows)


RUN_JSON = _record()
RESULTS_JSONL = _lines(
    _result("weather-paris", "passed"), _result("hello", "failed"), _result("more-1", "error")
)
SHARD1_JSON = _record(run_id="fuzz-s1", shard="1/2")
# each shard holds the pairs of its own bucket (merge refuses another shard's pair)
SHARD1_RESULTS = _lines(_result("hello", "failed"), _result("more-1", "passed"))
SHARD2_JSON = _record(run_id="fuzz-s2", shard="2/2")
SHARD2_RESULTS = _lines(_result("weather-paris", "passed"))
MATRIX_JSON = (
    json.dumps(
        {
            "version": 1,
            "suite": "fuzz",
            "suite_path": "suite.yaml",
            "started_at": "2026-12-01T21:00:55+00:00",
            "options": {"max_concurrency": 4},
            "members": [
                {"label": "mock", "agent": "mock:", "run_dir": "mock", "state": "done"},
                {"label": "echo", "agent": "mock:echo", "run_dir": "echo", "state": "done"},
            ],
        },
        indent=2,
    )
    + "\n"
)
GATES_YAML = """\
gates:
  min_pass_rate: 0.2
  max_error_rate: 0.9
  max_latency_s: {p95: 30}
  min_category_pass_rate: {happy_path: 0.1}
"""
LABELS_JSONL = _lines(
    {
        "task": "equivalence_answer",
        "inputs": {"question": "Capital of France?", "reference": "Paris", "agent_output": "P"},
        "label": "equivalent",
        "id": "l1",
    },
    {
        "task": "equivalence_answer",
        "inputs": {"question": "2+2?", "reference": "4", "agent_output": "five"},
        "label": "different",
    },
)
SCRIPT_YAML = """\
- text: Let me check.
  calls:
    - name: get_weather
      arguments: {city: Paris, unit: c}
- It is sunny in Paris.
- {text: "Done", calls: []}
"""
SCRIPT_JSONL = _lines(
    {"calls": [{"name": "search", "arguments": {"q": "cats"}}]},
    {"text": "Found cats."},
)
SYSTEM_TXT = "You are a careful assistant.\nAnswer in one sentence; call tools when needed.\n"
COMPARISON_JSON = (
    json.dumps(
        {
            "version": 1,
            "suite": "fuzz",
            "out_dir": "matrix",
            "agents": [
                {
                    "label": "mock",
                    "agent": "mock:",
                    "run_dir": "mock",
                    "status": "done",
                    "rank": 1,
                    "results": 3,
                    "cases": 3,
                    "quality": {
                        "pass_rate": {"passed": 1, "n": 3, "value": 0.33, "low": 0.06, "high": 0.79}
                    },
                }
            ],
            "ranking": ["mock"],
            "warnings": ["few results"],
        },
        indent=2,
    )
    + "\n"
)
#: the user's config, read when a suite with code of its own runs (``code/suite.yaml``)
CONFIG_TOML = """\
# agentgauge settings
allow_suite_code = true
[history]
keep = 100
"""
CODE_SUITE = """\
name: code
scorers:
  - scorer: python:checks.py:check
cases:
  - {id: a, input: hi, expect: {behavior: no_tool}}
"""
CHECKS_PY = "def check(ctx):\n    return None\n"

#: target -> (file inside the input folder, base text, operations run on the folder)
FILE_TARGETS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "run.json": ("run/run.json", RUN_JSON, ("report", "resume")),
    "results": ("run/results.jsonl", RESULTS_JSONL, ("report", "gate", "resume")),
    "shard-run.json": ("shard1/run.json", SHARD1_JSON, ("merge",)),
    "shard-results": ("shard1/results.jsonl", SHARD1_RESULTS, ("merge",)),
    "matrix.json": ("matrix/matrix.json", MATRIX_JSON, ("matrix",)),
    "gates": ("gates.yaml", GATES_YAML, ("gate",)),
    "labels": ("labels.jsonl", LABELS_JSONL, ("labels",)),
    "mock-yaml": ("script.yaml", SCRIPT_YAML, ("mock",)),
    "mock-jsonl": ("script.jsonl", SCRIPT_JSONL, ("mock-jsonl",)),
    "system": ("system.txt", SYSTEM_TXT, ("system",)),
    "comparison": ("matrix/comparison.json", COMPARISON_JSON, ("comparison",)),
    "config": ("config/agentgauge/config.toml", CONFIG_TOML, ("config",)),
}


def write_file_base(folder: Path) -> None:
    """The valid run directories and command-line files every mutation starts from."""
    files = {
        "run/run.json": RUN_JSON,
        "run/results.jsonl": RESULTS_JSONL,
        "shard1/run.json": SHARD1_JSON,
        "shard1/results.jsonl": SHARD1_RESULTS,
        "shard2/run.json": SHARD2_JSON,
        "shard2/results.jsonl": SHARD2_RESULTS,
        "matrix/matrix.json": MATRIX_JSON,
        "matrix/mock/run.json": RUN_JSON,
        "matrix/mock/results.jsonl": RESULTS_JSONL,
        "matrix/echo/run.json": _record(run_id="fuzz-echo", agent="mock:echo"),
        "matrix/echo/results.jsonl": RESULTS_JSONL,
        "code/suite.yaml": CODE_SUITE,
        "code/checks.py": CHECKS_PY,
        **{name: text for name, text, _ in FILE_TARGETS.values()},
    }
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            path.write_text(text, encoding="utf-8")


def file_ops(folder: Path) -> dict[str, list[str]]:
    """The command line of each operation on the input folder ``folder`` (``resume`` is not
    one: what a resume reads of the run directory is called directly, see test_fuzz.py)."""
    d = str(folder)
    quiet = ["--no-progress", "--no-history"]
    return {
        "report": ["report", f"{d}/run", "--format", "json", "-o", f"{d}/report.json"],
        "gate": ["gate", f"{d}/run", "--gates", f"{d}/gates.yaml", "--json"],
        "merge": ["merge", f"{d}/shard1", f"{d}/shard2", "-o", f"{d}/merged", "--no-history"],
        "matrix": ["gate", f"{d}/matrix", "--gates", f"{d}/gates.yaml"],
        "labels": ["calibrate", "--labels", f"{d}/labels.jsonl", "--judge", "mock:", "--no-cache"],
        "mock": [
            "run",
            f"{d}/suite.yaml",
            "--agent",
            f"mock:{d}/script.yaml",
            "-o",
            f"{d}/out-yaml",
            "--no-cache",
            *quiet,
        ],
        "mock-jsonl": [
            "run",
            f"{d}/suite.yaml",
            "--agent",
            f"mock:{d}/script.jsonl",
            "-o",
            f"{d}/out-jsonl",
            "--no-cache",
            *quiet,
        ],
        "config": [
            "run",
            f"{d}/code/suite.yaml",
            "--agent",
            "mock:",
            "-o",
            f"{d}/out-code",
            "--no-cache",
            *quiet,
        ],
        "system": [
            "run",
            f"{d}/suite.yaml",
            "--agent",
            "mock:",
            "--system-file",
            f"{d}/system.txt",
            "-o",
            f"{d}/out-system",
            "--no-cache",
            *quiet,
        ],
    }
