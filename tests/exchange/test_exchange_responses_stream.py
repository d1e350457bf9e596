"""``agentgauge score`` reads the responses file in bounded memory (a checking pass that keeps
each response's keys, then each case's lines read again in the suite's order) and writes what
reading it whole wrote: the same ``results.jsonl`` and summary over a varied file (every
response shape the reader accepts, trials out of order, cases without a response, responses for
unknown case ids, BFCL v3's ``simple_N`` alias, blank lines), with one worker process or two;
the same one-line errors at the same lines; keys kept, not responses; a file that changes
between the passes refused; a 2 GB line refused without reading it.

The fixtures here also served to compare with the tree before streaming (57d24ea), by hand:
byte-identical results, summaries, run records, console lines and errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.errors import UserError
from agentgauge.exchange import open_responses, read_responses
from agentgauge.importers import load_suite_any
from agentgauge.runner import score_responses
from agentgauge.scoring import ScoringConfig

SUITE = """\
name: varied
tools:
  - name: get_weather
    description: weather in a city
    parameters:
      type: object
      properties:
        city: {type: string}
      required: [city]
  - name: math.factorial
    description: factorial of a number
    parameters:
      type: object
      properties:
        number: {type: integer}
      required: [number]
cases:
"""

CITIES = ["Paris", "Oslo", "Rome", "Lima", "Kyiv"]


def _cases() -> str:
    rows = []
    for city in CITIES:
        for k in range(3):
            rows.append(
                f"  - id: w-{city}-{k}\n    category: weather\n    input: Weather in {city}?\n"
                "    expect: {tool_calls: [{name: get_weather, arguments: {city: "
                f"{city}}}}}]}}\n"
            )
    rows.append(
        "  - id: simple_python_3\n    category: math\n    input: 5!\n"
        "    expect: {tool_calls: [{name: math.factorial, arguments: {number: 5}}]}\n"
    )
    rows.append(
        "  - id: fact-fc\n    category: math\n    input: 6!\n"
        "    expect: {tool_calls: [{name: math.factorial, arguments: {number: 6}}]}\n"
    )
    rows.append(
        "  - id: fact-py\n    category: math\n    input: 7!\n"
        "    expect: {tool_calls: [{name: math.factorial, arguments: {number: 7}}]}\n"
    )
    rows.append(
        "  - id: hello\n    category: chat\n    input: hello\n    expect: {behavior: no_tool}\n"
    )
    rows.append(
        "  - id: two-turns\n    category: weather\n    input: Weather in Paris?\n"
        "    expect: {tool_calls: [{name: get_weather, arguments: {city: Paris}}]}\n"
        "    turns:\n      - user: And in Rome?\n"
        "        expect: {tool_calls: [{name: get_weather, arguments: {city: Rome}}]}\n"
    )
    rows.append("  - id: never-answered\n    category: chat\n    input: hi\n")
    return "".join(rows)


def _weather(case_id: str, trial: int, city: str) -> dict[str, Any]:
    return {
        "case_id": case_id,
        "trial": trial,
        "calls": [{"name": "get_weather", "arguments": {"city": city}}],
    }


def _good_rows() -> list[Any]:
    rows: list[Any] = []
    for trial in (2, 0, 1):  # trials out of order in the file
        for i, city in enumerate(CITIES):
            for k in range(3):
                cid = f"w-{city}-{k}"
                if (i + k + trial) % 4 == 0:
                    continue  # some (case, trial) without a response
                said = city if (i + trial) % 3 else "Atlantis"  # some wrong
                rows.append(_weather(cid, trial, said))
                if k == 1 and trial == 0:
                    rows.append("")  # blank lines count in the line numbers
    rows += [
        # arguments as a JSON string, labels, NaN (Python's json reads it)
        {
            "case_id": "w-Oslo-0",
            "trial": 3,
            "calls": [{"name": "get_weather", "arguments": '{"city": "Oslo"}'}],
            "labels": {"route": "weather", "skill": "lookup", "intents": ["weather"]},
        },
        '{"case_id": "w-Rome-0", "trial": 3, "calls": [{"name": "get_weather", '
        '"arguments": {"city": "Rome", "x": NaN}}]}',
        # a JSON tool call written as text
        {
            "case_id": "w-Lima-0",
            "trial": 3,
            "text": '{"name": "get_weather", "arguments": {"city": "Lima"}}',
        },
        # a whole transcript, ours and OpenAI's
        {
            "case_id": "two-turns",
            "messages": [
                {"role": "user", "content": "Weather in Paris?"},
                {
                    "role": "assistant",
                    "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
                },
                {"role": "tool", "content": "sunny", "tool_call_id": None},
                {"role": "assistant", "content": "Sunny."},
                {"role": "user", "content": "And in Rome?"},
                {"role": "assistant", "content": "No idea."},
            ],
        },
        {
            "case_id": "two-turns",
            "trial": 1,
            "messages": [
                {"role": "user", "content": "Weather in Paris?"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
                {"role": "assistant", "content": "Sunny."},
            ],
        },
        # BFCL: v3's simple_N (read as simple_python_N), function calling, Python syntax
        {"id": "simple_3", "result": [{"math_factorial": '{"number": 5}'}]},
        {"id": "fact-fc", "result": [{"math_factorial": {"number": 6}}]},
        {"id": "fact-py", "result": "[math.factorial(number=7)]"},
        {"case_id": "fact-py", "trial": 1, "text": "I cannot do that."},
        {"case_id": "fact-fc", "trial": 1, "calls": []},
        {"id": "hello", "result": "Hello! How can I help?"},  # undecodable: kept as text
        {"case_id": "hello", "trial": 1, "text": "Hi!"},
        {
            "case_id": "hello",
            "trial": 2,
            "calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}],
        },
        {"id": "w-Kyiv-0", "result": {"not": "a list"}},  # BFCL: a dict result
        # for case ids the suite does not have
        {"case_id": "ghost", "text": "?"},
        {"id": "simple_99", "result": "[f(x=1)]"},
        {"case_id": "ghost", "trial": 1, "text": "?"},
    ]
    return rows


def write_rows(path: Path, rows: list[Any]) -> Path:
    path.write_text(
        "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows),
        encoding="utf-8",
    )
    return path


def varied(folder: Path) -> tuple[Path, Path]:
    """(suite file, responses file) in ``folder``."""
    suite = folder / "suite.yaml"
    suite.write_text(SUITE + _cases(), encoding="utf-8")
    return suite, write_rows(folder / "responses.jsonl", _good_rows())


def bad_rows() -> list[Any]:
    """Good lines with every kind of bad line among them (their errors, in file order)."""
    deep: Any = "x"
    for _ in range(120):
        deep = [deep]
    return [
        _weather("w-Paris-0", 0, "Paris"),
        "{not json",
        _weather("w-Paris-0", 0, "Paris"),  # a second response for the same case and trial
        {"case_id": "b", "colls": []},
        {"something": 1},
        [1, 2],
        {"case_id": "c", "calls": [{"name": "f", "arguments": [1]}]},
        {"case_id": "c", "calls": [{"name": "f", "arguments": "{bad"}]},
        {"case_id": "c", "calls": "f"},
        {"case_id": "c", "trial": -1},
        {"case_id": 7},
        {"case_id": "c", "text": 3},
        {"case_id": "c", "messages": []},
        {"case_id": "c", "messages": [{"role": "wizard"}]},
        {"case_id": "c", "text": "x", "labels": {"route": 5}},
        {"id": 5, "result": "[f(x=1)]"},
        {"case_id": "deep", "calls": [{"name": "f", "arguments": {"a": deep}}]},
        '{"case_id": "big", "trial": 123456789012345678901234567890}',
        _weather("w-Paris-1", 0, "Paris"),
        "",
        _weather("w-Paris-0", 0, "Oslo"),  # again: a third one
    ]


def flood_rows() -> list[Any]:
    """60 bad lines, a good one, more bad lines: the list ends at the first good line after
    50 problems."""
    return [
        _weather("w-Paris-0", 0, "Paris"),
        *[f"{{bad {i}" for i in range(60)],
        _weather("w-Paris-1", 0, "Paris"),
        *[f"{{late {i}" for i in range(5)],
    ]


# ------------------------------------------------------------------------- the tests


def _score(suite: Path, responses: Path, run_dir: Path, *extra: str) -> str:
    out = CliRunner().invoke(
        cli,
        ["score", str(suite), "-r", str(responses), "-o", str(run_dir), "--no-history", *extra],
    )
    assert out.exit_code == 0, out.output
    return out.output


def _summary(run_dir: Path) -> dict[str, Any]:
    data = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    for key in ("started_at", "finished_at"):  # the clock
        data["run"].pop(key)
    return dict(data)


@pytest.mark.parametrize("mode", ["default", "bfcl"])
def test_streamed_scoring_writes_what_the_whole_file_wrote(tmp_path: Path, mode: str) -> None:
    suite, responses = varied(tmp_path)
    # the whole file in memory (read_responses, as score did before streaming), scored
    whole = tmp_path / "whole" / "run"
    score_responses(
        load_suite_any(suite),
        read_responses(responses),
        whole,
        ScoringConfig(mode=mode),
        suite_path=suite,
        responses_path=responses,
    )
    expected = (whole / "results.jsonl").read_bytes()
    # the order is the suite's, trials in order, whatever the file's order (read independently)
    lines = [json.loads(line) for line in expected.splitlines()]
    order = [(r["case_id"], r["trial"]) for r in lines]
    suite_ids = [c.id for c in load_suite_any(suite).cases]
    assert order == sorted(order, key=lambda k: (suite_ids.index(k[0]), k[1]))
    assert ("w-Paris-0", 1) in order
    assert ("simple_python_3", 0) in order
    assert ("never-answered", 0) in order  # no response: an error result
    assert {"ghost", "simple_99"}.isdisjoint(cid for cid, _ in order)
    summaries = []
    for workers in ("1", "2"):
        run_dir = tmp_path / f"w{workers}" / "run"
        printed = _score(suite, responses, run_dir, "--mode", mode, "--workers", workers)
        assert (run_dir / "results.jsonl").read_bytes() == expected
        assert "2 response(s) for case ids not in the suite: ghost, simple_99" in printed
        summaries.append(_summary(run_dir))
    assert summaries[0] == summaries[1]
    assert summaries[0]["run"]["options"]["trials"] == 4
    # the comparison sees a difference: a file with one response changed scores differently
    rows = _good_rows()
    rows[0] = _weather(rows[0]["case_id"], rows[0]["trial"], "Nowhere")
    other = write_rows(tmp_path / "other.jsonl", rows)
    _score(suite, other, tmp_path / "other" / "run", "--mode", mode)
    assert (tmp_path / "other" / "run" / "results.jsonl").read_bytes() != expected


def _errors(path: Path) -> list[str]:
    p = str(path)
    return [
        f"{p}:2: invalid JSON: unexpected character, expected a string key: line 1 column 2 "
        "(char 1)",
        f"{p}:3: a second response for case 'w-Paris-0' trial 0 (first at {p}:1)",
        f"{p}:4: unknown field(s) ['colls'] (known: ['calls', 'case_id', 'labels', 'messages', "
        "'text', 'trial', 'version'])",
        f"{p}:5: not a response: expected case_id (agentgauge) or id + result (BFCL)",
        f"{p}:6: expected a JSON object",
        f"{p}:7: calls[0].arguments: expected an object",
        f"{p}:8: calls[0].arguments: not valid JSON",
        f"{p}:9: calls: expected a list of {{name, arguments}}",
        f"{p}:10: trial: expected a whole number >= 0",
        f"{p}:11: case_id: expected a string",
        f"{p}:12: text: expected a string",
        f"{p}:13: messages: expected a list of messages (at least one)",
        f"{p}:14: messages: 1 validation error for Message",
        f"{p}:15: labels.route: Input should be a valid string (expected {{route, skill, "
        "intents, knowledge, fallback})",
        f"{p}:16: id: expected a string",
        f"{p}:17: calls[0].arguments.a[0][0]…: nested deeper than 100 levels of lists and "
        "mappings (the limit on input files)",
        f"{p}:18: trial: expected a whole number >= 0",
        f"{p}:21: a second response for case 'w-Paris-0' trial 0 (first at {p}:1)",
    ]


def test_bad_lines_are_the_same_errors_at_the_same_lines(tmp_path: Path) -> None:
    suite, _ = varied(tmp_path)
    bad = write_rows(tmp_path / "bad.jsonl", bad_rows())
    out = CliRunner().invoke(cli, ["score", str(suite), "-r", str(bad), "-o", str(tmp_path / "r")])
    assert out.exit_code == 2
    assert out.output.splitlines() == _errors(bad)
    assert not (tmp_path / "r" / "results.jsonl").exists()  # nothing written
    with pytest.raises(UserError) as err:
        read_responses(bad)
    assert err.value.problems == _errors(bad)
    # the list ends at the first good line after 50 problems (lines 2-61 bad, 62 good)
    flood = write_rows(tmp_path / "flood.jsonl", flood_rows())
    with pytest.raises(UserError) as err:
        open_responses(flood)
    assert [p.split(": ")[0] for p in err.value.problems] == [f"{flood}:{n}" for n in range(2, 62)]


def test_the_checking_pass_keeps_keys_not_responses(tmp_path: Path) -> None:
    path = tmp_path / "many.jsonl"
    text = " ".join(["word"] * 40)
    with path.open("w", encoding="utf-8") as fh:
        for trial in range(20):
            for case in range(1000):
                row = {
                    "case_id": f"case-{case}",
                    "trial": trial,
                    "text": text,
                    "calls": [{"name": "f", "arguments": {"x": case, "y": [1, 2, 3]}}],
                }
                fh.write(json.dumps(row) + "\n")
    tracemalloc.start()
    try:
        keys = open_responses(path)
        kept = tracemalloc.get_traced_memory()[0]
        whole = read_responses(path)
        both = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert keys.count == len(whole) == 20_000
    # keys: 32 bytes a response (its trial and where its line is, arrays grown by half) and
    # each case id once with its arrays; the responses themselves are more than 1 KB each
    assert kept < 50 * 20_000 + 500 * 1000, kept
    assert both - kept > 20 * kept
    assert keys.count_of("case-7") == 20
    assert keys.count_of("case-1000") == 0
    assert [r.trial for r in keys.responses("case-7")] == list(range(20))
    assert keys.responses("case-7") == [r for r in whole if r.case_id == "case-7"]


@pytest.mark.parametrize("trials", [5, 700])
def test_a_second_response_is_found_among_many_trials(tmp_path: Path, trials: int) -> None:
    """Looked up in the case's array of trials, or (many trials) in a set: found either way."""
    rows: list[Any] = [_weather("w-Paris-0", t, "Paris") for t in range(trials)]
    rows.insert(3, _weather("w-Oslo-0", 0, "Oslo"))
    rows.append(_weather("w-Paris-0", 2, "Paris"))
    path = write_rows(tmp_path / "r.jsonl", rows)
    with pytest.raises(UserError) as err:
        open_responses(path)
    assert err.value.problems == [
        f"{path}:{trials + 2}: a second response for case 'w-Paris-0' trial 2 (first at {path}:3)"
    ]
    assert open_responses(write_rows(tmp_path / "ok.jsonl", rows[:-1])).count == trials + 1


def test_a_file_that_changes_between_the_passes_is_refused(tmp_path: Path) -> None:
    _, responses = varied(tmp_path)
    keys = open_responses(responses)
    assert keys.responses("hello")  # read again: the same file
    with responses.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(_weather("w-Paris-0", 7, "Paris")) + "\n")
    with pytest.raises(UserError, match=r"responses.jsonl:1: the file changed while it was"):
        keys.responses("hello")


def test_a_2gb_line_is_refused_without_being_read(tmp_path: Path) -> None:
    suite, _ = varied(tmp_path)
    huge = tmp_path / "huge.jsonl"
    with huge.open("wb") as fh:  # sparse: 2 GB of NUL bytes without a line end
        fh.write(b'{"case_id": "w-Paris-0", "text": "')
        fh.truncate(2**31 + 1)
    code = (
        "import sys\n"
        "from agentgauge.cli import cli\n"
        "try:\n"
        "    cli.main(sys.argv[1:], standalone_mode=True)\n"
        "finally:\n"
        # this process's own peak: ru_maxrss carries the parent's peak across fork and exec on
        # Linux (a long pytest run's 800 MB), VmHWM is the peak of this program's memory alone
        "    hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')]\n"
        "    print(hwm[0].split()[1], file=sys.stdout)\n"
    )
    env = {**os.environ, "AGENTGAUGE_MAX_FILE_MB": ""}
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "score",
            str(suite),
            "-r",
            str(huge),
            "-o",
            str(tmp_path / "r"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == 2, child.stderr
    assert child.stderr.splitlines() == [
        f"{huge}:1: the file is larger than the 256 MB limit on input files (2048 MB; set "
        "AGENTGAUGE_MAX_FILE_MB to raise it)"
    ]
    assert int(child.stdout.split()[-1]) < 400_000  # KB: never read (reading it: > 2 GB)
    # a line just over a lowered limit: the file is refused the same way
    env["AGENTGAUGE_MAX_FILE_MB"] = "1"
    over = write_rows(tmp_path / "over.jsonl", [_weather("w-Paris-0", 0, "P" * 2**20)])
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "score",
            str(suite),
            "-r",
            str(over),
            "-o",
            str(tmp_path / "r"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == 2
    assert child.stderr.startswith(f"{over}:1: the file is larger than the 1 MB limit")


def test_a_line_over_the_limit_is_refused_once_the_limit_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file that grows while it is read (its size was checked at the open) meets the limit
    on each line: the line is refused with its number, once limit + 1 bytes are read."""
    short = json.dumps(_weather("w-Paris-0", 0, "Paris")) + "\n"
    path = write_rows(
        tmp_path / "r.jsonl",
        [_weather("w-Paris-0", 0, "Paris"), _weather("w-Oslo-0", 0, "O" * 5000)],
    )
    monkeypatch.setattr("agentgauge.exchange._responses.max_file_bytes", lambda: len(short))
    with pytest.raises(UserError) as err:
        open_responses(path)
    assert str(err.value) == (
        f"{path}:2: the line is longer than the limit on input files ({len(short):,} bytes; "
        "set AGENTGAUGE_MAX_FILE_MB to raise it)"
    )
    monkeypatch.setattr("agentgauge.exchange._responses.max_file_bytes", lambda: 6000)
    assert open_responses(path).count == 2  # at the limit: read
