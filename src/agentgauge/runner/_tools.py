"""Simulated tools: static results, stateful Python fakes and injected faults.

For each call the simulation is chosen in this order:

1. the case's ``tool_results[name]`` (a list gives successive calls successive items; the last
   one repeats);
2. the tool's own ``simulation`` (its default for every case);
3. none: the agent gets ``{"error": "no simulated result for tool 'X'"}``, recorded as fault
   ``unsimulated``.

A rate fault (``faults`` of the case, else of the suite defaults) may replace the chosen
simulation; the draw is seeded by (seed, case id, trial, call index), so a re-run injects the same
faults at the same calls.

Python fakes (``function: "fakes.py:callable"``, a file of the suite's own folder, run only when
the user allows suite code: see :mod:`agentgauge._suite_code`) are called with the arguments as
keyword arguments; if the callable has a parameter named ``state``, it also receives a per-case
:class:`ToolState` (a dict) shared by every tool of the case and kept across turns. It may be a
plain or an async function; it returns any JSON value. If it raises, the agent sees an error and
the call is recorded as fault ``exception``.

With a suite ``world`` (docs/worlds.md), a call to a tool the world answers (a declarative
operation, a Python world's method) goes to the case's world unless the case's own
``tool_results`` give that tool a result (``{world: true}`` in them hands the call back to the
world); faults still replace the call, and each write is recorded on the trace step.

In ``real`` tool mode (``real=``, an open MCP session of the suite's ``tools_from``) a call to
one of the server's tools is sent to the server instead of its simulation; rate faults and a
simulation's ``fault`` still replace the call, so faults stay injectable on top.
"""

from __future__ import annotations

import hashlib
import inspect
import random
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import anyio
import orjson

from .._suite_code import SuiteCodePolicy, import_suite_file, resolve_attr
from ..errors import UserError
from ..schema import (
    Case,
    FaultKind,
    FaultRate,
    JsonValue,
    StateWrite,
    ToolCall,
    ToolSim,
    ToolSpec,
    TraceEvent,
)
from ..worlds import World


class RealResult(Protocol):
    """One call answered by a real tool: the text the agent sees, the value, the error."""

    @property
    def content(self) -> str: ...
    @property
    def result(self) -> JsonValue: ...
    @property
    def error(self) -> str | None: ...


class RealTools(Protocol):
    """Tools answered for real: an MCP session, or a framework agent's own tool."""

    @property
    def names(self) -> frozenset[str]: ...

    async def call(
        self, name: str, arguments: dict[str, JsonValue], timeout_s: float
    ) -> RealResult: ...


#: what a ``malformed`` fault hands the agent: text that is not valid JSON
MALFORMED_TEXT = '{"result": [{"id": 1, "value": "trunc'


class ToolState(dict[str, Any]):
    """Per-case state passed to stateful fakes that accept a ``state`` parameter."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolOutcome:
    """One simulated call: the text the agent sees, the result recorded, and any fault."""

    content: str
    result: JsonValue
    fault: str | None
    error: str | None
    start: float
    end: float
    #: what the call changed in the case's world
    writes: tuple[StateWrite, ...] = ()

    def trace_event(self, call: ToolCall, turn: int) -> TraceEvent:
        """The trace step of this call (the agent loop's and a driven agent's alike)."""
        return TraceEvent(
            kind="tool",
            turn=turn,
            start=self.start,
            end=self.end,
            latency_ms=(self.end - self.start) * 1000.0,
            tool=call.name,
            arguments=call.arguments,
            result=self.result,
            fault=self.fault,
            error=self.error,
            writes=list(self.writes),
        )


_fn_cache: dict[tuple[Path, str], tuple[Callable[..., Any], bool]] = {}

#: the suite code policy of the run in progress (set by the runner for its workers; a simulator
#: given no policy and running outside a run refuses every function fake)
current_code_policy: ContextVar[SuiteCodePolicy | None] = ContextVar(
    "agentgauge_suite_code_policy", default=None
)


def case_simulations(case: Case) -> Iterator[ToolSim]:
    """The simulations a case itself sets: its ``tool_results`` and its inline tools'."""
    for entry in case.tool_results.values():
        yield from entry if isinstance(entry, list) else [entry]
    for tool in case.tools or ():
        if isinstance(tool, ToolSpec) and tool.simulation is not None:
            yield tool.simulation


def load_function(ref: str, policy: SuiteCodePolicy) -> tuple[Callable[..., Any], bool]:
    """The fake ``ref`` names, if ``policy`` allows it; returns it and whether it takes ``state``.

    The location rule and the opt-in are checked before anything is imported (UserError).
    """
    target = policy.check_function(ref)
    key = (target.file, target.attr)
    hit = _fn_cache.get(key)
    if hit is not None:
        return hit
    label = f"tool function '{ref}'"
    obj = resolve_attr(import_suite_file(target.file), target.attr, label)
    if not callable(obj):
        raise UserError(f"{label} is not callable")
    try:
        takes_state = "state" in inspect.signature(obj).parameters
    except (TypeError, ValueError):
        takes_state = False
    _fn_cache[key] = (obj, takes_state)
    return obj, takes_state


def _fault_draw(seed: int, case_id: str, trial: int, index: int) -> random.Random:
    digest = hashlib.blake2b(
        f"{seed}\x1f{case_id}\x1f{trial}\x1f{index}".encode(), digest_size=8
    ).digest()
    return random.Random(int.from_bytes(digest, "big"))


def _dumps(value: JsonValue) -> str:
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return orjson.dumps(str(value)).decode()


class ToolSimulator:
    """The simulated tools of one case and trial (holds per-case state and call counters)."""

    def __init__(
        self,
        *,
        case_id: str,
        trial: int,
        seed: int,
        case_results: Mapping[str, ToolSim | list[ToolSim]],
        defaults: Mapping[str, ToolSim | None],
        faults: Sequence[FaultRate],
        timeout_s: float,
        code: SuiteCodePolicy | None = None,
        real: RealTools | None = None,
        world: World | None = None,
    ) -> None:
        self._case_id = case_id
        #: the case's world: answers the tools it knows (after the case's own results)
        self.world = world
        #: real tool mode: calls to the server's tools go to the server (faults still apply)
        self._real = real
        #: what function fakes may run (None: the policy of the run in progress)
        self._code = code if code is not None else current_code_policy.get()
        self._trial = trial
        self._seed = seed
        self._case_results = case_results
        self._defaults = defaults
        self._faults = faults
        self._timeout_s = timeout_s
        self._per_tool: dict[str, int] = {}
        self._index = 0
        self.state = ToolState()

    @property
    def timeout_s(self) -> float:
        """How long one tool call may take."""
        return self._timeout_s

    def _choose(self, name: str) -> tuple[ToolSim | None, bool]:
        """The simulation of this call of ``name``, and whether the world answers it."""
        n = self._per_tool.get(name, 0)
        self._per_tool[name] = n + 1
        sim = self._case_results.get(name)
        if isinstance(sim, list):
            sim = sim[min(n, len(sim) - 1)] if sim else None
        world = self.world is not None and name in self.world.tool_names
        if sim is not None:
            return sim, world and sim.world
        return (None, True) if world else (self._defaults.get(name), False)

    def _rate_fault(self, name: str, index: int) -> FaultKind | None:
        if not self._faults:
            return None
        rng = _fault_draw(self._seed, self._case_id, self._trial, index)
        for rate in self._faults:
            if rate.tools and name not in rate.tools:
                continue
            if rng.random() < rate.rate:
                return rate.kind
        return None

    async def call(self, call: ToolCall, real: RealTools | None = None) -> ToolOutcome:
        """Answer one call. ``real`` (for this call only, else the simulator's own) answers the
        tools it names instead of their simulations, faults still injected on top."""
        start = time.time()
        real = real if real is not None else self._real
        index = self._index
        self._index += 1
        name = call.name
        sim, to_world = self._choose(name)
        fault: str | None = self._rate_fault(name, index)
        error_text: str | None = None
        if fault is None and sim is not None:
            fault = sim.fault
            error_text = sim.error
        if sim is not None and sim.delay_s > 0 and fault != "timeout":
            if sim.delay_s >= self._timeout_s:
                fault = "timeout"
            else:
                await anyio.sleep(sim.delay_s)
        if fault is not None:
            return self._fault(name, fault, error_text, start)
        if real is not None and name in real.names:
            return await self._call_real(real, call, start)
        if to_world:
            return _planted(self._call_world(call, start), sim)
        if sim is None or sim.world:
            msg = f"no simulated result for tool '{name}'"
            if sim is not None:
                msg = f"tool '{name}': the suite's world has no operation of that name"
            return self._outcome({"error": msg}, "unsimulated", msg, start)
        if sim.function is not None:
            return _planted(await self._run_function(sim.function, call, start), sim)
        return self._outcome(sim.result, None, None, start)

    def _fault(self, name: str, fault: str, error_text: str | None, start: float) -> ToolOutcome:
        if fault == "error":
            msg = error_text or f"{name} failed"
            return self._outcome({"error": msg}, "error", msg, start)
        if fault == "exception":
            msg = f"tool '{name}' raised an exception: {error_text or 'internal error'}"
            return self._outcome({"error": msg}, "exception", msg, start)
        if fault == "timeout":
            msg = f"tool '{name}' timed out after {self._timeout_s:g}s"
            return self._outcome({"error": msg}, "timeout", msg, start)
        # every fault is a failed call, in the trace as for the scorer (docs/scoring.md, recover)
        if fault == "empty":
            return ToolOutcome(
                content="",
                result="",
                fault="empty",
                error=f"tool '{name}' returned an empty result",
                start=start,
                end=time.time(),
            )
        # malformed
        return ToolOutcome(
            content=MALFORMED_TEXT,
            result=MALFORMED_TEXT,
            fault="malformed",
            error=f"tool '{name}' returned a malformed result (not valid JSON)",
            start=start,
            end=time.time(),
        )

    async def _run_function(self, ref: str, call: ToolCall, start: float) -> ToolOutcome:
        if self._code is None:
            raise UserError(
                f"tool function '{ref}': no suite code policy (run the suite with run_suite, "
                "or give the simulator code=SuiteCodePolicy(...))"
            )
        fn, takes_state = load_function(ref, self._code)
        kwargs: dict[str, Any] = dict(call.arguments)
        if takes_state:
            kwargs["state"] = self.state
        try:
            with anyio.fail_after(self._timeout_s):
                value = fn(**kwargs)
                if inspect.isawaitable(value):
                    value = await value
        except TimeoutError:
            return self._fault(call.name, "timeout", None, start)
        except Exception as exc:
            from ..providers import redact  # a fake wrapping a real client may show a key

            msg = redact(f"tool '{call.name}' raised {type(exc).__name__}: {exc}")
            return self._outcome({"error": msg}, "exception", msg, start)
        return self._outcome(value, None, None, start)

    def _call_world(self, call: ToolCall, start: float) -> ToolOutcome:
        assert self.world is not None
        reply = self.world.apply(call)
        if reply.error is not None:
            from ..providers import redact  # a world wrapping a real client may show a key

            msg = redact(reply.error)
            return ToolOutcome(
                content=_dumps({"error": msg}),
                result={"error": msg},
                fault=None,
                error=msg,
                start=start,
                end=time.time(),
                writes=reply.writes,
            )
        out = self._outcome(reply.result, None, None, start)
        return ToolOutcome(
            content=out.content,
            result=out.result,
            fault=None,
            error=None,
            start=start,
            end=out.end,
            writes=reply.writes,
        )

    async def _call_real(self, real: RealTools, call: ToolCall, start: float) -> ToolOutcome:
        done = await real.call(call.name, call.arguments, self._timeout_s)
        return ToolOutcome(
            content=done.content,
            result=done.result,
            fault=None,
            error=done.error,
            start=start,
            end=time.time(),
        )

    @staticmethod
    def _outcome(
        result: JsonValue, fault: str | None, error: str | None, start: float
    ) -> ToolOutcome:
        return ToolOutcome(
            content=_dumps(result),
            result=result,
            fault=fault,
            error=error,
            start=start,
            end=time.time(),
        )


def _planted(out: ToolOutcome, sim: ToolSim | None) -> ToolOutcome:
    """A fake's or the world's answer with the simulation's ``inject`` text planted in it (a
    failed call is left as it is)."""
    if sim is None or sim.inject is None or out.error is not None:
        return out
    result = sim.injected(out.result)
    return replace(out, result=result, content=_dumps(result))
