"""``user_fidelity``: the judge's word on a simulated user (docs/users.md).

The deterministic checks of :class:`~agentgauge.users.UserGuard` come first (a fact given
unasked, one invented, a secret given away, an early end); what they cannot see — a user that
drifts from its goal, asks for something else, or plays the agent — this judge task looks at,
when a suite lists the scorer. A ``broke`` verdict makes the result ``user_error`` (the runner's
rule, not this scorer's), so the agent is not blamed for a conversation its user spoiled.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..schema import Case, CaseResult, Message, Score, UserSpec
from ._judge import Judge
from ._scorers import JudgeScorer, _votes

__all__ = ["UserFidelityScorer", "conversation_text", "user_instructions"]

#: the score's name; the runner turns its failure into ``user_error``
USER_FIDELITY = "user_fidelity"


def user_instructions(spec: UserSpec) -> str:
    """What the simulated user was told: goal, instructions, persona, the facts it may give
    (the values of ``must_not_obtain`` facts are never sent: only that they are secret)."""
    lines = [f"goal: {spec.goal or '(none given)'}"]
    if spec.instructions:
        lines.append(f"instructions: {spec.instructions}")
    if spec.persona:
        lines.append(f"persona: {spec.persona}")
    for name, fact in spec.facts.items():
        if name in spec.must_not_obtain:
            lines.append(f"fact {name}: (secret: must never be given)")
        else:
            lines.append(f"fact {name}: {fact.text} (give only when asked)")
    if spec.done is not None and spec.done.agent_says:
        lines.append(f"the goal is reached when the agent says: {', '.join(spec.done.agent_says)}")
    return "\n".join(lines)


def conversation_text(messages: Sequence[Message]) -> str:
    """The conversation as the user saw it: ``user:`` and ``agent:`` lines (no tool calls)."""
    out = []
    for m in messages:
        if m.role in ("user", "assistant") and (m.content or "").strip():
            who = "user" if m.role == "user" else "agent"
            out.append(f"{who}: {' '.join((m.content or '').split())}")
    return "\n".join(out)


class UserFidelityScorer(JudgeScorer):
    """The judge's ``user_fidelity`` task on a case's simulated user: ``followed`` passes,
    ``broke`` fails (and the result becomes ``user_error``). Cases without a user: no score.
    The runner hands it the case with the user as it played (``defaults.user`` merged)."""

    name = USER_FIDELITY

    def __init__(self, judge: Judge, *, cases: Sequence[str] = ()) -> None:
        super().__init__(judge, cases=cases)

    async def _score(
        self, case: Case, result: CaseResult, turns: Sequence[Sequence[Message]]
    ) -> list[Score]:
        if case.user is None:
            return []
        r = await self.judge.evaluate(
            "user_fidelity",
            {
                "user_instructions": user_instructions(case.user),
                "conversation": conversation_text(result.messages),
            },
        )
        passed = r.verdict == "followed"
        return [
            Score(
                name=self.name,
                value=1.0 if passed else 0.0,
                passed=passed,
                explanation=f"{r.verdict}: {r.reasoning}{_votes(r)}",
                expected="followed",
                actual=r.verdict,
            )
        ]
