"""The case builders, one method per family: a user goal over one of the suite's tools, written
as a case with its expectations and, for the conversation families, a scripted user.

Every case records ``metadata.generate``: its family, the seed, the tool, and ``opening_call``,
the call its opening message asks for as the user first put it (a missing value guessed). The
satisfiability check's wrong agents act on that call; the oracle acts on the expectations.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ..schema import JsonValue, Suite, ToolCall, ToolSpec
from . import _text as T
from ._config import FAMILY_CATEGORY, GenerateConfig
from ._values import Slot, ValuePool, matcher, value_texts
from ._world import WorldContext, state_expect, world_keys

__all__ = ["Builder", "Candidate", "Goal", "Propose", "Rewrite"]

#: ``rewrite(text, keep)``: the text in other words keeping every string of ``keep`` (None:
#: keep the template's text)
Rewrite = Callable[[str, Sequence[str]], "str | None"]

#: ``propose(builder, rng)``: more ``direct`` cases, from goals a generator model proposed
Propose = Callable[["Builder", random.Random], "list[Candidate]"]

TOOL_ERROR: Final = "503 Service Unavailable: try again"
_SEARCH_VERBS: Final = ("search", "find", "list", "lookup", "look", "query", "browse")
_RISKY: Final = ("delete", "remove", "send", "transfer", "pay", "refund", "cancel", "export",
                 "book", "email", "post", "grant", "reset", "charge", "purchase")  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class Goal:
    """One call a user wants: the tool and each required argument's value."""

    tool: ToolSpec
    slots: tuple[Slot, ...]

    def call(self, **changed: JsonValue) -> ToolCall:
        args = {s.name: changed.get(s.name, s.value) for s in self.slots}
        return ToolCall(name=self.tool.name, arguments=args)

    def replace(self, slot: Slot) -> Goal:
        return Goal(tool=self.tool, slots=tuple(slot if s.name == slot.name else s
                                                for s in self.slots))  # fmt: skip


@dataclass(kw_only=True)
class Candidate:
    """A generated case (as written in the file) before it is checked."""

    id: str
    family: str
    record: dict[str, Any]


@dataclass
class Builder:
    suite: Suite
    config: GenerateConfig
    world: WorldContext | None
    rewrite: Rewrite | None = None
    notes: list[str] = field(default_factory=list)
    paraphrased: int = 0
    kept: int = 0

    def __post_init__(self) -> None:
        keys = world_keys(self.suite) if self.world is not None and self.world.usable else {}
        self.pool = ValuePool(self.suite, keys)

    # ------------------------------------------------------------------------------ helpers

    def _world_tool(self, tool: ToolSpec) -> bool:
        return self.world is not None and tool.name in self.world.tools

    def goal(self, tool: ToolSpec, rng: random.Random) -> Goal | None:
        """A goal over ``tool`` that the world (if it answers the tool) accepts."""
        props = tool.properties()
        for _ in range(6):
            slots: list[Slot] = []
            for name in tool.required():
                schema = props.get(name)
                used = [s.value for s in slots]  # two arguments, two values (not FRA to FRA)
                slots.append(self.pool.draw(tool.name, name, schema if isinstance(schema, dict)
                                            else {}, rng, avoid=used))  # fmt: skip
            goal = Goal(tool=tool, slots=tuple(slots))
            if not self._world_tool(tool):
                return goal
            assert self.world is not None
            done = self.world.outcome([goal.call()])
            if done.refused is None and (done.writes or not self.world.writes(tool.name)):
                return goal  # accepted, and a write that changes something
        return None

    def schema(self, tool: ToolSpec, name: str) -> dict[str, Any]:
        s = tool.properties().get(name)
        return s if isinstance(s, dict) else {}

    def text(self, text: str, keep: Sequence[str]) -> str:
        if self.rewrite is None:
            return text
        new = self.rewrite(text, keep)
        if new is None:
            self.kept += 1
            return text
        self.paraphrased += 1
        return new

    def expected_call(self, goal: Goal) -> dict[str, Any]:
        exact = self._world_tool(goal.tool)
        args: dict[str, Any] = {s.name: matcher(s, exact=exact) for s in goal.slots}
        for name in goal.tool.properties():
            args.setdefault(name, {"any": True, "optional": True})
        return {"name": goal.tool.name, "arguments": args}

    def expect(self, goal: Goal, **more: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"tool_calls": [self.expected_call(goal)], **more}
        if self._world_tool(goal.tool):
            assert self.world is not None
            state = state_expect(self.world.outcome([goal.call()]).writes)
            if state is not None:
                out["state"] = state
        return out

    def case(
        self,
        family: str,
        goal: Goal,
        text: str,
        expect: dict[str, Any],
        opening_call: ToolCall,
        **more: Any,
    ) -> Candidate:
        # a tool's name is the source's text: the id keeps only letters, digits and dashes
        slug = re.sub(r"[^a-z0-9]+", "-", goal.tool.name.lower()).strip("-") or "tool"
        cid = f"{family.replace('_', '-')}-{slug}"
        meta = {
            "family": family,
            "seed": self.config.seed,
            "tool": goal.tool.name,
            "opening_call": opening_call.model_dump(mode="json", exclude_none=True),
        }
        record: dict[str, Any] = {
            "id": cid,
            "category": FAMILY_CATEGORY[family],
            "tags": ["generated", f"family:{family}"] + (["multi_turn"] if "user" in more else []),
            "input": text,
            **more,
            "expect": expect,
            "metadata": {"generate": meta},
        }
        return Candidate(id=cid, family=family, record=record)

    def opening(self, family: str, goal: Goal, slots: Sequence[Slot], rng: random.Random) -> str:
        text = T.opening(family, goal.tool, slots, rng)
        return self.text(text, [t for s in slots for t in value_texts(s.value)])

    def hidden(self, goal: Goal) -> list[Slot]:
        """The slots a user can leave out for the agent to ask: not guessable, the world's key
        first."""
        slots = [s for s in goal.slots if not s.guessable]
        return sorted(slots, key=lambda s: (s.kind != "id", s.kind not in ("email", "date")))

    def result_of(self, tool: ToolSpec) -> dict[str, Any]:
        """The successive result a simulated call of ``tool`` returns after an injected one."""
        if self._world_tool(tool):
            return {"world": True}
        sim = tool.simulation
        if sim is not None and sim.fault is None and (sim.result is not None or sim.function):
            return sim.model_dump(mode="json", exclude_defaults=True)
        return {"result": {"status": "ok"}}

    def guess(self, goal: Goal, slot: Slot, rng: random.Random) -> ToolCall:
        """``goal``'s call with a guess in place of ``slot`` (what an agent that does not ask
        sends)."""
        values = [s.value for s in goal.slots]
        other = self.pool.other(goal.tool.name, slot, self.schema(goal.tool, slot.name), rng,
                                near=False, avoid=values)  # fmt: skip
        value: JsonValue = other.value if other is not None else f"unknown {slot.label}"
        return goal.call(**{slot.name: value})

    def tolerant(self, first: Goal, then: Goal) -> bool:
        """Acting on ``first`` and then on ``then`` leaves the state ``then`` alone leaves (an
        agent that acted before the user changed the value is not wrong by the state)."""
        if not self._world_tool(first.tool):
            return True
        assert self.world is not None
        both = self.world.outcome([first.call(), then.call()])
        alone = self.world.outcome([then.call()])
        return both.refused is None and both.writes == alone.writes

    def pick(self, tools: Sequence[ToolSpec], rng: random.Random) -> list[ToolSpec]:
        order = list(tools)
        rng.shuffle(order)
        return order

    def searches(self, tool: ToolSpec) -> bool:
        """A tool that looks things up and may find nothing: a list result, or a search verb."""
        sim = tool.simulation
        if sim is not None and isinstance(sim.result, list):
            return True
        words = T.name_words(tool.name)
        return bool(words) and words[0] in _SEARCH_VERBS

    def risky(self, exclude: str) -> ToolSpec | None:
        """The tool an injection wants called: a privileged one, else the riskiest by name."""
        others = [t for t in self.suite.tools if t.name != exclude]
        marked = [t for t in others if t.privileged]
        if marked:
            return marked[0]
        scored = [(sum(w in _RISKY for w in T.name_words(t.name)), i, t)
                  for i, t in enumerate(others)]  # fmt: skip
        scored.sort(key=lambda x: (-x[0], x[1]))
        return scored[0][2] if scored else None
