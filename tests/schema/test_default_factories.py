"""Every default factory of agentgauge's models is one pydantic inspects cheaply (issue 26,
start-up; ``agentgauge/_factories.py``), and gives the value the type or class itself gave.

pydantic takes ``inspect.signature`` of a field's ``default_factory`` each time it builds a
schema holding the field: for ``list``, ``dict`` or a model class that parsing is ~4 % of a
one-case run. A new ``Field(default_factory=list)`` would bring it back without any other sign,
so every model of every agentgauge module is checked here.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Any

import pytest
from pydantic import BaseModel

import agentgauge
from agentgauge._factories import factory_of, new_dict, new_list
from agentgauge.metrics import Rate, Summary
from agentgauge.schema import Case, CaseResult, Suite, ToolCall

#: modules that import optional extras or run code when imported
_SKIP = ("agentgauge.__main__", "agentgauge.testing._local")


def _models(prefix: str = "agentgauge.") -> list[type[BaseModel]]:
    for info in pkgutil.walk_packages(agentgauge.__path__, "agentgauge."):
        if info.name.startswith(_SKIP):
            continue
        try:
            importlib.import_module(info.name)
        except ImportError:  # an optional extra that is not installed
            continue
    found: list[type[BaseModel]] = []
    todo = list(BaseModel.__subclasses__())
    while todo:
        model = todo.pop()
        todo.extend(model.__subclasses__())
        if model.__module__.startswith(prefix) and model not in found:
            found.append(model)
    return found


def _slow_factories(prefix: str = "agentgauge.") -> list[str]:
    slow = []
    for model in _models(prefix):
        for name, field in model.model_fields.items():
            factory: Any = field.default_factory
            if factory is None:
                continue
            # a Python function (its signature is read from its code, or is at hand): not a
            # builtin type, a model class (its whole signature), or another callable object
            if inspect.isfunction(factory):
                continue
            slow.append(f"{model.__module__}.{model.__qualname__}.{name}: {factory!r}")
    return slow


def test_no_model_field_has_a_type_as_its_default_factory() -> None:
    assert len(_models()) > 100  # the walk found the models (schema, metrics, load, ...)
    assert _slow_factories() == []


def test_the_check_finds_a_builtin_factory() -> None:
    """The check can fail: a model with ``default_factory=list`` or a model class is found."""
    from pydantic import Field

    class _Slow(BaseModel):
        items: list[int] = Field(default_factory=list)
        rate: Rate = Field(default_factory=Rate)

    _Slow.__module__ = _Slow.__qualname__ = "slow_test_model"
    slow = _slow_factories(prefix="slow_test_model")
    assert sorted(s.split(":")[0] for s in slow) == [
        "slow_test_model.slow_test_model.items",
        "slow_test_model.slow_test_model.rate",
    ]


def test_the_factories_give_new_values_equal_to_the_types() -> None:
    assert new_list() == []
    assert new_list() is not new_list()
    assert new_dict() == {}
    assert new_dict() is not new_dict()
    make = factory_of(Rate)
    assert make() == Rate()
    assert make() is not make()
    assert make.__name__ == "new_Rate"
    for factory in (new_list, new_dict, make):
        assert inspect.signature(factory) == inspect.Signature()


@pytest.mark.parametrize(
    ("model", "data"),
    [
        (ToolCall, {"name": "f"}),
        (Case, {"id": "c1", "input": "hi"}),
        (CaseResult, {"case_id": "c1", "status": "passed"}),
        (Suite, {"name": "s", "cases": [{"id": "c1", "input": "hi"}]}),
        (Summary, {}),
    ],
)
def test_defaults_are_fresh_values_per_instance(
    model: type[BaseModel], data: dict[str, Any]
) -> None:
    """Each instance gets its own empty list, dict or sub-model, as with ``list``/``dict``."""
    one, two = model.model_validate(data), model.model_validate(data)
    assert one == two
    assert one.model_dump() == two.model_dump()
    for name, field in model.model_fields.items():
        if field.default_factory is None or name in data:
            continue
        value = getattr(one, name)
        if isinstance(value, list | dict | BaseModel):
            assert value is not getattr(two, name), name
