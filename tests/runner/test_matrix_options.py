"""A matrix's shared options survive matrix.json: a member started only on ``--resume`` runs with
the options the others ran with (judge samples, executor, filters, scoring mode ...)."""

from __future__ import annotations

import orjson

from agentgauge.io import Shard
from agentgauge.runner import RunConfig
from agentgauge.runner._matrix import _config_from_options, _shared_options
from agentgauge.scoring import ScoringConfig


def test_every_recorded_option_comes_back_from_the_manifest() -> None:
    config = RunConfig(
        agent_options={"base_url": "http://127.0.0.1:9/v1"},
        trials=3,
        max_concurrency=5,
        timeout_s=12.5,
        retries=4,
        max_steps=6,
        cache=False,
        replay=False,
        seed=7,
        stream=True,
        case_filter=("happy_*",),
        limit=9,
        scoring=ScoringConfig(mode="bfcl"),
        tool_mode="mock",
        judge="mock:judge",
        judge_samples=3,
        shard=Shard.parse("2/4"),
        executor="ray:auto",
    )
    opts = orjson.loads(orjson.dumps(_shared_options(config)))  # as matrix.json holds them
    back = _config_from_options(opts, "/suite.yaml")
    for name in (
        "agent_options",
        "trials",
        "max_concurrency",
        "timeout_s",
        "retries",
        "max_steps",
        "cache",
        "replay",
        "seed",
        "stream",
        "case_filter",
        "limit",
        "scoring",
        "tool_mode",
        "judge",
        "judge_samples",
        "shard",
        "executor",
    ):
        assert getattr(back, name) == getattr(config, name), name
    assert back.suite_path == "/suite.yaml"


def test_options_left_unset_stay_unset() -> None:
    back = _config_from_options(orjson.loads(orjson.dumps(_shared_options(RunConfig()))), "s")
    default = RunConfig()
    assert back.judge_samples is None
    assert back.trials is None
    assert back.shard is None
    assert (back.max_concurrency, back.retries, back.executor) == (
        default.max_concurrency,
        default.retries,
        "local",
    )
