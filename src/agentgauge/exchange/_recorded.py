"""The record of one recorded response (what an agent said and called for one case and trial)
and how it becomes the turns ``score_case`` scores. Read from a responses file by
``_responses.py`` and from OpenTelemetry traces by ``_capture.py``; both build it here."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from ..schema import Feedback, Labels, Message, ToolCall, TraceEvent

__all__ = ["RecordedResponse", "restore_tool_name", "split_turns"]


@dataclass(frozen=True, slots=True)
class RecordedResponse:
    """One recorded response: what the agent said and called for one case and trial."""

    case_id: str
    trial: int
    calls: list[ToolCall]
    text: str | None
    #: ``file:line`` of the record, for messages
    where: str
    #: ``native``, ``native-json-text`` (calls decoded from a JSON text), ``bfcl-fc``
    #: (function-calling result), ``bfcl-prompt`` (Python syntax), ``bfcl-multi`` (a
    #: multi-turn result: turns of steps) or ``otlp`` (traces)
    form: str
    #: a whole transcript (``messages`` in the native form)
    messages: list[Message] | None = None
    #: why no valid call could be decoded from a BFCL result (it then counts as "no call")
    decode_error: str | None = None
    #: the call names were rewritten by a function-calling API (``.`` became ``_``)
    dotted_names_mangled: bool = field(default=False)
    #: the route / skill / intents the agent reported (native ``labels``), for the module metrics
    labels: Labels | None = None
    #: the model and tool steps with their times, model, token usage and errors, when the
    #: response was read from OpenTelemetry traces (``form`` ``otlp``)
    trace: list[TraceEvent] | None = None
    #: how long the agent took on it (OTLP: the root span, or the turn's spans), when recorded
    latency_ms: float | None = None
    #: the whole conversation, the case's input and its later user turns included (agentgauge's
    #: own OTLP export), split at the case's user turns when scored: see :meth:`turns`
    conversation: list[Message] | None = None
    #: the trace it was read from (OTLP), and the user's feedback on it (span attributes): the
    #: result keeps both, so a feedback file keyed by trace id finds it
    trace_id: str | None = None
    feedback: Feedback | None = None

    def turns(self, tool_names: Collection[str], user_turns: int = 1) -> list[list[Message]]:
        """The agent's turns for ``score_case``: one turn, or with a whole ``conversation`` one
        per user turn of the case (``user_turns``: the input's and each later scripted one),
        split at the conversation's last ``user_turns`` user messages."""
        if self.form == "bfcl-multi" and self.conversation is not None:
            # exactly the result's turns: fewer than the case's is BFCL's force-termination
            count = sum(m.role == "user" for m in self.conversation)
            if count:
                return split_turns(self.conversation, count)
            return [list(self.conversation)] if self.conversation else []
        if self.conversation is not None:
            return split_turns(self.conversation, user_turns)
        if self.messages is not None:
            return [self.messages]
        calls = self.calls
        if self.dotted_names_mangled:
            calls = [
                ToolCall(name=restore_tool_name(c.name, tool_names), arguments=c.arguments, id=c.id)
                for c in calls
            ]
        message = Message(
            role="assistant", content=self.text, tool_calls=calls, tool_call_id=None, name=None
        )
        return [[message]]


def split_turns(conversation: Sequence[Message], user_turns: int) -> list[list[Message]]:
    """The agent's messages after each of the last ``user_turns`` user messages (a turn the
    conversation never reached is empty)."""
    users = [i for i, m in enumerate(conversation) if m.role == "user"][-max(1, user_turns) :]
    bounds = [*users, len(conversation)]
    turns = [
        [m for m in conversation[start + 1 : end] if m.role != "user"]
        for start, end in pairwise(bounds)
    ]
    if not users:
        turns = [[m for m in conversation if m.role not in ("system", "user")]]
    return turns + [[] for _ in range(user_turns - len(turns))]


def restore_tool_name(name: str, tool_names: Collection[str]) -> str:
    """``math_factorial`` -> ``math.factorial`` when that is one of ``tool_names``."""
    if name in tool_names:
        return name
    for tool in tool_names:
        if "." in tool and tool.replace(".", "_") == name:
            return tool
    return name
