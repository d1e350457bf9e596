"""Shards of a run and merging them back into one run.

A shard ``i/N`` holds the (case, trial) pairs whose stable hash (BLAKE2b of the case id and the
trial, never Python's ``hash()``) falls in bucket ``i - 1`` of ``N``: the same pairs on every
machine, in every process, whatever order the cases come in. N jobs that run shards 1..N of one
suite run every pair exactly once.

:func:`merge_runs` combines the shard directories into one run directory. It streams: two passes
over the shards' journals, keeping one 64-bit key per result (never a result) plus the exact
pair of the few keys seen twice. Shards of different suites, agents or configurations (the
``config_hash`` of ``run.json``) are refused. A pair found twice with byte-identical lines
(the same shard given twice, a merged run merged again, a shard run again) is kept once (its
first line, in shard order) when both have the same verdict (status, score and every score's
verdict; latencies and traces may differ); a pair found twice with different verdicts is an
error (which one counts would be arbitrary), and nothing is written.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import shutil
from array import array
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import orjson

from ..errors import UserError
from ..files import parse_json
from ..schema import RunRecord
from ._rundir import (
    RESULTS_FILE,
    RUN_FILE,
    ResultsWriter,
    _lines,
    load_record,
    read_record,
    result_pair,
    run_dir_lock,
    write_record,
)

__all__ = ["MergeReport", "Shard", "merge_runs", "pair_bucket"]


def pair_bucket(case_id: str, trial: int, count: int) -> int:
    """The shard bucket (0 .. count-1) of a (case, trial) pair: stable across processes."""
    digest = hashlib.blake2b(f"{case_id}\x00{trial}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % count


@dataclass(frozen=True, slots=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``: written ``index/count``, e.g. ``2/4``."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if self.count < 1 or not 1 <= self.index <= self.count:
            raise UserError(
                f"--shard {self.index}/{self.count}: give i/N with 1 <= i <= N (e.g. 1/4)"
            )

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"2/4"`` -> ``Shard(2, 4)``; anything else is a UserError."""
        head, sep, tail = text.strip().partition("/")
        if not sep or not head.strip().isdigit() or not tail.strip().isdigit():
            raise UserError(f"--shard {text!r}: give i/N with 1 <= i <= N (e.g. 1/4)")
        return cls(int(head), int(tail))

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, case_id: str, trial: int) -> bool:
        """Whether the pair belongs to this shard."""
        return self.count == 1 or pair_bucket(case_id, trial, self.count) == self.index - 1


@dataclass(frozen=True, kw_only=True)
class MergeReport:
    """What :func:`merge_runs` did."""

    run_dir: Path
    record: RunRecord
    #: the run directories merged, in the order their results were written
    sources: tuple[Path, ...]
    #: result lines written (distinct (case, trial) pairs)
    results: int
    #: duplicate lines dropped (the same pair again, with the same verdict)
    duplicates: int
    #: pairs the run should hold (case count x trials; None: run.json does not say)
    expected: int | None
    #: N of the shards merged (None: no input was a shard)
    shard_count: int | None
    #: shard numbers of 1..N that no input holds
    missing_shards: tuple[int, ...]

    @property
    def missing(self) -> int | None:
        """Pairs the merged run lacks (None: not known)."""
        return None if self.expected is None else max(0, self.expected - self.results)

    @property
    def complete(self) -> bool:
        return not self.missing_shards and not self.missing

    def lines(self) -> list[str]:
        """The report, one line each, as ``agentgauge merge`` prints it."""
        out = [
            f"merged {len(self.sources)} run(s) into {self.run_dir}: {self.results} result(s)"
            + (f", {self.duplicates} duplicate(s) dropped" if self.duplicates else "")
        ]
        if self.missing_shards:
            n = self.shard_count
            shards = ", ".join(f"{i}/{n}" for i in self.missing_shards)
            out.append(f"missing shard(s): {shards}")
        if self.missing:
            out.append(f"missing: {self.missing} of {self.expected} (case, trial) pair(s)")
        return out


def _key(case_id: str, trial: int) -> int:
    digest = hashlib.blake2b(f"{case_id}\x00{trial}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def _line_digest(raw: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(raw, digest_size=8).digest(), "big")


def _parse(path: Path, lineno: int, raw: bytes) -> tuple[str, int, dict[str, object]]:
    """A journal line's pair and data (read with the input limits: depth, one line's size)."""
    data = parse_json(raw, str(path), lineno, what="result line")
    case_id, trial = result_pair(path, lineno, data)
    return case_id, trial, data


def _verdict(data: dict[str, object]) -> bytes:
    """What a summary counts of a result: its status, score and every score's verdict (not
    its latencies, trace or whether it was replayed, which differ between two runs of a pair)."""
    scores = data.get("scores")
    verdicts = [
        [s.get("name"), s.get("value"), s.get("passed")]
        for s in (scores if isinstance(scores, list) else [])
        if isinstance(s, dict)
    ]
    blob = orjson.dumps([data.get("status"), data.get("score"), verdicts])
    return hashlib.blake2b(blob, digest_size=8).digest()


def _journal(run_dir: Path) -> Iterator[tuple[int, bytes]]:
    path = run_dir / RESULTS_FILE
    if not path.exists():
        return iter(())
    return _lines(path)


_SAME = (("suite_hash", "suite"), ("agent", "agent"), ("config_hash", "configuration"))


def _check_same(dirs: Sequence[Path], records: Sequence[RunRecord]) -> int | None:
    """Refuse runs of different suites, agents or configurations; the shards' N (or None)."""
    first, d0 = records[0], dirs[0]
    for d, rec in zip(dirs[1:], records[1:], strict=True):
        for field, what in _SAME:
            mine, theirs = getattr(rec, field), getattr(first, field)
            if mine != theirs:  # named by the record that differs (line 1: the file)
                raise UserError(
                    f"{d / RUN_FILE}:1: {field}: merge: {d} and {d0} are runs of different "
                    f"{what}s ({field} {mine} vs {theirs}); only shards of one run can be merged"
                )
    counts = {Shard.parse(r.shard).count for r in records if r.shard}
    if len(counts) > 1:
        odd = next(
            d for d, r in zip(dirs, records, strict=True) if r.shard and r.shard != first.shard
        )
        raise UserError(
            f"{odd / RUN_FILE}:1: shard: merge: the runs split the suite differently (--shard i/"
            + " vs i/".join(map(str, sorted(counts)))
            + "); only shards of one split can be merged"
        )
    return counts.pop() if counts else None


def _order(dirs: Sequence[Path], records: Sequence[RunRecord]) -> list[int]:
    def rank(i: int) -> tuple[int, str]:
        shard = records[i].shard
        return (Shard.parse(shard).index if shard else 0, str(dirs[i]))

    return sorted(range(len(dirs)), key=rank)


def _check_output(out_dir: Path, dirs: Sequence[Path]) -> None:
    target = out_dir.resolve()
    if any(d.resolve() == target for d in dirs):
        raise UserError(f"merge: the output {out_dir} is one of the runs merged; choose another")
    existing = load_record(out_dir) if out_dir.is_dir() else None
    has_results = (out_dir / RESULTS_FILE).exists()
    if (existing is not None and not existing.merged_from) or (existing is None and has_results):
        raise UserError(
            f"merge: {out_dir} already holds a run that is not a merge; choose another output"
        )


def _merged_record(records: Sequence[RunRecord], sources: Sequence[Path]) -> RunRecord:
    ids = ",".join(sorted(r.run_id for r in records))
    finished = [r.finished_at for r in records]
    return records[0].model_copy(
        update={
            "run_id": hashlib.blake2b(ids.encode(), digest_size=6).hexdigest(),
            "shard": None,
            "merged_from": [str(s) for s in sources],
            "started_at": min(r.started_at for r in records),
            "finished_at": None if None in finished else max(f or "" for f in finished),
            "case_count": max(r.case_count for r in records),
        },
        deep=True,
    )


def _scan(
    sources: Sequence[Path],
    records: Sequence[RunRecord],
    case_ids: Collection[str] | None = None,
) -> tuple[array[int], array[int]]:
    """Pass 1: the pair key and line digest of every result line, in reading order. A line for
    a trial the run does not have, for a pair another shard holds (a case id the suite does
    not have lands in a shard by chance only) or, with ``case_ids``, for a case not among them,
    is a UserError naming it."""
    keys: array[int] = array("Q")
    digests: array[int] = array("Q")
    for d, rec in zip(sources, records, strict=True):
        shard = Shard.parse(rec.shard) if rec.shard else None
        path = d / RESULTS_FILE
        for lineno, raw in _journal(d):
            case_id, trial, _ = _parse(path, lineno, raw)
            if case_ids is not None and case_id not in case_ids:
                raise UserError(
                    f"{path}:{lineno}: case_id: {case_id!r} is not a case of the run's suite; "
                    "nothing was merged"
                )
            if not 0 <= trial < rec.trials:
                raise UserError(
                    f"{path}:{lineno}: trial: {trial} is not a trial of this run (its run.json "
                    f"says {rec.trials} trial(s): 0..{rec.trials - 1}); nothing was merged"
                )
            if shard is not None and not shard.holds(case_id, trial):
                raise UserError(
                    f"{path}:{lineno}: case_id: {case_id!r} trial {trial} does not belong to "
                    f"shard {shard} (another shard's pair, or a case the run does not have); "
                    "nothing was merged"
                )
            keys.append(_key(case_id, trial))
            digests.append(_line_digest(raw))
    return keys, digests


def _repeated(keys: array[int]) -> tuple[set[int], int]:
    """The keys seen more than once, and how many distinct keys there are."""
    ordered = sorted(keys)
    repeated = {a for a, b in itertools.pairwise(ordered) if a == b}
    distinct = sum(1 for a, b in itertools.pairwise(ordered) if a != b) + bool(ordered)
    return repeated, distinct


def _check_count(distinct: int, records: Sequence[RunRecord]) -> None:
    """More distinct (case, trial) pairs than the run has (``case_count`` x ``trials``) means a
    line for a case it does not have: refused, nothing merged."""
    first = records[0]
    expected = max(r.case_count for r in records) * first.trials
    if first.case_count and distinct > expected:
        raise UserError(
            f"merge: the runs hold {distinct} distinct (case, trial) pairs, but the run has "
            f"{expected} ({max(r.case_count for r in records)} case(s) x {first.trials} "
            "trial(s)): a result line names a case the suite does not have; nothing was merged"
        )


def _staging(out: Path) -> Path:
    """``OUT/.merge-staging``, refused when something other than a folder of ours is there (a
    symlink would make the merge write, and then delete, where it points)."""
    from .._suite_code import PathRefused

    staging = out / ".merge-staging"
    if staging.is_symlink() or (os.path.lexists(staging) and not staging.is_dir()):
        raise PathRefused(f"{staging}: refused: not a folder agentgauge made (a symlink or a file)")
    return staging


def merge_runs(
    runs: Sequence[Path | str],
    out_dir: Path | str,
    *,
    case_ids: Collection[str] | None = None,
) -> MergeReport:
    """Merge the run directories ``runs`` (shards of one run) into ``out_dir``.

    ``case_ids``: the case ids of the runs' suite (``agentgauge.runner.suite_case_ids``), when
    known: a result line for another case is refused. Without them a line is still refused for
    a trial the run does not have, a pair of another shard, or one pair too many.

    Streams the journals twice; memory is about 75 bytes per result, whatever its size. Writing
    goes to a staging file first: a refusal or a conflict leaves ``out_dir`` as it was. Merging
    the same inputs again rewrites the same files (idempotent).
    """
    dirs = [Path(r) for r in runs]
    out = Path(out_dir)
    if not dirs:
        raise UserError("merge: give at least one run directory")
    records = [read_record(d) for d in dirs]
    shard_count = _check_same(dirs, records)
    _check_output(out, dirs)
    order = _order(dirs, records)
    sources = [dirs[i] for i in order]
    records = [records[i] for i in order]
    present = {Shard.parse(r.shard).index for r in records if r.shard}
    keys, digests = _scan(sources, records, case_ids)
    repeated, distinct = _repeated(keys)
    _check_count(distinct, records)
    staging = _staging(out)
    with run_dir_lock(out):
        shutil.rmtree(staging, ignore_errors=True)
        written, duplicates = _write(sources, keys, digests, repeated, staging)
        os.replace(staging / RESULTS_FILE, out / RESULTS_FILE)
        shutil.rmtree(staging, ignore_errors=True)
        record = _merged_record(records, sources)
        write_record(out, record)
    first = records[0]
    expected = first.case_count * first.trials if first.case_count else None
    missing_shards = (
        tuple(i for i in range(1, shard_count + 1) if i not in present) if shard_count else ()
    )
    return MergeReport(
        run_dir=out,
        record=record,
        sources=tuple(sources),
        results=written,
        duplicates=duplicates,
        expected=expected,
        shard_count=shard_count,
        missing_shards=missing_shards,
    )


def _write(
    sources: Sequence[Path],
    keys: array[int],
    digests: array[int],
    repeated: set[int],
    staging: Path,
) -> tuple[int, int]:
    """Pass 2: write every pair once to ``staging`` (its first line); repeats with the same
    verdict dropped, with another verdict refused (the staging directory removed)."""
    seen: dict[tuple[str, int], tuple[bytes, str]] = {}
    conflicts: list[str] = []
    written = duplicates = i = 0
    with ResultsWriter(staging, fresh=True) as writer:
        for d in sources:
            for lineno, raw in _journal(d):
                if i >= len(keys) or _line_digest(raw) != digests[i]:
                    raise UserError(f"merge: {d / RESULTS_FILE} changed while it was merged")
                key, i = keys[i], i + 1
                if key in repeated:
                    case_id, trial, data = _parse(d / RESULTS_FILE, lineno, raw)
                    verdict, where = _verdict(data), f"{d / RESULTS_FILE}:{lineno}"
                    before = seen.get((case_id, trial))
                    if before is not None:
                        if before[0] == verdict:
                            duplicates += 1
                        else:
                            conflicts.append(f"{case_id} trial {trial} ({before[1]}, {where})")
                        continue
                    seen[case_id, trial] = (verdict, where)
                writer.write_line(raw, flush=False)
                written += 1
        writer.flush()
    if conflicts:
        shutil.rmtree(staging, ignore_errors=True)
        shown = "; ".join(conflicts[:3]) + (" ..." if len(conflicts) > 3 else "")
        raise UserError(
            f"merge: {len(conflicts)} (case, trial) pair(s) have different verdicts in two "
            f"runs: {shown}; each pair must count once (drop the extra run or shard)"
        )
    return written, duplicates
