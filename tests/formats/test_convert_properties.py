"""Property test: any tool built from the JSON Schema keywords every format shares survives a
round trip through every format unchanged."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentgauge.formats._convert import TOOL_FORMATS, tools_from_data, tools_to_format
from agentgauge.schema import ToolSpec

names = st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True)
texts = st.text(max_size=20)


def _scalar() -> st.SearchStrategy[dict[str, Any]]:
    string = st.fixed_dictionaries(
        {"type": st.just("string")},
        optional={
            "description": texts,
            "enum": st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=4, unique=True),
            "format": st.sampled_from(["date", "date-time"]),
        },
    )
    number = st.fixed_dictionaries(
        {"type": st.sampled_from(["number", "integer"])},
        optional={
            "minimum": st.integers(-5, 0),
            "maximum": st.integers(1, 9),
            "description": texts,
        },
    )
    boolean = st.fixed_dictionaries(
        {"type": st.just("boolean")}, optional={"default": st.booleans()}
    )
    return st.one_of(string, number, boolean)


def _schema(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    array = st.fixed_dictionaries({"type": st.just("array"), "items": children})
    obj = st.dictionaries(names, children, min_size=1, max_size=4).flatmap(
        lambda props: st.fixed_dictionaries(
            {"type": st.just("object"), "properties": st.just(props)},
            optional={"required": st.lists(st.sampled_from(sorted(props)), unique=True)},
        )
    )
    return st.one_of(array, obj)


schemas = st.recursive(_scalar(), _schema, max_leaves=8)
tools = st.builds(
    ToolSpec,
    name=names,
    description=texts,
    parameters=st.dictionaries(names, schemas, min_size=1, max_size=4).map(
        lambda props: {"type": "object", "properties": props}
    ),
)


@settings(max_examples=60, deadline=None)
@given(tool=tools)
def test_every_format_round_trips(tool: ToolSpec) -> None:
    for fmt in TOOL_FORMATS:
        data = json.loads(json.dumps(tools_to_format([tool], fmt)))
        assert tools_from_data(data) == [tool], fmt
