"""The members of a matrix run: each agent and what is varied for it (``MatrixMember``, from
``--agent`` or the suite's ``matrix:``), their labels, and how ``OUT/matrix.json`` records them
(``MatrixManifest``, ``MemberRecord``). Below ``_matrix.py``, which runs them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from pydantic import Field

from .._factories import new_dict, new_list
from .._secrets import register_env, scrub
from .._suite_code import NAMED_BY_SUITE
from ..errors import UserError
from ..schema import JsonValue, MatrixEntry, Model, agent_label, valid_label
from ._config import RunConfig

__all__ = [
    "MatrixManifest",
    "MatrixMember",
    "MemberRecord",
    "MemberSource",
    "MemberState",
    "check_labels",
    "parse_agents",
]


MemberSource = Literal["command line", "suite"]
#: ``pending``: not started; ``running``: started, not finished (interrupted); ``done``;
#: ``failed``: could not run (``error`` says why)
MemberState = Literal["pending", "running", "done", "failed"]


class MemberRecord(Model):
    """One member in ``matrix.json``."""

    label: str
    #: the agent spec (secrets scrubbed)
    agent: str
    #: where the member was named: ``--agent`` or the suite's ``matrix:``
    source: MemberSource = "command line"
    #: its run directory, relative to the matrix folder
    run_dir: str
    state: MemberState = "pending"
    error: str | None = None
    #: what the member varies (the option names only: their values may be secrets)
    option_names: list[str] = Field(default_factory=new_list)
    temperature: float | None = None
    max_tokens: int | None = None
    trials: int | None = None
    seed: int | None = None
    #: the member's system prompt (the suite's ``defaults.system`` when None)
    system: str | None = None


class MatrixManifest(Model):
    """``OUT/matrix.json``: the members of a matrix run and the options they share."""

    version: int = 1
    suite: str
    suite_path: str
    started_at: str
    #: the run options every member shares (what a member not started yet is run with)
    options: dict[str, JsonValue] = Field(default_factory=new_dict)
    members: list[MemberRecord] = Field(default_factory=new_list)

    def member(self, label: str) -> MemberRecord | None:
        return next((m for m in self.members if m.label == label), None)


@dataclass(frozen=True, kw_only=True)
class MatrixMember:
    """One agent of a matrix and what is varied for it (None: the shared run option)."""

    label: str
    agent: str
    source: MemberSource = "command line"
    #: passed to the provider factory (``base_url`` ...), over the shared ``agent_options``
    options: Mapping[str, Any] = field(default_factory=dict)
    temperature: float | None = None
    max_tokens: int | None = None
    trials: int | None = None
    seed: int | None = None
    #: replaces the suite's ``defaults.system`` for this member (a case's own still wins)
    system: str | None = None
    #: what a file named rather than the caller (``agent`` -> where in matrix.json); a member
    #: of the suite's matrix is named by the suite (its agent and options)
    named_by: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_entry(cls, entry: MatrixEntry) -> MatrixMember:
        """A member of the suite's ``matrix.agents``."""
        return cls(
            label=_label(entry),
            agent=entry.agent,
            source="suite",
            options=dict(entry.options),
            temperature=entry.temperature,
            max_tokens=entry.max_tokens,
            trials=entry.trials,
            seed=entry.seed,
            system=entry.system,
        )

    def record(self) -> MemberRecord:
        return MemberRecord(
            label=self.label,
            agent=scrub(self.agent),
            source=self.source,
            run_dir=self.label,
            option_names=sorted(self.options),
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            trials=self.trials,
            seed=self.seed,
            system=self.system,
        )

    def apply(self, config: RunConfig, *, started: bool = False) -> RunConfig:
        """``config`` for this member (``started``: a resumed run keeps its recorded trials
        and seed)."""
        gen = config.generation
        if self.temperature is not None:
            gen = replace(gen, temperature=self.temperature)
        if self.max_tokens is not None:
            gen = replace(gen, max_tokens=self.max_tokens)
        named = {k: v for k, v in config.named_by.items() if k != "agent"}
        named.update(self.named_by)
        if self.source == "suite":  # checked with file:line by _checked_suite_members
            named.update({"agent": NAMED_BY_SUITE, **dict.fromkeys(self.options, NAMED_BY_SUITE)})
        config = replace(
            config,
            agent=self.agent,
            agent_options={**config.agent_options, **self.options},
            generation=gen,
            system=config.system if self.system is None else self.system,
            named_by=named,
        )
        if started:
            return config
        return replace(
            config,
            trials=self.trials or config.trials,
            seed=config.seed if self.seed is None else self.seed,
        )


def _safe_label(spec: str) -> str:
    """The default label of ``spec``: the spec made safe for a folder name, secrets (API keys
    in the environment) scrubbed first, so that no key becomes a directory name."""
    register_env()
    return agent_label(scrub(spec))


def _label(entry: MatrixEntry) -> str:
    return entry.label or _safe_label(entry.agent)


def parse_agents(specs: Sequence[str]) -> list[MatrixMember]:
    """Members of ``--agent`` values: ``SPEC`` (labelled by the spec made safe) or
    ``LABEL=SPEC`` (a label has no ``:``). Two members with one label are a UserError."""
    members: list[MatrixMember] = []
    for spec in specs:
        label, sep, rest = spec.partition("=")
        if sep and ":" not in label and "?" not in label and rest:
            if not valid_label(label):
                raise UserError(
                    f"--agent {spec}: the label '{label}' may hold only letters, digits, '.', "
                    "'_' and '-' (it names the run directory)"
                )
            members.append(MatrixMember(label=label, agent=rest))
        else:
            members.append(MatrixMember(label=_safe_label(spec), agent=spec))
    check_labels(members, "--agent")
    return members


def check_labels(members: Sequence[MatrixMember], where: str) -> None:
    """Each label names a run directory: a label used twice is a UserError."""
    seen: dict[str, MatrixMember] = {}
    for m in members:
        other = seen.get(m.label)
        if other is not None:
            same = "is given twice" if other.agent == m.agent else f"and {other.agent} share it"
            raise UserError(
                f"{where}: {m.agent} {same} (label '{m.label}'); give each its own label: "
                f"--agent LABEL={m.agent} (or label: in the suite's matrix)"
            )
        seen[m.label] = m
