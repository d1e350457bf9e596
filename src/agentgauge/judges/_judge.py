"""The judge: render a task's template, ask a provider, parse and validate a structured verdict.

Determinism: every call uses the configured temperature (0 by default) and seed; sample ``i`` of
a majority vote uses ``seed + i``. Replies are cached on disk keyed by provider name, the full
prompt and the parameters, so a re-run asks the provider nothing.

A reply that is not valid JSON of the task's shape is retried once, with a message that says
what was wrong; a second bad reply (or a provider failure) raises :class:`JudgeError`, which the
scorers record as a judge error, never as a pass or a fail.
"""

from __future__ import annotations

import os
import random
import re
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import orjson
from pydantic import ValidationError

from ..errors import JudgeError, ProviderError
from ..providers import GenerateConfig, ModelRequest, ModelResponse, Provider

if TYPE_CHECKING:
    from ..providers import ResponseCache
from ..schema import Message, Score
from ._cache import request_key
from ._tasks import (
    Claim,
    ClaimsOutput,
    JudgeTask,
    ScoreOutput,
    TaskKind,
    VerdictOutput,
    get_task,
)
from ._templates import Template, load_template, render


@dataclass(frozen=True, kw_only=True)
class JudgeConfig:
    """How to judge. ``spec`` is any provider spec (``openai:gpt-4o-mini``, ``mock:judge``...)."""

    spec: str | None = None
    #: judge samples per question; more than 1 takes a majority vote (see :class:`Judge`)
    samples: int = 1
    #: with ``samples > 1``: the least share of the samples that must give the chosen answer;
    #: below it the result is ``uncertain`` (default 2/3: 2 of 3, 4 of 5 or 2 of 2 agree)
    agreement: float = 2 / 3
    temperature: float = 0.0
    seed: int = 0
    max_tokens: int | None = 1024
    #: cache judge replies on disk (``cache_dir`` None: ``$AGENTGAUGE_CACHE_DIR`` or ~/.cache)
    cache: bool = True
    cache_dir: Path | None = None
    #: a directory of ``<task>.md`` files that replace the shipped templates
    #: (None: ``$AGENTGAUGE_JUDGE_TEMPLATES`` if set)
    templates_dir: Path | None = None
    #: retries of a transient provider error (429, 5xx, timeouts), with backoff
    retries: int = 2
    #: ask for schema-constrained output (``GenerateConfig.response_schema``: the task's verdict
    #: schema); off only for a provider that rejects it
    constrained: bool = True
    #: adapter options for the provider factory (e.g. ``base_url``)
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.samples < 1:
            raise ValueError("JudgeConfig.samples must be at least 1")
        if not 0 < self.agreement <= 1:
            raise ValueError("JudgeConfig.agreement must be in (0, 1]")


@dataclass(frozen=True, kw_only=True)
class JudgeResult:
    """The judge's verdict on one question, after any majority vote."""

    task: str
    kind: TaskKind
    #: ``task@vN`` of the template used
    template: str
    verdict: str | None = None
    score: int | None = None
    claims: tuple[Claim, ...] = ()
    reasoning: str = ""
    #: every valid sample's answer (verdict label, score, or supported/total), in order
    votes: tuple[str, ...] = ()
    #: samples that failed (after their retry), with the reason
    sample_errors: tuple[str, ...] = ()
    #: provider calls made and replies taken from the cache
    provider_calls: int = 0
    cache_hits: int = 0
    passing: frozenset[str] = frozenset()
    #: samples asked for, and the share of them (failed ones included) that gave the chosen
    #: answer: the same label, score, or supported fraction
    samples: int = 1
    agreement: float = 1.0
    #: the least agreement for a sure result (``JudgeConfig.agreement``)
    threshold: float = 2 / 3

    @property
    def uncertain(self) -> bool:
        """More than one sample, and fewer of them agreed than the threshold asks."""
        return self.samples > 1 and self.agreement < self.threshold - 1e-9

    @property
    def passed(self) -> bool | None:
        """For verdict tasks: whether the verdict is a passing label (None for other kinds)."""
        if self.verdict is None or not self.passing:
            return None
        return self.verdict in self.passing

    @property
    def chosen_vote(self) -> str:
        """The chosen answer written as :attr:`votes` writes each sample's."""
        if self.kind == "verdict":
            return self.verdict or ""
        if self.kind == "score":
            return str(self.score)
        return f"{sum(c.supported for c in self.claims)}/{len(self.claims)}"

    @property
    def supported_fraction(self) -> float | None:
        """For claims tasks: supported claims / all claims (1.0 when there is no claim)."""
        if self.kind != "claims":
            return None
        return sum(c.supported for c in self.claims) / len(self.claims) if self.claims else 1.0


#: the judge results of the scorer call under way (see :func:`collect_results`)
_SEEN: ContextVar[list[JudgeResult] | None] = ContextVar("agentgauge_judge_results", default=None)


@contextmanager
def collect_results() -> Iterator[list[JudgeResult]]:
    """Collect every :class:`JudgeResult` evaluated inside the block (in this task and the
    tasks it starts): how a scorer learns the agreement behind the scores it builds."""
    seen: list[JudgeResult] = []
    token = _SEEN.set(seen)
    try:
        yield seen
    finally:
        _SEEN.reset(token)


def mark_agreement(scores: list[Score], results: Sequence[JudgeResult]) -> list[Score]:
    """Record the samples' agreement on the scores they decided: the lowest agreement of the
    sampled judge results, and ``uncertain`` when any of them was (skipped scores untouched)."""
    sampled = [r for r in results if r.samples > 1]
    if not sampled:
        return scores
    agreement = min(r.agreement for r in sampled)
    uncertain = any(r.uncertain for r in sampled)
    return [
        s
        if s.passed is None
        else s.model_copy(update={"agreement": agreement, "uncertain": uncertain})
        for s in scores
    ]


def resolve_judge(spec: str, **options: Any) -> Provider:
    """A provider for ``spec``. ``mock:judge`` is the deterministic rule-based judge."""
    if spec in ("mock:judge", "mock:rules"):
        from ._rulejudge import RuleJudge

        return RuleJudge()
    from ..providers import resolve_provider

    return resolve_provider(spec, **options)


#: how much of a twice-malformed reply the judge error keeps (the raw reply, for diagnosis)
RAW_REPLY_CHARS = 1000

_FENCE_RE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def extract_json(text: str) -> Any:
    """The JSON object in a reply: the whole text, a ```json fence, or the outermost braces."""
    candidates = [text.strip()]
    candidates += [m.group(1).strip() for m in _FENCE_RE.finditer(text)]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for c in candidates:
        try:
            value = orjson.loads(c)
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    raise ValueError("the reply holds no JSON object")


_Parsed = VerdictOutput | ScoreOutput | ClaimsOutput


def parse_reply(task: JudgeTask, text: str) -> _Parsed:
    """Validate a judge reply against the task's schema; ValueError says what is wrong."""
    data = extract_json(text)
    try:
        parsed = task.output_model().model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "<root>"
        raise ValueError(f"{where}: {first['msg']}") from None
    if isinstance(parsed, VerdictOutput):
        label = parsed.verdict.strip().lower()
        if label not in task.labels:
            raise ValueError(f"verdict {parsed.verdict!r} is not one of {list(task.labels)}")
        parsed = VerdictOutput(reasoning=parsed.reasoning, verdict=label)
    if isinstance(parsed, ScoreOutput) and not task.scale[0] <= parsed.score <= task.scale[1]:
        raise ValueError(f"score {parsed.score} is off the scale {task.scale[0]}..{task.scale[1]}")
    assert isinstance(parsed, VerdictOutput | ScoreOutput | ClaimsOutput)
    return parsed


class Judge:
    """Asks a provider one judge task at a time.

    Majority vote (``samples > 1``): verdicts take the most frequent label, a tie goes to the
    task's most conservative label (the failing one, listed first); scores take the lower
    median; claim lists take the sample whose supported fraction is the lower median.
    """

    def __init__(self, provider: Provider, config: JudgeConfig = JudgeConfig()) -> None:
        self.provider = provider
        self.config = config
        self._templates: dict[str, Template] = {}
        # the runner's response cache (one SQLite file for agent and judge replies); judge keys
        # are prefixed "judge:" so they never meet an agent request's key
        self._cache: ResponseCache | None = None
        if config.cache:
            from ..providers import ResponseCache, default_cache_dir

            self._cache = ResponseCache(config.cache_dir or default_cache_dir())
        #: totals over this judge's life
        self.provider_calls = 0
        self.cache_hits = 0
        self._rng = random.Random(config.seed)
        self._sleep: Callable[[float], Awaitable[None]] = anyio.sleep
        self._closed = False

    async def aclose(self) -> None:
        """Write pending cache entries and release the provider's connections (safe to call more
        than once; a later :meth:`evaluate` works again with adapters that reopen lazily)."""
        if self._cache is not None:
            self._cache.flush()
        if self._closed:
            return
        self._closed = True
        from ..providers import close_provider

        await close_provider(self.provider)

    @classmethod
    def from_config(cls, config: JudgeConfig) -> Judge:
        if not config.spec:
            from ..errors import UserError

            raise UserError("no judge given: pass --judge SPEC or set defaults.judge in the suite")
        return cls(resolve_judge(config.spec, **dict(config.options)), config)

    @property
    def name(self) -> str:
        return self.provider.name

    def template(self, task: str) -> Template:
        """The template of ``task``: ``templates_dir`` (else ``$AGENTGAUGE_JUDGE_TEMPLATES``)
        overrides the shipped one."""
        if task not in self._templates:
            folder = self.config.templates_dir
            if folder is None and os.environ.get("AGENTGAUGE_JUDGE_TEMPLATES"):
                folder = Path(os.environ["AGENTGAUGE_JUDGE_TEMPLATES"])
            self._templates[task] = load_template(task, folder)
        return self._templates[task]

    async def evaluate(
        self,
        task_name: str,
        inputs: Mapping[str, str],
        *,
        task: JudgeTask | None = None,
        template: Template | None = None,
    ) -> JudgeResult:
        """Judge ``inputs`` (one string per task input; missing ones are rendered as '(none)').

        ``task`` and ``template``: the caller's own instead of the shipped ones of
        ``task_name`` (a rubric written in a suite brings both)."""
        task = task or get_task(task_name)
        template = template or self.template(task_name)
        ordered = {k: (inputs.get(k) or "(none)") for k in task.inputs}
        prompt = render(template, ordered)
        parsed: list[_Parsed] = []
        errors: list[str] = []
        counter = Counter[str]()
        for i in range(self.config.samples):
            try:
                parsed.append(await self._sample(task, prompt.system, prompt.user, i, counter))
            except JudgeError as exc:
                errors.append(str(exc))
        self.provider_calls += counter["calls"]
        self.cache_hits += counter["hits"]
        if not parsed:
            raise JudgeError(f"{template.label}: {errors[0]}")
        result = _aggregate(task, template, parsed, errors, counter["calls"], counter["hits"])
        agreeing = sum(v == result.chosen_vote for v in result.votes)
        result = replace(
            result,
            samples=self.config.samples,
            agreement=agreeing / self.config.samples,
            threshold=self.config.agreement,
        )
        seen = _SEEN.get()
        if seen is not None:
            seen.append(result)
        return result

    async def _sample(
        self, task: JudgeTask, system: str, user: str, index: int, counter: Counter[str]
    ) -> _Parsed:
        messages = [Message(role="system", content=system), Message(role="user", content=user)]
        schema = task.response_schema() if self.config.constrained else None
        text = await self._ask(messages, index, counter, schema)
        try:
            return parse_reply(task, text)
        except ValueError as first:
            problem = str(first)
        messages += [
            Message(role="assistant", content=text),
            Message(
                role="user",
                content=f"Your reply could not be used ({problem}). Reply again with only one "
                f"JSON object of this shape and nothing else: {task.schema_hint()}",
            ),
        ]
        text = await self._ask(messages, index, counter, schema)
        try:
            return parse_reply(task, text)
        except ValueError as second:
            snippet = text.strip().replace("\n", " ")[:RAW_REPLY_CHARS]
            raise JudgeError(
                f"malformed verdict twice ({problem}; then {second}); last reply: {snippet!r}"
            ) from None

    async def _ask(
        self,
        messages: list[Message],
        index: int,
        counter: Counter[str],
        schema: dict[str, Any] | None = None,
    ) -> str:
        request = ModelRequest(
            messages=messages,
            config=GenerateConfig(
                temperature=self.config.temperature,
                seed=self.config.seed + index,
                max_tokens=self.config.max_tokens,
                response_schema=schema,
            ),
        )
        key = request_key(self.provider.name, request)
        if self._cache is not None:
            hit = self._cache.get(key)
            if hit is not None:
                counter["hits"] += 1
                return _reply_text(hit)
        from ..providers import RetryPolicy, with_retries

        policy = RetryPolicy(retries=self.config.retries)
        try:
            response, _ = await with_retries(
                lambda: self.provider.generate(request), policy, rng=self._rng, sleep=self._sleep
            )
        except (ProviderError, TimeoutError, ConnectionError) as exc:
            raise JudgeError(f"judge provider {self.provider.name} failed: {exc}") from None
        counter["calls"] += 1
        self._closed = False
        text = _reply_text(response)
        # a malformed reply is cached too, so a re-run replays the same retry exactly
        if self._cache is not None:
            self._cache.put(key, response)
        return text


def _reply_text(response: ModelResponse) -> str:
    """The reply's text; a reply given as a tool call instead (a provider that answers a
    ``response_schema`` with a forced tool) is read as that call's arguments."""
    text = response.message.content or ""
    if not text.strip() and response.message.tool_calls:
        return orjson.dumps(response.message.tool_calls[0].arguments).decode()
    return text


def _lower_median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[(len(ordered) - 1) // 2]


def _aggregate(
    task: JudgeTask,
    template: Template,
    parsed: list[_Parsed],
    errors: list[str],
    calls: int,
    hits: int,
) -> JudgeResult:
    common: dict[str, Any] = {
        "task": task.name,
        "kind": task.kind,
        "template": template.label,
        "sample_errors": tuple(errors),
        "provider_calls": calls,
        "cache_hits": hits,
        "passing": task.passing,
    }
    if task.kind == "verdict":
        verdicts = [p for p in parsed if isinstance(p, VerdictOutput)]
        counts = Counter(v.verdict for v in verdicts)
        top = max(counts.values())
        winner = next(label for label in task.labels if counts.get(label) == top)
        chosen = next(v for v in verdicts if v.verdict == winner)
        return JudgeResult(
            verdict=winner,
            reasoning=chosen.reasoning,
            votes=tuple(v.verdict for v in verdicts),
            **common,
        )
    if task.kind == "score":
        scores = [p for p in parsed if isinstance(p, ScoreOutput)]
        median = int(_lower_median([s.score for s in scores]))
        chosen_s = next(s for s in scores if s.score == median)
        return JudgeResult(
            score=median,
            reasoning=chosen_s.reasoning,
            votes=tuple(str(s.score) for s in scores),
            **common,
        )
    claim_sets = [p for p in parsed if isinstance(p, ClaimsOutput)]

    def fraction(c: ClaimsOutput) -> float:
        return sum(x.supported for x in c.claims) / len(c.claims) if c.claims else 1.0

    target = _lower_median([fraction(c) for c in claim_sets])
    chosen_c = next(c for c in claim_sets if fraction(c) == target)
    return JudgeResult(
        claims=tuple(chosen_c.claims),
        reasoning=chosen_c.reasoning,
        votes=tuple(f"{sum(x.supported for x in c.claims)}/{len(c.claims)}" for c in claim_sets),
        **common,
    )


__all__ = [
    "Judge",
    "JudgeConfig",
    "JudgeResult",
    "collect_results",
    "extract_json",
    "mark_agreement",
    "parse_reply",
    "resolve_judge",
]
