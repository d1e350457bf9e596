"""Default factories of pydantic fields that pydantic inspects cheaply (issue 26, start-up).

pydantic asks each field's ``default_factory`` whether it takes the validated data — an
``inspect.signature`` of it — every time it builds a schema holding the field, and a model's
fields are built again inside each model that nests it. For a builtin such as ``list`` or
``dict`` that signature is parsed from the type's text signature (``tokenize``, whose pattern
is compiled on first use, then ``ast.parse``); for a model class it is the class's whole
signature, built for nothing. A one-case ``agentgauge run`` made ~190 such calls, about 4 % of
its instructions. So the models write ``Field(default_factory=new_list)`` where they wrote
``list`` and ``Field(default_factory=factory_of(Rate))`` where they wrote ``Rate`` — the same
values — and each of these functions carries its signature (no parameters) as
``__signature__``, which ``inspect.signature`` returns as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from inspect import Signature
from typing import Any, TypeVar

__all__ = ["factory_of", "new_dict", "new_list"]

_T = TypeVar("_T")
#: the signature of each factory here: no parameters
_NO_PARAMETERS = Signature()


def new_list() -> list[Any]:
    """A new empty list (``default_factory=list``)."""
    return []


new_list.__signature__ = _NO_PARAMETERS  # type: ignore[attr-defined]


def new_dict() -> dict[Any, Any]:
    """A new empty dict (``default_factory=dict``)."""
    return {}


new_dict.__signature__ = _NO_PARAMETERS  # type: ignore[attr-defined]


def factory_of(model: Callable[[], _T]) -> Callable[[], _T]:
    """A function making ``model()`` (``default_factory=model``)."""

    def make() -> _T:
        return model()

    make.__qualname__ = make.__name__ = f"new_{getattr(model, '__name__', 'value')}"
    make.__signature__ = _NO_PARAMETERS  # type: ignore[attr-defined]
    return make
