"""The run history file: where it lives, its key (suite, agent, run id), scorer means, the
upgrade of old files and the refusal of foreign or corrupt ones."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from agentgauge.errors import UserError
from agentgauge.metrics import (
    Mean,
    Rate,
    Slice,
    Summary,
    default_history_path,
    history_path,
    read_history,
    record_run,
)
from agentgauge.metrics._model import ScorerStats
from agentgauge.schema import RunRecord


def summary(
    run_id: str,
    *,
    agent: str = "mock:a",
    suite: str = "demo",
    day: int = 1,
    pass_rate: float = 0.5,
    grounded: float | None = None,
    shard: str | None = None,
) -> Summary:
    run = RunRecord(
        run_id=run_id,
        suite=suite,
        agent=agent,
        started_at=f"2026-11-{day:02d}T10:00:00Z",
        agentgauge_version="0",
        shard=shard,
        options={"judge_samples": 3},
        judge="mock:judge",
    )
    scorers = {}
    if grounded is not None:
        scorers["judge.groundedness"] = ScorerStats(
            mean=Mean(n=10, mean=grounded, low=grounded - 0.1, high=grounded + 0.1)
        )
    return Summary(
        run=run,
        cases=10,
        overall=Slice(
            results=10, pass_rate=Rate(passed=5, n=10, value=pass_rate, low=0.2, high=0.8)
        ),
        scorers=scorers,
    )


def test_default_location_is_the_user_data_folder_never_the_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTGAUGE_HISTORY")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert history_path() == tmp_path / "data" / "agentgauge" / "history.sqlite"
    written = record_run(tmp_path, summary("r1"))
    assert written == tmp_path / "data" / "agentgauge" / "history.sqlite"
    assert written.is_file()
    assert not (tmp_path / ".agentgauge").exists()
    # a relative XDG_DATA_HOME is ignored (XDG spec): the home folder's default
    monkeypatch.setenv("XDG_DATA_HOME", "relative/data")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_history_path() == tmp_path / "home" / ".local/share/agentgauge/history.sqlite"
    # the environment beats the default, a given path beats both
    monkeypatch.setenv("AGENTGAUGE_HISTORY", str(tmp_path / "env.sqlite"))
    assert history_path() == tmp_path / "env.sqlite"
    assert history_path(tmp_path / "given.sqlite") == tmp_path / "given.sqlite"


def test_rows_are_keyed_by_suite_agent_and_run(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    # one run id under two agents (a multi-agent run's members) and two suites: four rows
    for agent in ("mock:a", "mock:b"):
        for suite in ("demo", "other"):
            record_run(tmp_path, summary("same-id", agent=agent, suite=suite), path=path)
    record_run(tmp_path, summary("same-id", pass_rate=0.9), path=path)  # replaces its row
    rows = read_history(path=path, limit=None)
    assert sorted((r.suite, r.agent) for r in rows) == [
        ("demo", "mock:a"),
        ("demo", "mock:b"),
        ("other", "mock:a"),
        ("other", "mock:b"),
    ]
    mine = read_history(path=path, suite="demo", agent="mock:a")
    assert [r.metrics["pass_rate"] for r in mine] == [0.9]
    assert mine[0].intervals["pass_rate"] == (0.2, 0.8)
    assert mine[0].judge == "mock:judge"
    assert mine[0].judge_samples == 3
    assert len(read_history(path=path, agent="mock:*")) == 4  # a glob
    assert read_history(path=path, agent="openai:*") == []


def test_scorer_means_are_stored_and_shards_are_not(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    record_run(tmp_path, summary("r1", grounded=0.75), path=path)
    assert record_run(tmp_path, summary("r2", shard="1/2"), path=path) is None
    (row,) = read_history(path=path)
    assert row.metrics["scorers.judge.groundedness"] == 0.75
    assert row.intervals["scorers.judge.groundedness"] == pytest.approx((0.65, 0.85))


def test_limit_keeps_the_latest_runs_of_each_suite_and_agent(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    for day in (3, 1, 2):  # recorded out of order: read back by start time
        record_run(tmp_path, summary(f"a{day}", day=day), path=path)
        record_run(tmp_path, summary(f"b{day}", day=day, agent="mock:b"), path=path)
    rows = read_history(path=path, limit=2)
    assert [(r.agent, r.run_id) for r in rows if r.agent == "mock:a"] == [
        ("mock:a", "a2"),
        ("mock:a", "a3"),
    ]
    assert len(rows) == 4


def _old_layout(path: Path) -> None:
    """A history as agentgauge wrote it before (one row per run id, a column per metric)."""
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE runs (run_id TEXT PRIMARY KEY, suite TEXT NOT NULL, agent TEXT NOT "
            "NULL, git_commit TEXT, started_at TEXT NOT NULL, run_dir TEXT NOT NULL, cases "
            "INTEGER NOT NULL, results INTEGER NOT NULL, pass_rate REAL, error_rate REAL, "
            "latency_p95_ms REAL, cost_usd REAL)"
        )
        conn.execute(
            "INSERT INTO runs VALUES ('old1', 'demo', 'mock:a', 'abc', '2026-10-01T00:00:00Z', "
            "'/runs/old1', 4, 4, 0.25, 0.0, 900.0, NULL)"
        )
    conn.close()


def test_an_old_layout_file_is_upgraded_in_place(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    _old_layout(path)
    (old,) = read_history(path=path)
    assert (old.run_id, old.git_commit, old.cases) == ("old1", "abc", 4)
    assert old.metrics == {"pass_rate": 0.25, "error_rate": 0.0, "latency_p95_ms": 900.0}
    # the same run id under another agent is now its own row
    record_run(tmp_path, summary("old1", agent="mock:b", day=2), path=path)
    assert len(read_history(path=path)) == 2
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
        assert "runs_v0" not in {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    conn.close()


def test_foreign_corrupt_and_newer_files_are_one_line_errors(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
    conn.close()
    with pytest.raises(UserError, match=r"foreign\.sqlite: not an agentgauge run history .*notes"):
        read_history(path=foreign)
    with pytest.raises(UserError, match="not an agentgauge run history"):
        record_run(tmp_path, summary("r1"), path=foreign)
    corrupt = tmp_path / "corrupt.sqlite"
    corrupt.write_bytes(b"this is not sqlite at all " * 100)
    with pytest.raises(UserError, match=r"corrupt\.sqlite:1: cannot use the run history") as err:
        read_history(path=corrupt)
    assert "\n" not in str(err.value)
    newer = tmp_path / "newer.sqlite"
    record_run(tmp_path, summary("r1"), path=newer)
    with sqlite3.connect(newer) as conn:
        conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(UserError, match="newer agentgauge"):
        read_history(path=newer)
    # the foreign file was left as it was
    with sqlite3.connect(foreign) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    conn.close()
    assert tables == {"notes"}


def test_old_cwd_history_is_imported_once_with_a_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("AGENTGAUGE_HISTORY")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".agentgauge").mkdir()
    _old_layout(tmp_path / ".agentgauge" / "history.sqlite")
    before = (tmp_path / ".agentgauge" / "history.sqlite").read_bytes()
    rows = read_history()
    assert [r.run_id for r in rows] == ["old1"]
    notice = capsys.readouterr().err
    assert notice.count("\n") == 1
    assert "imported 1 run(s) from the old history .agentgauge/history.sqlite" in notice
    # once: the next read neither imports again nor says so; the old file is untouched
    record_run(tmp_path, summary("new", day=2))
    assert [r.run_id for r in read_history()] == ["old1", "new"]
    assert capsys.readouterr().err == ""
    assert (tmp_path / ".agentgauge" / "history.sqlite").read_bytes() == before
    # an explicit history never pulls the working directory's old file in
    assert read_history(path=tmp_path / "elsewhere.sqlite") == []


def test_a_broken_old_cwd_history_is_a_notice_not_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("AGENTGAUGE_HISTORY")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".agentgauge").mkdir()
    (tmp_path / ".agentgauge" / "history.sqlite").write_bytes(b"garbage " * 200)
    assert record_run(tmp_path, summary("r1")) == tmp_path / "data/agentgauge/history.sqlite"
    assert [r.run_id for r in read_history()] == ["r1"]
    notice = capsys.readouterr().err
    assert "note: the old history was not imported: .agentgauge/history.sqlite: cannot read" in (
        notice
    )


def test_a_current_file_missing_a_later_column_gets_it(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    record_run(tmp_path, summary("r1"), path=path)
    with sqlite3.connect(path) as conn:  # as a file written before judge_samples existed
        conn.execute("ALTER TABLE runs DROP COLUMN judge_samples")
    conn.close()
    record_run(tmp_path, summary("r2", day=2), path=path)
    assert [(r.run_id, r.judge_samples) for r in read_history(path=path)] == [
        ("r1", None),
        ("r2", 3),
    ]
