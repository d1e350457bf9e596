"""Provider limits from the command line: ``--rate-limit N/s|N/min`` spaces the starts of the
agent's model calls (evenly, across every case of the run), ``--provider-concurrency N`` caps
the calls in flight; both are recorded in run.json outside the configuration hash, kept on
resume unless given again, and a bad value is a one-line error (exit 2)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner, Result

from agentgauge.cli import cli
from agentgauge.errors import UserError
from agentgauge.runner import config_hash, parse_rate, read_record
from agentgauge.runner._rate import ModelLimits, StartSpacer

SUITE = """\
name: rate-limited
tools:
  - name: get_weather
    description: Current weather in a city
    parameters: {type: object, properties: {city: {type: string}}, required: [city]}
    simulation: {result: {temp_c: 12}}
cases:
"""

# a scripted agent: asks for the weather, then answers; every model call writes when it
# started (and ended) to CALLS
AGENT = """\
import time
from agentgauge.schema import ToolCall

CALLS = {calls!r}
SLEEP = {sleep!r}

def agent(messages, tools):
    start = time.monotonic()
    if SLEEP:
        time.sleep(SLEEP)
    with open(CALLS, "a") as fh:
        fh.write(f"{{start}} {{time.monotonic()}}\\n")
    last = messages[-1]
    if last.role == "tool":
        return f"It is {{last.content}}"
    return ToolCall(name="get_weather", arguments={{"city": last.content.split()[-1]}})
"""

#: measured spacing may come short of 1/rate by this share of it: the limiter lets starts go
#: exactly 1/rate apart, but the agent (a sync function, run in a worker thread) reads the clock a
#: moment later, and on a busy machine that moment can be tens of milliseconds longer for one
#: call than for the next; the rates below are low enough (spacing >= 200 ms) that a generous
#: share still tells a limited run from a free one, whose calls start well under 1 ms apart
TOLERANCE = 0.4


def _floor(rate_per_s: float) -> float:
    """The smallest gap a run limited to ``rate_per_s`` may show between two call starts."""
    return (1 - TOLERANCE) / rate_per_s


def _suite(tmp_path: Path, n: int) -> Path:
    lines = [SUITE]
    for i in range(n):
        lines.append(
            f"  - id: c{i:02d}\n    input: weather in City{i}\n"
            f"    expect: {{tool_calls: [{{name: get_weather}}]}}\n"
        )
    path = tmp_path / "suite.yaml"
    path.write_text("".join(lines))
    return path


def _agent(tmp_path: Path, calls: Path, sleep: float = 0.0) -> str:
    path = tmp_path / f"agent_{calls.stem}.py"
    path.write_text(AGENT.format(calls=str(calls), sleep=sleep))
    return f"python:{path}:agent"


def _run(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, ["run", *args], env=env, catch_exceptions=False)


def _starts(calls: Path) -> list[float]:
    return sorted(float(line.split()[0]) for line in calls.read_text().splitlines())


def _gaps(calls: Path) -> list[float]:
    starts = _starts(calls)
    return [b - a for a, b in itertools.pairwise(starts)]


def _max_overlap(calls: Path) -> int:
    events: list[tuple[float, int]] = []
    for line in calls.read_text().splitlines():
        start, end = map(float, line.split())
        events += [(start, 1), (end, -1)]
    level = peak = 0
    for _, step in sorted(events):
        level += step
        peak = max(peak, level)
    return peak


def _common(suite: Path, agent: str, out: Path) -> list[str]:
    return [str(suite), "--agent", agent, "-o", str(out), "--no-cache", "--no-progress"]


def test_rate_limit_spaces_every_model_call_start(tmp_path: Path) -> None:
    suite = _suite(tmp_path, 6)
    calls = tmp_path / "calls.txt"
    agent = _agent(tmp_path, calls)
    args = _common(suite, agent, tmp_path / "limited")
    result = _run(*args, "--max-concurrency", "8", "--rate-limit", "5/s")
    assert result.exit_code == 0, result.output
    limited = calls.rename(tmp_path / "limited.txt")
    assert len(_starts(limited)) == 12  # 6 cases, two model calls each
    assert min(_gaps(limited)) >= _floor(5)
    # the same run without the limit starts calls closer together: the check above can fail
    result = _run(*_common(suite, agent, tmp_path / "free"), "--max-concurrency", "8")
    assert result.exit_code == 0, result.output
    assert len(_starts(calls)) == 12
    assert min(_gaps(calls)) < _floor(5)
    # recorded for information, outside the configuration hash (the two runs compare)
    limited_rec, free_rec = read_record(tmp_path / "limited"), read_record(tmp_path / "free")
    assert limited_rec.options["rate_limit_per_s"] == 5.0
    assert free_rec.options["rate_limit_per_s"] is None
    assert config_hash(limited_rec) == config_hash(free_rec)


def test_per_minute_rate_from_the_environment(tmp_path: Path) -> None:
    suite = _suite(tmp_path, 2)
    calls = tmp_path / "calls.txt"
    out = tmp_path / "run"
    result = _run(
        *_common(suite, _agent(tmp_path, calls), out), env={"AGENTGAUGE_RATE_LIMIT": "240/min"}
    )
    assert result.exit_code == 0, result.output
    assert read_record(out).options["rate_limit_per_s"] == 4.0
    assert min(_gaps(calls)) >= _floor(4)


def test_provider_concurrency_flag_caps_calls_in_flight(tmp_path: Path) -> None:
    suite = _suite(tmp_path, 6)
    limited = tmp_path / "limited.txt"
    out = tmp_path / "limited"
    args = _common(suite, _agent(tmp_path, limited, sleep=0.05), out)
    result = _run(*args, "--max-concurrency", "4", env={"AGENTGAUGE_PROVIDER_CONCURRENCY": "1"})
    assert result.exit_code == 0, result.output
    assert _max_overlap(limited) == 1
    assert read_record(out).options["provider_concurrency"] == 1
    # without it, the four cases' calls overlap: the check above can fail
    free = tmp_path / "free.txt"
    args = _common(suite, _agent(tmp_path, free, sleep=0.05), tmp_path / "free")
    assert _run(*args, "--max-concurrency", "4").exit_code == 0
    assert _max_overlap(free) >= 2


def test_resume_keeps_the_recorded_limits_unless_given_again(tmp_path: Path) -> None:
    suite = _suite(tmp_path, 1)
    calls = tmp_path / "calls.txt"
    agent = _agent(tmp_path, calls)
    out = tmp_path / "run"
    first = _run(*_common(suite, agent, out), "--rate-limit", "50/s", "--provider-concurrency", "3")
    assert first.exit_code == 0, first.output
    record = json.loads((out / "run.json").read_text())
    # a run whose last pairs are still to do: the same run.json, no results yet
    (out / "results.jsonl").write_text("")
    (out / "run.json").write_text(json.dumps(record))
    again = _run("--resume", str(out), "--agent", agent, "--no-progress")
    assert again.exit_code == 0, again.output
    assert read_record(out).options["rate_limit_per_s"] == 50.0
    assert read_record(out).options["provider_concurrency"] == 3
    (out / "results.jsonl").write_text("")
    changed = _run(
        "--resume", str(out), "--agent", agent, "--no-progress", "--rate-limit", "5/s",
        "--provider-concurrency", "2",
    )  # fmt: skip
    assert changed.exit_code == 0, changed.output
    assert read_record(out).options["rate_limit_per_s"] == 5.0
    assert read_record(out).options["provider_concurrency"] == 2


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("0/s", "must be more than 0"),
        ("0.0/min", "must be more than 0"),
        ("abc", "give a rate as N/s or N/min"),
        ("5/hour", "give a rate as N/s or N/min"),
        ("-1/s", "give a rate as N/s or N/min"),
        ("10", "give a rate as N/s or N/min"),
        ("", "give a rate as N/s or N/min"),
    ],
)
def test_a_bad_rate_is_a_one_line_error(tmp_path: Path, value: str, says: str) -> None:
    suite = _suite(tmp_path, 1)
    calls = tmp_path / "calls.txt"
    out = tmp_path / "run"
    result = _run(*_common(suite, _agent(tmp_path, calls), out), "--rate-limit", value)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert says in lines[0]
    assert "--rate-limit" in lines[0]
    assert not calls.exists()
    assert not (out / "results.jsonl").exists()


def test_parse_rate_forms() -> None:
    assert parse_rate("20/s") == 20.0
    assert parse_rate("500/min") == pytest.approx(500 / 60)
    assert parse_rate(" 2.5 / sec ") == 2.5
    assert parse_rate("90/M") == 1.5
    with pytest.raises(UserError, match="AGENTGAUGE_X"):
        parse_rate("nope", option="AGENTGAUGE_X")


def test_a_call_cancelled_while_waiting_for_its_start_gives_its_slot_back() -> None:
    slots = anyio.CapacityLimiter(1)
    limits = ModelLimits(slots, StartSpacer(0.5))  # one start every 2 s

    async def main() -> None:
        async with limits:  # the first start goes at once
            pass
        with anyio.move_on_after(0.05) as scope:
            async with limits:  # waits ~2 s for its start, holding the slot
                pytest.fail("started before its time")
        assert scope.cancelled_caught

    anyio.run(main)
    assert slots.borrowed_tokens == 0


def test_a_matrix_records_the_limits_and_its_resume_may_change_them(tmp_path: Path) -> None:
    suite = _suite(tmp_path, 2)
    out = tmp_path / "out"
    agents = ["--agent", "mock:", "--agent", "echo=mock:echo"]
    first = _run(str(suite), *agents, "-o", str(out), "--no-cache", "--no-progress",
                 "--no-history", "--rate-limit", "20/s")  # fmt: skip
    assert first.exit_code == 0, first.output
    assert [read_record(out / m).options["rate_limit_per_s"] for m in ("mock", "echo")] == [
        20.0,
        20.0,
    ]
    manifest = json.loads((out / "matrix.json").read_text())
    manifest["members"][1]["state"] = "failed"  # as if it had not finished
    (out / "matrix.json").write_text(json.dumps(manifest))
    again = _run("--resume", str(out), "--no-progress", "--no-history", "--rate-limit", "5/s")
    assert again.exit_code == 0, again.output
    assert read_record(out / "mock").options["rate_limit_per_s"] == 20.0  # done: untouched
    assert read_record(out / "echo").options["rate_limit_per_s"] == 5.0
