"""Simulated users who talk back (docs/users.md).

A case's ``user:`` is played by a :class:`ScriptedUser` (rules, offline, deterministic) or a
:class:`ModelUser` (a provider from a versioned prompt template, seeded and cached); a
:class:`Conversation` drives it turn by turn between the agent's replies and attributes a broken
conversation to the user (``user_error``) with the deterministic checks of :class:`UserGuard`.
"""

from ._api import SimulatedUser, UserTurn, UserView
from ._checks import UserGuard, recorded_user_error
from ._conversation import Conversation, goal_reached
from ._model import ModelUser, ModelUserConfig, render_prompt, user_request_key
from ._scripted import ScriptedUser

__all__ = [
    "Conversation",
    "ModelUser",
    "ModelUserConfig",
    "ScriptedUser",
    "SimulatedUser",
    "UserGuard",
    "UserTurn",
    "UserView",
    "goal_reached",
    "recorded_user_error",
    "render_prompt",
    "user_request_key",
]
