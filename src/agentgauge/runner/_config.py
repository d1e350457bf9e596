"""Run options and the outcome of a run."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..providers import GenerateConfig
from ..scoring import ScoringConfig

if TYPE_CHECKING:
    from .._suite_code import SuiteCodePolicy
    from ..rundir import Shard
    from ..schema import Case, CaseResult, Message, RunRecord, Score, ToolMode

#: used when neither ``--agent`` nor the suite's ``defaults.agent`` names an agent
DEFAULT_AGENT = "local:smollm2"


@runtime_checkable
class ExtraScorer(Protocol):
    """A scorer run after the deterministic ones (LLM judges plug in here).

    ``score`` receives the case, its result so far (deterministic scores filled in) and the
    per-turn messages; the scores it returns are appended to the result. If it raises, the case
    is recorded with status ``error`` and the reason.
    """

    async def score(
        self, case: Case, result: CaseResult, turns: Sequence[Sequence[Message]]
    ) -> list[Score]: ...


@dataclass(frozen=True, kw_only=True)
class RunConfig:
    """How to run a suite. ``None`` means: take the suite's default (then the built-in one)."""

    #: agent spec such as ``openai:gpt-4o-mini``; None: the suite's ``defaults.agent`` or
    #: ``local:smollm2``. Ignored when a provider object is passed to ``run_suite``.
    agent: str | None = None
    #: adapter options passed to the provider factory (e.g. ``base_url``); never written to disk
    #: except ``base_url``
    agent_options: Mapping[str, Any] = field(default_factory=dict)
    #: independent trials per case (None: ``defaults.trials``)
    trials: int | None = None
    #: cases running at once (global)
    max_concurrency: int = 16
    #: seconds between the starts of the workers (a short ramp-up; 0 starts them all at once)
    stagger_s: float = 0.001
    #: model calls in flight at once to the provider (None: same as ``max_concurrency``)
    provider_concurrency: int | None = None
    #: model call starts per second to the provider, evenly spaced (``--rate-limit 500/min``:
    #: one start every 0.12 s at the most, retries included); None: no limit. On Ray it holds
    #: across the cluster. Like ``provider_concurrency``, recorded in run.json but outside the
    #: configuration hash; a resume keeps both unless given again
    rate_limit_per_s: float | None = None
    #: wall-clock limit per case and trial, seconds (None: ``defaults.timeout_s``, 60)
    timeout_s: float | None = None
    #: retries of a transient provider error (429, 5xx, connection errors, timeouts)
    retries: int = 2
    #: exponential backoff with full jitter: wait uniform(0, min(max, base * 2**attempt))
    backoff_base_s: float = 0.5
    backoff_max_s: float = 30.0
    #: model calls per user turn (None: the case's ``max_steps``, else ``defaults.max_steps``, 8)
    max_steps: int | None = None
    #: how long a simulated tool may take before it counts as timed out, seconds
    tool_timeout_s: float = 10.0
    #: the response cache (SQLite); ``cache_dir`` None: :func:`default_cache_dir`
    cache: bool = True
    cache_dir: Path | None = None
    #: with the cache on, copy the whole result of a case nothing has changed for (suite, case,
    #: agent, options, agentgauge code) from the cache; False re-drives such a case from its
    #: cached responses (tools simulated and the transcript scored again)
    replay: bool = True
    #: seeds fault injection and is passed to the model (as ``generation.seed``, unless that
    #: is None)
    seed: int = 0
    #: continue an interrupted run in ``run_dir``: finished (case, trial) pairs are kept
    resume: bool = False
    #: where the case trials run: ``local`` (this process), ``ray`` (a local Ray instance),
    #: ``ray:auto``, ``ray:HOST:PORT`` or ``ray://HOST:PORT`` (a Ray cluster; needs
    #: ``agentgauge[ray]``; docs/large-suites.md). Recorded in run.json; a resume keeps it
    #: unless given again
    executor: str = "local"
    #: with ``executor="local"``: how many processes of this machine drive the cases (1: this
    #: process alone; N: N child processes, this one still the only writer of the run
    #: directory; None: the machine's cores when that pays, else 1 — docs/running.md, "Every
    #: core"). Results do not depend on it; not recorded in run.json
    workers: int | None = None
    #: run only this shard of the (case, trial) pairs (``--shard i/N``; recorded in run.json, so
    #: a resume keeps it); ``agentgauge merge`` combines the N shard runs into one
    shard: Shard | None = None
    scoring: ScoringConfig = field(default_factory=ScoringConfig)
    #: generation parameters (temperature 0 by default)
    generation: GenerateConfig = field(default_factory=GenerateConfig)
    #: the system prompt of the run: replaces the suite's ``defaults.system`` (``""``: none); a
    #: case's own ``system:`` still wins. None: the suite's. Recorded in run.json
    #: (``options.system``, only when set), so a resume keeps it (a matrix entry's ``system:``)
    system: str | None = None
    #: stream responses (measures time to first token) when the provider can
    stream: bool = False
    #: a progress bar on a terminal, periodic lines otherwise; None: bar only on a terminal
    progress: bool | None = None
    #: run only cases whose id, category or a tag matches one of these globs
    case_filter: tuple[str, ...] = ()
    #: run at most this many cases (after filtering)
    limit: int | None = None
    #: scorers run after deterministic scoring (judges)
    extra_scorers: Sequence[ExtraScorer] = ()
    #: the judge spec the extra scorers use, recorded in run.json (set by ``run --judge``)
    judge: str | None = None
    #: judgements per judged question for every judge scorer of the suite (``--judge-samples``:
    #: overrides ``defaults.judge_samples`` and each scorer's own ``judge_samples``); None: the
    #: suite's. Recorded in run.json (``options.judge_samples``), so a resume keeps it
    judge_samples: int | None = None
    #: fsync results.jsonl after every line (slower; survives power loss, not just kill -9)
    fsync: bool = False
    #: extra information recorded in run.json (the CLI stores the suite path here); its folder
    #: is where the suite's own code must live (None: the current folder)
    suite_path: str | None = None
    #: let the suite run its own Python code (``function:`` fakes, a ``python:`` agent or judge
    #: it names), which must be a file inside the suite's folder; None: ask
    #: ``$AGENTGAUGE_ALLOW_SUITE_CODE``, then the user's config file (docs/suite-format.md,
    #: "Code a suite can run"). Never read from the suite.
    allow_suite_code: bool | None = None
    #: let endpoints a suite or run directory names receive the user's credentials (an
    #: ``openai:...?base_url=`` of the suite, a matrix entry's ``options.base_url``, run.json's
    #: ``options.base_url`` on resume); None: ``$AGENTGAUGE_ALLOW_SUITE_ENDPOINTS``, then the
    #: user's config file (``allow_suite_endpoints``). Never read from the suite
    allow_suite_endpoints: bool | None = None
    #: the fields of this config a file named, not the caller: ``agent``, ``judge`` and provider
    #: option names (``base_url``) -> where (``runs/x/run.json:9: options.base_url``, or
    #: ``the suite`` for a matrix entry of the suite); they pass the suite policy like the
    #: suite's own (code, endpoints). Set by :meth:`from_record` and the matrix; empty: every
    #: field is the caller's word
    named_by: Mapping[str, str] = field(default_factory=dict)
    #: how tool calls are answered, for every case: ``mock`` (simulations) or ``real`` (the
    #: suite's MCP server, a framework agent's own tools); None: each case's ``tool_mode``,
    #: else ``defaults.tool_mode`` (docs/bring-your-agent.md)
    tool_mode: ToolMode | None = None
    #: ``--user-model``: the provider spec every simulated user of the suite is played with
    #: (over each ``user.model``; a user without ``kind: scripted`` becomes model-driven);
    #: the caller's word, not checked by the suite policy. Recorded in run.json
    user_model: str | None = None
    #: add the suite's ``scorers:`` section (and, with none, the equivalence fallback of
    #: ``judge`` / ``defaults.judge``) to ``extra_scorers``, as ``agentgauge run`` does; False:
    #: only ``extra_scorers`` (e.g. when they already hold the suite's scorers)
    suite_scorers: bool = True
    #: how many of ``extra_scorers`` (the last ones) ``suite_scorers`` added: a remote worker
    #: (``--executor ray``) builds those itself instead of receiving them (judges hold open
    #: caches and sessions, which do not cross processes)
    suite_scorer_count: int = 0

    @classmethod
    def from_record(
        cls,
        record: RunRecord,
        run_dir: Path,
        *,
        agent: str | None = None,
        judge: str | None = None,
        max_concurrency: int | None = None,
        progress: bool | None = None,
        replay: bool | None = None,
        allow_suite_code: bool | None = None,
        executor: str | None = None,
        provider_concurrency: int | None = None,
        rate_limit_per_s: float | None = None,
        allow_suite_endpoints: bool | None = None,
        base_url: str | None = None,
    ) -> RunConfig:
        """The options of the run recorded in ``run_dir/run.json``, to resume it.

        ``max_concurrency``, ``progress``, ``replay``, ``executor``, ``provider_concurrency`` and
        ``rate_limit_per_s`` may be changed on resume (None: the recorded value). run.json is a
        file, not the caller's word: a code agent it names (``python:``, ``langgraph:`` ...)
        runs only when ``agent`` names it again (else a UserError), an agent that came from the
        suite's ``defaults.agent`` is taken from the suite again, and the agent, the judge and
        the ``base_url`` it names are recorded in :attr:`named_by`, so the run checks them like
        a suite's (code, endpoints) unless ``agent`` / ``judge`` / ``base_url`` give the same
        ones (``base_url``: the user's ``--base-url``, which must be the recorded one).
        """
        return _config_from_record(
            cls,
            record,
            run_dir,
            agent=agent,
            judge=judge,
            max_concurrency=max_concurrency,
            progress=progress,
            replay=replay,
            allow_suite_code=allow_suite_code,
            executor=executor,
            provider_concurrency=provider_concurrency,
            rate_limit_per_s=rate_limit_per_s,
            allow_suite_endpoints=allow_suite_endpoints,
            base_url=base_url,
        )

    def code_policy(self) -> SuiteCodePolicy:
        """What code of the suite this run may run (:attr:`allow_suite_code`, ``suite_path``)."""
        from .._suite_code import SuiteCodePolicy

        return SuiteCodePolicy.for_suite(
            self.suite_path, self.allow_suite_code, self.allow_suite_endpoints
        )

    def options_named_by(self) -> dict[str, str]:
        """Which of :attr:`agent_options` a file named (option -> where)."""
        return {k: v for k, v in self.named_by.items() if k in self.agent_options}


def _config_from_record(
    cls: type[RunConfig],
    record: RunRecord,
    run_dir: Path,
    *,
    agent: str | None,
    judge: str | None,
    max_concurrency: int | None,
    progress: bool | None,
    replay: bool | None,
    allow_suite_code: bool | None,
    executor: str | None = None,
    provider_concurrency: int | None = None,
    rate_limit_per_s: float | None = None,
    allow_suite_endpoints: bool | None = None,
    base_url: str | None = None,
) -> RunConfig:
    opts = record.options
    mode = opts.get("mode") or record.scoring_mode
    # run.json holds the agent and the endpoint without their secrets (``_secrets``): the
    # recorded ones given again with their key or password are the recorded ones, and are used
    same_agent, same_url = _given_again(record, agent, base_url)
    named = _named_by_record(
        record,
        run_dir,
        agent=record.agent if same_agent else agent,
        judge=judge,
        base_url=str(opts.get("base_url")) if same_url else base_url,
    )
    recorded_agent: str | None = None if opts.get("agent_source") == "suite" else record.agent
    if same_agent and recorded_agent is not None:
        recorded_agent = agent
    tool_mode = opts.get("tool_mode_override")
    kw = options_config(opts)
    if same_url:
        kw["agent_options"] = {"base_url": base_url}
    if opts.get("mode") is None:  # run.json of an older version: the record's own field
        kw["scoring"] = ScoringConfig(mode="bfcl" if mode == "bfcl" else "default")
    return cls(
        **{
            **kw,
            "trials": kw["trials"] or record.trials,
            "max_concurrency": max_concurrency or kw["max_concurrency"],
            "replay": kw["replay"] if replay is None else replay,
            "executor": executor or kw["executor"],
            "provider_concurrency": provider_concurrency or kw["provider_concurrency"],
            "rate_limit_per_s": rate_limit_per_s or kw["rate_limit_per_s"],
        },
        agent=recorded_agent,
        resume=True,
        shard=_recorded_shard(record.shard),
        progress=progress,
        suite_path=record.suite_path,
        tool_mode="real" if tool_mode == "real" else "mock" if tool_mode == "mock" else None,
        judge=judge or record.judge,
        allow_suite_code=allow_suite_code,
        allow_suite_endpoints=allow_suite_endpoints,
        named_by=named,
    )


def _given_again(record: RunRecord, agent: str | None, base_url: str | None) -> tuple[bool, bool]:
    """Whether ``agent`` / ``base_url`` are the recorded ones with their secrets put back."""
    from .._secrets import public_url

    recorded_url = record.options.get("base_url")
    return (
        agent is not None and agent != record.agent and public_spec(agent) == record.agent,
        base_url is not None and base_url != recorded_url and public_url(base_url) == recorded_url,
    )


def _named_by_record(
    record: RunRecord,
    run_dir: Path,
    *,
    agent: str | None,
    judge: str | None,
    base_url: str | None,
) -> dict[str, str]:
    """What run.json names that the caller did not name again (field -> where in run.json);
    a code agent it names that the caller did not name again is a UserError."""
    from .._suite_code import code_prefix, field_where
    from ..errors import UserError
    from ..rundir import RUN_FILE

    file = run_dir / RUN_FILE
    named: dict[str, str] = {}
    if record.options.get("agent_source") != "suite" and agent != record.agent:
        if code_prefix(record.agent):
            raise UserError(
                f"{field_where(file, 'agent')}: --resume names the agent '{record.agent}', "
                "Python code; it runs only when you name it yourself: add --agent "
                f"{shlex.quote(record.agent)}"
            )
        named["agent"] = field_where(file, "agent")
    if judge is None and record.judge:
        named["judge"] = field_where(file, "judge")
    recorded_url = record.options.get("base_url")
    if recorded_url and base_url != recorded_url:
        named["base_url"] = field_where(file, "options.base_url")
    if record.options.get("user_model"):  # --user-model on resume: the run keeps its own
        named["user_model"] = field_where(file, "options.user_model")
    return named


def options_config(opts: Mapping[str, object]) -> dict[str, Any]:
    """:class:`RunConfig` keyword arguments of recorded options (run.json's ``options``, a
    matrix's shared options; see ``runner._plan.recorded_options``): what a resume restores."""
    default = RunConfig()
    base_url = opts.get("base_url")
    return {
        "agent_options": {"base_url": base_url} if base_url else {},
        "trials": _int(opts.get("trials")),
        "max_concurrency": _int(opts.get("max_concurrency")) or default.max_concurrency,
        "timeout_s": _float(opts.get("timeout_s")),
        "retries": _int_or(opts.get("retries"), default.retries),
        "max_steps": _int(opts.get("max_steps")),
        "cache": bool(opts.get("cache", default.cache)),
        "replay": bool(opts.get("replay", default.replay)),
        "seed": _int(opts.get("seed")) or 0,
        "stream": bool(opts.get("stream", default.stream)),
        "case_filter": tuple(str(g) for g in _list(opts.get("case_filter"))),
        "limit": _int(opts.get("limit")),
        "scoring": ScoringConfig(mode="bfcl" if opts.get("mode") == "bfcl" else "default"),
        "judge_samples": _int(opts.get("judge_samples")),
        "system": _str(opts.get("system")),
        "user_model": _str(opts.get("user_model")),
        "executor": str(opts.get("executor") or "local"),
        "provider_concurrency": _int(opts.get("provider_concurrency")),
        "rate_limit_per_s": _float(opts.get("rate_limit_per_s")),
    }


def _int(value: object) -> int | None:
    """A recorded integer option (run.json is JSON: a number, or null when it was not set)."""
    if value is None or isinstance(value, bool):
        return None
    return int(value) if isinstance(value, int | float | str) else None


def _int_or(value: object, default: int) -> int:
    n = _int(value)
    return default if n is None else n


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _float(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _list(value: object) -> list[object]:
    return list(value) if isinstance(value, list | tuple) else []


@dataclass(frozen=True, kw_only=True)
class RunOutcome:
    """What a run did. The per-case results are in ``run_dir / "results.jsonl"``."""

    run_dir: Path
    record: RunRecord
    #: (case, trial) pairs run now (not counting pairs kept from an interrupted run)
    ran: int
    #: pairs already finished before a resume
    resumed: int
    passed: int
    failed: int
    errors: int
    #: calls that reached the provider / were answered from the cache
    provider_calls: int
    cache_hits: int
    wall_s: float
    #: results copied whole from the cache (their model calls count as cache hits)
    replayed: int = 0
    #: results whose simulated user broke its instructions (docs/users.md), run now
    user_errors: int = 0

    @property
    def total(self) -> int:
        return self.ran + self.resumed


_SECRET_PARAMS = frozenset(
    {"api_key", "apikey", "key", "token", "access_token", "secret", "password"}
)


def public_spec(spec: str) -> str:
    """The agent spec as recorded in run.json: secret query parameters dropped, keys redacted.

    ``openai:gpt-4o?api_key=sk-...&api=responses`` is recorded as ``openai:gpt-4o?api=responses``
    (a resumed run reads the key from the environment again).
    """
    from urllib.parse import parse_qsl, urlencode

    from .._secrets import SECRET_PARAM, public_url
    from ..providers import redact

    head, sep, query = spec.partition("?")
    if sep:
        kept = [
            (k, v)
            for k, v in parse_qsl(query, keep_blank_values=True)
            if k.replace("-", "_").lower() not in _SECRET_PARAMS and not SECRET_PARAM.search(k)
        ]
        spec = head + ("?" + urlencode(kept) if kept else "")
    if spec.startswith(("http://", "https://")):
        spec = public_url(spec)  # an http agent's userinfo password
    return redact(spec)


def _recorded_shard(text: str | None) -> Shard | None:
    """The shard a resumed run's ``run.json`` names (the shard module only when it names one)."""
    if not text:
        return None
    from ..rundir import Shard

    return Shard.parse(text)
