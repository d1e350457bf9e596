"""Shared by the BFCL multi-turn tests: the data in ../shared/data/bfcl-v4, the ground truth as
a ``python:`` agent's script and as BFCL result lines, and a guard for the ``bfcl-eval``
package (the tests skip without it; .ci/run installs it)."""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from agentgauge.schema import Suite

CATEGORIES = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param")
#: the fourth category: in bfcl-eval's data, not in ../shared/data
LONG_CONTEXT = "multi_turn_long_context"
ALL_CATEGORIES = (*CATEGORIES, LONG_CONTEXT)
BACKENDS_PACKAGE = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code"
TRUTH_AGENT = Path(__file__).parent / "worlds" / "bfcl_truth_agent.py"


def need_bfcl_eval() -> None:
    """Skip unless BFCL's back-ends import (``pip install --no-deps bfcl-eval mpmath``) — but
    fail in CI (``CI=true``), where scripts/setup.sh installs them: the BFCL tests must run."""
    try:
        importlib.import_module("mpmath")
        importlib.import_module(f"{BACKENDS_PACKAGE}.math_api")
    except ImportError as err:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI without BFCL's back-ends (scripts/setup.sh installs them): {err}")
        pytest.skip(f"BFCL's back-ends are not installed: {err}")


def question_file(shared: Path, category: str) -> Path:
    """The question file of ``category``: ../shared/data/bfcl-v4, or for
    ``multi_turn_long_context`` (not in ../shared) the copy in bfcl-eval's own data."""
    if category == LONG_CONTEXT:
        return long_context_file()
    return shared / "bfcl-v4" / f"BFCL_v4_{category}.json"


def long_context_file() -> Path:
    """bfcl-eval's ``BFCL_v4_multi_turn_long_context.json`` (with its ``possible_answer/`` and
    ``multi_turn_func_doc/`` beside it); skips when that package or file is absent."""
    need_bfcl_eval()
    import bfcl_eval

    path = Path(str(bfcl_eval.__file__)).parent / "data" / f"BFCL_v4_{LONG_CONTEXT}.json"
    if not path.exists():
        pytest.skip(f"this bfcl-eval has no {path.name}")
    return path


def entries(shared: Path, category: str) -> list[dict[str, Any]]:
    path = question_file(shared, category)
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def ground_truth(shared: Path, category: str) -> dict[str, list[list[str]]]:
    question = question_file(shared, category)
    path = question.parent / "possible_answer" / question.name
    lines = path.read_text(encoding="utf-8").splitlines()
    return {d["id"]: d["ground_truth"] for d in map(json.loads, lines)}


def write_truth_script(suite: Suite, path: Path) -> Path:
    """The truth agent's script: each user-message history -> that turn's reference calls."""
    script: dict[str, list[dict[str, Any]]] = {}
    for case in suite.cases:
        assert isinstance(case.input, str)
        texts = [case.input, *(t.user for t in case.turns)]
        expects = [case.expect, *(t.expect for t in case.turns)]
        for i, exp in enumerate(expects):
            assert exp is not None
            assert exp.state is not None
            assert exp.state.reference is not None
            key = json.dumps(texts[: i + 1])
            calls = [c.model_dump(mode="json") for c in exp.state.reference]
            # entries may share a history, never with different ground truths
            assert script.setdefault(key, calls) == calls, f"ambiguous history {key[:80]}"
    path.write_text(json.dumps(script), encoding="utf-8")
    return path


def fc_result(suite: Suite) -> dict[str, list[list[Any]]]:
    """BFCL result lines of a function-calling model that plays the ground truth: per turn one
    step with the turn's calls (arguments as JSON strings), then a text step."""
    out: dict[str, list[list[Any]]] = {}
    for case in suite.cases:
        turns: list[list[Any]] = []
        for exp in [case.expect, *(t.expect for t in case.turns)]:
            assert exp is not None
            assert exp.state is not None
            assert exp.state.reference is not None
            calls = [{c.name: json.dumps(c.arguments)} for c in exp.state.reference]
            turns.append([calls, "Done."] if calls else ["I cannot do that."])
        out[case.id] = turns
    return out


def write_results(path: Path, results: dict[str, Any]) -> Path:
    lines = [json.dumps({"id": k, "result": v}) for k, v in results.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
