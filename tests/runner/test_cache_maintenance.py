"""Inspecting and pruning the response cache: counts, dates, old entries, results only, locks."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from runner_helpers import agent, make_suite, weather_agent

from agentgauge.errors import UserError
from agentgauge.judges._cache import request_key
from agentgauge.providers import ModelRequest, ModelResponse
from agentgauge.providers._cache import CACHE_FILE, ResponseCache
from agentgauge.runner import RunConfig, RunOutcome, cache_stats, prune_cache, run_suite
from agentgauge.schema import Message

CASES: list[dict[str, Any]] = [
    {
        "id": f"c{i}",
        "input": f"city {i}",
        "expect": {"tool_calls": [{"name": "get_weather", "arguments": {"city": f"city {i}"}}]},
    }
    for i in range(4)
]
DAY = 86400.0


def _run(tmp_path: Path, name: str) -> RunOutcome:
    config = RunConfig(progress=False, cache_dir=tmp_path / "cache")
    return run_suite(make_suite(CASES), config, tmp_path / name, provider=agent(weather_agent))


def _add_judge_reply(cache_dir: Path) -> str:
    """One judge reply, keyed the way the judges key theirs."""
    key = request_key("mock:judge", ModelRequest(messages=[Message(role="user", content="ok?")]))
    cache = ResponseCache(cache_dir)
    cache.put(key, ModelResponse(message=Message(role="assistant", content="yes")))
    cache.close()
    return key


def _age(cache_dir: Path, table: str, days: float, where: str = "1") -> None:
    """Backdate some rows' ``created`` (what --older-than compares)."""
    with sqlite3.connect(cache_dir / CACHE_FILE) as db:
        db.execute(f"UPDATE {table} SET created = ? WHERE {where}", (time.time() - days * DAY,))
    db.close()


@pytest.fixture
def filled(tmp_path: Path) -> Path:
    """A cache filled by a real run (4 cases x 2 model calls) plus one judge reply."""
    outcome = _run(tmp_path, "r1")
    assert outcome.provider_calls == 8
    key = _add_judge_reply(tmp_path / "cache")
    assert key.startswith("judge:")
    return tmp_path / "cache"


def test_stats_count_responses_judge_replies_and_results(filled: Path) -> None:
    stats = cache_stats(filled)
    assert stats is not None
    assert stats.path == filled / CACHE_FILE
    assert (stats.responses, stats.judge_entries, stats.results) == (8, 1, 4)
    assert stats.entries == 13
    assert stats.size_bytes >= (filled / CACHE_FILE).stat().st_size > 0
    assert stats.oldest is not None
    assert stats.newest is not None
    assert time.time() - 600 < stats.oldest <= stats.newest <= time.time() + 1


def test_a_directory_without_a_cache_is_none_and_stays_empty(tmp_path: Path) -> None:
    missing = tmp_path / "nothing-here"
    assert cache_stats(missing) is None
    assert prune_cache(missing) is None
    assert not missing.exists()


def test_an_empty_cache_has_no_dates(tmp_path: Path) -> None:
    ResponseCache(tmp_path).close()
    stats = cache_stats(tmp_path)
    assert stats is not None
    assert (stats.entries, stats.oldest, stats.newest) == (0, None, None)


def test_prune_all_empties_the_cache_and_a_rerun_calls_the_model_again(
    filled: Path, tmp_path: Path
) -> None:
    report = prune_cache(filled)
    assert report is not None
    assert (report.responses, report.judge_entries, report.results) == (8, 1, 4)
    assert report.size_after == (filled / CACHE_FILE).stat().st_size
    assert report.reclaimed_bytes == report.size_before - report.size_after >= 0
    stats = cache_stats(filled)
    assert stats is not None
    assert stats.entries == 0
    again = _run(tmp_path, "r2")
    assert (again.provider_calls, again.replayed) == (8, 0)


def test_prune_before_removes_only_older_entries(filled: Path) -> None:
    _age(filled, "results", 40, "rowid <= 2")
    _age(filled, "responses", 40, "key LIKE 'judge:%'")
    report = prune_cache(filled, before=time.time() - 30 * DAY)
    assert report is not None
    assert (report.responses, report.judge_entries, report.results) == (0, 1, 2)
    stats = cache_stats(filled)
    assert stats is not None
    assert (stats.responses, stats.judge_entries, stats.results) == (8, 0, 2)


def test_results_only_keeps_responses_so_a_rerun_is_redriven_without_model_calls(
    filled: Path, tmp_path: Path
) -> None:
    _age(filled, "responses", 90)  # old responses are kept too
    report = prune_cache(filled, results_only=True)
    assert report is not None
    assert (report.responses, report.judge_entries, report.results) == (0, 0, 4)
    stats = cache_stats(filled)
    assert stats is not None
    assert (stats.responses, stats.judge_entries, stats.results) == (8, 1, 0)
    again = _run(tmp_path, "r2")
    assert (again.provider_calls, again.cache_hits, again.replayed) == (0, 8, 0)


def test_dry_run_counts_and_changes_nothing(filled: Path) -> None:
    before = (filled / CACHE_FILE).read_bytes()
    report = prune_cache(filled, dry_run=True)
    assert report is not None
    assert (report.entries, report.reclaimed_bytes) == (13, 0)
    stats = cache_stats(filled)
    assert stats is not None
    assert stats.entries == 13
    assert (filled / CACHE_FILE).read_bytes() == before


def test_a_locked_cache_is_a_one_line_user_error(filled: Path) -> None:
    holder = sqlite3.connect(filled / CACHE_FILE, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process writing
    try:
        with pytest.raises(UserError, match="is locked by another process") as err:
            prune_cache(filled, timeout=0.05)
        assert len(err.value.problems) == 1
        stats = cache_stats(filled, timeout=0.05)  # readers are not blocked (WAL)
        assert stats is not None
        assert stats.entries == 13
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    report = prune_cache(filled, timeout=0.05)
    assert report is not None
    assert report.entries == 13


def test_a_file_that_is_not_a_cache_is_a_user_error(tmp_path: Path) -> None:
    (tmp_path / CACHE_FILE).write_text("not a database, just text " * 100)
    with pytest.raises(UserError, match="not a readable agentgauge cache"):
        cache_stats(tmp_path)
    with pytest.raises(UserError, match="not a readable agentgauge cache"):
        prune_cache(tmp_path)


def test_a_cache_written_before_result_replay_is_read_and_pruned(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / CACHE_FILE)  # the session-1 layout: one table
    db.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, value BLOB NOT NULL, created REAL)")
    db.execute("INSERT INTO responses VALUES ('k', x'00', ?)", (time.time() - 40 * DAY,))
    db.commit()
    db.close()
    stats = cache_stats(tmp_path)
    assert stats is not None
    assert (stats.responses, stats.results) == (1, 0)
    report = prune_cache(tmp_path, before=time.time() - 30 * DAY)
    assert report is not None
    assert (report.responses, report.results) == (1, 0)
