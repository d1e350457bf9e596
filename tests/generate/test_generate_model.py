"""``--generator``: a model rewrites the texts (a rewrite that loses a value is not used) and
proposes goals (one that does not fit the tool is not used); every reply is cached, so a second
run asks nothing and writes the same file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from generate_helpers import QUICKSTART

from agentgauge.generate import GenerateConfig, OracleAgent, generate_suite
from agentgauge.generate._paraphrase import PROPOSE
from agentgauge.providers import ModelRequest
from agentgauge.rundir import iter_results
from agentgauge.runner import RunConfig, run_suite
from agentgauge.testing import MockProvider


class _Model:
    """Rewrites by prefixing ``Reworded:`` (and, for texts holding ``drop``, loses that word);
    proposes one good and one bad goal for get_weather."""

    def __init__(self, drop: str = "") -> None:
        self.drop = drop
        self.calls = 0

    def __call__(self, request: ModelRequest) -> str:
        self.calls += 1
        system = request.messages[0].content or ""
        text = request.messages[-1].content or ""
        if system.startswith(PROPOSE.split("{")[0][:40]):
            tool = json.loads(text)["name"]
            if tool == "get_weather":
                return json.dumps(
                    [
                        {"request": "How warm is it in Reykjavik today?", "arguments":
                         {"city": "Reykjavik"}},
                        {"request": "Weather please", "arguments": {"city": "Lima"}},
                    ]
                )  # fmt: skip
            return "not JSON"
        if self.drop and self.drop in text:
            return "Reworded: " + text.replace(self.drop, "that")
        return "Reworded: " + text


def _config(**kw: object) -> GenerateConfig:
    base: dict[str, object] = {"seed": 4, "generator": "mock:", "proposals": 2}
    return GenerateConfig(**{**base, **kw})  # type: ignore[arg-type]


def test_generator_rewrites_proposes_and_is_cached(tmp_path: Path) -> None:
    model = _Model(drop="Lisbon")
    first = generate_suite(
        QUICKSTART, _config(), provider=MockProvider([model], repeat_last=True), cache_dir=tmp_path
    )
    assert model.calls > 0
    assert first.paraphrased > 0
    inputs = [str(c.input) for c in first.suite.cases]
    assert sum(t.startswith("Reworded:") for t in inputs) > len(inputs) // 2
    # a rewrite that lost a value ("Lisbon") would not be used: no text says "that" for it
    assert not any(t.startswith("Reworded:") and " that" in t for t in inputs)
    proposed = [c for c in first.suite.cases if c.id.startswith("proposed-")]
    assert [str(c.input) for c in proposed] == ["How warm is it in Reykjavik today?"]
    assert proposed[0].expect.tool_calls[0].arguments["city"].value == "Reykjavik"
    # the proposal whose request does not say its value was not used, and the header says so
    assert any("proposed goal 2 for get_weather not used" in n for n in first.notes)
    assert "Generator model: mock:" in first.text
    # rewritten cases are checked like any others: the oracle still passes every one
    suite = first.suite
    run_suite(suite, RunConfig(cache=False, progress=False), tmp_path / "run",
              provider=OracleAgent(suite))  # fmt: skip
    assert {r.status for r in iter_results(tmp_path / "run")} == {"passed"}
    # the second run asks nothing: every reply comes from the cache, the file is the same
    again = _Model(drop="Lisbon")
    second = generate_suite(
        QUICKSTART, _config(), provider=MockProvider([again], repeat_last=True), cache_dir=tmp_path
    )
    assert again.calls == 0
    assert second.text == first.text


def test_a_rewrite_that_loses_a_value_is_not_used(tmp_path: Path) -> None:
    model = _Model(drop="2026")  # every date is lost in the rewrite
    result = generate_suite(
        QUICKSTART,
        _config(proposals=0, families=("direct",)),
        provider=MockProvider([model], repeat_last=True),
        cache_dir=tmp_path,
    )
    dated = [str(c.input) for c in result.suite.cases if "date" in str(c.input)]
    assert dated
    assert all(not t.startswith("Reworded:") for t in dated)
    assert result.kept >= len(dated)


def test_cli_generator_spec_runs_offline(tmp_path: Path) -> None:
    out = tmp_path / "g.yaml"
    res = subprocess.run(
        [sys.executable, "-m", "agentgauge", "generate", str(QUICKSTART), "-o", str(out),
         "--generator", "mock:echo", "--family", "direct", "--no-cache"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "Generator model: mock:echo" in out.read_text()


def test_a_rewrite_that_adds_a_value_is_not_used(tmp_path: Path) -> None:
    """A model that makes up a fact (a day, a time) would answer a missing-fact case's question
    before it is asked, or change what a case tests: such a rewrite is not used."""

    def adds(request: ModelRequest) -> str:
        text = request.messages[-1].content or ""
        return f"Reworded: {text} On Friday at 8, please." if "?" not in text[:1] else text

    result = generate_suite(
        QUICKSTART,
        _config(proposals=0, families=("direct", "missing_fact")),
        provider=MockProvider([adds], repeat_last=True),
        cache_dir=tmp_path,
    )
    assert result.suite.cases
    assert not any("Friday" in str(c.input) for c in result.suite.cases)
    assert result.paraphrased == 0
    assert result.kept > 0
    # the same model, only rewording: used
    reworded = generate_suite(
        QUICKSTART,
        _config(proposals=0, families=("direct", "missing_fact"), seed=5),
        provider=MockProvider([lambda r: "Reworded: " + (r.messages[-1].content or "")],
                              repeat_last=True),
        cache_dir=tmp_path,
    )  # fmt: skip
    assert reworded.paraphrased > 0


def test_a_proposal_with_an_opening_already_taken_is_dropped(tmp_path: Path) -> None:
    """The players find a case by its opening message: two cases with one opening would be
    played as one. A model that proposes the same goal twice gets one case of it."""
    same = {"request": "How warm is it in Reykjavik today?", "arguments": {"city": "Reykjavik"}}

    def model(request: ModelRequest) -> str:
        system = request.messages[0].content or ""
        if system.startswith(PROPOSE.split("{")[0][:40]):
            tool = json.loads(request.messages[-1].content or "{}")["name"]
            return json.dumps([same, same]) if tool == "get_weather" else "[]"
        return request.messages[-1].content or ""

    result = generate_suite(
        QUICKSTART,
        _config(families=("direct",)),
        provider=MockProvider([model], repeat_last=True),
        cache_dir=tmp_path,
    )
    proposed = [c.id for c in result.suite.cases if c.id.startswith("proposed-")]
    assert proposed == ["proposed-direct-get-weather-1"]
    why = {d.case_id: d.reason for d in result.dropped}
    assert why["proposed-direct-get-weather-2"] == (
        "same opening message as proposed-direct-get-weather-1"
    )
    openings = [str(c.input) for c in result.suite.cases]
    assert len(openings) == len(set(openings))


def test_cli_generator_spec_is_cached_a_second_run_asks_nothing(tmp_path: Path) -> None:
    """``--generator python:model.py:rewrite`` through the provider registry and the response
    cache: the second command makes no model call (the model's own log is unchanged) and writes
    the same bytes."""
    log = tmp_path / "calls.log"
    (tmp_path / "model.py").write_text(
        "def rewrite(messages, tools):\n"
        f"    open({str(log)!r}, 'a').write('x')\n"
        "    text = messages[-1].content or ''\n"
        "    return '[]' if text.startswith('{') else 'Reworded: ' + text\n",
        encoding="utf-8",
    )
    env = {**os.environ, "AGENTGAUGE_CACHE_DIR": str(tmp_path / "cache")}
    outs = []
    for n in (1, 2):
        out = tmp_path / f"g{n}.yaml"
        res = subprocess.run(
            [sys.executable, "-m", "agentgauge", "generate", str(QUICKSTART), "-o", str(out),
             "--generator", f"python:{tmp_path / 'model.py'}:rewrite", "--family", "direct"],
            cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert res.returncode == 0, res.stderr
        outs.append(out.read_bytes())
        if n == 1:
            asked = len(log.read_text())
            assert asked > 0
    assert len(log.read_text()) == asked  # the second run asked the model nothing
    assert outs[0] == outs[1]
    assert b"Reworded: " in outs[0]
