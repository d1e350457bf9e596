"""Shards (``--shard i/N``) and ``merge_runs``: a partition of the (case, trial) pairs that
covers each exactly once, merged back into a run whose summary is the unsharded run's."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from agentgauge.errors import UserError
from agentgauge.io import RESULTS_FILE, RUN_FILE, Shard, iter_results, merge_runs, pair_bucket
from agentgauge.metrics import summarize
from agentgauge.runner import RunConfig, read_record, run_suite_file

CASES = 30
TRIALS = 2


def _suite(tmp_path: Path, name: str = "sharded") -> Path:
    # mock:echo repeats the input: a case passes when its input holds the expected token
    lines = [f"name: {name}", "cases:"]
    for i in range(CASES):
        lines.append(
            f"  - {{id: c{i:02d}, input: 'case {i} tok{i % 3}', "
            f"expect: {{response_contains: [tok0]}}}}"
        )
    path = tmp_path / f"{name}.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTGAUGE_HISTORY", str(tmp_path / "history.sqlite"))
    monkeypatch.setenv("AGENTGAUGE_CACHE_DIR", str(tmp_path / "cache"))


def _config(**kw: object) -> RunConfig:
    base = RunConfig(agent="mock:echo", trials=TRIALS, cache=False, progress=False)
    return replace(base, **kw)  # type: ignore[arg-type]


def _pairs(run_dir: Path) -> list[tuple[str, int]]:
    return [(r.case_id, r.trial) for r in iter_results(run_dir)]


def _verdicts(run_dir: Path) -> dict[tuple[str, int], str]:
    return {(r.case_id, r.trial): r.status for r in iter_results(run_dir)}


def _untimed(data: object) -> object:
    """``data`` without its latencies (two runs of one suite never take the same time)."""
    if isinstance(data, dict):
        return {k: _untimed(v) for k, v in data.items() if k != "latency"}
    if isinstance(data, list):
        return [_untimed(v) for v in data]
    return data


def _run_shards(tmp_path: Path, suite: Path, n: int = 3, **kw: object) -> list[Path]:
    dirs = []
    for i in range(1, n + 1):
        d = tmp_path / f"shard{i}"
        run_suite_file(suite, _config(shard=Shard(i, n), **kw), d)
        dirs.append(d)
    return dirs


def test_shards_cover_every_pair_once_and_merge_into_the_unsharded_run(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    whole = tmp_path / "whole"
    run_suite_file(suite, _config(), whole)
    shards = _run_shards(tmp_path, suite)

    seen = [p for d in shards for p in _pairs(d)]
    every = {(f"c{i:02d}", t) for i in range(CASES) for t in range(TRIALS)}
    assert len(seen) == len(every) == CASES * TRIALS  # no pair twice ...
    assert set(seen) == every  # ... and none left out
    assert all(_pairs(d) for d in shards)  # each shard holds some
    for i, d in enumerate(shards, start=1):
        record = read_record(d)
        assert record.shard == f"{i}/3"
        assert record.case_count == CASES  # the whole run's count, for the merge
        assert all(pair_bucket(c, t, 3) == i - 1 for c, t in _pairs(d))
    hashes = {read_record(d).config_hash for d in [whole, *shards]}
    assert len(hashes) == 1
    assert None not in hashes

    merged = tmp_path / "merged"
    report = merge_runs(list(reversed(shards)), merged)
    assert report.complete
    assert report.results == CASES * TRIALS
    assert report.duplicates == 0
    assert report.lines() == [f"merged 3 run(s) into {merged}: 60 result(s)"]
    assert _verdicts(merged) == _verdicts(whole)  # verdict for verdict
    statuses = set(_verdicts(whole).values())
    assert statuses == {"passed", "failed"}  # the comparison is not vacuous
    a, b = summarize(whole), summarize(merged)
    # everything but the run's identity, its timings and the order of the results is the same
    skip = {"run", "performance", "cost", "scorers"}
    assert _untimed(a.model_dump(exclude=skip)) == _untimed(b.model_dump(exclude=skip))
    assert a.overall.pass_rate.passed == 10 * TRIALS
    sa, sb = a.scorers["response_contains"], b.scorers["response_contains"]
    assert sa.pass_rate == sb.pass_rate
    assert sorted(sa.failed_cases) == sorted(sb.failed_cases)
    record = read_record(merged)
    assert record.shard is None
    assert record.merged_from == [str(d) for d in shards]  # shard order, not argument order
    assert record.config_hash == read_record(whole).config_hash


def test_merging_twice_is_idempotent(tmp_path: Path) -> None:
    shards = _run_shards(tmp_path, _suite(tmp_path))
    out = tmp_path / "merged"
    merge_runs(shards, out)
    first = (out / RESULTS_FILE).read_bytes(), (out / RUN_FILE).read_bytes()
    merge_runs(shards, out)  # the same merge again replaces it with the same bytes
    assert ((out / RESULTS_FILE).read_bytes(), (out / RUN_FILE).read_bytes()) == first
    # a merged run merged again with one of its shards: the shard's lines are duplicates
    again = merge_runs([out, shards[0]], tmp_path / "again")
    assert again.results == CASES * TRIALS
    assert again.duplicates == len(_pairs(shards[0]))
    assert _verdicts(tmp_path / "again") == _verdicts(out)
    # the same shard given twice counts once
    twice = merge_runs([shards[1], shards[1]], tmp_path / "twice")
    assert twice.results == len(_pairs(shards[1]))
    assert twice.duplicates == twice.results


def test_a_missing_shard_is_reported(tmp_path: Path) -> None:
    shards = _run_shards(tmp_path, _suite(tmp_path))
    report = merge_runs(shards[:2], tmp_path / "merged")
    lost = len(_pairs(shards[2]))
    assert report.missing_shards == (3,)
    assert report.missing == lost > 0
    assert not report.complete
    assert report.lines()[1:] == [
        "missing shard(s): 3/3",
        f"missing: {lost} of {CASES * TRIALS} (case, trial) pair(s)",
    ]


def test_shards_of_different_runs_are_refused(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    one = tmp_path / "one"
    run_suite_file(suite, _config(shard=Shard(1, 2)), one)
    other_agent = tmp_path / "agent"
    run_suite_file(suite, _config(shard=Shard(2, 2), agent="mock:"), other_agent)
    other_seed = tmp_path / "seed"
    run_suite_file(suite, _config(shard=Shard(2, 2), seed=7), other_seed)
    other_suite = tmp_path / "suite"
    run_suite_file(_suite(tmp_path, "other"), _config(shard=Shard(2, 2)), other_suite)
    other_split = tmp_path / "split"
    run_suite_file(suite, _config(shard=Shard(2, 3)), other_split)
    out = tmp_path / "merged"
    for bad, words in [
        (other_agent, "different agents"),
        (other_seed, "different configurations"),
        (other_suite, "different suites"),
        (other_split, "split the suite differently"),
    ]:
        with pytest.raises(UserError, match=words):
            merge_runs([one, bad], out)
        assert not (out / RESULTS_FILE).exists()
    with pytest.raises(UserError, match="is one of the runs merged"):
        merge_runs([one], one)
    with pytest.raises(UserError, match="not a merge"):
        merge_runs([one], other_seed)  # a run directory that is not a merge is never replaced


def test_conflicting_results_for_one_pair_are_refused(tmp_path: Path) -> None:
    shards = _run_shards(tmp_path, _suite(tmp_path), n=2)
    lines = (shards[0] / RESULTS_FILE).read_bytes().splitlines(keepends=True)
    changed = orjson.loads(lines[0])
    changed["status"] = "error" if changed["status"] != "error" else "passed"
    again = tmp_path / "shard1-again"  # shard 1 run again, one verdict different
    shutil.copytree(shards[0], again)
    (again / RESULTS_FILE).write_bytes(orjson.dumps(changed) + b"\n")
    out = tmp_path / "merged"
    with pytest.raises(UserError, match=r"1 \(case, trial\) pair\(s\) have different verdicts"):
        merge_runs([*shards, again], out)
    assert not (out / RESULTS_FILE).exists()  # nothing written
    assert not (out / ".merge-staging").exists()


def test_resume_of_a_shard_keeps_the_shard(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    full = tmp_path / "full"
    run_suite_file(suite, _config(shard=Shard(2, 3)), full)
    cut = tmp_path / "cut"
    run_suite_file(suite, _config(shard=Shard(2, 3)), cut)
    journal = (cut / RESULTS_FILE).read_bytes().splitlines(keepends=True)
    (cut / RESULTS_FILE).write_bytes(b"".join(journal[:3]) + journal[3][:10])  # killed mid-line
    resumed = RunConfig.from_record(read_record(cut), cut)
    assert resumed.shard == Shard(2, 3)
    outcome = run_suite_file(suite, replace(resumed, cache=False, progress=False), cut)
    assert outcome.resumed == 3
    assert sorted(_pairs(cut)) == sorted(_pairs(full))
    assert read_record(cut).shard == "2/3"
    # the resumed shard still merges with the others: the same configuration hash
    assert read_record(cut).config_hash == read_record(full).config_hash
    # resuming a shard as another shard would mix two splits
    with pytest.raises(UserError, match="holds shard 2/3"):
        run_suite_file(suite, replace(resumed, shard=Shard(1, 3), cache=False), cut)


@pytest.mark.parametrize("text", ["0/3", "4/3", "1/0", "a/b", "3", "-1/2", ""])
def test_a_bad_shard_is_a_user_error(text: str) -> None:
    with pytest.raises(UserError, match="give i/N"):
        Shard.parse(text)


def test_the_partition_is_stable() -> None:
    # BLAKE2b, not Python's salted hash(): the same bucket in every process and release
    assert [pair_bucket(f"c{i:02d}", 0, 4) for i in range(8)] == PINNED
    assert str(Shard.parse(" 2/4 ")) == "2/4"
    assert Shard(1, 1).holds("anything", 5)


PINNED = [3, 2, 0, 0, 2, 1, 3, 3]


def test_a_rerun_replayed_from_the_cache_merges_as_duplicates(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    first, again, other = tmp_path / "first", tmp_path / "again", tmp_path / "other"
    run_suite_file(suite, _config(shard=Shard(1, 2), cache=True), first)
    outcome = run_suite_file(suite, _config(shard=Shard(1, 2), cache=True), again)
    assert outcome.replayed == outcome.ran > 0  # the same shard again, copied from the cache
    run_suite_file(suite, _config(shard=Shard(2, 2), cache=True), other)
    report = merge_runs([first, again, other], tmp_path / "merged")
    assert report.complete
    assert report.results == CASES * TRIALS
    assert report.duplicates == outcome.ran
