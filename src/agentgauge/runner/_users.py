"""The simulated user of each case (docs/users.md): which kind, which model, which seed, and the
conversation the runner plays the agent in."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .._suite_code import SuiteCodePolicy
from ..providers import Provider, ResponseCache, RetryPolicy, resolve_provider
from ..schema import (
    USER_TEMPLATE,
    Case,
    Message,
    Suite,
    Usage,
    UserKind,
    UserSimulator,
    UserSpec,
)
from ._config import RunConfig
from ._loop import Transcript
from ._prices import FREE_PREFIXES, cost_usd
from ._world import CaseWorldRun

if TYPE_CHECKING:
    from ..users import Conversation, SimulatedUser

__all__ = [
    "UserFactory",
    "check_user_models",
    "converse",
    "run_users",
    "user_kind",
    "user_simulator",
]


def user_kind(spec: UserSpec, user_model: str | None) -> UserKind:
    """``spec.kind``; unset: ``model`` when a model is named (``user.model``, ``--user-model``)."""
    if spec.kind is not None:
        return spec.kind
    return "model" if (spec.model or user_model) else "scripted"


def user_simulator(specs: list[UserSpec], user_model: str | None, seed: int) -> UserSimulator:
    """What run.json records of a run's users: their kinds, models, template and seed."""
    kinds = sorted({user_kind(s, user_model) for s in specs})
    models = sorted(
        {user_model or s.model or "" for s in specs if user_kind(s, user_model) == "model"} - {""}
    )
    model_seeds = sorted({s.seed for s in specs if s.seed is not None})
    return UserSimulator(
        kinds=kinds,
        models=models,
        template=USER_TEMPLATE if "model" in kinds else None,
        seed=(model_seeds[0] if len(model_seeds) == 1 else seed) if "model" in kinds else None,
    )


def _price(provider: Provider) -> Callable[[str, Usage], float | None]:
    free = provider.name.startswith(FREE_PREFIXES)
    return lambda model, usage: cost_usd(provider.name if free else model, usage)


@dataclass
class UserFactory:
    """Builds each case's simulated user; a suite's ``user.model`` passes the suite policy (its
    code and the endpoint that would get your key), ``--user-model`` is the caller's word."""

    suite: Suite
    user_model: str | None
    seed: int
    cache: ResponseCache | None
    retry: RetryPolicy
    code: SuiteCodePolicy
    #: where ``user_model`` was named when a file named it (run.json on resume), else None
    user_model_by: str | None = None
    _providers: dict[str, Provider] = field(default_factory=dict)

    def _provider(self, spec: UserSpec) -> Provider:
        name = self.user_model or spec.model
        if name is None:
            from ..errors import UserError

            raise UserError("user.kind: model needs a model: give user.model or --user-model")
        got = self._providers.get(name)
        if got is None:
            if self.user_model is None:
                resolved = self.code.check_spec(name, "user model")
            elif self.user_model_by is not None:
                resolved = self.code.check_spec(name, "user model", named_by=self.user_model_by)
            else:
                resolved = name
            got = self._providers[name] = resolve_provider(resolved)
        return got

    def start(self, case: Case, trial: int, budget_s: float | None) -> Conversation | None:
        """The conversation of ``case``'s trial (None: the case has no user)."""
        spec = self.suite.user_for(case)
        if spec is None:
            return None
        from ..users import Conversation, ModelUser, ModelUserConfig, ScriptedUser

        kind = user_kind(spec, self.user_model)
        user: SimulatedUser
        if kind == "scripted":
            return Conversation(spec, ScriptedUser(spec), case, budget_s=budget_s)
        provider = self._provider(spec)
        seed = (spec.seed if spec.seed is not None else self.seed) + trial
        config = ModelUserConfig(
            seed=seed, cache=self.cache, policy=self.retry, price=_price(provider)
        )
        user = ModelUser(spec, provider, config)
        return Conversation(
            spec,
            user,
            case,
            model=provider.name,
            template=USER_TEMPLATE,
            seed=seed,
            budget_s=budget_s,
        )


def _last_text(turn: list[Message]) -> str:
    for msg in reversed(turn):
        if msg.role == "assistant" and msg.content and msg.content.strip():
            return msg.content
    return ""


async def converse(
    conv: Conversation,
    tr: Transcript,
    play: Callable[[int], Awaitable[None]],
    world: CaseWorldRun | None,
) -> None:
    """After the agent's first turn: the user answers, the agent replies, ... until the
    conversation ends (the user's messages and steps go into ``tr``)."""
    turn = 0
    while True:
        state = world.turns[-1] if world is not None and world.turns else None
        answer = await conv.next(_last_text(tr.turns[-1]), state)
        if answer.event is not None:
            tr.trace.append(answer.event)
        if answer.text is not None:
            tr.messages.append(Message(role="user", content=answer.text))
        if answer.end:
            return
        turn += 1
        tr.turns.append([])
        await play(turn)
        if world is not None:
            world.end_turn()


def run_users(suite: Suite, cases: Iterable[Case], config: RunConfig) -> UserSimulator | None:
    """run.json's ``user_simulator`` for these cases (None: none has a user)."""
    specs = [s for c in cases if (s := suite.user_for(c)) is not None]
    return user_simulator(specs, config.user_model, config.seed) if specs else None


def check_user_models(
    specs: Iterable[UserSpec], user_model: str | None, policy: SuiteCodePolicy
) -> None:
    """A suite's ``user.model`` passes the suite policy before the run, like its judge: a
    ``python:`` file of its folder with the opt-in, an endpoint that would get your key only
    with ``--allow-suite-endpoints``. ``--user-model`` replaces them all (the caller's word)."""
    if user_model is not None:
        return
    specs = list(specs)
    if any(s.kind == "model" and not s.model for s in specs):
        from ..errors import UserError

        raise UserError("user.kind: model needs a model: give user.model or --user-model")
    for name in dict.fromkeys(s.model for s in specs if s.model):
        policy.check_spec(name, "user model")
