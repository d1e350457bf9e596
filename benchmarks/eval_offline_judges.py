"""How good is each offline judge option? Agreement with the labelled sets in tests/judges/labels/.

Reproduces the table "How good is each offline judge" in docs/judges.md:

- ``mock:judge`` (the rule judge) on every set, through ``agentgauge.judges.calibrate``;
- the deterministic scorers where one applies: ``classify_behavior`` on the behaviour set,
  ``numeric_grounding`` on the groundedness set (read as supported / unsupported), and
  ``similarity`` of reply and reference at a threshold chosen on the ``dev-`` lines (needs
  ``agentgauge[embeddings]``; skipped without it);
- with ``--local``, the embedded ``local:smollm2`` with the verdict schema (about 1-4 s per
  call on one core; replies are cached in the judge cache, so a second run takes seconds);
- with ``--judge SPEC`` (repeatable), any other judge.

Figures per option and task: n, accuracy, Cohen's kappa (quadratic-weighted for the 1-5
groundedness and relevance scores), the same on the ``held-`` lines only, and judge errors.

``--pairwise`` measures the pairwise judge instead (``compare --judge``): two runs built from
the 20 held-out equivalence questions, the base run answering each with the wrong reply and the
new run with the right one; a judge that reads the replies finds 20 wins, one that follows the
position finds none and shows a position-bias rate near 100 %.

    python benchmarks/eval_offline_judges.py [--local] [--judge SPEC] [--pairwise] [--json]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import anyio

from agentgauge.judges import (
    BEHAVIOR_LABELS,
    Judge,
    JudgeConfig,
    LabelledExample,
    calibrate,
    cohen_kappa,
    read_labels,
    weighted_kappa,
)

LABELS = Path(__file__).resolve().parents[1] / "tests" / "judges" / "labels"
#: set name -> file (each holds one judge task)
SETS = {
    "equivalence": "equivalence.jsonl",
    "behavior": "behavior.jsonl",
    "groundedness": "groundedness.jsonl",
    "relevance": "relevance.jsonl",
}
#: the groundedness set read as two labels: every claim supported (the 1-5 score is 5) or not
BINARY = ("unsupported", "supported")


@dataclass(frozen=True, kw_only=True)
class Figures:
    """Agreement of one option with the labels of one set (all lines, and held-out lines)."""

    option: str
    task: str
    n: int
    accuracy: float | None
    kappa: float | None
    held_n: int
    held_accuracy: float | None
    held_kappa: float | None
    errors: int

    def markdown(self) -> str:
        return (
            f"| {self.option} | {self.task} | {self.n} | {_f(self.accuracy)} | {_f(self.kappa)} "
            f"| {self.held_n} | {_f(self.held_accuracy)} | {_f(self.held_kappa)} | {self.errors} |"
        )


HEADER = (
    "| option | task | n | accuracy | kappa | held-out n | held-out accuracy | held-out kappa "
    "| judge errors |\n|---|---|---|---|---|---|---|---|---|"
)


def _f(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def load(name: str) -> list[LabelledExample]:
    return read_labels(LABELS / SETS[name])


def is_held(ex: LabelledExample) -> bool:
    return (ex.id or "").startswith("held-")


def _agreement(
    pairs: Sequence[tuple[str, str]], labels: Sequence[str], *, ordinal: bool
) -> tuple[float | None, float | None]:
    if not pairs:
        return None, None
    accuracy = sum(h == j for h, j in pairs) / len(pairs)
    if ordinal:
        return accuracy, weighted_kappa([(int(h), int(j)) for h, j in pairs])
    return accuracy, cohen_kappa(pairs, labels)


def figures(
    option: str,
    task: str,
    pairs: Sequence[tuple[str, str]],
    held: Sequence[tuple[str, str]],
    labels: Sequence[str],
    *,
    errors: int = 0,
    ordinal: bool = False,
) -> Figures:
    acc, kappa = _agreement(pairs, labels, ordinal=ordinal)
    hacc, hkappa = _agreement(held, labels, ordinal=ordinal)
    return Figures(
        option=option,
        task=task,
        n=len(pairs),
        accuracy=acc,
        kappa=kappa,
        held_n=len(held),
        held_accuracy=hacc,
        held_kappa=hkappa,
        errors=errors,
    )


def _binary(pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(BINARY[h == "5"], BINARY[j == "5"]) for h, j in pairs]


async def judge_figures(judge: Judge, option: str) -> list[Figures]:
    """Calibrate ``judge`` on every set, on all lines and on the held-out lines."""
    out: list[Figures] = []
    for name in SETS:
        examples = load(name)
        whole = (await calibrate(judge, examples)).tasks[0]
        held = (await calibrate(judge, [e for e in examples if is_held(e)])).tasks[0]
        ordinal = whole.labels[0] == "1"
        task = f"{name} (1-5)" if ordinal else name
        out.append(
            figures(
                option,
                task,
                whole.pairs,
                held.pairs,
                whole.labels,
                errors=whole.errors,
                ordinal=ordinal,
            )
        )
        if name == "groundedness":
            out.append(
                figures(
                    option,
                    f"{name} (supported?)",
                    _binary(whole.pairs),
                    _binary(held.pairs),
                    BINARY,
                    errors=whole.errors,
                )
            )
    return out


def behavior_heuristic() -> Figures:
    """``classify_behavior`` on the behaviour set (a whole-JSON reply read as a call, as
    recorded responses are read)."""
    from agentgauge.io import json_text_calls
    from agentgauge.scoring import classify_behavior

    to_label = {v: k for k, v in BEHAVIOR_LABELS.items()}
    pairs, held = [], []
    examples = load("behavior")
    for ex in examples:
        text = ex.inputs["agent_output"]
        got = classify_behavior(text, json_text_calls(text) or [])
        pair = (str(ex.label), to_label.get(got, got))
        pairs.append(pair)
        if is_held(ex):
            held.append(pair)
    return figures("`classify_behavior`", "behavior", pairs, held, tuple(BEHAVIOR_LABELS))


def numeric_grounding() -> Figures:
    """``numeric_grounding`` on the groundedness set: supported when no number is ungrounded."""
    from agentgauge.scoring import check_numeric_grounding

    pairs, held = [], []
    for ex in load("groundedness"):
        sources = [ex.inputs.get("context", ""), ex.inputs.get("tool_results", "")]
        grounded = not check_numeric_grounding(ex.inputs["agent_output"], sources).ungrounded
        pair = (BINARY[ex.label == "5"], BINARY[grounded])
        pairs.append(pair)
        if is_held(ex):
            held.append(pair)
    return figures("`numeric_grounding`", "groundedness (supported?)", pairs, held, BINARY)


def choose_threshold(scored: Sequence[tuple[str, float]]) -> float:
    """The cut-off (0.50..0.99, step 0.01) with the best accuracy on ``scored`` (label,
    similarity) pairs; of equally good ones, the middle."""
    grid = [round(0.5 + i / 100, 2) for i in range(50)]
    acc = {t: sum((s >= t) == (h == "equivalent") for h, s in scored) for t in grid}
    best = max(acc.values())
    tied = [t for t in grid if acc[t] == best]
    return tied[len(tied) // 2]


def similarity_figures() -> Figures | None:
    """``similarity`` of reply and reference, equivalent at a threshold chosen on the dev lines;
    None when the embeddings extra is not installed."""
    from agentgauge.errors import MissingExtraError

    try:
        from agentgauge.scoring._similarity import similarity

        similarity("warm up", "warm up")
    except MissingExtraError:
        return None
    examples = load("equivalence")
    scored = [
        (ex, similarity(ex.inputs["agent_output"], ex.inputs["reference"])) for ex in examples
    ]
    threshold = choose_threshold([(str(ex.label), s) for ex, s in scored if not is_held(ex)])
    labels = ("different", "equivalent")
    pairs = [(str(ex.label), labels[s >= threshold]) for ex, s in scored]
    held = [p for (ex, _), p in zip(scored, pairs, strict=True) if is_held(ex)]
    option = f"`similarity` >= {threshold:.2f} (threshold chosen on dev)"
    return figures(option, "equivalence", pairs, held, labels)


def deterministic_figures() -> list[Figures]:
    out = [behavior_heuristic(), numeric_grounding()]
    sim = similarity_figures()
    if sim is not None:
        out.append(sim)
    return out


def mock_figures() -> list[Figures]:
    judge = Judge.from_config(JudgeConfig(spec="mock:judge", cache=False))
    return anyio.run(judge_figures, judge, "`mock:judge`")


def spec_figures(spec: str) -> list[Figures]:
    judge = Judge.from_config(JudgeConfig(spec=spec))

    async def measure() -> list[Figures]:
        try:
            return await judge_figures(judge, f"`{spec}`")
        finally:
            await judge.aclose()

    return anyio.run(measure)


PAIRWISE_HEADER = (
    "| judge | pairs | wins (right reply) | losses (wrong reply) | ties | position-biased "
    "| position bias rate | judge errors |\n|---|---|---|---|---|---|---|---|"
)


def pairwise_runs(folder: Path) -> tuple[Path, Path]:
    """Two run directories from the held-out equivalence questions: base answers each with its
    wrong reply, new with its right one (both as passed, so the judge alone decides)."""
    from agentgauge.schema import CaseResult, Message

    right: dict[str, str] = {}
    wrong: dict[str, str] = {}
    for ex in load("equivalence"):
        if is_held(ex):
            side = right if ex.label == "equivalent" else wrong
            side[ex.inputs["question"]] = ex.inputs["agent_output"]
    questions = sorted(set(right) & set(wrong))
    out = []
    for name, replies in (("base", wrong), ("new", right)):
        run = folder / name
        run.mkdir(parents=True, exist_ok=True)
        with (run / "results.jsonl").open("w", encoding="utf-8") as fh:
            for i, q in enumerate(questions):
                r = CaseResult(
                    case_id=f"q{i:02d}",
                    status="passed",
                    text=replies[q],
                    messages=[Message(role="user", content=q)],
                )
                fh.write(r.model_dump_json() + "\n")
        out.append(run)
    return out[0], out[1]


def pairwise_row(spec: str, *, cache: bool = True) -> str:
    """One row of the pairwise table for the judge ``spec``."""
    import tempfile

    from agentgauge.judges import PairwiseComparison, PairwiseConfig, compare_runs_pairwise

    judge = Judge.from_config(JudgeConfig(spec=spec, cache=cache))
    config = PairwiseConfig(judge=JudgeConfig(spec=spec), concurrency=1)
    with tempfile.TemporaryDirectory() as tmp:
        base, new = pairwise_runs(Path(tmp))

        async def measure() -> PairwiseComparison:
            try:
                return await compare_runs_pairwise(judge, base, new, config)
            finally:
                await judge.aclose()

        p = anyio.run(measure)
    return (
        f"| `{spec}` | {p.judged} | {p.wins} | {p.losses} | {p.ties} | {p.position_biased} "
        f"| {_f(p.position_bias_rate)} | {p.errors} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--local", action="store_true", help="also measure local:smollm2")
    parser.add_argument("--judge", action="append", default=[], help="also measure this judge")
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    parser.add_argument("--pairwise", action="store_true", help="measure the pairwise judge")
    args = parser.parse_args()
    if args.pairwise:
        print(PAIRWISE_HEADER)
        specs = ["mock:judge"] + (["local:smollm2"] if args.local else []) + list(args.judge)
        for spec in specs:
            print(pairwise_row(spec, cache=spec != "mock:judge"))
        return
    rows = mock_figures()
    specs = (["local:smollm2"] if args.local else []) + list(args.judge)
    for spec in specs:
        rows += spec_figures(spec)
    rows += deterministic_figures()
    if args.json:
        print(json.dumps([asdict(r) for r in rows], indent=2))
        return
    print(HEADER)
    for r in rows:
        print(r.markdown())


if __name__ == "__main__":
    main()
