"""tool_from_function / @tool: a ToolSpec from a typed function and its docstring."""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypedDict

import pytest
from pydantic import BaseModel, Field

from agentgauge.schema import ToolSpec
from agentgauge.schema._from_function import tool, tool_from_function


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Address(BaseModel):
    street: str
    zip: str | None = None


class Window(TypedDict, total=False):
    start: str
    end: str


class Opaque:
    """A plain class: pydantic has no schema for it."""


@dataclass
class Point:
    lat: float
    lon: float


def props(spec: ToolSpec) -> dict[str, Any]:
    return spec.properties()


def test_google_docstring_and_basic_types() -> None:
    def get_weather(city: str, days: int, unit: Unit = Unit.CELSIUS, detailed: bool = False) -> str:
        """Current weather for a city.

        Uses the simulated service.

        Args:
            city: City name, e.g. Paris.
            days (int): How many days
                of forecast.
            unit: Temperature unit.

        Returns:
            A summary.
        """
        return ""

    spec = tool_from_function(get_weather)
    assert spec.name == "get_weather"
    assert spec.description == "Current weather for a city. Uses the simulated service."
    assert spec.parameters == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name, e.g. Paris."},
            "days": {"type": "integer", "description": "How many days of forecast."},
            "unit": {
                "type": "string",
                "enum": ["celsius", "fahrenheit"],
                "default": "celsius",
                "description": "Temperature unit.",
            },
            "detailed": {"type": "boolean", "default": False},
        },
        "required": ["city", "days"],
    }


def test_containers_literals_and_optionals() -> None:
    def search(
        query: str,
        tags: list[str] | None = None,
        mode: Literal["fast", "exact"] = "fast",
        limits: dict[str, int] | None = None,
        score: float | None = None,
    ) -> None:
        """Search."""

    p = props(tool_from_function(search))
    assert p["tags"] == {"type": "array", "items": {"type": "string"}}
    assert p["mode"] == {"type": "string", "enum": ["fast", "exact"], "default": "fast"}
    assert p["limits"] == {"type": "object", "additionalProperties": {"type": "integer"}}
    assert p["score"] == {"type": "number"}
    assert tool_from_function(search).required() == ["query"]


def test_nested_models_typeddicts_and_dataclasses_are_inlined() -> None:
    def ship(to: Address, window: Window, at: Point | None = None) -> None:
        """Ship a parcel."""

    p = props(tool_from_function(ship))
    assert p["to"] == {
        "type": "object",
        "properties": {"street": {"type": "string"}, "zip": {"type": "string"}},
        "required": ["street"],
    }
    assert p["window"] == {
        "type": "object",
        "properties": {"start": {"type": "string"}, "end": {"type": "string"}},
    }
    assert p["at"]["properties"] == {"lat": {"type": "number"}, "lon": {"type": "number"}}
    assert "$defs" not in tool_from_function(ship).parameters


def test_numpy_and_sphinx_docstrings() -> None:
    def numpy_style(a: int, b: str = "x") -> None:
        """Add things.

        Parameters
        ----------
        a : int
            The first.
        b : str, optional
            The second,
            continued.
        """

    def sphinx_style(a: int) -> None:
        """Do it.

        :param a: the value
        :returns: nothing
        """

    n = props(tool_from_function(numpy_style))
    assert n["a"]["description"] == "The first."
    assert n["b"]["description"] == "The second, continued."
    assert tool_from_function(numpy_style).description == "Add things."
    assert props(tool_from_function(sphinx_style))["a"]["description"] == "the value"
    assert tool_from_function(sphinx_style).description == "Do it."


def test_annotated_field_and_skipped_parameters() -> None:
    class Service:
        def lookup(
            self,
            n: Annotated[int, Field(ge=1, description="How many.")],
            anything=None,  # unannotated on purpose
            *args: Any,
            **kwargs: Any,
        ) -> None:
            """Look up."""

    spec = tool_from_function(Service().lookup)
    assert spec.properties() == {
        "n": {"type": "integer", "minimum": 1, "description": "How many."},
        "anything": {},
    }
    assert spec.required() == ["n"]


def test_decorator_bare_and_with_overrides() -> None:
    @tool
    def send_email(to: str, subject: str) -> str:
        """Send an email."""
        return f"sent to {to}"

    @tool(name="lookup", description="Find a contact.")
    def find(name: str) -> None:
        """Ignored docstring."""

    assert send_email("a@b.c", "hi") == "sent to a@b.c"  # still callable
    spec = send_email.tool_spec  # type: ignore[attr-defined]
    assert spec.name == "send_email"
    assert spec.required() == ["to", "subject"]
    assert tool_from_function(send_email) is spec
    assert find.tool_spec.name == "lookup"  # type: ignore[attr-defined]
    assert find.tool_spec.description == "Find a contact."  # type: ignore[attr-defined]


def test_property_named_title_is_kept() -> None:
    def create_event(title: str, date: str) -> None:
        """Create an event."""

    assert set(props(tool_from_function(create_event))) == {"title", "date"}


def test_exported_from_the_packages() -> None:
    import agentgauge
    import agentgauge.schema

    assert agentgauge.schema.tool is tool
    assert agentgauge.tool_from_function is tool_from_function


def test_unsupported_parameter_types_raise_a_clear_type_error() -> None:
    def takes_callback(callback: Callable[[int], int]) -> None:
        """Nope."""

    def takes_opaque(thing: Opaque) -> None:
        """Nope."""

    with pytest.raises(TypeError, match="cannot describe the parameters of takes_callback"):
        tool_from_function(takes_callback)
    with pytest.raises(TypeError, match="cannot describe the parameters of takes_opaque"):
        tool_from_function(takes_opaque)


def test_unresolvable_annotations_name_the_function() -> None:
    class Local:
        pass

    def uses_local(thing: Local) -> None:
        """Nope."""

    with pytest.raises(TypeError, match=r"cannot resolve the type hints of .*uses_local"):
        tool_from_function(uses_local)
