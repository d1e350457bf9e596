"""Many agents over one suite: one run directory per agent, a manifest, one resume for all.

``run_matrix(path, config, members, out_dir)`` runs every member (an agent and what is varied
for it) over the suite file, one after the other, each into ``OUT/<label>/`` — a normal run
directory (run.json, results.jsonl) — and keeps ``OUT/matrix.json`` (:class:`MatrixManifest`)
saying which members there are and how far each got. The response cache is shared (it is one
cache folder). A member whose spec names no provider (or a ``python:`` file that is not there)
stops the matrix before any member runs (``_matrix_check.py``); one that fails once started (a
missing key, an import error) is recorded as ``failed`` with the reason and the others still
run; Ctrl-C stops the matrix and ``resume_matrix(OUT)`` continues it: finished members are
left untouched, the interrupted one resumed, the ones not started yet started. Comparing the
members is ``metrics.compare_matrix``.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .._secrets import register_env, scrub
from .._suite_code import NAMED_BY_SUITE, confined_child, field_where
from ..errors import AgentGaugeError, PathRefused, RunInterrupted, SuiteCodeRefused, UserError
from ..files import read_bytes, read_model_file
from ..rundir import RUN_FILE, Shard, load_record, write_json_atomic
from ..schema import JsonValue, Suite, valid_label
from ._config import RunConfig, RunOutcome, options_config
from ._matrix_check import refuse_bad_members
from ._matrix_members import (
    MatrixManifest,
    MatrixMember,
    MemberRecord,
    MemberState,
    _label,
    check_labels,
    parse_agents,
)
from ._plan import recorded_options

__all__ = [
    "MATRIX_FILE",
    "MatrixManifest",
    "MatrixMember",
    "MatrixOutcome",
    "MemberOutcome",
    "MemberRecord",
    "is_matrix_dir",
    "parse_agents",
    "read_manifest",
    "resume_matrix",
    "run_matrix",
    "suite_members",
]

#: the manifest of a matrix folder
MATRIX_FILE = "matrix.json"


@dataclass(frozen=True, kw_only=True)
class MemberOutcome:
    """What became of one member in this call."""

    label: str
    agent: str
    run_dir: Path
    state: MemberState
    #: the run made now (None: the member was already done, or failed)
    outcome: RunOutcome | None = None
    error: str | None = None


@dataclass(frozen=True, kw_only=True)
class MatrixOutcome:
    out_dir: Path
    manifest: MatrixManifest
    members: list[MemberOutcome]

    @property
    def failed(self) -> list[MemberOutcome]:
        return [m for m in self.members if m.state == "failed"]


def is_matrix_dir(path: Path | str) -> bool:
    """Whether ``path`` is a matrix folder (it holds ``matrix.json``, whatever kind of file:
    :func:`read_manifest` refuses one that is not a regular file)."""
    return os.path.lexists(Path(path) / MATRIX_FILE)


def read_manifest(out_dir: Path | str) -> MatrixManifest:
    """``OUT/matrix.json``, read with the input limits; a missing one is a UserError, an
    invalid one a UserError per problem (``matrix.json:LINE: field: message``), and so is a
    member whose label or run directory would lead out of the matrix folder (an absolute path,
    ``..``, a symlink pointing out: a crafted manifest must not make a resume write elsewhere)."""
    path = Path(out_dir) / MATRIX_FILE
    if not os.path.lexists(path):
        raise UserError(f"{out_dir}: not a matrix folder (no {MATRIX_FILE})")
    manifest = read_model_file(path, MatrixManifest, str(path), what="matrix manifest")
    for i, m in enumerate(manifest.members):
        if not valid_label(m.label):
            raise PathRefused(
                f"{field_where(path, f'members[{i}].label')}: refused: {m.label!r} is not a "
                "member label (letters, digits, '.', '_' and '-'; it names a folder)"
            )
        confined_child(Path(out_dir), m.run_dir, field_where(path, f"members[{i}].run_dir"))
    return manifest


def _write_manifest(out_dir: Path, manifest: MatrixManifest) -> None:
    """Atomically (a kill never leaves half a manifest), secrets scrubbed."""
    out_dir.mkdir(parents=True, exist_ok=True)
    write_json_atomic(out_dir / MATRIX_FILE, manifest)


def _shared_options(config: RunConfig) -> dict[str, JsonValue]:
    """What ``matrix.json`` keeps of the shared options: run.json's (never a secret), with
    the ones a member's run.json keeps elsewhere."""
    return {
        **recorded_options(config, config.trials),
        "tool_mode": config.tool_mode,
        "judge": config.judge,
        "shard": str(config.shard) if config.shard else None,
    }


def _config_from_options(opts: Mapping[str, Any], suite_path: str) -> RunConfig:
    tool_mode = opts.get("tool_mode")
    shard = opts.get("shard")
    return RunConfig(
        **options_config(opts),
        tool_mode="real" if tool_mode == "real" else "mock" if tool_mode == "mock" else None,
        judge=str(opts["judge"]) if opts.get("judge") else None,
        shard=Shard.parse(str(shard)) if shard else None,
        suite_path=suite_path,
    )


def _read_suite(path: Path) -> Suite:
    from ..suites import open_suite

    return open_suite(path).suite


def suite_members(path: Path | str) -> list[MatrixMember] | None:
    """The members of the suite's ``matrix:`` section, or None when it has none.

    A suite file without the word ``matrix`` in it is not read further (a single run does not
    pay a second read of a large suite); else the suite is loaded, so a bad one is a UserError.
    """
    from ..suites import find_suite_file

    file = find_suite_file(Path(path))
    try:
        if file is None or b"matrix" not in read_bytes(file, str(file)):
            return None
    except UserError:
        return None  # the run itself reports the unreadable file (special, too big ...)
    suite = _read_suite(Path(path))
    return _suite_members(suite) if suite.matrix is not None else None


def _checked_suite_members(
    path: Path, config: RunConfig, members: Sequence[MatrixMember]
) -> list[MatrixMember]:
    """The suite's members checked against the suite policy before any member runs: a code
    agent as suite code (made absolute), every agent and its ``options`` by the endpoint rule
    (a refusal names ``file:line: matrix.agents[i]...``)."""
    from ._code_check import refuse_located

    policy = config.code_policy()
    user_options = {k: v for k, v in config.agent_options.items() if k not in config.named_by}
    out: list[MatrixMember] = []
    for m in members:
        if m.source == "suite":
            try:
                m = replace(
                    m,
                    agent=policy.check_spec(
                        m.agent,
                        "agent",
                        options={**config.agent_options, **m.options},
                        options_by={
                            **config.options_named_by(),
                            **dict.fromkeys(m.options, NAMED_BY_SUITE),
                        },
                    ),
                )
            except SuiteCodeRefused:
                refuse_located(
                    str(path), policy, judge_given=config.judge is not None,
                    user_options=user_options,
                )  # fmt: skip
                raise
        out.append(m)
    return out


def _suite_members(suite: Suite) -> list[MatrixMember]:
    if suite.matrix is None:
        raise UserError(
            f"suite '{suite.name}' has no matrix: section; name the agents with --agent A --agent B"
        )
    members = [MatrixMember.from_entry(e) for e in suite.matrix.entries()]
    check_labels(members, "matrix.agents")
    return members


def run_matrix(
    path: Path | str,
    config: RunConfig,
    members: Sequence[MatrixMember] | None,
    out_dir: Path | str | None = None,
    *,
    notify: Callable[[str], None] | None = None,
    on_member: Callable[[MemberOutcome], None] | None = None,
) -> MatrixOutcome:
    """Run every member over the suite file ``path`` into ``out_dir/<label>/`` (None: a new
    ``runs/<suite>-<timestamp>``).

    ``members`` None: the suite's ``matrix:`` section (its code agents need the suite code
    opt-in). ``config`` holds the shared options (its ``agent`` is ignored). ``on_member`` is
    called after each member (finished or failed), e.g. to write its summary.
    """
    from ._file import default_run_dir

    path = Path(path)
    if config.suite_path is None:
        config = replace(config, suite_path=str(path.resolve()))
    suite = _read_suite(path)  # a suite that does not load fails here, once, for all members
    out_dir = Path(out_dir) if out_dir is not None else default_run_dir(suite.name)
    if is_matrix_dir(out_dir) or (out_dir / RUN_FILE).exists():
        raise UserError(
            f"{out_dir} already holds a run; continue it with --resume {shlex.quote(str(out_dir))}"
            " or choose another --output"
        )
    chosen = list(members) if members is not None else _suite_members(suite)
    check_labels(chosen, "--agent" if members is not None else "matrix.agents")
    records = [m.record() for m in chosen]  # the specs as the suite wrote them
    chosen = _checked_suite_members(path, config, chosen)
    refuse_bad_members(chosen, path)  # before anything is written or run
    manifest = MatrixManifest(
        suite=suite.name,
        suite_path=config.suite_path or str(path.resolve()),
        started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        options=_shared_options(config),
        members=records,
    )
    _write_manifest(out_dir, manifest)
    plan = [(m, m.apply(config)) for m in chosen]
    return _run_members(path, out_dir, manifest, plan, notify, on_member)


def resume_matrix(
    out_dir: Path | str,
    *,
    agents: Sequence[str] = (),
    judge: str | None = None,
    max_concurrency: int | None = None,
    progress: bool | None = None,
    replay: bool | None = None,
    allow_suite_code: bool | None = None,
    executor: str | None = None,
    notify: Callable[[str], None] | None = None,
    on_member: Callable[[MemberOutcome], None] | None = None,
    provider_concurrency: int | None = None,
    rate_limit_per_s: float | None = None,
    allow_suite_endpoints: bool | None = None,
) -> MatrixOutcome:
    """Continue the matrix in ``out_dir``: members that finished are left as they are, the
    interrupted and failed ones are resumed, the ones not started are started.

    ``matrix.json`` is a file, not the caller's word: a code agent of the command line runs
    again only when ``agents`` names it again; the suite's members, and the judge, ``base_url``
    and agents the manifest names, pass the suite policy (code, endpoints) as on a first run;
    members' folders must be inside ``out_dir`` (:func:`read_manifest`).
    """
    from ._suite_setup import resolvable_agent

    out_dir = Path(out_dir)
    manifest = read_manifest(out_dir)
    path = Path(manifest.suite_path)
    base = _config_from_options(manifest.options, manifest.suite_path)
    base = replace(  # what may change on resume, when given
        base,
        progress=progress,
        allow_suite_code=allow_suite_code,
        allow_suite_endpoints=allow_suite_endpoints,
        named_by=_named_by_manifest(out_dir / MATRIX_FILE, manifest, judge),
        max_concurrency=max_concurrency or base.max_concurrency,
        replay=base.replay if replay is None else replay,
        executor=executor or base.executor,
        provider_concurrency=provider_concurrency or base.provider_concurrency,
        rate_limit_per_s=rate_limit_per_s or base.rate_limit_per_s,
    )
    base = _with_judge(base, judge)
    suite = _read_suite(path)
    members = _resumed_members(out_dir, manifest, suite, agents)
    plan: list[tuple[MatrixMember, RunConfig]] = []
    for m in members:
        rec = manifest.member(m.label)
        if rec is not None and rec.state == "done":
            plan.append((m, base))  # left untouched
            continue
        [m] = _checked_suite_members(path, base, [m])
        refuse_bad_members([m], path, resume=out_dir)
        record = load_record(out_dir / m.label)
        if record is None:
            plan.append((m, m.apply(base)))
            resolvable_agent(suite, plan[-1][1], base.code_policy())  # before any member runs
            continue
        cfg = RunConfig.from_record(
            record,
            out_dir / m.label,
            # a suite's code agent passed the policy just now; one of the command line must be
            # named again (else from_record refuses it)
            agent=record.agent if m.source == "suite" else m.agent if m.agent in agents else None,
            judge=judge,
            max_concurrency=max_concurrency,
            progress=progress,
            replay=replay,
            allow_suite_code=allow_suite_code,
            executor=executor,
            provider_concurrency=provider_concurrency,
            rate_limit_per_s=rate_limit_per_s,
            allow_suite_endpoints=allow_suite_endpoints,
        )
        _refuse_changed_system(out_dir, m, base.system, cfg)
        plan.append((m, m.apply(cfg, started=True)))
        resolvable_agent(suite, plan[-1][1], cfg.code_policy())
    return _run_members(path, out_dir, manifest, plan, notify, on_member, resume=True)


def _with_judge(base: RunConfig, judge: str | None) -> RunConfig:
    """``base`` with the caller's ``judge``; else the manifest's, checked as suite code (code,
    endpoint) before any member runs."""
    if judge is not None:
        return replace(base, judge=judge)
    if base.judge:
        where = base.named_by["judge"]
        try:
            base.code_policy().check_spec(base.judge, "judge", named_by=where)
        except SuiteCodeRefused as err:
            msg = f"{where}: {err} (to use a judge of your own, give --judge SPEC)"
            raise type(err)(msg) from None
    return base


def _refuse_changed_system(
    out_dir: Path, member: MatrixMember, shared: str | None, recorded: RunConfig
) -> None:
    """A started member resumed with another system prompt would mix the results of two
    prompts in one run directory (``shared``: the matrix's own, ``run --system``)."""
    if (shared if member.system is None else member.system) != recorded.system:
        raise UserError(
            f"--resume {out_dir}: the system prompt of the member '{member.label}' in the "
            "suite's matrix has changed since its run started; start a new run to compare "
            "another prompt"
        )


def _resumed_members(
    out_dir: Path, manifest: MatrixManifest, suite: Suite, agents: Sequence[str]
) -> list[MatrixMember]:
    from .._suite_code import code_prefix

    entries = {_label(e): e for e in suite.matrix.entries()} if suite.matrix else {}
    out: list[MatrixMember] = []
    for i, rec in enumerate(manifest.members):
        if rec.source == "suite":
            entry = entries.get(rec.label)
            if entry is None or scrub(entry.agent) != rec.agent:
                raise UserError(
                    f"--resume {out_dir}: the suite's matrix no longer has the member "
                    f"'{rec.label}' ({rec.agent}); start a new run to change the agents"
                )
            out.append(MatrixMember.from_entry(entry))
            continue
        if rec.state != "done" and code_prefix(rec.agent) and rec.agent not in agents:
            raise UserError(
                f"--resume {out_dir}: {MATRIX_FILE} names the agent '{rec.agent}', Python "
                f"code; it runs only when you name it yourself: add --agent "
                f"{shlex.quote(rec.agent)}"
            )
        named = {} if rec.agent in agents else {"agent": field_where(
            out_dir / MATRIX_FILE, f"members[{i}].agent"
        )}  # fmt: skip
        out.append(MatrixMember(label=rec.label, agent=rec.agent, named_by=named))
    return out


def _named_by_manifest(file: Path, manifest: MatrixManifest, judge: str | None) -> dict[str, str]:
    """What the manifest's shared options name that the caller did not give again."""
    named: dict[str, str] = {}
    if manifest.options.get("base_url"):
        named["base_url"] = field_where(file, "options.base_url")
    if manifest.options.get("judge") and judge is None:
        named["judge"] = field_where(file, "options.judge")
    return named


def _run_members(
    path: Path,
    out_dir: Path,
    manifest: MatrixManifest,
    plan: Sequence[tuple[MatrixMember, RunConfig]],
    notify: Callable[[str], None] | None,
    on_member: Callable[[MemberOutcome], None] | None,
    *,
    resume: bool = False,
) -> MatrixOutcome:
    from ._file import run_suite_file

    done: list[MemberOutcome] = []
    for member, cfg in plan:
        rec = manifest.member(member.label)
        assert rec is not None  # the plan is made from the manifest's members
        run_dir = confined_child(out_dir, rec.run_dir, f"{out_dir / MATRIX_FILE}: run_dir")
        if rec.state == "done":
            done.append(
                MemberOutcome(label=rec.label, agent=rec.agent, run_dir=run_dir, state="done")
            )
            continue
        started = (run_dir / RUN_FILE).exists()
        rec.state, rec.error = "running", None
        _write_manifest(out_dir, manifest)
        try:
            outcome = run_suite_file(
                path, replace(cfg, resume=resume and started), run_dir, notify=notify
            )
        except (RunInterrupted, KeyboardInterrupt):
            _write_manifest(out_dir, manifest)
            raise RunInterrupted(
                out_dir,
                f"interrupted during '{rec.label}': finished members and cases are kept in "
                f"{out_dir}; continue with agentgauge run --resume {shlex.quote(str(out_dir))}",
            ) from None
        except Exception as exc:  # one member's failure never loses the others
            rec.state, rec.error = "failed", _reason(exc)
            _write_manifest(out_dir, manifest)
            result = MemberOutcome(
                label=rec.label, agent=rec.agent, run_dir=run_dir, state="failed", error=rec.error
            )
        else:
            rec.state = "done"
            _write_manifest(out_dir, manifest)
            result = MemberOutcome(
                label=rec.label, agent=rec.agent, run_dir=run_dir, state="done", outcome=outcome
            )
        done.append(result)
        if on_member is not None:
            on_member(result)
    return MatrixOutcome(out_dir=out_dir, manifest=manifest, members=done)


def _reason(exc: Exception) -> str:
    """One line saying why a member could not run (secrets scrubbed)."""
    text = str(exc).splitlines()[0] if str(exc).strip() else ""
    if not isinstance(exc, AgentGaugeError):
        text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    register_env()
    return scrub(text or type(exc).__name__)
