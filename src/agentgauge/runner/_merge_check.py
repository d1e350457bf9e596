"""The case ids a merge checks its result lines against: those of the suite the runs recorded,
when that suite is still there and unchanged (its hash is run.json's ``suite_hash``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import UserError
from ..rundir import header_hash, read_record
from ..schema import Case, Suite

__all__ = ["suite_case_ids"]


def suite_case_ids(runs: Sequence[Path | str]) -> tuple[frozenset[str] | None, str | None]:
    """The case ids of the suite the first of ``runs`` names (streamed: no case kept), and
    None with the reason when they cannot be known (no suite path, the file is gone, it does
    not load, or it changed since: another hash)."""
    if not runs:
        return None, None
    record = read_record(Path(runs[0]))
    if not record.suite_path:
        return None, "run.json names no suite file"
    ids: set[str] = set()
    hashes = []

    def visit(header: Suite) -> Callable[[Case], None]:
        h = header_hash(header)
        hashes.append(h)

        def add(case: Case) -> None:
            h.update(case.model_dump_json().encode())
            ids.add(case.id)

        return add

    from ..suites import open_suite

    try:
        open_suite(record.suite_path, visit=visit)
    except (UserError, OSError) as err:
        return None, f"the suite {record.suite_path} cannot be read ({str(err).splitlines()[0]})"
    if not hashes or hashes[0].hexdigest() != record.suite_hash:
        return None, f"the suite {record.suite_path} has changed since the runs"
    return frozenset(ids), None
