"""Reading ``results.jsonl`` for metrics: like :func:`agentgauge.io.iter_results`, but without
the transcript.

Metrics and reports never look at a result's ``messages`` or ``trace`` (everything they need is
copied to top-level fields), and those two lists are most of a line's size, so they are dropped
before validation. Same rules as the journal reader: a truncated last line (a run killed
mid-write) is skipped, any other bad line is a UserError naming the file and line.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson

from ..errors import UserError
from ..io import RESULTS_FILE
from ..schema import CaseResult

#: fields of a result line that metrics and reports never read
_HEAVY = ("messages", "trace")


def iter_light_results(path: Path) -> Iterator[CaseResult]:
    """Results one at a time, with ``messages`` and ``trace`` left empty."""
    path = Path(path)
    if path.is_dir():
        path = path / RESULTS_FILE
    if not path.exists():
        raise UserError(f"{path}: no such results file")
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                data = orjson.loads(raw)
                if isinstance(data, dict):
                    for key in _HEAVY:
                        data.pop(key, None)
                yield CaseResult.model_validate(data)
            except (orjson.JSONDecodeError, ValueError) as exc:
                if not raw.endswith(b"\n"):
                    return
                first = str(exc).splitlines()[0]
                raise UserError(f"{path}:{lineno}: not a valid result line: {first}") from exc
