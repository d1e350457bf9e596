"""An expectation's own call and step bounds: a minimum above its maximum is refused for both
pairs (the validator checks them only when a minimum is given: schema/_expect.py), one bound
alone or equal bounds are accepted."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from agentgauge.schema import Expectation


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"min_calls": 3, "max_calls": 1}, "min_calls 3 is above max_calls 1"),
        (
            {"min_model_steps": 2, "max_model_steps": 1},
            "min_model_steps 2 is above max_model_steps 1",
        ),
        (
            {"min_calls": 1, "min_model_steps": 5, "max_model_steps": 4},
            "min_model_steps 5 is above",
        ),
    ],
)
def test_a_minimum_above_its_maximum_is_refused(given: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Expectation.model_validate(given)


@pytest.mark.parametrize(
    "given",
    [
        {},
        {"max_calls": 0},
        {"min_calls": 2},
        {"min_model_steps": 3, "max_model_steps": 3},
        {"min_calls": 1, "max_calls": 4, "max_model_steps": 2},
    ],
)
def test_open_or_ordered_bounds_are_accepted(given: dict[str, Any]) -> None:
    assert Expectation.model_validate(given).limits().model_dump() == {
        "min_calls": given.get("min_calls"),
        "max_calls": given.get("max_calls"),
        "min_model_steps": given.get("min_model_steps"),
        "max_model_steps": given.get("max_model_steps"),
    }
