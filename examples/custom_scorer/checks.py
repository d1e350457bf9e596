"""A check of one's own: the reply quotes the delivery date the order lookup returned.

One signature: ``fn(ctx: ScorerContext) -> ScoreResult | None`` (None: does not apply).
"""

from __future__ import annotations

import json

from agentgauge.judges import ScorerContext, ScoreResult


def quotes_eta(ctx: ScorerContext) -> ScoreResult | None:
    lookups = [m for m in ctx.tool_results if m.name == "lookup_order"]
    if not lookups:
        return None  # the agent never looked the order up: other scores report that
    eta = json.loads(lookups[-1].content or "{}").get("eta")
    if not eta:
        return ScoreResult(passed=None, explanation="the lookup returned no eta")
    if eta in ctx.reply:
        return ScoreResult(passed=True, explanation=f"the reply gives the eta {eta}")
    return ScoreResult(
        passed=False, explanation=f"the lookup said eta {eta}; the reply does not give it"
    )
