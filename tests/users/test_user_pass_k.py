"""pass^k over trials with a model user, as τ²-bench reports it: each trial's user is seeded
``seed + trial``, so the same case is played by users who phrase their answers differently; a
brittle agent that understands only one phrasing passes some trials and not others, and pass^k
falls with k (C(c, k) / C(n, k) per case, averaged over cases)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console
from user_helpers import CLARIFY_CASE, ORDER_USER, call, reply, run, suite_of, user_texts

from agentgauge.io import iter_results
from agentgauge.metrics import summarize
from agentgauge.providers import ModelRequest, ModelResponse
from agentgauge.report import render_console, render_html, render_markdown

#: a model user whose wording depends on its seed: even seeds say "It is A7.", odd ones
#: "Sure: A7." — both give the fact when asked, so neither is the user's error
USER_MODEL = """
from agentgauge.providers import ModelResponse
from agentgauge.schema import Message

async def play(request):
    agent = request.messages[-1].content or ""
    if "order number" in agent:
        text = "It is A7." if request.config.seed % 2 == 0 else "Sure: A7."
    else:
        text = "Thanks ###STOP###"
    return ModelResponse(message=Message(role="assistant", content=text))
"""


class BrittleAgent:
    """Asks for the order number; understands only ``It is X.`` — else looks up ``A1``."""

    name = "python:brittle"

    async def generate(self, request: ModelRequest) -> ModelResponse:
        if request.messages[-1].role == "tool":
            return reply("Your order has shipped.")
        said = user_texts(request)
        found = re.match(r"It is (A\d+)\.", said[-1])
        if found is None and len(said) == 1:
            return reply("What is your order number?")
        return call("get_order", order_id=found.group(1) if found else "A1")


MODEL_USER = {k: v for k, v in ORDER_USER.items() if k != "rules"}
CASES = [
    {**CLARIFY_CASE, "id": "brittle", "user": MODEL_USER},
    # the opening already says it the agent's way: nothing to ask, every user passes it
    {**CLARIFY_CASE, "id": "steady", "input": "It is A7. Where is it?", "user": MODEL_USER},
]


def _run(tmp_path: Path, trials: int) -> Path:
    (tmp_path / "user.py").write_text(USER_MODEL)
    out = tmp_path / f"run{trials}"
    spec = f"python:{tmp_path / 'user.py'}:play"
    run(out, suite_of(CASES), BrittleAgent(), trials=trials, seed=0, user_model=spec)
    return out


def test_pass_k_falls_with_k_over_freshly_seeded_users(tmp_path: Path) -> None:
    out = _run(tmp_path, 4)
    s = summarize(out)
    # brittle: seeds 0..3 -> pass, fail, pass, fail (c=2 of n=4); steady: 4 of 4
    assert s.trials.trials == 4
    assert s.overall.user_errors == 0
    hat = s.trials.pass_hat_k
    assert hat["1"] == pytest.approx((2 / 4 + 1) / 2)
    assert hat["2"] == pytest.approx((1 / 6 + 1) / 2)  # C(2,2)/C(4,2) = 1/6
    assert hat["3"] == pytest.approx(0.5)
    assert hat["4"] == pytest.approx(0.5)
    assert s.trials.pass_at_k["4"] == 1.0
    assert s.trials.flaky_cases == ["brittle"]
    md = render_markdown(s)
    assert "| pass^k by k (τ²-bench) | pass^1 75.0% · pass^2 58.3% · pass^3 50.0% · " in md
    buf = io.StringIO()
    render_console(s, Console(file=buf, width=200))
    assert "pass^1 75.0% · pass^2 58.3%" in buf.getvalue()
    page = render_html(s, iter_results(out))
    assert "<h3>Repeated trials (a freshly seeded model user per trial)</h3>" in page
    assert "<tr><td>2</td><td>91.7%</td><td>58.3%</td></tr>" in page


def test_one_seed_for_every_trial_would_hide_the_flakiness(tmp_path: Path) -> None:
    # the same user draw every trial (seed 0, trials 1) is all one can get without per-trial
    # seeds: the brittle case then always passes and pass^1 says 100 %
    out = _run(tmp_path, 1)
    s = summarize(out)
    assert s.trials.pass_hat_k == {"1": 1.0}
    assert "pass^k by k" not in render_markdown(s)  # one trial: no curve
