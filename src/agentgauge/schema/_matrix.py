"""A suite's ``matrix:`` section: the agents (and their options) one run compares.

```yaml
matrix:
  agents:
    - openai:gpt-4o-mini                      # label: openai-gpt-4o-mini
    - agent: openai:gpt-4o-mini
      label: mini-hot
      temperature: 0.7
    - agent: local:smollm2
      label: small
      options: {n_ctx: 4096}                  # passed to the provider (docs/providers.md)
    - agent: openai:gpt-4o-mini
      label: terse
      system: Answer in one sentence.         # replaces defaults.system for this member
```

Each entry is one member of the run: ``agentgauge run SUITE`` (no ``--agent``) runs every member
over the suite, one run directory each (``OUT/<label>/``), and compares them (docs/running.md,
"Many agents in one run"). A member's label names its run directory, so labels are unique; two
entries with the same agent need labels of their own.
"""

from __future__ import annotations

import re
from typing import Final

from pydantic import Field, field_validator

from .._factories import new_dict
from ._base import JsonValue, Model

__all__ = ["LABEL_PATTERN", "Matrix", "MatrixEntry", "agent_label", "valid_label"]

#: what a member's label may be: it names the member's run directory
LABEL_PATTERN: Final = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
_LABEL = re.compile(LABEL_PATTERN)
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def agent_label(spec: str) -> str:
    """The default label of an agent spec: the spec made safe for a folder name
    (``openai:gpt-4o-mini`` -> ``openai-gpt-4o-mini``, ``mock:`` -> ``mock``)."""
    slug = _UNSAFE.sub("-", spec).strip("-._")
    return slug[:64].rstrip("-._") or "agent"


class MatrixEntry(Model):
    """One agent of the matrix, with what is varied for it."""

    #: agent spec, as ``--agent`` takes it (``python:`` and framework agents are suite code)
    agent: str = Field(min_length=1)
    #: the member's name in reports and its run directory (default: the spec made safe)
    label: str | None = Field(default=None, pattern=LABEL_PATTERN)
    #: options passed to the provider (``base_url``, ``n_ctx``, ...); never written to disk
    #: except ``base_url``
    options: dict[str, JsonValue] = Field(default_factory=new_dict)
    #: sampling temperature of this agent's model calls (default 0)
    temperature: float | None = Field(default=None, ge=0, le=2)
    #: most tokens per reply (default: the provider's)
    max_tokens: int | None = Field(default=None, ge=1)
    #: trials per case for this agent (default: ``--trials``, else ``defaults.trials``)
    trials: int | None = Field(default=None, ge=1)
    #: seed of this agent's run (default: ``--seed``)
    seed: int | None = None
    #: the system prompt of this member: replaces the suite's ``defaults.system`` (``""``: no
    #: system prompt); a case's own ``system:`` (or a system message of its input) still wins
    system: str | None = None

    @property
    def name(self) -> str:
        """The label, else the one derived from the spec."""
        return self.label or agent_label(self.agent)


class Matrix(Model):
    """The agents one run compares (``matrix.agents``): a spec, or an entry with options."""

    agents: list[str | MatrixEntry] = Field(min_length=1)

    @field_validator("agents")
    @classmethod
    def _labels_unique(cls, value: list[str | MatrixEntry]) -> list[str | MatrixEntry]:
        seen: dict[str, int] = {}
        for i, item in enumerate(value):
            entry = item if isinstance(item, MatrixEntry) else MatrixEntry(agent=item)
            if not entry.agent.strip():
                raise ValueError(f"agents[{i}]: the agent spec is empty")
            name = entry.name
            if name in seen:
                raise ValueError(
                    f"agents[{i}] has the label '{name}' of agents[{seen[name]}]; labels name "
                    "the run directories, so give each a label of its own (label: ...)"
                )
            seen[name] = i
        return value

    def entries(self) -> list[MatrixEntry]:
        """Every member as an entry (a bare spec is an entry with no options)."""
        return [a if isinstance(a, MatrixEntry) else MatrixEntry(agent=a) for a in self.agents]


def valid_label(label: str) -> bool:
    """Whether ``label`` can name a member (and its run directory)."""
    return bool(_LABEL.match(label))
