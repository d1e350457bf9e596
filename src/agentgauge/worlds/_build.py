"""Building a case's world: the suite's initial state, the case's own state or patch, a fresh
copy per trial, a declarative or a Python world."""

from __future__ import annotations

from typing import Any

from .._suite_code import SuiteCodePolicy
from ..schema import Case, WorldSpec
from ._api import State, World, WorldError
from ._diff import merge_patch
from ._paths import copy_json
from ._python import PythonWorld, load_world_class
from ._registry import builtin_world
from ._table import TableWorld

__all__ = ["WorldBuilder", "start_state"]


def start_state(spec: WorldSpec, case: Case) -> State:
    """The state ``case`` starts from: its own ``world.state`` or the suite's, with its
    ``world.patch`` merged on top (a fresh copy each call)."""
    own = case.world
    base: Any = spec.state if own is None or own.state is None else own.state
    state = merge_patch(base, own.patch) if own is not None and own.patch else base
    if not isinstance(state, dict):
        raise WorldError("the case's world state must be an object")
    return copy_json(state)  # type: ignore[no-any-return]


class WorldBuilder:
    """Builds a fresh world per case and trial from the suite's ``world`` (a Python world's
    class is loaded once, under the suite code policy given or in force when first built)."""

    def __init__(self, spec: WorldSpec, policy: SuiteCodePolicy | None = None) -> None:
        self.spec = spec
        self._policy = policy
        self._cls: type[Any] | None = None

    @property
    def is_python(self) -> bool:
        return self.spec.class_ is not None

    def _builtin(self, state: State) -> World:
        assert self.spec.builtin is not None
        factory = builtin_world(self.spec.builtin)
        try:
            world = factory(state)
        except WorldError:
            raise
        except Exception as exc:
            raise WorldError(f"built-in world '{self.spec.builtin}' failed: "
                             f"{type(exc).__name__}: {exc}") from exc  # fmt: skip
        if not isinstance(world, World):
            raise WorldError(f"built-in world '{self.spec.builtin}' is not a World "
                             "(tool_names, apply, snapshot)")  # fmt: skip
        return world

    def load(self, policy: SuiteCodePolicy | None = None) -> None:
        """Check and import a Python world's class now (UserError when refused), or find a
        built-in world."""
        if self.spec.builtin is not None:
            builtin_world(self.spec.builtin)
            return
        ref = self.spec.class_
        if ref is None or self._cls is not None:
            return
        policy = policy or self._policy
        if policy is None:
            from ..errors import UserError

            raise UserError(f"world class '{ref}': no suite code policy to load it under")
        self._cls = load_world_class(ref, policy)

    def build(self, case: Case, policy: SuiteCodePolicy | None = None) -> World:
        """A fresh world for one trial of ``case`` (WorldError: its state is not usable)."""
        state = start_state(self.spec, case)
        if self.spec.builtin is not None:
            return self._builtin(state)
        if self.spec.class_ is None:
            return TableWorld(self.spec, state, copy_state=False)
        self.load(policy)
        assert self._cls is not None
        return PythonWorld(self._cls, state)
