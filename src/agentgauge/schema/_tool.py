"""Tool definitions and their simulated behaviour."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from ._base import JsonValue, Model

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
        if self.error is not None and self.fault is None:
            self.fault = "error"
        return self


class FaultRate(Model):
    """Inject a fault into a fraction of tool calls (seeded, so runs are repeatable)."""

    kind: FaultKind
    rate: float = Field(ge=0, le=1)
    tools: list[str] = Field(default_factory=list, description="empty: every tool")


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

    def properties(self) -> dict[str, JsonValue]:
        props = self.parameters.get("properties")
        return props if isinstance(props, dict) else {}

    def required(self) -> list[str]:
        req = self.parameters.get("required")
        return [str(r) for r in req] if isinstance(req, list) else []
