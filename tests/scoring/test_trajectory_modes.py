"""Trajectory modes (docs/scoring.md, "Several calls"): one test per row of the order-mode and
argument-mode tables, each passing on a right transcript and failing on a wrong one; parallel
calls, ``strict_steps``, ``allow_no_calls``, explanations with arguments, and failed calls."""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from scoring_helpers import by_name, call, reply, result, score, tool

from agentgauge.schema import Case, Expectation, Message, Suite, ToolCall
from agentgauge.scoring import ScoringConfig, score_case
from agentgauge.scoring._assign import align_groups

TOOLS = [
    tool("get_weather", {"city": {"type": "string"}, "unit": {"type": "string"}}),
    tool("get_time", {"tz": {"type": "string"}}),
    tool("search", {"q": {"type": "string"}, "limit": {"type": "integer"}}),
]


def weather(city: str) -> ToolCall:
    return call("get_weather", city=city)


def exp_weather(*cities: str, order: str = "strict", **kw: Any) -> dict[str, Any]:
    calls = [{"name": "get_weather", "arguments": {"city": c}} for c in cities]
    return {"tool_calls": calls, "order": order, **kw}


def messages(*groups: ToolCall | tuple[ToolCall, ...] | str) -> list[Message]:
    """One assistant message per group: a call, a tuple of parallel calls, or a text reply."""
    out: list[Message] = []
    for g in groups:
        if isinstance(g, str):
            out += reply(text=g)
        else:
            out += reply(*(g if isinstance(g, tuple) else (g,)))
    return out


def passes(expect: dict[str, Any], msgs: list[Message], **kw: Any) -> bool:
    cs = score(expect, msgs, TOOLS, **kw)
    return cs.status == "passed"


# --- order modes -------------------------------------------------------------------------------


def test_strict_parallel_calls_in_one_message_are_a_set() -> None:
    exp = exp_weather("SF", "London")
    # the reference made SF then London in one message; the reply makes them the other way round
    # in one message: calls inside one message have no order
    cs = score(exp, messages((weather("London"), weather("SF")), "done"), TOOLS)
    assert cs.status == "passed", cs.explanation
    assert by_name(cs, "order").passed
    # across messages the order holds
    cs = score(exp, messages(weather("London"), weather("SF"), "done"), TOOLS)
    assert cs.status == "failed"
    assert by_name(cs, "order").explanation == (
        "calls out of order: expected get_weather(city='SF') → get_weather(city='London'), "
        "got get_weather(city='London') → get_weather(city='SF') "
        "(get_weather(city='London') came before get_weather(city='SF'))"
    )


def test_strict_allows_nothing_else() -> None:
    exp = exp_weather("SF", "London")
    assert passes(exp, messages(weather("SF"), weather("London")))
    cs = score(exp, messages(weather("SF"), call("get_time", tz="PST"), weather("London")), TOOLS)
    assert cs.status == "failed"
    assert by_name(cs, "tool_selection").explanation == "unexpected call(s) to get_time"


def test_strict_order_with_mixed_message_and_step_groups() -> None:
    # a then {b, c} in parallel; expected a, b, c as one sequence (no steps)
    exp = {
        "order": "strict",
        "tool_calls": [
            {"name": "get_time", "arguments": {"tz": "UTC"}},
            {"name": "get_weather", "arguments": {"city": "SF"}},
            {"name": "search", "arguments": {"q": "x"}},
        ],
    }
    t, w, s = call("get_time", tz="UTC"), weather("SF"), call("search", q="x")
    assert passes(exp, messages(t, (s, w)))
    assert not passes(exp, messages((s, w), t))
    # steps: get_weather and search share step 1, so they may come in either order, even apart
    exp["tool_calls"][0]["step"] = 0
    exp["tool_calls"][1]["step"] = 1
    exp["tool_calls"][2]["step"] = 1
    assert passes(exp, messages(t, s, w))
    assert not passes(exp, messages(s, t, w))


def test_strict_steps_same_message_structure() -> None:
    exp = exp_weather("SF", "London", strict_steps=True)  # no steps: one call per message
    cs = score(exp, messages(weather("SF"), weather("London"), "SF 20°C, London 12°C"), TOOLS)
    assert cs.status == "passed", cs.explanation
    assert by_name(cs, "order").explanation == (
        "messages as expected: get_weather(city='SF') → get_weather(city='London') → (reply)"
    )
    # the same calls in one message: a different structure
    cs = score(exp, messages((weather("SF"), weather("London")), "done"), TOOLS)
    assert cs.status == "failed"
    assert by_name(cs, "order").explanation == (
        "message structure differs (1 assistant message(s) with calls, expected 2): expected "
        "get_weather(city='SF') → get_weather(city='London') → (reply), got "
        "{get_weather(city='SF'), get_weather(city='London')} → (reply)"
    )
    # plain strict accepts that reply
    assert passes(exp_weather("SF", "London"), messages((weather("SF"), weather("London")), "ok"))


def test_strict_steps_with_step_groups() -> None:
    exp = exp_weather("SF", "London", strict_steps=True)
    for c in exp["tool_calls"]:
        c["step"] = 0
    assert passes(exp, messages((weather("London"), weather("SF")), "done"))
    # split across two messages: fails
    cs = score(exp, messages(weather("SF"), weather("London"), "done"), TOOLS)
    assert cs.status == "failed"
    assert "2 assistant message(s) with calls, expected 1" in by_name(cs, "order").explanation
    # an extra text-only assistant message: fails
    cs = score(exp, messages("Let me check.", (weather("SF"), weather("London")), "done"), TOOLS)
    assert cs.status == "failed"
    assert by_name(cs, "order").explanation.startswith(
        "message structure differs (1 text-only assistant message(s) before the end)"
    )
    # no final reply: fails
    cs = score(exp, messages((weather("SF"), weather("London"))), TOOLS)
    assert "no final reply without calls" in by_name(cs, "order").explanation


def test_strict_steps_same_count_but_regrouped_fails() -> None:
    exp = {
        "order": "strict",
        "strict_steps": True,
        "tool_calls": [
            {"name": "get_time", "arguments": {"tz": "UTC"}, "step": 0},
            {"name": "get_weather", "arguments": {"city": "SF"}, "step": 0},
            {"name": "search", "arguments": {"q": "x"}, "step": 1},
        ],
    }
    t, w, s = call("get_time", tz="UTC"), weather("SF"), call("search", q="x")
    assert passes(exp, messages((w, t), s, "done"))
    cs = score(exp, messages(t, (w, s), "done"), TOOLS)
    assert cs.status == "failed"
    assert "grouped into messages differently" in by_name(cs, "order").explanation


def test_strict_steps_applies_to_a_single_call() -> None:
    exp = exp_weather("SF", strict_steps=True)
    assert passes(exp, messages(weather("SF"), "20°C"))
    assert not passes(exp, messages("One moment.", weather("SF"), "20°C"))


def test_in_order_allows_calls_between_but_keeps_the_order() -> None:
    exp = exp_weather("SF", "London", order="in_order")
    assert passes(exp, messages(weather("SF"), call("get_time", tz="x"), weather("London")))
    assert passes(exp, messages((weather("London"), weather("SF"))))  # parallel: no order
    assert not passes(exp, messages(weather("London"), call("get_time", tz="x"), weather("SF")))
    assert not passes(exp, messages(weather("SF")))


def test_any_order_is_agentevals_unordered() -> None:
    exp = exp_weather("SF", "London", order="any_order")
    assert passes(exp, messages(weather("London"), weather("SF")))
    assert not passes(exp, messages(weather("London"), weather("SF"), weather("Paris")))
    assert not passes(exp, messages(weather("London")))


def test_subset_no_call_is_an_explicit_option() -> None:
    exp = exp_weather("SF", "London", order="subset")
    assert passes(exp, messages(weather("London")))
    assert not passes(exp, messages(weather("London"), call("get_time", tz="x")))
    # default: a turn without any call fails subset
    cs = score(exp, messages("It is sunny."), TOOLS)
    assert cs.status == "failed"
    assert by_name(cs, "tool_selection").explanation == (
        "expected some of get_weather, get_weather, got no tool call"
    )
    # allow_no_calls: the empty set is a subset (agentevals' subset passes it)
    exp["allow_no_calls"] = True
    cs = score(exp, messages("It is sunny."), TOOLS)
    assert cs.status == "passed", cs.explanation
    assert by_name(cs, "tool_selection").explanation.startswith("no tool called (subset")
    assert not passes(exp, messages(call("get_time", tz="x")))


def test_superset_allows_extras_needs_every_expected_call() -> None:
    exp = exp_weather("SF", order="superset")
    assert passes(exp, messages(call("get_time", tz="x"), weather("SF"), weather("Paris")))
    assert not passes(exp, messages(call("get_time", tz="x")))
    assert not passes(exp, messages(weather("Paris")))  # the only get_weather has a wrong city


def test_optimal_pairing_where_first_fit_fails() -> None:
    # agentevals pairs each reference call with the first matching output call; here first fit
    # gives the y=2 call to the loose expectation and leaves nothing for the y=2 one
    exp = {
        "order": "superset",
        "tool_calls": [
            {"name": "search", "arguments": {"q": "x", "limit": {"any": True}}},
            {"name": "search", "arguments": {"q": "x", "limit": 2}},
        ],
    }
    good = messages((call("search", q="x", limit=2), call("search", q="x", limit=3)))
    assert passes(exp, good)
    bad = messages((call("search", q="x", limit=4), call("search", q="x", limit=3)))
    cs = score(exp, bad, TOOLS)
    assert cs.status == "failed"
    assert "search[1].limit: expected 2, got" in cs.explanation
    # the same case in agentevals' terms: tool_args_match_mode superset, search(q=x) and
    # search(q=x, limit=2); first fit gives limit=2 to the first and fails, optimal passes
    exp = {
        "order": "superset",
        "tool_calls": [
            {"name": "search", "arguments": {"q": "x"}},
            {"name": "search", "arguments": {"q": "x", "limit": 2}},
        ],
    }
    cfg = ScoringConfig(args_match="superset")
    assert score(exp, good, TOOLS, config=cfg).status == "passed"
    assert score(exp, bad, TOOLS, config=cfg).status == "failed"


# --- argument modes ----------------------------------------------------------------------------


def args_exp(mode: str | None = None, **kw: Any) -> dict[str, Any]:
    c: dict[str, Any] = {"name": "search", "arguments": {"q": "x", "limit": 5}}
    if mode is not None:
        c["args_match"] = mode
    return {"tool_calls": [c], **kw}


def test_args_exact() -> None:
    assert passes(args_exp("exact"), reply(call("search", q="x", limit=5)))
    assert not passes(args_exp("exact"), reply(call("search", q="x", limit=6)))
    assert not passes(args_exp("exact"), reply(call("search", q="x")))
    cs = score(args_exp("exact"), reply(call("search", q="x", limit=5, page=2)), TOOLS)
    assert cs.explanation == "search.page: unexpected argument not in the tool's schema (got 2)"


def test_args_ignore() -> None:
    cs = score(args_exp("ignore"), reply(call("search", q="zzz", page=9)), TOOLS)
    assert cs.status == "passed"
    args = by_name(cs, "arguments")
    assert (args.passed, args.explanation) == (
        None,
        "arguments not compared (args_match: ignore): search",
    )
    # the tool name is still checked
    assert not passes(args_exp("ignore"), reply(call("get_time", tz="x")))


def test_args_subset() -> None:
    # the agent's arguments must be among the expected ones: omitting one is fine
    cs = score(args_exp("subset"), reply(call("search", q="x")), TOOLS)
    assert cs.status == "passed", cs.explanation
    assert passes(args_exp("subset"), reply(call("search")))
    assert not passes(args_exp("subset"), reply(call("search", q="x", page=2)))
    assert not passes(args_exp("subset"), reply(call("search", q="y")))


def test_args_superset() -> None:
    # the agent's arguments must include the expected ones: extras are fine
    assert passes(args_exp("superset"), reply(call("search", q="x", limit=5, page=2)))
    cs = score(args_exp("superset"), reply(call("search", q="x")), TOOLS)
    assert cs.status == "failed"
    assert cs.explanation == "search.limit: missing (expected 5)"


def test_suite_wide_args_match_with_per_tool_overrides() -> None:
    exp = {
        "order": "any_order",
        "tool_calls": [
            {"name": "search", "arguments": {"q": "x"}},
            {"name": "get_weather", "arguments": {"city": "SF"}},
        ],
    }
    msgs = reply(call("search", q="other"), call("get_weather", city="SF", unit="c"))
    cfg = ScoringConfig(args_match="superset", args_match_overrides={"search": "ignore"})
    assert score(exp, msgs, TOOLS, config=cfg).status == "passed"
    # without the override search's wrong q fails; without superset the extra unit fails
    cs = score(exp, msgs, TOOLS, config=ScoringConfig(args_match="superset"))
    assert cs.explanation == "search.q: expected 'x', got 'other'"
    cs = score(exp, msgs, TOOLS, config=ScoringConfig(args_match_overrides={"search": "ignore"}))
    assert cs.explanation == "get_weather.unit: unexpected argument (got 'c')"
    # a call's own args_match wins over the tool override
    exp["tool_calls"][0]["args_match"] = "exact"
    assert score(exp, msgs, TOOLS, config=cfg).status == "failed"


def test_suite_defaults_fill_the_config() -> None:
    suite = Suite.model_validate(
        {
            "name": "s",
            "defaults": {"args_match": "superset", "args_match_overrides": {"search": "ignore"}},
        }
    )
    cfg = ScoringConfig().for_suite(suite)
    assert cfg.args_match == "superset"
    assert dict(cfg.args_match_overrides or {}) == {"search": "ignore"}
    # an explicit config value wins over the suite's
    assert ScoringConfig(args_match="exact").for_suite(suite).args_match == "exact"
    case = Case.model_validate({"id": "c", "input": "q", "expect": args_exp()})
    msgs = [reply(call("search", q="x", limit=5, page=1))]
    tools = {t.name: t for t in TOOLS}
    assert score_case(case, msgs, tools, cfg).status == "passed"
    assert score_case(case, msgs, tools, ScoringConfig()).status == "failed"


# --- failed calls (issue 17) -------------------------------------------------------------------


def _failed_then(final: str, city: str = "Berlin") -> list[Message]:
    return [
        Message(
            role="assistant",
            tool_calls=[ToolCall(name="get_weather", arguments={"city": city}, id="1")],
        ),
        result("get_weather", {"error": "503 Service Unavailable: try again"}, "1"),
        Message(role="assistant", content=final),
    ]


RECOVER = {
    "behavior": "recover",
    "order": "superset",
    "tool_calls": [{"name": "get_weather", "arguments": {"city": "Berlin"}}],
}


def test_a_failed_call_is_a_call_for_selection_and_arguments() -> None:
    cs = score(RECOVER, _failed_then("success"), TOOLS)
    sel = by_name(cs, "tool_selection")
    assert sel.passed is True
    assert sel.actual == "get_weather"
    assert sel.explanation == (
        "called get_weather as expected; the tool failed (503 Service Unavailable: try again); "
        "no successful retry"
    )
    assert by_name(cs, "arguments").passed is True
    # recovery is the behaviour check's business: replying "success" does not recover
    assert cs.status == "failed"
    assert by_name(cs, "behavior").passed is False
    # the arguments of the failed call are scored
    cs = score(RECOVER, _failed_then("Sorry, the weather service is down.", city="Bonn"), TOOLS)
    assert by_name(cs, "arguments").explanation == "get_weather.city: expected 'Berlin', got 'Bonn'"
    # explaining the failure recovers
    cs = score(RECOVER, _failed_then("Sorry, the weather service is down right now."), TOOLS)
    assert cs.status == "passed", cs.explanation


def test_a_failed_attempt_retried_is_not_an_extra_call_in_recover() -> None:
    exp = {**RECOVER, "order": "any_order"}
    msgs = [
        *_failed_then("x")[:2],
        Message(
            role="assistant",
            tool_calls=[ToolCall(name="get_weather", arguments={"city": "Berlin"}, id="2")],
        ),
        result("get_weather", {"temp": 9}, "2"),
        Message(role="assistant", content="9°C"),
    ]
    cs = score(exp, msgs, TOOLS)
    assert cs.status == "passed", cs.explanation
    assert by_name(cs, "tool_selection").explanation == "called get_weather as expected"
    # without recover the failed attempt is a call like any other: two calls, one expected
    cs = score({**exp, "behavior": "tool_call"}, msgs, TOOLS)
    assert by_name(cs, "tool_selection").passed is False


def test_quickstart_weather_service_down() -> None:
    from agentgauge.io import load_suite

    path = Path(__file__).resolve().parents[2] / "examples" / "quickstart" / "suite.yaml"
    if not path.exists():
        pytest.skip("quickstart suite not found")
    suite = load_suite(path)
    case = next(c for c in suite.cases if c.id == "weather-service-down")
    tools = suite.tool_map()
    cfg = ScoringConfig().for_suite(suite)
    cs = score_case(case, [_failed_then("success")], tools, cfg)
    assert cs.status == "failed"
    sel = by_name(cs, "tool_selection")
    assert sel.passed
    assert "the tool failed (503 Service Unavailable" in sel.explanation
    assert "<no tool>" not in cs.explanation
    assert by_name(cs, "behavior").passed is False


# --- schema rules and the group alignment ------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"order": "any_order", "strict_steps": True}, "strict_steps needs order 'strict'"),
        ({"order": "strict", "allow_no_calls": True}, "allow_no_calls needs order 'subset'"),
        ({"order": "strict", "steps": [0, None]}, "give 'step' on every expected call or on none"),
        ({"order": "any_order", "steps": [0, 1]}, "'step' is only used with order 'strict'"),
    ],
)
def test_expectation_rules(data: dict[str, Any], message: str) -> None:
    steps = data.pop("steps", [None, None])
    calls = [{"name": "get_weather", "step": s} for s in steps]
    with pytest.raises(ValidationError, match=message):
        Expectation.model_validate({"tool_calls": calls, **data})


def test_new_fields_survive_export() -> None:
    from agentgauge.suites._export import case_record

    case = Case.model_validate(
        {
            "id": "c",
            "input": "q",
            "expect": {
                "order": "strict",
                "strict_steps": True,
                "tool_calls": [{"name": "search", "step": 0, "args_match": "ignore"}],
            },
        }
    )
    assert Case.model_validate(case_record(case)) == case
    sub = {"id": "d", "input": "q", "expect": {"order": "subset", "allow_no_calls": True}}
    sub["expect"]["tool_calls"] = [{"name": "search"}]
    case = Case.model_validate(sub)
    assert Case.model_validate(case_record(case)) == case


def _brute(w: list[list[float | None]], rk: list[int], ck: list[int]) -> float:
    best = 0.0

    def go(i: int, used: frozenset[int], pairs: list[tuple[int, int]], total: float) -> None:
        nonlocal best
        if i == len(w):
            crossing = any(
                (rk[a] - rk[c]) * (ck[b] - ck[d]) < 0
                for (a, b), (c, d) in itertools.combinations(pairs, 2)
            )
            if not crossing:
                best = max(best, total)
            return
        go(i + 1, used, pairs, total)
        for j, x in enumerate(w[i]):
            if x is not None and j not in used:
                go(i + 1, used | {j}, [*pairs, (i, j)], total + x)

    go(0, frozenset(), [], 0.0)
    return best


def test_align_groups_is_optimal_and_never_crosses() -> None:
    rng = random.Random(5)
    for _ in range(300):
        n, m = rng.randint(1, 5), rng.randint(1, 6)
        w: list[list[float | None]] = [
            [None if rng.random() < 0.4 else rng.choice([1.0, 2.0, 7.0]) for _ in range(m)]
            for _ in range(n)
        ]
        rk = [rng.randint(0, 3) for _ in range(n)]  # keys need not follow the row order
        ck = [rng.randint(0, 3) for _ in range(m)]
        pairs = align_groups(w, rk, ck)
        assert len({i for i, _ in pairs}) == len(pairs) == len({j for _, j in pairs})
        assert all(
            (rk[a] - rk[c]) * (ck[b] - ck[d]) >= 0
            for (a, b), (c, d) in itertools.combinations(pairs, 2)
        )
        total = sum(x for i, j in pairs if (x := w[i][j]) is not None)
        assert total == pytest.approx(_brute(w, rk, ck)), (w, rk, ck)


def test_align_groups_of_singletons_is_the_plain_alignment() -> None:
    w: list[list[float | None]] = [[None, 1.0], [1.0, None]]
    assert len(align_groups(w, [0, 1], [0, 1])) == 1  # crossing: only one pair fits
    assert len(align_groups(w, [0, 1], [0, 0])) == 2  # one message: no order among its calls
