"""``--executor``: where a run's cases run, parsed (``ExecutorSpec``; the forms are described in
``_executor.py``). Below the executor and the Ray driver, which both take a spec."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Literal
from urllib.parse import parse_qsl

from ..errors import UserError

__all__ = ["ExecutorSpec", "ExecutorStartError", "available_cores", "parse_executor"]

_FORMS = "local, ray, ray:auto, ray:HOST:PORT or ray://HOST:PORT"


class ExecutorStartError(UserError):
    """The executor could not start (no cluster, a refused token, workers that never became
    ready): the run drove nothing, so a run folder it just made is taken away again."""


@dataclass(frozen=True, kw_only=True)
class ExecutorSpec:
    """A parsed ``--executor`` value."""

    kind: Literal["local", "ray"]
    #: the address given to ``ray.init`` (None: a local instance, or the one already joined)
    address: str | None = None
    #: worker actors to start (None: one per cluster CPU, at most the run's concurrency)
    workers: int | None = None
    #: CPUs each worker actor reserves on its node
    cpus: float = 1.0
    #: seconds to wait for the workers to be placed and ready (a cluster that cannot fit them,
    #: e.g. ``cpus`` above any node's, would otherwise wait for ever)
    start_timeout_s: float = 300.0
    #: the text it was parsed from (recorded in run.json for --resume)
    text: str = "local"

    @property
    def is_local(self) -> bool:
        return self.kind == "local"

    def __str__(self) -> str:
        return self.text


def _positive_int(name: str, value: str, text: str) -> int:
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise UserError(f"--executor {text}: {name} must be a whole number >= 1, got '{value}'")
    return n


def _number(name: str, value: str, text: str, *, positive: bool = False) -> float:
    try:
        n = float(value)
    except ValueError:
        n = -1.0
    if not (math.isfinite(n) and (n > 0 if positive else n >= 0)):
        bound = "> 0" if positive else ">= 0"
        raise UserError(f"--executor {text}: {name} must be a number {bound}, got '{value}'")
    return n


def parse_executor(text: str) -> ExecutorSpec:
    """Parse an ``--executor`` value; a malformed one is a UserError naming the forms."""
    raw = text.strip()
    head, sep, query = raw.partition("?")
    if head == "local":
        if sep:
            raise UserError(f"--executor {text}: local takes no options")
        return ExecutorSpec(kind="local", text="local")
    if head == "ray":
        address: str | None = None
    elif head.startswith("ray://"):
        if not head[len("ray://") :]:
            raise UserError(f"--executor {text}: ray:// needs HOST:PORT (expected {_FORMS})")
        address = head
    elif head.startswith("ray:"):
        address = head[len("ray:") :]
        if not address:
            raise UserError(f"--executor {text}: ray: needs auto or HOST:PORT")
    else:
        raise UserError(f"--executor: unknown executor '{text}' (expected {_FORMS})")
    workers: int | None = None
    cpus = 1.0
    start_timeout = ExecutorSpec.start_timeout_s
    for key, value in parse_qsl(query, keep_blank_values=True) if sep else ():
        if key == "workers":
            workers = _positive_int("workers", value, text)
        elif key == "cpus":
            cpus = _number("cpus", value, text)
        elif key == "start_timeout":
            start_timeout = _number("start_timeout", value, text, positive=True)
        else:
            raise UserError(
                f"--executor {text}: unknown option '{key}' (known: workers, cpus, start_timeout)"
            )
    return ExecutorSpec(
        kind="ray",
        address=address,
        workers=workers,
        cpus=cpus,
        start_timeout_s=start_timeout,
        text=raw,
    )


def available_cores() -> int:
    """CPUs this process may run on (its affinity, where the system says)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
