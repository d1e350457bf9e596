"""Tool definitions and their simulated behaviour."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from .._factories import new_list
from ._base import JsonValue, Model
from ._checks import CallType

FaultKind = Literal["error", "exception", "timeout", "empty", "malformed"]


class ToolSim(Model):
    """What a simulated tool returns for one call.

    Exactly one of the forms applies:

    - ``result``: a static result (any JSON value) handed back to the agent;
    - ``fault``: an injected failure — ``error`` (an error result the agent sees, text in
      ``error``), ``exception`` (the tool raises), ``timeout`` (the tool never answers within its
      time limit), ``empty`` (an empty result), ``malformed`` (a result that is not valid JSON);
    - ``function``: ``file.py:callable`` for a stateful fake, called with the arguments (a file
      of the suite's folder; it runs only with the user's opt-in, ``--allow-suite-code``).
    """

    result: JsonValue = None
    fault: FaultKind | None = None
    error: str | None = None
    function: str | None = None
    #: True: the suite's world answers the call (its operation or method of this tool's name),
    #: e.g. after an injected fault in a case's list of successive results
    world: bool = False
    #: simulated latency of the tool, seconds
    delay_s: float = Field(default=0.0, ge=0)
    #: text planted in the answer of a ``function`` fake or the world (a ``note`` field added
    #: to an object, an item to a list, a paragraph to a string): the call keeps its real shape
    #: and state. ``agentgauge redteam`` writes it for tools backed by code (docs/redteam.md)
    inject: str | None = None

    @model_validator(mode="after")
    def _one_form(self) -> ToolSim:
        if self.fault is not None and self.result is not None:
            raise ValueError("give either 'result' or 'fault', not both")
        if self.function is not None and (self.result is not None or self.fault is not None):
            raise ValueError("'function' cannot be combined with 'result' or 'fault'")
        if self.world and (
            self.function is not None or self.result is not None or self.fault is not None
        ):
            raise ValueError(
                "'world: true' cannot be combined with 'result', 'fault' or 'function'"
            )
        if self.inject is not None and self.function is None and not self.world:
            raise ValueError("'inject' goes with 'function' or 'world: true' (write a 'result')")
        if self.error is not None and self.fault is None:
            self.fault = "error"
        return self

    def injected(self, result: JsonValue) -> JsonValue:
        """``result`` with :attr:`inject` planted in it (unchanged without one)."""
        return inject_note(result, self.inject) if self.inject is not None else result


#: the field a planted text goes in (``_note``, ``__note`` ... when the result has one)
NOTE_FIELD = "note"


def inject_note(result: JsonValue, text: str) -> JsonValue:
    """``result`` with ``text`` added where a tool result would carry free text: a ``note``
    field of an object, a ``{"note": ...}`` item of a list, a paragraph of a string, else
    ``{"result": ..., "note": ...}``."""
    if isinstance(result, dict):
        key = NOTE_FIELD
        while key in result:
            key = "_" + key
        return {**result, key: text}
    if isinstance(result, list):
        return [*result, {NOTE_FIELD: text}]
    if isinstance(result, str):
        return f"{result}\n\n{text}"
    return {"result": result, NOTE_FIELD: text}


class FaultRate(Model):
    """Inject a fault into a fraction of tool calls (seeded, so runs are repeatable)."""

    kind: FaultKind
    rate: float = Field(ge=0, le=1)
    tools: list[str] = Field(default_factory=new_list, description="empty: every tool")


class ToolSpec(Model):
    """A tool the agent may call: a name, a description and a JSON Schema of its parameters."""

    name: str = Field(min_length=1)
    description: str = ""
    parameters: dict[str, JsonValue] = Field(
        default_factory=lambda: {"type": "object", "properties": {}},
        description="JSON Schema of the arguments object",
    )
    #: default simulated result for every case that does not say otherwise
    simulation: ToolSim | None = None
    #: test metadata, never shown to the model: True marks a tool an attacker wants the agent
    #: to call (money, deletion, export, outgoing data); None lets ``agentgauge redteam`` decide
    #: from the name and description. Left out of dumps, so request and cache keys are unchanged.
    privileged: bool | None = Field(default=None, exclude=True)
    #: True: an MCP server serves this tool (set on the tools of ``tools_from``; a suite may
    #: mark a tool its agent reaches over MCP itself), so its calls are ``mcp`` calls, else
    #: ``function`` calls (expectations' ``type:``, ``forbidden_types``). Left out of dumps
    #: like ``privileged``
    mcp: bool = Field(default=False, exclude=True)

    def call_type(self) -> CallType:
        """``mcp`` or ``function``: the type of a call to this tool."""
        return "mcp" if self.mcp else "function"

    def properties(self) -> dict[str, JsonValue]:
        props = self.parameters.get("properties")
        return props if isinstance(props, dict) else {}

    def required(self) -> list[str]:
        req = self.parameters.get("required")
        return [str(r) for r in req] if isinstance(req, list) else []
