"""Worlds: state the agent changes through its tools, and what the final state must be.

A suite's ``world`` is either *declarative* (a state document of named collections of records
and, per tool, one operation on it — no code) or a *Python* world class (suite code). Every case
and trial starts from a fresh copy of the initial state with the case's own patch; the trace
records every write; ``expect.state`` grades the state after the turn (docs/worlds.md).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from .._factories import new_dict, new_list
from ._base import JsonValue, Model, ToolCall
from ._paths import parse_path

WorldOpKind = Literal["get", "find", "insert", "update", "delete"]
"""What a declarative tool does to its collection.

- ``get``: the record whose key the ``key`` argument holds (an error result when there is none);
- ``find``: the records whose fields equal the given arguments (a list, maybe empty);
- ``insert``: a new record from the arguments (an error result when its key exists);
- ``update``: write the arguments (and ``set``) into an existing record;
- ``delete``: remove an existing record.
"""

#: the key field of a collection when ``keys`` does not name one
DEFAULT_KEY = "id"


class WorldOp(Model):
    """The operation a tool performs on the declarative world's state."""

    op: WorldOpKind
    #: the collection it reads or writes (a top-level name of the state)
    collection: str = Field(min_length=1)
    #: the argument holding the record's key (default: the collection's key field name)
    key: str | None = None
    #: record field <- argument name, for what is written (insert / update) or matched (find);
    #: None: every argument but the key, under its own name
    fields: dict[str, str] | None = None
    #: constant field values written (insert / update), e.g. ``{status: cancelled}``
    set: dict[str, JsonValue] = Field(default_factory=new_dict)
    #: precondition on the record (get / update / delete): each field must equal its value,
    #: else the agent gets an error result and nothing is written
    require: dict[str, JsonValue] = Field(default_factory=new_dict)
    #: what the agent sees on success instead of the record (None: the record)
    result: JsonValue = None

    @model_validator(mode="after")
    def _fits_op(self) -> WorldOp:
        if self.set and self.op not in ("insert", "update"):
            raise ValueError(f"'set' writes values: only for insert or update, not {self.op}")
        if self.require and self.op in ("find", "insert"):
            raise ValueError(f"'require' checks an existing record: not for {self.op}")
        return self


class WorldSpec(Model):
    """``world:`` of a suite: the initial state and how tools act on it.

    Declarative: ``state`` (or ``state_file``, read by the loader into ``state``) holds named
    collections, each a mapping from a record's key to the record (a list of records with a key
    field is accepted and turned into that mapping); ``operations`` maps tool names to
    :class:`WorldOp`. Python: ``class`` names ``file.py:Class`` of the suite's folder (suite
    code, run only with ``--allow-suite-code``), built with the state (``Class(state)``); its
    public methods are the tools, its ``snapshot()`` (or its public attributes) the state graded.
    """

    #: the initial state: collection name -> {key: record} (Python worlds: any JSON object)
    state: dict[str, JsonValue] = Field(default_factory=new_dict)
    #: a YAML/JSON file holding ``state`` (relative to the suite file; the loader reads it)
    state_file: str | None = None
    #: the key field of each collection (default ``id``), shown to the agent with each record
    keys: dict[str, str] = Field(default_factory=new_dict)
    #: tool name -> its operation (declarative worlds)
    operations: dict[str, WorldOp] = Field(default_factory=new_dict)
    #: ``file.py:Class``: a Python world (suite code)
    class_: str | None = Field(default=None, alias="class")
    #: a world that ships with agentgauge or a package, by name (``agentgauge.worlds``
    #: ``register_world``): built from the state, not suite code
    builtin: str | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _one_kind(self) -> WorldSpec:
        kinds = [k for k, v in (("class", self.class_), ("builtin", self.builtin),
                                ("operations", self.operations)) if v]  # fmt: skip
        if len(kinds) > 1:
            raise ValueError(f"give one of 'class' (a Python world), 'builtin' or 'operations', "
                             f"not {' and '.join(kinds)}")  # fmt: skip
        if self.state_file is not None and self.state:
            raise ValueError("give either 'state' or 'state_file', not both")
        if self.declarative:
            self.__dict__["state"] = _keyed_state(self.state, self.keys)
        return self

    @property
    def declarative(self) -> bool:
        """No code: collections of records and the operations on them."""
        return self.class_ is None and self.builtin is None

    def key_field(self, collection: str) -> str:
        return self.keys.get(collection, DEFAULT_KEY)


def _keyed_state(state: dict[str, Any], keys: dict[str, str]) -> dict[str, Any]:
    """Declarative collections as {key: record}: a list of records is keyed by its key field."""
    out: dict[str, Any] = {}
    for name, coll in state.items():
        key = keys.get(name, DEFAULT_KEY)
        if isinstance(coll, list):
            keyed: dict[str, Any] = {}
            for i, rec in enumerate(coll):
                if not isinstance(rec, dict) or key not in rec:
                    raise ValueError(f"state.{name}[{i}]: a record needs its key field '{key}'")
                k = str(rec[key])
                if k in keyed:
                    raise ValueError(f"state.{name}[{i}]: key '{k}' appears twice")
                keyed[k] = {f: v for f, v in rec.items() if f != key}
            out[name] = keyed
        elif isinstance(coll, dict):
            for k, rec in coll.items():
                if not isinstance(rec, dict):
                    raise ValueError(
                        f"state.{name}.{k}: a record is a mapping of fields, got "
                        f"{type(rec).__name__}"
                    )
            out[name] = coll
        else:
            raise ValueError(
                f"state.{name}: a collection is a mapping of key -> record (or a list of "
                f"records), got {type(coll).__name__}"
            )
    return out


class CaseWorld(Model):
    """A case's own starting state: ``state`` replaces the world's, ``patch`` is merged on top
    (a JSON merge patch: a mapping merges, ``null`` deletes, anything else replaces)."""

    state: dict[str, JsonValue] | None = None
    patch: dict[str, JsonValue] = Field(default_factory=new_dict)


_CHECK_KINDS = ("equals", "contains", "matches", "absent", "count")


class StateCheck(Model):
    """One assertion on the state: the value at ``path`` equals / contains / matches, is absent,
    or holds ``count`` items (records matching ``where``, when given).

    ``path`` is dotted, with ``[n]`` for a list item and ``["a.b"]`` for a key with dots:
    ``orders.A1.status``, ``carts.U1.items[0].sku``.
    """

    path: str = Field(min_length=1)
    #: exactly this value (numbers compare by value: 1 == 1.0)
    equals: JsonValue = None
    #: a string holding this text, a list holding this item (an object item: holding these
    #: fields), or an object holding these fields
    contains: JsonValue = None
    #: a string matching this regular expression (fully)
    matches: str | None = None
    #: True: nothing at ``path``; False: something there
    absent: bool | None = None
    #: the number of items (records of a collection, list items, object keys)
    count: int | None = Field(default=None, ge=0)
    #: with ``count``: only the items whose fields equal these
    where: dict[str, JsonValue] = Field(default_factory=new_dict)

    @field_validator("path")
    @classmethod
    def _path(cls, value: str) -> str:
        parse_path(value)
        return value

    @model_validator(mode="after")
    def _one_kind(self) -> StateCheck:
        given = [k for k in _CHECK_KINDS if k in self.model_fields_set]
        if len(given) != 1:
            shown = ", ".join(given) if given else "none"
            raise ValueError(f"give exactly one of {', '.join(_CHECK_KINDS)} (got {shown})")
        if self.where and self.kind != "count":
            raise ValueError("'where' filters the items of 'count'")
        return self

    @property
    def kind(self) -> str:
        return next(k for k in _CHECK_KINDS if k in self.model_fields_set)


class StateExpectation(Model):
    """``expect.state``: what the world's state must be after the turn (the final state, on the
    last turn). Every part given must hold."""

    #: assertions on paths of the state
    checks: list[StateCheck] = Field(default_factory=new_list)
    #: paths (collections, records) that must be exactly as they were at the start of the case
    unchanged: list[str] = Field(default_factory=new_list)
    #: the state must equal the one the reference actions reach from the same start
    same_as_reference: bool = False
    #: the reference actions of this turn (default: the turn's expected tool calls, with the
    #: value of each argument matcher); used by ``same_as_reference`` of this and later turns
    reference: list[ToolCall] | None = None
    #: paths left out of the reference comparison (generated ids, timestamps)
    ignore: list[str] = Field(default_factory=new_list)

    @field_validator("unchanged", "ignore")
    @classmethod
    def _paths(cls, value: list[str]) -> list[str]:
        for path in value:
            parse_path(path)
        return value

    @model_validator(mode="after")
    def _something(self) -> StateExpectation:
        if not (self.checks or self.unchanged or self.same_as_reference):
            raise ValueError("give checks, unchanged or same_as_reference")
        return self


class StateWrite(Model):
    """One change a tool call made to the state: ``insert`` (nothing was at ``path``),
    ``update`` or ``delete`` (nothing is left)."""

    path: str
    op: Literal["insert", "update", "delete"]
    before: JsonValue = None
    after: JsonValue = None


class StateDiff(Model):
    """One difference between an expected and the actual state: ``missing`` (expected, not
    there), ``unexpected`` (there, not expected) or ``differs``."""

    path: str
    kind: Literal["missing", "unexpected", "differs"]
    expected: JsonValue = None
    actual: JsonValue = None
    #: which check found it: ``checks[0]``, ``unchanged``, ``reference``
    source: str = ""


class WorldRecord(Model):
    """What a result keeps of its world: the final state, and what the state checks found."""

    #: the state at the end of the case (JSON)
    final: dict[str, JsonValue] = Field(default_factory=new_dict)
    #: the state checks' verdict (the goal reached); None: the case checks no state
    goal_met: bool | None = None
    #: the differences the state checks found (empty when they passed)
    diff: list[StateDiff] = Field(default_factory=new_list)
