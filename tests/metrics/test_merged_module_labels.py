"""Labels reported on several responses of one case are all kept (regression: the case's merged
labels kept route, skill and intents only, so ``knowledge`` and ``fallback`` reported with a
final reply after a labelled tool call were dropped: retrieval and degradation triggers then
read "not measured")."""

from __future__ import annotations

from pathlib import Path

from agentgauge.metrics import summarize
from agentgauge.rundir import iter_results
from agentgauge.runner import RunConfig, run_suite
from agentgauge.schema import Labels, Suite

AGENTS = Path(__file__).resolve().parent / "module_pair_agents.py"


def test_knowledge_and_fallback_of_a_later_response_are_kept(tmp_path: Path) -> None:
    suite = Suite.model_validate(
        {
            "name": "kb",
            "tools": [
                {
                    "name": "search_kb",
                    "description": "Search.",
                    "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
                    "simulation": {"result": {"hits": []}},
                }
            ],
            "cases": [
                {
                    "id": "esim",
                    "input": "How do I get an eSIM?",
                    "labels": {
                        "route": "knowledge_base",
                        "knowledge": ["kb-esim"],
                        "fallback": True,
                    },
                }
            ],
        }
    )
    agent = f"python:{AGENTS}:kb_then_answer"
    run_suite(suite, RunConfig(agent=agent, cache=False, progress=False), tmp_path)
    [r] = list(iter_results(tmp_path))
    assert r.predicted_labels == Labels(
        route="knowledge_base", knowledge=["kb-esim", "kb-plans"], fallback=True
    )
    modules = summarize(tmp_path).modules
    assert modules is not None
    assert modules.retrieval is not None
    assert (modules.retrieval.cases, modules.retrieval.unmeasured) == (1, 0)
    assert modules.retrieval.recall.mean == 1.0
    assert modules.fallback is not None
    assert (modules.fallback.tp, modules.fallback.unmeasured) == (1, 0)


def test_a_wrong_knowledge_or_fallback_label_is_an_error_on_the_case(tmp_path: Path) -> None:
    suite = Suite.model_validate({"name": "kb", "cases": [{"id": "c", "input": "hi"}]})
    for agent, message in (
        ("bad_knowledge", "labels.knowledge must be a list of strings"),
        ("bad_fallback", "labels.fallback must be true or false"),
    ):
        config = RunConfig(agent=f"python:{AGENTS}:{agent}", cache=False, progress=False)
        run_suite(suite, config, tmp_path / agent)
        [r] = list(iter_results(tmp_path / agent))
        assert r.status == "error"
        assert message in (r.error or "")
