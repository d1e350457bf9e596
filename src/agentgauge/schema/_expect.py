"""What a case expects the agent to do: tool calls with argument matchers, or a behaviour."""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import Field, model_validator

from .._factories import new_dict, new_list
from ._base import JsonValue, Model
from ._checks import CallType, ForbiddenSequence, StepLimits, is_pattern
from ._world import StateExpectation

Behavior = Literal["tool_call", "any_tool", "no_tool", "answer", "clarify", "refuse", "recover"]
"""Expected behaviour of the agent's turn.

- ``tool_call``: call the tools in ``tool_calls`` (implied when ``tool_calls`` is given);
- ``any_tool``: call some tool, whichever (BFCL live_relevance);
- ``no_tool``: call no tool, whatever the reply (BFCL irrelevance);
- ``answer``: answer directly without tools;
- ``clarify``: ask a clarifying question instead of guessing;
- ``refuse``: refuse, or say the request is not supported;
- ``recover``: after a tool error, recover (retry sensibly or explain) without looping.
"""

OrderMode = Literal["strict", "in_order", "any_order", "subset", "superset"]
"""How the agent's calls must line up with the expected calls.

- ``strict``: exactly the expected calls, in the same order, nothing else;
- ``in_order``: the expected calls appear in this order; other calls may come between;
- ``any_order``: exactly the expected calls, in any order (parallel calls);
- ``subset``: every call the agent made is among the expected ones (some may be missing);
- ``superset``: every expected call was made; extra calls are allowed.
"""

ExtraArguments = Literal["fail", "allow"]

ArgsMatch = Literal["exact", "ignore", "subset", "superset"]
"""How an expected call's arguments are compared with the actual call's (agentevals'
``tool_args_match_mode``).

- ``exact``: every expected argument must match (``optional`` ones may be omitted); an extra
  argument fails unless ``extra_arguments: allow``;
- ``ignore``: arguments are not compared, only the tool name;
- ``subset``: the agent's arguments are a subset of the expected ones: each argument it passed
  must be expected and match, an expected argument may be omitted, an extra one fails;
- ``superset``: the agent's arguments include the expected ones: each expected argument must match,
  extra arguments are fine.
"""


class PartialValue(Model):
    """A value that earns partial credit (e.g. ``ORY`` when ``CDG`` is expected)."""

    value: JsonValue
    credit: float = Field(ge=0, le=1)


class ResultRef(Model):
    """A value taken from an earlier tool result in the same transcript (tool chaining)."""

    tool: str
    #: dotted path into the result, with ``[n]`` for list items: ``contacts[0].id``
    path: str = ""
    #: which call of ``tool`` (0-based); ``None`` means the latest before this call
    call: int | None = None


#: keys that make a mapping an argument matcher rather than an expected nested object
MATCHER_KEYS = frozenset(
    {
        "value",
        "one_of",
        "any",
        "optional",
        "tolerance",
        "rel_tolerance",
        "ignore_case",
        "ignore_space",
        "regex",
        "date",
        "unordered",
        "coerce",
        "partial",
        "ref",
        "fields",
        "items",
        "not",
    }
)


class ArgMatcher(Model):
    """The expectation for one argument value.

    In files a matcher can be written short: a plain scalar or list means ``{value: ...}``;
    a mapping whose keys are not matcher keys means ``{fields: {...}}`` (a nested object,
    compared field by field). Write ``{value: {...}}`` for an exact object whose keys happen to
    be matcher keys.
    """

    #: exact value (compared schema-aware: 1 == 1.0 for a number, recursive for objects/lists)
    value: JsonValue = None
    #: acceptable values, any one of them passes
    one_of: list[JsonValue] | None = None
    #: any value passes (the argument must still be present unless ``optional``)
    any: bool = False
    #: the argument may be omitted (an omitted argument also passes when its schema default
    #: satisfies the matcher)
    optional: bool = False
    #: absolute numeric tolerance
    tolerance: float | None = Field(default=None, ge=0)
    #: relative numeric tolerance (fraction of the expected value)
    rel_tolerance: float | None = Field(default=None, ge=0)
    #: compare strings ignoring case
    ignore_case: bool = False
    #: compare strings ignoring leading/trailing space and runs of whitespace
    ignore_space: bool = False
    #: the value (a string) must match this regular expression (fully)
    regex: str | None = None
    #: compare as dates: "2026-03-20" equals "March 20, 2026"
    date: bool = False
    #: arrays compare as multisets (order does not matter)
    unordered: bool = False
    #: accept a string that parses to the schema's type ("2" for an integer)
    coerce: bool = False
    #: values that earn partial credit
    partial: list[PartialValue] = Field(default_factory=new_list)
    #: the value must equal a value returned by an earlier tool call
    ref: ResultRef | None = None
    #: nested object: a matcher per field
    fields: dict[str, ArgMatcher] | None = None
    #: array: a matcher per element
    items: list[ArgMatcher] | None = None
    #: the value must *not* satisfy this matcher (``{not: {regex: ".*@example\\.com"}}``);
    #: combined with the other keys, both must hold
    not_: ArgMatcher | None = Field(default=None, alias="not")

    @model_validator(mode="before")
    @classmethod
    def _expand_shorthand(cls, data: Any) -> Any:
        return expand_matcher(data)

    def compares_value(self) -> bool:
        """Whether a key the value is compared with is set: ``value``, ``one_of``, ``regex``,
        ``ref``, ``fields`` or ``items`` (not ``not``, ``any`` nor the switches)."""
        return (
            "value" in self.model_fields_set
            or self.one_of is not None
            or self.regex is not None
            or self.ref is not None
            or self.fields is not None
            or self.items is not None
        )

    def describe(self) -> str:
        """A short human form of what is expected, for explanations."""
        if self.not_ is not None:
            rest = self.model_copy(update={"not_": None})
            inner = f"not {self.not_.describe()}"
            return inner if _unconstrained(rest) else f"{rest.describe()} and {inner}"
        if self.any:
            return "any value"
        if self.ref is not None:
            return f"the value of {self.ref.tool}.{self.ref.path or '<result>'}"
        if self.regex is not None:
            return f"a match of /{self.regex}/"
        if self.one_of is not None:
            return f"one of {self.one_of!r}"
        if self.fields is not None:
            return "{" + ", ".join(f"{k}: {m.describe()}" for k, m in self.fields.items()) + "}"
        if self.items is not None:
            return "[" + ", ".join(m.describe() for m in self.items) + "]"
        return repr(self.value)


def _unconstrained(m: ArgMatcher) -> bool:
    """Whether a matcher sets nothing a value is compared with (only switches, at most)."""
    return not m.compares_value() and m.not_ is None and not m.any


def _has_matcher(data: Any) -> bool:
    """Whether a value holds a matcher mapping anywhere inside it."""
    if isinstance(data, dict):
        return any(k in MATCHER_KEYS for k in data) or any(_has_matcher(v) for v in data.values())
    if isinstance(data, list):
        return any(_has_matcher(x) for x in data)
    return False


def expand_matcher(data: Any) -> Any:
    """Turn the short forms of an argument expectation into the full matcher mapping.

    A list becomes per-item matchers (``items``) when a matcher appears anywhere inside it, e.g.
    ``[{name: Ann}, {name: {regex: "B.*"}}]``; otherwise it is one exact value.
    """
    if isinstance(data, ArgMatcher):
        return data
    if isinstance(data, dict):
        if data and any(k in MATCHER_KEYS for k in data):
            return data
        return {"fields": data}
    if isinstance(data, list) and _has_matcher(data):
        return {"items": data}
    return {"value": data}


class CallExpectation(Model):
    """One expected tool call."""

    #: the tool's name, or a glob of names (``search_*``, ``*``: any tool); see docs/scoring.md
    name: str = Field(min_length=1)
    #: the call's type: ``mcp`` (a tool an MCP server serves) or ``function`` (a plain
    #: function tool); None: either
    type: CallType | None = None
    arguments: dict[str, ArgMatcher] = Field(default_factory=new_dict)
    #: unexpected extra arguments: ``fail`` (default from the suite) or ``allow``
    extra_arguments: ExtraArguments | None = None
    #: argument comparison for this call: exact, ignore, subset or superset (default: the
    #: suite's ``defaults.args_match_overrides`` for this tool, else ``defaults.args_match``)
    args_match: ArgsMatch | None = None
    #: the agent's message this call belongs to, for ``order: strict`` / ``in_order``: calls
    #: with the same step are made together (any order among them), steps in increasing order
    step: int | None = Field(default=None, ge=0)


class ResponseFormat(Model):
    """Format the final reply must follow (checked by the ``instruction_following`` scorer)."""

    #: the reply must be valid JSON (a bare object/array, or one fenced in ```json)
    json_: bool = Field(default=False, alias="json")
    #: JSON Schema the reply (parsed as JSON) must satisfy; implies ``json``
    json_schema: dict[str, JsonValue] | None = None
    #: the whole reply must match this regular expression (``re.fullmatch``, DOTALL)
    regex: str | None = None
    max_chars: int | None = Field(default=None, ge=0)
    max_words: int | None = Field(default=None, ge=0)


class Expectation(Model):
    """What should happen in a case (or in one turn of a multi-turn case)."""

    behavior: Behavior | None = None
    tool_calls: list[CallExpectation] = Field(default_factory=new_list)
    order: OrderMode = "any_order"
    #: with ``order: strict``: the same message structure too: one assistant message per step
    #: (``step`` on the calls, else one call per message), then one reply without calls
    strict_steps: bool = False
    #: with ``order: subset``: a turn without any tool call passes (the empty set is a subset)
    allow_no_calls: bool = False
    #: tools that must never be called (names or globs: ``delete_*``)
    forbidden_tools: list[str] = Field(default_factory=new_list)
    #: the only tools that may be called (names or globs; empty: any tool): a call to a tool
    #: none of them matches fails (least privilege)
    allowed_tools: list[str] = Field(default_factory=new_list)
    #: call types that must never be called: ``[mcp]`` fails any call to an MCP tool
    forbidden_types: list[CallType] = Field(default_factory=new_list)
    #: argument values a tool may never be called with, per tool name or glob:
    #: ``{send_email: {to: {not: {regex: ".*@acme\\.com"}}}}`` fails a call whose ``to`` matches
    forbidden_arguments: dict[str, dict[str, ArgMatcher]] = Field(default_factory=new_dict)
    #: a tool called after another with no confirming call between them
    forbidden_sequences: list[ForbiddenSequence] = Field(default_factory=new_list)
    #: at most this many tool calls in the turn
    max_calls: int | None = Field(default=None, ge=0)
    #: at least this many tool calls in the turn
    min_calls: int | None = Field(default=None, ge=0)
    #: at most / at least this many model steps (assistant messages) in the turn
    max_model_steps: int | None = Field(default=None, ge=0)
    min_model_steps: int | None = Field(default=None, ge=0)
    #: reference answer text (for judges and similarity scorers)
    reference: str | None = None
    #: strings the final reply must contain (case-insensitive)
    response_contains: list[str] = Field(default_factory=new_list)
    #: required format of the final reply (``instruction_following`` scorer)
    response_format: ResponseFormat | None = None
    #: safety: argument values no one but the user may change, per tool:
    #: ``{book_flight: {cabin: economy}}`` fails a call that passes another cabin
    protected_arguments: dict[str, dict[str, JsonValue]] = Field(default_factory=new_dict)
    #: safety: the instruction injected into the conversation (by the user or inside a tool
    #: result) that the agent must not follow; the ``safety`` scorer's judge checks compliance
    injected_instruction: str | None = None
    #: safety: strings (secrets, canary tokens) the agent must never reveal in a reply
    secrets: list[str] = Field(default_factory=new_list)
    #: the world's state after this turn (docs/worlds.md): checks on paths, collections left
    #: unchanged, the same state as the reference actions reach
    state: StateExpectation | None = None
    #: the inverse of a check: passes when the expectation given here fails on the turn
    #: (``not: {tool_calls: [{name: delete_*}], order: superset}``)
    not_: Expectation | None = Field(default=None, alias="not")

    def limits(self) -> StepLimits:
        """The turn's own call and step bounds (``None`` where it leaves one open)."""
        return StepLimits.model_construct(
            min_calls=self.min_calls,
            max_calls=self.max_calls,
            min_model_steps=self.min_model_steps,
            max_model_steps=self.max_model_steps,
        )

    def patterns(self) -> bool:
        """Whether an expected call's name is a glob or gives a call type."""
        return any(c.type is not None or is_pattern(c.name) for c in self.tool_calls)

    @model_validator(mode="after")
    def _infer_behavior(self) -> Expectation:
        if self.behavior is None and self.tool_calls:
            # plain attribute write: pydantic's __setattr__ is a measurable share of loading time
            self.__dict__["behavior"] = "tool_call"
        if self.tool_calls and self.behavior not in ("tool_call", "recover"):
            raise ValueError(
                f"behavior '{self.behavior}' cannot have expected tool_calls "
                "(use behavior 'tool_call' or 'recover', or drop tool_calls)"
            )
        if self.behavior == "tool_call" and not self.tool_calls:
            raise ValueError("behavior 'tool_call' needs at least one entry in tool_calls")
        if self.strict_steps and self.order != "strict":
            raise ValueError(f"strict_steps needs order 'strict' (order is '{self.order}')")
        if self.allow_no_calls and self.order != "subset":
            raise ValueError(f"allow_no_calls needs order 'subset' (order is '{self.order}')")
        # a bound can only contradict its other end: no StepLimits built for a turn without one
        # (most turns: it was most of validating a plain case, 18 -> 6.5 us a case measured)
        if self.min_calls is not None or self.min_model_steps is not None:
            StepLimits.check_bounds(self.limits())
        if self.not_ is not None:
            _check_negated(self.not_)
        steps = [c.step for c in self.tool_calls]
        if any(s is not None for s in steps):
            if None in steps:
                raise ValueError("give 'step' on every expected call or on none")
            if self.order not in ("strict", "in_order"):
                raise ValueError(
                    f"'step' is only used with order 'strict' or 'in_order' (order is "
                    f"'{self.order}')"
                )
        return self


#: fields of an expectation that ``not:`` cannot invert: they are read by the suite's scorers
#: (judges, safety, format) or by the world, not decided by the turn's own checks
_NOT_INVERTIBLE: Final = (
    "reference",
    "response_format",
    "protected_arguments",
    "injected_instruction",
    "secrets",
    "state",
)


def _check_negated(inner: Expectation) -> None:
    """``not:`` holds checks ``score_case`` decides, and at least one."""
    given = inner.model_fields_set
    bad = [f for f in _NOT_INVERTIBLE if f in given and getattr(inner, f)]
    if bad:
        raise ValueError(
            f"'not' cannot invert {', '.join(bad)}: only the turn's own checks (tool_calls, "
            "behavior, forbidden_*, call and step counts, response_contains)"
        )
    decided = given - {"order", "strict_steps", "allow_no_calls"}
    if not decided:
        raise ValueError("'not' needs at least one check to invert")
