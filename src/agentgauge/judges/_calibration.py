"""Calibration: how well does a judge agree with human labels, per judge task?

Labels file (JSONL), one human-labelled example a line::

    {"task": "equivalence_answer", "inputs": {"question": "...", "reference": "...",
     "agent_output": "..."}, "label": "equivalent"}
    {"task": "relevance", "inputs": {"question": "...", "agent_output": "..."}, "label": 4}

``label`` is a verdict label for verdict tasks, an integer 1-5 for rubric tasks, and the 1-5
groundedness score (``1 + 4 * supported/total``, rounded) for ``groundedness``. An optional
``id`` names the example in reports.

A suite's own rubric (``scorer: rubric`` with ``args.name: tone``) is calibrated as task
``rubric:tone`` when the suite is given (``calibrate_file(..., suite=path)``, ``calibrate
--suite``): its inputs are ``question``, ``tool_results`` and ``agent_output``, its label an
integer on the rubric's scale (or ``pass`` / ``fail`` on a ``pass_fail`` rubric), and the judge
sees exactly the system message the suite's scorer sends.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..errors import JudgeError, UserError
from ._judge import Judge, JudgeConfig, JudgeResult
from ._progress import JudgeProgress, ProgressFactory
from ._tasks import JudgeTask, get_task
from ._templates import Template

#: a labels file's task name for a suite rubric: ``rubric:NAME``
RUBRIC_PREFIX = "rubric:"


@dataclass(frozen=True, kw_only=True)
class CalibrationTask:
    """A judge task as calibration asks it: a shipped task, or a suite rubric (its own task and
    template, its scale as the labels)."""

    #: as written in a labels file (``equivalence_answer``, ``rubric:tone``)
    name: str
    task: JudgeTask
    #: None: the judge's template for ``task`` (shipped, or an override)
    template: Template | None = None
    labels: tuple[str, ...]
    #: the labels are an ordered scale (weighted kappa applies)
    ordinal: bool


def shipped_task(name: str) -> CalibrationTask:
    """The calibration view of a shipped judge task (UserError for an unknown name)."""
    task = get_task(name)
    ordinal = task.kind != "verdict"
    labels = ("1", "2", "3", "4", "5") if ordinal else task.labels
    return CalibrationTask(name=name, task=task, labels=labels, ordinal=ordinal)


def suite_rubrics(suite_path: Path, judge: Judge) -> dict[str, CalibrationTask]:
    """``rubric:NAME`` -> the task of each ``scorer: rubric`` entry of the suite, built by the
    suite's own scorer class (so the judge sees what a run's scorer sends)."""
    from ..suites import load_suite
    from ._rubric import RUBRIC_TASK, SuiteRubricScorer

    suite = load_suite(suite_path)
    out: dict[str, CalibrationTask] = {}
    for i, ref in enumerate(suite.scorers):
        if ref.scorer != "rubric":
            continue
        try:
            scorer = SuiteRubricScorer(judge, **ref.args)
        except (TypeError, ValueError) as exc:
            raise UserError(f"{suite_path}: scorers[{i}] (rubric): {exc}") from None
        name = RUBRIC_PREFIX + str(ref.args.get("name"))
        task: JudgeTask = getattr(scorer, "task", RUBRIC_TASK)
        if task.kind == "verdict":
            labels, ordinal = task.labels, False
        else:
            lo, hi = scorer.scale
            labels, ordinal = tuple(str(x) for x in range(lo, hi + 1)), True
        out[name] = CalibrationTask(
            name=name, task=task, template=scorer.template, labels=labels, ordinal=ordinal
        )
    return out


def resolve_task(name: str, rubrics: Mapping[str, CalibrationTask] | None) -> CalibrationTask:
    """The task a labels line names; ``rubric:NAME`` must be one of ``rubrics``."""
    if not name.startswith(RUBRIC_PREFIX):
        return shipped_task(name)
    if rubrics is None:
        raise UserError(
            f"task '{name}' is a suite rubric: give the suite that defines it (--suite SUITE)"
        )
    if name not in rubrics:
        known = ", ".join(sorted(rubrics)) or "none"
        raise UserError(f"task '{name}': the suite has no such rubric (its rubrics: {known})")
    return rubrics[name]


class LabelledExample(BaseModel):
    """One line of a labels file."""

    model_config = ConfigDict(extra="forbid")

    task: str
    inputs: dict[str, str]
    label: str | int
    id: str | None = None
    #: the labeller's own note (``agentgauge review``): kept, never shown to the judge
    note: str | None = None


def read_labels(
    path: Path, rubrics: Mapping[str, CalibrationTask] | None = None
) -> list[LabelledExample]:
    """Parse a labels file; problems name the line. ``rubrics`` (:func:`suite_rubrics`) are the
    ``rubric:NAME`` tasks a line may name."""
    from ..files import parse_json, read_bytes, validated

    display = str(path)
    if not path.exists() and not path.is_symlink():
        raise UserError(f"{path}: cannot read labels (no such file)")
    raw = read_bytes(path, display)  # with the input limits (size, special files)
    out: list[LabelledExample] = []
    for n, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        data = parse_json(line, display, n)
        ex = validated(LabelledExample, data, display=display, locator=n)
        try:
            task = resolve_task(ex.task, rubrics)
        except UserError as exc:
            raise UserError(f"{path}:{n}: {exc}") from None
        label = str(ex.label).strip().lower()
        if not task.ordinal and label not in task.labels:
            raise UserError(f"{path}:{n}: label {ex.label!r} is not one of {list(task.labels)}")
        if task.ordinal and label not in task.labels:
            lo, hi = task.labels[0], task.labels[-1]
            raise UserError(f"{path}:{n}: label {ex.label!r} must be an integer {lo}-{hi}")
        out.append(ex.model_copy(update={"label": label}))
    if not out:
        raise UserError(f"{path}:1: no labelled examples")
    return out


def cohen_kappa(pairs: Sequence[tuple[str, str]], labels: Sequence[str]) -> float | None:
    """Cohen's kappa of (human, judge) pairs; None when undefined (one label everywhere)."""
    n = len(pairs)
    if n == 0:
        return None
    observed = sum(h == j for h, j in pairs) / n
    hc, jc = Counter(h for h, _ in pairs), Counter(j for _, j in pairs)
    expected = sum(hc[k] * jc[k] for k in labels) / (n * n)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1 - expected)


def weighted_kappa(pairs: Sequence[tuple[int, int]], k: int = 5, *, low: int = 1) -> float | None:
    """Quadratic-weighted Cohen's kappa for ordinal labels ``low``..``k``."""
    n = len(pairs)
    if n == 0 or k <= low:
        return None
    hc, jc = Counter(h for h, _ in pairs), Counter(j for _, j in pairs)
    obs = Counter(pairs)
    num = den = 0.0
    for a in range(low, k + 1):
        for b in range(low, k + 1):
            w = (a - b) ** 2 / (k - low) ** 2
            num += w * obs[(a, b)] / n
            den += w * hc[a] * jc[b] / (n * n)
    if den == 0:
        return None
    return 1 - num / den


@dataclass(frozen=True, kw_only=True)
class TaskAgreement:
    """Agreement of the judge with the human labels on one task."""

    task: str
    labels: tuple[str, ...]
    #: (human, judge) label per example the judge answered
    pairs: tuple[tuple[str, str], ...]
    errors: int
    error_examples: tuple[str, ...] = field(default=())
    #: ids (or line indexes) of the examples where the judge disagreed, with both labels
    disagreements: tuple[str, ...] = field(default=())
    #: the labels are an ordered scale (None: as the shipped task ``task`` says)
    ordinal: bool | None = None

    @property
    def is_ordinal(self) -> bool:
        if self.ordinal is not None:
            return self.ordinal
        return get_task(self.task).kind != "verdict"

    @property
    def n(self) -> int:
        return len(self.pairs)

    @property
    def agreement(self) -> float | None:
        return sum(h == j for h, j in self.pairs) / self.n if self.n else None

    @property
    def kappa(self) -> float | None:
        return cohen_kappa(self.pairs, self.labels)

    @property
    def weighted_kappa(self) -> float | None:
        """Quadratic-weighted kappa (scale tasks only: 1-5, or a suite rubric's scale)."""
        if not self.is_ordinal:
            return None
        scale = [int(x) for x in self.labels]
        pairs = [(int(h), int(j)) for h, j in self.pairs]
        return weighted_kappa(pairs, max(scale), low=min(scale))

    def confusion(self) -> list[list[int]]:
        """Rows: human label, columns: judge label, in the order of ``labels``."""
        counts = Counter(self.pairs)
        return [[counts[(h, j)] for j in self.labels] for h in self.labels]


@dataclass(frozen=True, kw_only=True)
class CalibrationReport:
    judge: str
    tasks: tuple[TaskAgreement, ...]

    def low_agreement(self, min_kappa: float) -> list[str]:
        """A warning for each task whose (weighted, for 1-5 tasks) kappa is below ``min_kappa``,
        or cannot be computed: the judge is not fit to stand in for these labels there."""
        out = []
        for t in self.tasks:
            kappa = t.weighted_kappa if t.weighted_kappa is not None else t.kappa
            if kappa is None:
                out.append(f"{t.task}: kappa cannot be computed from {t.n} example(s)")
            elif kappa < min_kappa:
                out.append(
                    f"{t.task}: kappa {kappa:.3f} is below {min_kappa:g}: do not trust this "
                    "judge's verdicts on this task without review"
                )
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "judge": self.judge,
            "tasks": [
                {
                    "task": t.task,
                    "n": t.n,
                    "errors": t.errors,
                    "agreement": t.agreement,
                    "kappa": t.kappa,
                    "weighted_kappa": t.weighted_kappa,
                    "labels": list(t.labels),
                    "confusion": t.confusion(),
                    "disagreements": list(t.disagreements),
                    "error_examples": list(t.error_examples),
                }
                for t in self.tasks
            ],
        }


def _judge_label(result: JudgeResult) -> str:
    if result.verdict is not None:
        return result.verdict
    if result.score is not None:
        return str(result.score)
    fraction = result.supported_fraction if result.supported_fraction is not None else 1.0
    return str(round(1 + 4 * fraction))


async def calibrate(
    judge: Judge,
    examples: Iterable[LabelledExample],
    *,
    tasks: Sequence[str] = (),
    rubrics: Mapping[str, CalibrationTask] | None = None,
    progress: ProgressFactory | None = None,
) -> CalibrationReport:
    """Run the judge on every example (of ``tasks``, if given) and measure agreement.
    ``rubrics`` (:func:`suite_rubrics`) answer the ``rubric:NAME`` examples; ``progress`` is
    told how many examples will be judged and each one judged."""
    chosen = [(i, ex) for i, ex in enumerate(examples) if not tasks or ex.task in tasks]
    shown = progress(len(chosen)) if progress is not None else None
    try:
        return await _calibrate(judge, chosen, tasks, rubrics, shown)
    finally:
        if shown is not None:
            shown.close()


async def _calibrate(
    judge: Judge,
    chosen: Sequence[tuple[int, LabelledExample]],
    tasks: Sequence[str],
    rubrics: Mapping[str, CalibrationTask] | None,
    progress: JudgeProgress | None,
) -> CalibrationReport:
    by_task: dict[str, list[tuple[str, str]]] = {}
    errors: dict[str, list[str]] = {}
    differ: dict[str, list[str]] = {}
    for i, ex in chosen:
        by_task.setdefault(ex.task, [])
        errors.setdefault(ex.task, [])
        differ.setdefault(ex.task, [])
        known = resolve_task(ex.task, rubrics)
        try:
            if known.template is None:
                result = await judge.evaluate(ex.task, ex.inputs)
            else:
                result = await judge.evaluate(
                    known.task.name, ex.inputs, task=known.task, template=known.template
                )
        except JudgeError as exc:
            errors[ex.task].append(f"{ex.id or i}: {exc}")
            if progress is not None:
                progress.advance("error")
            continue
        if progress is not None:
            progress.advance("ok")
        pair = (str(ex.label), _judge_label(result))
        by_task[ex.task].append(pair)
        if pair[0] != pair[1]:
            differ[ex.task].append(f"{ex.id or i}: human {pair[0]}, judge {pair[1]}")
    out = []
    for name in sorted(by_task):
        known = resolve_task(name, rubrics)
        out.append(
            TaskAgreement(
                task=name,
                labels=known.labels,
                ordinal=known.ordinal,
                pairs=tuple(by_task[name]),
                errors=len(errors[name]),
                error_examples=tuple(errors[name]),
                disagreements=tuple(differ[name]),
            )
        )
    if tasks and not out:
        raise UserError(f"no labelled examples for task(s) {', '.join(tasks)}")
    return CalibrationReport(judge=judge.name, tasks=tuple(out))


def calibrate_file(
    labels_path: Path,
    config: JudgeConfig,
    *,
    tasks: Sequence[str] = (),
    suite: Path | None = None,
    progress: ProgressFactory | None = None,
) -> CalibrationReport:
    """Build the judge of ``config``, run it on the labelled examples in ``labels_path`` (JSONL)
    and measure agreement (what ``agentgauge calibrate`` calls). ``suite``: the suite whose
    rubrics the ``rubric:NAME`` lines name; ``progress``: as :func:`calibrate`."""
    import anyio

    judge = Judge.from_config(config)
    rubrics = suite_rubrics(suite, judge) if suite is not None else None
    examples = read_labels(labels_path, rubrics)

    async def measure() -> CalibrationReport:
        try:
            return await calibrate(judge, examples, tasks=tasks, rubrics=rubrics, progress=progress)
        finally:
            await judge.aclose()

    return anyio.run(measure)


__all__ = [
    "RUBRIC_PREFIX",
    "CalibrationReport",
    "CalibrationTask",
    "LabelledExample",
    "TaskAgreement",
    "calibrate",
    "calibrate_file",
    "cohen_kappa",
    "read_labels",
    "resolve_task",
    "shipped_task",
    "suite_rubrics",
    "weighted_kappa",
]
