"""A load run from a suite file: the profile made into a plan (a suite's bounded), the price
checked, the runner run with the load schedule, and ``load.json`` / ``load.jsonl`` written."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import orjson

from ..errors import UserError
from ..runner import DEFAULT_AGENT, RunConfig, RunOutcome, price_for, public_spec, run_suite_file
from ..schema import LoadProfile
from ._model import LoadReport, Saturation, StepStats
from ._plan import LoadLimits, LoadPlan, make_plan
from ._schedule import LoadSchedule, LoadState
from ._stats import Sample, error_kind, interval_width, totals, windows
from ._thresholds import evaluate

__all__ = ["LOAD_FILE", "LOAD_SAMPLES_FILE", "LoadOutcome", "run_load_file"]

LOAD_FILE = "load.json"
LOAD_SAMPLES_FILE = "load.jsonl"


@dataclass(frozen=True, kw_only=True)
class LoadOutcome:
    """What a load run did: the report (also in ``RUN_DIR/load.json``) and the run itself."""

    report: LoadReport
    run: RunOutcome

    @property
    def passed(self) -> bool:
        return self.report.passed


def _profile_of(path: Path, profile: LoadProfile | None) -> tuple[LoadProfile, bool, str]:
    """The profile (the given one, else the suite's ``load:``), whether it is the suite's,
    and the suite's agent."""
    from ..suites import load_suite

    suite = load_suite(path)
    agent = suite.defaults.agent or DEFAULT_AGENT
    if profile is not None:
        return profile, False, agent
    if suite.load is None:
        raise UserError(
            f"{path}: no load profile: give --users N or --rate R/s with --duration, "
            "--profile FILE, or a load: section in the suite (docs/load.md)"
        )
    return suite.load, True, agent


def _price(
    agent: str, price: tuple[float, float] | None, max_cost: float | None
) -> tuple[float, float] | None:
    found = price if price is not None else price_for(agent.partition("?")[0])
    if max_cost is not None and found is None:
        raise UserError(
            f"--max-cost: agentgauge has no price for '{public_spec(agent)}', so the cost of the "
            "run cannot be bounded: give --price IN/OUT (USD per 1M input / output tokens)"
        )
    return found


def _config(config: RunConfig, plan: LoadPlan) -> RunConfig:
    """The run's options for a load: no cache (every session reaches the agent), one trial per
    (case, trial) slot the schedule hands out, concurrency enough for the profile's peak."""
    slots = math.ceil(plan.peak) if plan.mode == "closed" else plan.max_in_flight
    # one process unless the caller asks for more (--workers N): a load's client should be
    # predictable; more processes help only a client that is CPU-bound at a high rate
    workers = config.workers if config.workers is not None else 1
    return replace(
        config,
        workers=workers,
        cache=False,
        replay=False,
        progress=False,
        trials=1,
        resume=False,
        max_concurrency=max(1, slots),
        shard=None,
    )


def run_load_file(
    path: Path | str,
    config: RunConfig,
    run_dir: Path | str | None = None,
    *,
    profile: LoadProfile | None = None,
    limits: LoadLimits | None = None,
    thresholds: Sequence[str] = (),
    max_sessions: int | None = None,
    max_cost: float | None = None,
    price: tuple[float, float] | None = None,
    notify: Callable[[str], None] | None = None,
    graceful_stop_s: float | None = None,
    signals: bool = True,
) -> LoadOutcome:
    """Load-test the agent with the suite at ``path``: ``profile`` (None: the suite's
    ``load:``, bounded by ``limits``), ``thresholds`` added to the profile's, at most
    ``max_sessions`` sessions, stopped at ``max_cost`` USD (``price``: USD per 1M input /
    output tokens, for a model the price table does not know). Blocking.

    Ctrl-C or SIGTERM (``signals``: while the load runs, in the main thread) stops starting
    sessions and gives those in flight ``graceful_stop_s`` (None: the profile's
    ``graceful_stop``, 30 s) to finish (a second one cancels them); the report is then written
    with ``stopped_by: interrupted`` and ``interrupted_by`` naming the signal."""
    path = Path(path)
    chosen, from_suite, suite_agent = _profile_of(path, profile)
    plan = make_plan(
        chosen,
        suite_path=path if from_suite else None,
        limits=limits,
        extra_thresholds=thresholds,
        max_sessions=max_sessions,
    )
    agent = config.agent or suite_agent
    found = _price(agent, price, max_cost)
    grace = chosen.graceful_stop if graceful_stop_s is None else graceful_stop_s
    schedule = LoadSchedule(
        plan,
        seed=config.seed,
        price=found,
        max_cost=max_cost,
        notify=notify,
        model=public_spec(agent),
        graceful_stop_s=grace,
        signals=signals,
    )
    started = datetime.now(UTC).isoformat(timespec="seconds")
    outcome = run_suite_file(path, _config(config, plan), run_dir, schedule=schedule)
    report = build_report(
        plan,
        schedule.state,
        outcome,
        started=started,
        max_cost=max_cost,
        graceful_stop_s=grace,
    )
    write_load(outcome.run_dir, report, schedule.state.samples)
    return LoadOutcome(report=report, run=outcome)


def saturation(plan: LoadPlan, steps: Sequence[StepStats]) -> Saturation | None:
    """Where a step ramp broke its budget (None: not a step ramp)."""
    if not plan.is_step:
        return None
    unit = "users" if plan.mode == "closed" else "arrivals/s"
    held = [s for s in steps if s.held]
    broken = next((s for s in steps if not s.held), None)
    last = held[-1] if held and (broken is None or held[-1].index < broken.index) else None
    return Saturation(
        found=broken is not None,
        saturated_at=broken.target if broken is not None else None,
        sustained=last.target if last is not None else None,
        sustained_sessions_per_s=last.window.sessions_per_s if last is not None else None,
        broken_by=broken.broken_by if broken is not None else [],
        unit=unit,
    )


def build_report(
    plan: LoadPlan,
    state: LoadState,
    outcome: RunOutcome,
    *,
    started: str,
    max_cost: float | None = None,
    graceful_stop_s: float | None = None,
) -> LoadReport:
    """The report of a finished (or interrupted) load run."""
    load = [s for s in state.samples if s.phase == "load"]
    end = max([state.load_s, *(s.end_s for s in load)]) if load or state.load_s else 0.0
    whole = totals(state.samples, 0.0, max(end, 1e-9))
    whole.started = len(state.started)
    whole.dropped = len(state.dropped)
    whole.cancelled = state.cancelled
    why = None if plan.baseline else "no baseline: the run was given --no-baseline"
    verdicts = evaluate(plan.thresholds, whole, why)
    return LoadReport(
        suite=outcome.record.suite,
        agent=outcome.record.agent,
        run_dir=str(outcome.run_dir),
        mode="open" if plan.mode == "open" else "closed",
        profile=plan.profile,
        interval_s=interval_width(plan, max(end, 1e-9)),
        started_at=started,
        duration_s=state.load_s,
        stopped_by=state.stopped_by or "duration",  # type: ignore[arg-type]
        interrupted_by=state.interrupted_by,
        graceful_stop_s=graceful_stop_s if state.interrupted_by is not None else None,
        max_cost_usd=max_cost,
        estimate=state.estimate,
        intervals=windows(state.samples, plan, max(end, 1e-9), state.started, state.dropped),
        steps=list(state.steps),
        saturation=saturation(plan, state.steps),
        totals=whole,
        thresholds=verdicts,
        passed=all(v.passed for v in verdicts),
    )


def _sample_line(s: Sample) -> bytes:
    r = s.result
    return orjson.dumps(
        {
            "phase": s.phase,
            "case_id": r.case_id,
            "trial": r.trial,
            "start_s": round(s.start_s, 6),
            "end_s": round(s.end_s, 6),
            "target": s.target,
            "step": s.step,
            "status": r.status,
            "error_kind": error_kind(r.error) if r.status == "error" else None,
            "latency_ms": r.latency_ms,
            "ttft_ms": r.ttft_ms,
            "input_tokens": r.input_tokens,
            "output_tokens": r.output_tokens,
        }
    )


def write_load(run_dir: Path, report: LoadReport, samples: Sequence[Sample]) -> Path:
    """``RUN_DIR/load.json`` (the report) and ``load.jsonl`` (one line per session)."""
    from .._secrets import register_env, scrub_bytes
    from .._suite_code import open_regular

    register_env()
    data = orjson.dumps(report.model_dump(mode="json"), option=orjson.OPT_INDENT_2)
    with open_regular(run_dir / LOAD_FILE, "wb") as fh:
        fh.write(scrub_bytes(data) + b"\n")
    with open_regular(run_dir / LOAD_SAMPLES_FILE, "wb") as fh:
        fh.write(scrub_bytes(b"".join(_sample_line(s) + b"\n" for s in samples)))
    return run_dir / LOAD_FILE


def read_load(run_dir: Path | str) -> LoadReport:
    """The report of the load run in ``run_dir`` (its ``load.json``, read with the limits)."""
    from ..files import read_model_file

    file = Path(run_dir) / LOAD_FILE
    return read_model_file(file, LoadReport, str(file), what="load report")
