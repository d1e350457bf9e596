"""Model-driven users: a provider plays the user from the versioned template, at temperature 0
with a seed per trial, its replies cached — a second run replays the conversation with no model
call; a suite's user model passes the suite policy like its judge."""

from __future__ import annotations

from pathlib import Path

import pytest
from user_helpers import CLARIFY_CASE, OrderAgent, run, suite_of

from agentgauge.errors import UserError
from agentgauge.providers import ModelRequest
from agentgauge.schema import USER_TEMPLATE, UserSpec
from agentgauge.users import render_prompt, user_request_key

MODEL_CASE = {
    **CLARIFY_CASE,
    "user": {
        "goal": "Find out where order A7 is.",
        "facts": {"order_id": {"value": "A7", "asked_by": ["order number"], "pattern": r"A\d+"}},
        "max_turns": 5,
    },
}


def _script(tmp_path: Path, *lines: str) -> str:
    path = tmp_path / "user.jsonl"
    path.write_text("".join(f'{{"text": "{line}"}}\n' for line in lines))
    return f"mock:{path}"


def test_a_model_user_runs_end_to_end_and_replays_from_the_cache(tmp_path: Path) -> None:
    spec = _script(tmp_path, "It is A7.", "Great, thanks! ###STOP###")
    kw = {"cache": True, "cache_dir": tmp_path / "cache", "user_model": spec}
    [first] = run(tmp_path / "r1", suite_of([MODEL_CASE]), OrderAgent(), **kw)
    assert first.status == "passed", first.explanation
    user = first.user
    assert user is not None
    assert (user.kind, user.model, user.template, user.seed) == ("model", spec, "user_v1", 0)
    assert (user.turns, user.ended_by, user.model_calls) == (3, "stop", 2)
    said = [m.content for m in first.messages if m.role == "user"]
    assert said == ["Where is my order?", "It is A7.", "Great, thanks!"]  # the stop phrase cut
    steps = [e for e in first.trace if e.kind == "user"]
    assert [e.cached for e in steps] == [False, False]
    # the script holds two replies: a second run that called the model would exhaust it
    [again] = run(tmp_path / "r2", suite_of([MODEL_CASE]), OrderAgent(), **kw)
    assert again.status == "passed", again.explanation
    assert again.user is not None
    assert again.user.model_calls == 0
    assert all(e.cached for e in again.trace if e.kind in ("user", "model"))
    assert [m.content for m in again.messages] == [m.content for m in first.messages]


def test_each_trial_has_its_own_seed(tmp_path: Path) -> None:
    spec = _script(tmp_path, "It is A7.", "Thanks ###STOP###", "It is A7.", "Thanks ###STOP###")
    results = run(tmp_path / "r", suite_of([MODEL_CASE]), OrderAgent(), trials=2,
                  user_model=spec, seed=40)  # fmt: skip
    assert [r.user.seed for r in results if r.user] == [40, 41]


def test_a_model_user_that_gives_a_fact_unasked_is_a_user_error(tmp_path: Path) -> None:
    spec = _script(tmp_path, "Also my order is A7.")
    [r] = run(tmp_path / "r", suite_of([MODEL_CASE]), OrderAgent(ask=False), user_model=spec)
    assert r.status == "user_error"
    assert r.explanation.startswith("user error: gave the fact 'order_id' unasked")


def test_a_model_user_that_invents_a_fact_is_a_user_error(tmp_path: Path) -> None:
    spec = _script(tmp_path, "It is A9, I think.")
    [r] = run(tmp_path / "r", suite_of([MODEL_CASE]), OrderAgent(), user_model=spec)
    assert r.status == "user_error"
    assert r.explanation == "user error: invented a order_id: 'A9' (its order_id is 'A7')"


def test_the_prompt_holds_the_goal_and_facts_but_never_a_secret() -> None:
    spec = UserSpec.model_validate(
        {
            "goal": "Get a refund.",
            "facts": {"order_id": "B2", "pin": "4471"},
            "must_not_obtain": ["pin"],
            "persona": "terse",
        }
    )
    prompt = render_prompt(spec)
    assert "Get a refund." in prompt
    assert "- order id: B2" in prompt
    assert "4471" not in prompt
    assert "Never tell the assistant your pin" in prompt
    assert "###STOP###" in prompt


def test_the_cache_key_changes_with_the_template_and_the_seed() -> None:
    from agentgauge.providers import GenerateConfig
    from agentgauge.schema import Message

    msgs = [Message(role="user", content="hi")]
    a = ModelRequest(messages=msgs, config=GenerateConfig(seed=1))
    b = ModelRequest(messages=msgs, config=GenerateConfig(seed=2))
    assert user_request_key("m", a, USER_TEMPLATE) != user_request_key("m", b, USER_TEMPLATE)
    assert user_request_key("m", a, USER_TEMPLATE) != user_request_key("m", a, "user_v2")
    assert user_request_key("m", a, USER_TEMPLATE) != user_request_key("m", a, USER_TEMPLATE, "t")


def test_a_suite_user_model_in_python_is_suite_code(tmp_path: Path) -> None:
    case = {**MODEL_CASE, "user": {**MODEL_CASE["user"], "model": "python:user.py:play"}}
    with pytest.raises(UserError, match=r"user model 'python:user\.py:play'"):
        run(tmp_path / "r", suite_of([case]), OrderAgent(), suite_path=str(tmp_path / "s.yaml"))


def test_a_suite_user_model_sending_your_key_elsewhere_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-123")
    model = "openai:gpt-4o-mini?base_url=http://127.0.0.1:9/v1"
    case = {**MODEL_CASE, "user": {**MODEL_CASE["user"], "model": model}}
    with pytest.raises(UserError, match="user model") as err:
        run(tmp_path / "r", suite_of([case]), OrderAgent(), suite_path=str(tmp_path / "s.yaml"))
    assert "sk-test-123" not in str(err.value)


def test_a_model_user_without_a_model_is_refused_before_the_run(tmp_path: Path) -> None:
    case = {**MODEL_CASE, "user": {**MODEL_CASE["user"], "kind": "model"}}
    with pytest.raises(UserError, match=r"user\.kind: model needs a model"):
        run(tmp_path / "r", suite_of([case]), OrderAgent())
    spec = _script(tmp_path, "It is A7.", "Thanks ###STOP###")
    [r] = run(tmp_path / "ok", suite_of([case]), OrderAgent(), user_model=spec)
    assert r.status == "passed", r.explanation


def test_a_model_user_stuck_repeating_itself_is_a_user_error(tmp_path: Path) -> None:
    spec = _script(tmp_path, "Where is my order?")
    [r] = run(tmp_path / "r", suite_of([MODEL_CASE]), OrderAgent(), user_model=spec)
    assert r.status == "user_error"
    assert r.explanation == (
        "user error: repeated an earlier message word for word: 'Where is my order?'"
    )
