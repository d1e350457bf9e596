"""Replaying whole case results from the cache when nothing that decides them has changed.

The response cache answers each model call of a re-run, but the case is still driven: tools are
simulated, the transcript is built, scored, validated and written. A re-run of an unchanged suite
spends most of its time there. So the cache also keeps each finished result line, keyed by
everything that decides it:

- the agentgauge code (version, and the size and modification time of every module of the
  installed package, so an edited checkout never replays results of older scoring code);
- the agent (the response-cache key head: provider, endpoint, ``cache_tag``, generation
  parameters) and the streaming flag;
- the suite without its cases (tools, their simulations, defaults, scorers), the case itself and
  the trial index;
- the run options that change a result (seed, step limit, timeouts) and the scoring config.

A replayed line is the earlier line with ``"replayed": true``; its trace and latencies are those
of the run that produced it. Results that can depend on code agentgauge cannot see are never
replayed: a case with a ``function:`` fake, a case with a simulated user (driven again
from the response cache), a run with extra scorers (judges keep their own cache)
or a custom behaviour classifier. Errors are never stored, so they always run again.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path

import orjson

from .._stamps import file_stamps
from .._version import __version__
from ..providers import GenerateConfig, RequestKeys, ResponseCache
from ..schema import Case, Suite
from ..scoring import ScoringConfig
from ._tools import case_simulations

#: bump when the key layout or the stored line changes (old entries then simply miss)
_LAYOUT = b"agentgauge-replay-1"
_REPLAYED = b',"replayed":true}\n'


@functools.cache
def code_fingerprint() -> bytes:
    """agentgauge's version and the (path, size, mtime) of every module of the package."""
    return source_fingerprint(Path(__file__).resolve().parents[1])


def source_fingerprint(root: Path) -> bytes:
    """A digest of the version and the (path, size, mtime) of every ``*.py`` under ``root``."""
    h = hashlib.blake2b(__version__.encode(), digest_size=16)
    h.update(file_stamps(root.rglob("*.py"), root))
    return h.digest()


@dataclass(frozen=True, slots=True)
class Replayed:
    """A stored result line and what the runner counts from it without parsing it."""

    status: str
    model_calls: int
    line: bytes


def replayed_line(line: bytes) -> bytes:
    """A journal line (one JSON object and ``\\n``) marked ``"replayed": true``."""
    body = line.rstrip()
    if not body.endswith(b"}"):
        raise ValueError("not a JSON object line")
    return body[:-1] + _REPLAYED


class ResultReplay:
    """Looks up and stores whole case results for one run (see the module docstring)."""

    def __init__(
        self,
        cache: ResponseCache,
        *,
        suite: Suite,
        keys: RequestKeys,
        generation: GenerateConfig,
        scoring: ScoringConfig,
        seed: int,
        max_steps: int | None,
        timeout_s: float,
        tool_timeout_s: float,
    ) -> None:
        self._cache = cache
        options: dict[str, object] = {
            "stream": generation.stream,
            "seed": seed,
            "max_steps": max_steps,
            "timeout_s": timeout_s,
            "tool_timeout_s": tool_timeout_s,
            "mode": scoring.mode,
            "extra_arguments": scoring.extra_arguments,
            "weights": sorted(scoring.weights.items()),
        }
        if scoring.args_match not in (None, "exact") or scoring.args_match_overrides:
            # only when set, so that existing cache keys stay valid
            overrides = scoring.args_match_overrides or {}
            options["args_match"] = f"{scoring.args_match}:{sorted(overrides.items())}"
        h = hashlib.blake2b(_LAYOUT, digest_size=20)
        h.update(code_fingerprint())
        h.update(keys.head)
        h.update(orjson.dumps(options, option=orjson.OPT_SORT_KEYS))
        h.update(suite.model_dump_json(exclude={"cases", "matrix"}).encode())
        self._head = h
        #: suite tools simulated by a ``function:`` fake (user code agentgauge cannot hash)
        self._function_tools = frozenset(
            t.name
            for t in suite.tools
            if t.simulation is not None and t.simulation.function is not None
        )

    @staticmethod
    def applies(scoring: ScoringConfig, extra_scorers: object) -> bool:
        """Whether a run with this scoring can replay results at all."""
        return scoring.behavior_classifier is None and not extra_scorers

    def key(self, case: Case, trial: int, case_json: bytes | None = None) -> str | None:
        """The case's replay key, or None when its result must always be computed.

        ``case_json``: ``case.model_dump_json()`` when the caller already has it.
        """
        if self._uses_function(case) or case.user is not None:
            # a simulated user's conversation is driven again (from the response cache: no
            # model call), so its model, template and seed always decide it
            return None
        h = self._head.copy()
        h.update(case_json if case_json is not None else case.model_dump_json().encode())
        h.update(b"trial=%d" % trial)
        return h.hexdigest()

    def _uses_function(self, case: Case) -> bool:
        if any(sim.function is not None for sim in case_simulations(case)):
            return True
        if case.tools is None:
            return bool(self._function_tools)
        # inline tools were checked above; a name offers a suite tool
        return any(isinstance(tool, str) and tool in self._function_tools for tool in case.tools)

    def get(self, key: str) -> Replayed | None:
        row = self._cache.get_result(key)
        return None if row is None else Replayed(*row)

    def put(self, key: str, status: str, model_calls: int, line: bytes) -> None:
        """Store a finished (passed or failed) result's journal line."""
        self._cache.put_result(key, status, model_calls, replayed_line(line))
