"""The run directory has one owner (rundir/_rundir.py): one truncation rule for every reader, one
run.json reader that fails one way, and no other module opens its files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentgauge.errors import UserError
from agentgauge.io import (
    ResultsWriter,
    iter_light_results,
    iter_results,
    load_record,
    read_record,
    scan_finished,
    write_record,
)
from agentgauge.schema import CaseResult, Message, RunRecord

SRC = Path(__file__).resolve().parents[2] / "src" / "agentgauge"


def _journal(tmp_path: Path, tail: bytes) -> Path:
    with ResultsWriter(tmp_path) as w:
        w.write(CaseResult(case_id="a", status="passed", messages=[Message(role="user")]))
        w.write(CaseResult(case_id="b", status="failed"))
    with open(tmp_path / "results.jsonl", "ab") as fh:
        fh.write(tail)
    return tmp_path


@pytest.mark.parametrize(
    "tail",
    [
        b'{"case_id": "c", "sta',  # cut mid-line
        b'{"case_id": "c", "status": "passed"}',  # whole JSON, but the newline never came
    ],
)
def test_every_reader_and_resume_apply_the_same_truncation_rule(
    tmp_path: Path, tail: bytes
) -> None:
    run = _journal(tmp_path, tail)
    assert [r.case_id for r in iter_results(run)] == ["a", "b"]
    assert [r.case_id for r in iter_light_results(run)] == ["a", "b"]
    finished = scan_finished(run)
    assert finished.pairs == {("a", 0), ("b", 0)}
    assert (finished.passed, finished.failed) == (1, 1)
    assert (run / "results.jsonl").read_bytes().endswith(b"\n")  # cut off for later appends
    assert [r.case_id for r in iter_results(run)] == ["a", "b"]


def test_a_bad_line_before_the_end_names_file_and_line(tmp_path: Path) -> None:
    run = _journal(tmp_path, b"not json\n")
    for reader in (iter_results, iter_light_results):
        with pytest.raises(
            UserError, match=r"results\.jsonl:3: invalid JSON: .*\(not a valid result line\)$"
        ):
            list(reader(run))


def test_light_results_drop_the_transcript(tmp_path: Path) -> None:
    run = _journal(tmp_path, b"")
    assert [len(r.messages) for r in iter_results(run)] == [1, 0]
    assert [len(r.messages) for r in iter_light_results(run)] == [0, 0]


def test_run_record_readers_fail_one_way(tmp_path: Path) -> None:
    assert load_record(tmp_path) is None
    with pytest.raises(UserError, match="not a run directory"):
        read_record(tmp_path)
    record = RunRecord(
        run_id="r", suite="s", agent="mock:echo", started_at="t", agentgauge_version="0"
    )
    write_record(tmp_path, record)
    assert read_record(tmp_path) == load_record(tmp_path) == record
    (tmp_path / "run.json").write_text("{")
    for reader in (read_record, load_record):
        with pytest.raises(UserError, match=r"run\.json:1: invalid JSON: "):
            reader(tmp_path)


def test_no_other_module_names_the_run_directory_files() -> None:
    """Other modules ask io/_rundir.py (RESULTS_FILE, RUN_FILE, its readers and writers)."""
    literal = re.compile(r"""["'](run\.json|results\.jsonl)["']""")
    offenders = []
    for path in SRC.rglob("*.py"):
        if path.name == "_rundir.py":
            continue
        for lineno, line in enumerate(path.read_text().splitlines(), start=1):
            code = line.split("#", 1)[0]
            if literal.search(code) and "``" not in code:  # (prose in docstrings is fine)
                offenders.append(f"{path.relative_to(SRC)}:{lineno}: {line.strip()}")
    assert offenders == []
