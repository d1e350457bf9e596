"""The bounded reader (files/_limits.py) and the readers built on it, outside the suite loader.

Each check is shown refusing (a ``file:line`` :class:`UserError`) and accepting: the line cap of
a file read line by line (results can be larger than the file limit, a line cannot), the depth
of a JSON line, special files behind a database path, NUL bytes in a text file; and the records
of a run directory (run.json, results, matrix.json, comparison.json, labels) that fail
validation say ``file:line: field: message`` instead of ``1 validation error for RunRecord``.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from test_fuzz import LOCATED

from agentgauge.errors import UserError
from agentgauge.files import check_database, iter_lines, parse_json, read_plain_text
from agentgauge.rundir import iter_light_results, iter_results, load_record, scan_finished
from agentgauge.schema import CaseResult, RunRecord

LIMIT_ENV = "AGENTGAUGE_MAX_FILE_MB"


def _result_line(case_id: str, pad: int = 0) -> bytes:
    result = CaseResult(case_id=case_id, status="passed", score=1.0, text="x" * pad)
    return result.model_dump_json().encode() + b"\n"


def _one_problem(err: pytest.ExceptionInfo[UserError]) -> str:
    assert len(err.value.problems) >= 1
    line = err.value.problems[0]
    assert LOCATED.match(line), line
    return line


# ---------------------------------------------------------------------- lines of streamed files


def test_a_file_read_line_by_line_may_pass_the_file_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Results are capped per line, not per file: a journal ten times the limit still reads."""
    monkeypatch.setenv(LIMIT_ENV, "0.01")  # 10 KB
    line = _result_line("a", pad=2000)
    path = tmp_path / "results.jsonl"
    path.write_bytes(line * 60)
    assert path.stat().st_size > 10 * 10 * 1024
    assert len(list(iter_results(tmp_path))) == 60
    assert len(list(iter_light_results(tmp_path))) == 60


def test_a_line_over_the_limit_is_refused_with_its_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(LIMIT_ENV, "0.01")
    path = tmp_path / "results.jsonl"
    path.write_bytes(_result_line("a") + _result_line("b", pad=20_000))
    for read in (iter_results, iter_light_results, scan_finished):
        with pytest.raises(UserError) as err:
            list(read(tmp_path))  # type: ignore[call-overload]
        line = _one_problem(err)
        assert line.startswith(f"{path}:2: the line is longer than the 0.01 MB limit"), line


def test_a_sparse_file_without_line_ends_is_refused_not_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 3 GB sparse file (no disk used) is one endless line: refused once the limit is read."""
    monkeypatch.setenv(LIMIT_ENV, "1")
    path = tmp_path / "results.jsonl"
    with open(path, "wb") as fh:
        fh.truncate(3 * 1024**3)
    with pytest.raises(UserError) as err:
        next(iter_lines(path, str(path)))
    assert _one_problem(err).startswith(f"{path}:1: the line is longer than the 1 MB limit")


def test_iter_lines_keeps_line_ends_and_numbers(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b"a\n\nb\nc")
    assert list(iter_lines(path, "x.jsonl")) == [(1, b"a\n"), (2, b"\n"), (3, b"b\n"), (4, b"c")]


def test_iter_lines_refuses_special_files_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero")):
        with pytest.raises(UserError, match=r":1: not a regular file") as err:
            list(iter_lines(path, str(path)))
        _one_problem(err)


# ------------------------------------------------------------------------------- JSON documents


def test_parse_json_refuses_deep_nesting_and_names_the_line() -> None:
    with pytest.raises(UserError) as err:
        parse_json(b"[" * 150 + b"]" * 150, "f.jsonl", 7)
    assert _one_problem(err).startswith("f.jsonl:7: [0][0][0][0][0][0]…: nested deeper than 100")
    with pytest.raises(UserError) as err:  # past orjson's own limit
        parse_json(b'{"a": ' * 5000 + b"1" + b"}" * 5000, "f.jsonl", 3, what="result line")
    line = _one_problem(err)
    assert line.startswith("f.jsonl:3: nested deeper than 100 levels")
    assert line.endswith("(not a valid result line)")
    assert parse_json(b"[" * 100 + b"]" * 100, "f.jsonl") is not None


def test_parse_json_names_the_line_of_bad_utf8_and_nul() -> None:
    for raw in (b'{"a": "\xff"}', b'{"a": "x\x00"}', b"\x00"):
        with pytest.raises(UserError, match=r"^f\.jsonl:4: invalid JSON: ") as err:
            parse_json(raw, "f.jsonl", 4)
        _one_problem(err)
    assert parse_json('{"a": "é"}'.encode(), "f.jsonl") == {"a": "é"}


# ------------------------------------------------------------------------- text and databases


def test_a_text_file_with_a_nul_byte_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "system.txt"
    path.write_bytes(b"line one\nline\x00two\n")
    with pytest.raises(UserError) as err:
        read_plain_text(path, str(path))
    assert _one_problem(err) == (
        f"{path}:2: a NUL byte at column 5: not a text file (save it as UTF-8 text)"
    )
    path.write_bytes("line one\nligne deux é\n".encode())
    assert read_plain_text(path, str(path)) == "line one\nligne deux é\n"


def test_a_database_path_must_be_absent_or_a_regular_file(tmp_path: Path) -> None:
    check_database(tmp_path / "new.sqlite", "new.sqlite")  # absent: it is made
    (tmp_path / "ok.sqlite").write_bytes(b"")
    check_database(tmp_path / "ok.sqlite", "ok.sqlite")
    fifo = tmp_path / "fifo.sqlite"
    os.mkfifo(fifo)
    link = tmp_path / "zero.sqlite"
    link.symlink_to("/dev/zero")
    for path in (fifo, link, Path("/dev/zero")):
        with pytest.raises(UserError, match=r":1: not a regular file") as err:
            check_database(path, str(path))
        _one_problem(err)
    with pytest.raises(UserError, match=r":1: is a directory"):
        check_database(tmp_path, str(tmp_path))


# --------------------------------------------------- records that fail validation: file:line: field


def _record(tmp_path: Path) -> Path:
    record = RunRecord(run_id="r", suite="s", agent="mock:", started_at="t", agentgauge_version="0")
    text = json.dumps(record.model_dump(mode="json"), indent=2)
    (tmp_path / "run.json").write_text(text)
    return tmp_path / "run.json"


def test_an_invalid_run_record_names_line_and_field(tmp_path: Path) -> None:
    """Was ``run.json: not a valid run record: 1 validation error for RunRecord``."""
    path = _record(tmp_path)
    data = json.loads(path.read_text())
    data["trials"] = "three"
    path.write_text(json.dumps(data, indent=2))
    line_no = next(i for i, ln in enumerate(path.read_text().splitlines(), 1) if "three" in ln)
    with pytest.raises(UserError) as err:
        load_record(tmp_path)
    line = _one_problem(err)
    assert line.startswith(f"{path}:{line_no}: trials: "), line
    assert line.endswith("(not a valid run record)")
    assert "validation error for" not in line
    data["trials"], data["surprise"] = 1, True
    path.write_text(json.dumps(data, indent=2))
    with pytest.raises(UserError, match=r"run\.json:\d+: surprise: unknown field"):
        load_record(tmp_path)
    data.pop("surprise")
    path.write_text(json.dumps(data, indent=2))
    assert load_record(tmp_path) is not None


def test_an_invalid_result_line_names_line_and_field(tmp_path: Path) -> None:
    good = _result_line("a")
    bad = json.loads(good)
    bad["status"] = "wonderful"
    (tmp_path / "results.jsonl").write_bytes(good + json.dumps(bad).encode() + b"\n")
    for read in (iter_results, iter_light_results):
        with pytest.raises(UserError) as err:
            list(read(tmp_path))
        line = _one_problem(err)
        assert line.startswith(f"{tmp_path / 'results.jsonl'}:2: status: "), line


def test_a_journal_line_without_a_case_id_names_the_field(tmp_path: Path) -> None:
    (tmp_path / "results.jsonl").write_bytes(b'{"trial": 0}\n[1]\n')
    with pytest.raises(UserError, match=r"results\.jsonl:1: case_id: expected a string, got null"):
        scan_finished(tmp_path)
    (tmp_path / "results.jsonl").write_bytes(b'{"case_id": "a", "trial": "x"}\n')
    with pytest.raises(UserError, match=r"results\.jsonl:1: trial: expected an integer"):
        scan_finished(tmp_path)
    (tmp_path / "results.jsonl").write_bytes(b"[1]\n")
    with pytest.raises(UserError, match=r"results\.jsonl:1: expected a result object, got a list"):
        scan_finished(tmp_path)
    (tmp_path / "results.jsonl").write_bytes(_result_line("a"))
    assert scan_finished(tmp_path).pairs == {("a", 0)}


def test_an_invalid_matrix_manifest_and_comparison_name_line_and_field(tmp_path: Path) -> None:
    from agentgauge.metrics import COMPARISON_FILE, read_matrix
    from agentgauge.runner import read_manifest

    manifest = (
        '{\n  "suite": "s",\n  "suite_path": "s.yaml",\n  "started_at": "t",\n  "members": 7\n}\n'
    )
    (tmp_path / "matrix.json").write_text(manifest)
    with pytest.raises(UserError) as err:
        read_manifest(tmp_path)
    assert _one_problem(err).startswith(f"{tmp_path / 'matrix.json'}:5: members: ")
    (tmp_path / COMPARISON_FILE).write_text('{\n  "agents": 3\n}\n')
    with pytest.raises(UserError) as err:
        read_matrix(tmp_path)
    line = _one_problem(err)
    assert line.startswith(f"{tmp_path / COMPARISON_FILE}:2: agents: "), line
    assert line.endswith("(not a valid matrix comparison)")
    for name in ("matrix.json", COMPARISON_FILE):
        (tmp_path / name).unlink()
        os.mkfifo(tmp_path / name)
    with pytest.raises(UserError, match=r"matrix\.json:1: not a regular file"):
        read_manifest(tmp_path)


def test_an_invalid_labels_line_names_line_and_field(tmp_path: Path) -> None:
    from agentgauge.judges import read_labels

    path = tmp_path / "labels.jsonl"
    good = {"task": "equivalence_answer", "inputs": {"question": "q"}, "label": "equivalent"}
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "inputs": {"q": 1}}) + "\n")
    with pytest.raises(UserError) as err:
        read_labels(path)
    assert _one_problem(err).startswith(f"{path}:2: inputs.q: "), err.value.problems
    path.write_text(json.dumps(good) + "\n")
    assert len(read_labels(path)) == 1


# ------------------------------------------------------------ through the command line, for real


def _limited() -> None:  # the child's address space: a runaway read fails there
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def agentgauge(*args: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(
        os.environ,
        AGENTGAUGE_HISTORY=str(cwd / "history.sqlite"),
        AGENTGAUGE_CACHE_DIR=str(cwd / "cache"),
        XDG_CONFIG_HOME=str(cwd / "config"),
    )
    return subprocess.run(
        [sys.executable, "-m", "agentgauge", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_limited,
        check=False,
    )


def _suite(tmp_path: Path) -> Path:
    suite = tmp_path / "suite.yaml"
    suite.write_text("name: s\ncases:\n  - id: a\n    input: hi\n    expect: {behavior: no_tool}\n")
    return suite


@pytest.mark.timeout(300)
def test_hostile_run_directory_files_exit_2_with_one_line(tmp_path: Path) -> None:
    """A FIFO, /dev/zero and a 3 GB sparse file in a run directory: exit 2, one located line
    on stderr, no traceback, no hang (each process is cut off after 120 s)."""
    suite = _suite(tmp_path)
    done = agentgauge("run", suite, "--agent", "mock:", "-o", "run", "--no-progress", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    run = tmp_path / "run"
    shapes = {
        "run.json": lambda p: os.mkfifo(p),
        "results.jsonl": lambda p: p.symlink_to("/dev/zero"),
    }
    for name, make in shapes.items():
        good = (run / name).read_bytes()
        (run / name).unlink()
        make(run / name)
        out = agentgauge("report", run, "--format", "json", cwd=tmp_path)
        assert out.returncode == 2, (name, out.stderr)
        assert "Traceback" not in out.stderr
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1, lines
        assert LOCATED.match(lines[0]), lines
        assert name in lines[0], lines
        (run / name).unlink()
        (run / name).write_bytes(good)
    with open(run / "results.jsonl", "r+b") as fh:
        fh.truncate(3 * 1024**3)  # sparse: the lines of the run, then 3 GB of NUL bytes
    out = agentgauge("gate", run, cwd=tmp_path)
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().endswith(
        "the line is longer than the 256 MB limit on input files (a line of a file read line by "
        "line; set AGENTGAUGE_MAX_FILE_MB to raise it)"
    ), out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


@pytest.mark.timeout(300)
def test_hostile_files_named_on_the_command_line_exit_2_with_one_line(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    commands = [
        ("run", suite, "--agent", "mock:", "--system-file", "/dev/zero", "--no-progress"),
        ("run", suite, "--agent", "mock:", "--system-file", fifo, "--no-progress"),
        ("calibrate", "--labels", "/dev/zero", "--judge", "mock:"),
        ("history", "--history", fifo),
    ]
    for args in commands:
        out = agentgauge(*args, cwd=tmp_path)
        assert out.returncode == 2, (args, out.stderr)
        assert "Traceback" not in out.stderr
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1, (args, lines)
        assert LOCATED.match(lines[0]), (args, lines)
        assert "not a regular file" in lines[0], lines
