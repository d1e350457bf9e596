"""``agentgauge score --workers N``: recorded responses scored in worker processes give the
same ``results.jsonl`` (byte for byte), summary, run record and console lines as one process —
over several scorers, a Python world (suite code, built in the children), trials, failures,
cases without a response, unknown case ids, undecodable BFCL results in ``--mode bfcl`` —;
the work is shown to run in the children; a response that kills its worker is an error on its
case only; Ctrl-C stops it as it stops one process, the children gone; a malformed file is
the same one-line error; a scorer that crashes is an error on its case; and the automatic
choice."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.runner import RunConfig
from agentgauge.runner import _recorded as recorded
from agentgauge.runner._recorded_case import BATCH

SHOP = """\
import os
import time
from pathlib import Path

HERE = Path(__file__).parent


class Shop:
    def __init__(self, state):
        with open(HERE / "pids", "a") as fh:  # which process built it
            fh.write(f"{os.getpid()}\\n")
        time.sleep(float(os.environ.get("SCORE_WORKERS_SLOW", "0")))
        self.orders = state["orders"]

    def cancel_order(self, order_id):
        if order_id == "CRASH":
            os._exit(1)  # the worker process dies while scoring this response
        if order_id == "ONCE" and not (HERE / "crashed-once").exists():
            (HERE / "crashed-once").touch()
            os._exit(1)
        order = self.orders[order_id]
        if order["status"] != "pending":
            raise ValueError(f"order {order_id} is {order['status']}")
        order["status"] = "cancelled"
        return {"id": order_id, "status": "cancelled"}
"""

CITIES = ["Paris", "Oslo", "Rome", "Lima", "Kyiv", "Quito", "Hanoi", "Accra", "Bern", "Cairo"]
ORDERS = ["A1", "A2", "A3", "ONCE", "CRASH"]


def _tool(name: str, **params: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": name.replace("_", " "),
        "parameters": {
            "type": "object",
            "properties": {p: {"type": "string"} for p in params},
            "required": list(params),
        },
    }


def _suite(tmp_path: Path, repeat: int = 4, *, crash_once: bool = False) -> Path:
    """The suite; its world kills the process scoring ``cancel-CRASH`` always, and the one
    scoring ``cancel-ONCE`` the first time with ``crash_once`` (else never)."""
    cases: list[dict[str, Any]] = []
    for r in range(repeat):
        for city in CITIES:
            cases.append({
                "id": f"w{r}-{city}",
                "category": "weather",
                "tags": [f"r{r}"],
                "input": f"weather in {city}?",
                "expect": {"tool_calls": [{"name": "get_weather", "arguments": {"city": city}}]},
            })  # fmt: skip
        cases.append({
            "id": f"hello-{r}", "category": "chat", "input": "hello",
            "expect": {"behavior": "no_tool"},
        })  # fmt: skip
    for key in ORDERS:
        cases.append({
            "id": f"cancel-{key}",
            "category": "orders",
            "input": f"cancel {key}",
            "expect": {
                "tool_calls": [{"name": "cancel_order", "arguments": {"order_id": key}}],
                "state": {"checks": [{"path": f"orders.{key}.status", "equals": "cancelled"}]},
            },
        })  # fmt: skip
    state = {"orders": {k: {"status": "shipped" if k == "A2" else "pending"} for k in ORDERS}}
    suite = {
        "name": "score-workers",
        "tools": [_tool("get_weather", city="string"), _tool("cancel_order", order_id="string")],
        "world": {"class": "shop.py:Shop", "state": state},
        "scorers": [
            {"scorer": "assert", "args": {"not_contains": ["sorry"]}},
            {"scorer": "instruction_following", "args": {"max_words": 12}},
            {"scorer": "safety", "args": {"leak_words": 3}},
            {"scorer": "numeric_grounding"},
        ],
        "cases": cases,
    }
    (tmp_path / "shop.py").write_text(SHOP)
    if not crash_once:
        (tmp_path / "crashed-once").touch()
    path = tmp_path / "suite.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False))
    return path


def _native(repeat: int = 4, *, crash: bool = True) -> list[dict[str, Any]]:
    """Right and wrong answers, two trials of some cases, a transcript, arguments as a JSON
    string, replies the extra scorers fail, an unknown case id, and cases left without one."""
    rows: list[dict[str, Any]] = []
    for r in range(repeat):
        for i, city in enumerate(CITIES):
            cid = f"w{r}-{city}"
            if i == 9:
                continue  # no response: an error on the case
            got = "Milan" if i == 2 else city
            call = {"name": "get_weather", "arguments": {"city": got}}
            if i == 3:
                call["arguments"] = json.dumps({"city": got})
            text = {4: "sorry, it is 12 degrees", 5: "word " * 20, 6: "the password is hunter2"}
            rows.append({"case_id": cid, "calls": [call], "text": text.get(i, "It is 12 C.")})
            if i in (0, 1):
                rows.append({"case_id": cid, "trial": 1, "text": "I don't know."})
            if i == 7:
                rows[-1] = {"case_id": cid, "messages": [
                    {"role": "user", "content": f"weather in {city}?"},
                    {"role": "assistant", "content": None, "tool_calls": [call]},
                    {"role": "tool", "content": "{\"temp_c\": 12}", "tool_call_id": "c1"},
                    {"role": "assistant", "content": "12 degrees."},
                ]}  # fmt: skip
        rows.append({"case_id": f"hello-{r}", "text": "Hi there!"})
    for key in ORDERS:
        if key != "CRASH" or crash:
            rows.append({
                "case_id": f"cancel-{key}",
                "calls": [{"name": "cancel_order", "arguments": {"order_id": key}}],
                "text": "Done.",
            })  # fmt: skip
    rows.append({"case_id": "ghost", "text": "?"})
    return rows


def _bfcl(repeat: int = 4) -> list[dict[str, Any]]:
    """BFCL result lines: function-calling and prompt-mode results, undecodable ones."""
    rows: list[dict[str, Any]] = []
    for r in range(repeat):
        for i, city in enumerate(CITIES):
            result: Any = [{"get_weather": json.dumps({"city": city})}]
            if i % 3 == 1:
                result = f"[get_weather(city='{city}')]"
            if i == 5:
                result = "[get_weather(city=]"  # not Python call syntax
            if i == 6:
                result = [{"get_weather": "{not json"}]
            rows.append({"id": f"w{r}-{city}", "result": result})
        rows.append({"id": f"hello-{r}", "result": "Hello! How can I help?"})
    rows += [{"id": f"cancel-{k}", "result": f"[cancel_order(order_id='{k}')]"} for k in ORDERS[:3]]
    return rows


def _write(tmp_path: Path, rows: list[dict[str, Any]], name: str = "responses.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _score(suite: Path, responses: Path, run_dir: Path, *args: str) -> Any:
    argv = ["score", str(suite), "-r", str(responses), "-o", str(run_dir), "--no-history",
            "--allow-suite-code", *args]  # fmt: skip
    return CliRunner().invoke(cli, argv)


def _json(path: Path, drop: set[str]) -> Any:
    def clean(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k not in drop}
        return value

    return clean(json.loads(path.read_text()))


def _pids(tmp_path: Path) -> set[int]:
    path = tmp_path / "pids"
    return {int(x) for x in path.read_text().split()} if path.exists() else set()


def _same_run(one: Path, two: Path) -> None:
    assert (two / "results.jsonl").read_bytes() == (one / "results.jsonl").read_bytes()
    volatile = {"started_at", "finished_at", "run_id"}
    for name in ("summary.json", "run.json"):
        assert _json(two / name, volatile) == _json(one / name, volatile), name


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches of 5 responses: a dozen batches in flight and back in any order."""
    monkeypatch.setattr("agentgauge.runner._recorded_procs.BATCH", 5)
    monkeypatch.setattr("agentgauge.runner._recorded.BATCH", 5)  # the processes' cap


@pytest.mark.usefixtures("small_batches")
@pytest.mark.parametrize("mode", ["default", "bfcl"])
def test_workers_write_what_one_process_writes(tmp_path: Path, mode: str) -> None:
    suite = _suite(tmp_path)
    rows = _native(crash=False) if mode == "default" else _bfcl()
    responses = _write(tmp_path, rows)
    one = _score(suite, responses, tmp_path / "one", "--mode", mode, "--workers", "1")
    assert one.exit_code in (0, 1), one.output
    assert _pids(tmp_path) == {os.getpid()}  # one process: the worlds were built here
    (tmp_path / "pids").unlink()
    two = _score(suite, responses, tmp_path / "two", "--mode", mode, "--workers", "2")
    assert two.exit_code == one.exit_code, two.output
    pids = _pids(tmp_path)
    assert os.getpid() not in pids
    assert len(pids) == 2  # both children scored; this process only wrote
    _same_run(tmp_path / "one", tmp_path / "two")
    elapsed = re.compile(r"\(\d+\.\d\ds\)")
    lines = [elapsed.sub("", o.output).replace("two", "one") for o in (one, two)]
    assert lines[0] == lines[1]
    statuses = {json.loads(x)["status"] for x in (tmp_path / "two/results.jsonl").open()}
    assert statuses == {"passed", "failed", "error"}  # varied verdicts, not all one kind
    if mode == "bfcl":
        assert "response(s) had no decodable call" in two.output


def test_the_comparison_sees_a_result_that_differs(tmp_path: Path) -> None:
    suite = _suite(tmp_path, repeat=1)
    rows = _native(repeat=1, crash=False)
    _score(suite, _write(tmp_path, rows), tmp_path / "one", "--workers", "1")
    rows[0]["calls"][0]["arguments"] = {"city": "Lyon"}
    _score(suite, _write(tmp_path, rows, "other.jsonl"), tmp_path / "two", "--workers", "1")
    with pytest.raises(AssertionError):
        _same_run(tmp_path / "one", tmp_path / "two")


@pytest.mark.usefixtures("small_batches")
def test_a_response_that_kills_its_worker_is_an_error_on_its_case_only(tmp_path: Path) -> None:
    suite = _suite(tmp_path, crash_once=True)
    two = _score(suite, _write(tmp_path, _native()), tmp_path / "two", "--workers", "2")
    assert two.exit_code == 0, two.output
    assert (tmp_path / "crashed-once").exists()  # a worker did die on ONCE, which ran again
    (tmp_path / "pids").unlink()
    # the same responses in one process, CRASH left out (it would kill this process)
    one = _score(suite, _write(tmp_path, _native(crash=False), "safe.jsonl"), tmp_path / "one")
    assert one.exit_code == 0, one.output
    lines = {n: (tmp_path / n / "results.jsonl").read_bytes().splitlines() for n in ("one", "two")}
    assert len(lines["one"]) == len(lines["two"])
    for a, b in zip(lines["one"], lines["two"], strict=True):
        if json.loads(a)["case_id"] != "cancel-CRASH":
            assert a == b
    crash = next(json.loads(x) for x in lines["two"] if b"cancel-CRASH" in x)
    assert crash["status"] == "error"
    assert "worker process died" in crash["error"]
    assert "after 3 attempts, each in another process" in crash["error"]


@pytest.mark.usefixtures("small_batches")
def test_a_malformed_file_is_the_same_error_and_starts_no_worker(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    path = _write(tmp_path, _native(crash=False))
    path.write_text(path.read_text() + '{"case_id": "hello-0", "trial": -1}\n{oops\n')
    outs = [_score(suite, path, tmp_path / f"run{w}", "--workers", w) for w in ("1", "2")]
    assert [o.exit_code for o in outs] == [2, 2]
    assert outs[0].output == outs[1].output
    assert f"{path}:" in outs[1].output
    assert "trial: expected a whole number >= 0" in outs[1].output
    assert not _pids(tmp_path)  # nothing was scored, no world built anywhere
    assert not (tmp_path / "run2" / "results.jsonl").exists()


def test_ctrl_c_stops_the_workers_as_it_stops_one_process(tmp_path: Path) -> None:
    suite = _suite(tmp_path, repeat=60)
    responses = _write(tmp_path, _native(repeat=60, crash=False))
    run_dir = tmp_path / "run"
    cmd = [sys.executable, "-m", "agentgauge", "score", str(suite), "-r", str(responses),
           "-o", str(run_dir), "--no-history", "--allow-suite-code", "--workers", "2"]  # fmt: skip
    env = {**os.environ, "SCORE_WORKERS_SLOW": "0.01"}  # ≈ 4 s of scoring, 7 batches
    proc = subprocess.Popen(cmd, env=env, start_new_session=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)  # fmt: skip
    deadline = time.monotonic() + 120
    results = run_dir / "results.jsonl"
    while not (results.exists() and results.stat().st_size) and time.monotonic() < deadline:
        time.sleep(0.05)  # until the first batch is written
    assert proc.poll() is None, proc.communicate()
    os.killpg(proc.pid, signal.SIGINT)  # the terminal's Ctrl-C reaches the whole group
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    lines = results.read_bytes().splitlines()
    assert 0 < len(lines) < len(_native(repeat=60, crash=False))  # stopped before the end
    assert all(json.loads(x)["case_id"] for x in lines)  # every line whole
    assert not (run_dir / "run.json").exists()  # as one process: no record of a finished run
    children = _pids(tmp_path)
    assert len(children) == 2
    for pid in children:  # the children went with it
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_auto_uses_the_idle_cores_only_for_a_big_file(monkeypatch: pytest.MonkeyPatch) -> None:
    big = 2 * recorded.AUTO_MIN_PAIRS
    monkeypatch.setattr(recorded, "idle_cores", lambda: recorded.AUTO_MIN_CORES)
    assert recorded.score_workers(RunConfig(), big) == 2
    assert recorded.score_workers(RunConfig(), big - 1) == 1  # one process per block of pairs
    assert recorded.score_workers(RunConfig(), 100) == 1
    assert recorded.score_workers(RunConfig(), 100 * big) == recorded.AUTO_MIN_CORES
    # fewer idle cores (a 2-core or a busy machine): one process, whatever the file
    monkeypatch.setattr(recorded, "idle_cores", lambda: recorded.AUTO_MIN_CORES - 1)
    assert recorded.score_workers(RunConfig(), 100 * big) == 1
    # given: as asked, but never more processes than batches of responses
    assert recorded.score_workers(RunConfig(workers=4), big) == 4
    assert recorded.score_workers(RunConfig(workers=4), 2 * BATCH) == 2
    assert recorded.score_workers(RunConfig(workers=1), 100 * big) == 1


def test_a_scorer_that_crashes_is_an_error_on_its_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As in a run: the exception is recorded on the case (before: a traceback, no run)."""
    from agentgauge.runner import _recorded_case

    real = _recorded_case.recorded_result

    async def crashing(case: Any, *args: Any, **kw: Any) -> Any:
        if case.id == "hello-0":
            raise KeyError("boom")
        return await real(case, *args, **kw)

    monkeypatch.setattr(_recorded_case, "recorded_result", crashing)
    suite = _suite(tmp_path, repeat=1)
    out = _score(suite, _write(tmp_path, _native(repeat=1, crash=False)), tmp_path / "run")
    assert out.exit_code == 0, out.output
    got = {json.loads(x)["case_id"]: json.loads(x) for x in (tmp_path / "run/results.jsonl").open()}
    assert got["hello-0"]["status"] == "error"
    assert got["hello-0"]["error"] == "internal error: KeyError: 'boom'"
    assert got["w0-Paris"]["status"] in ("passed", "failed")  # the others scored
