"""What follows a run: its summary written (and recorded in the run history) and, when asked, its
gates evaluated. Above ``_files`` (reading a run directory), ``_gating`` and ``_history``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from ..errors import UserError
from ..schema import Gates
from ._files import Folded, summarize
from ._model import Summary
from ._summarize import SUMMARY_FILE

if TYPE_CHECKING:
    from ._gate_model import GateReport  # its models are built only when gates run

__all__ = ["finish_run", "write_summary"]


def write_summary(
    run_dir: Path,
    summary: Summary | None = None,
    *,
    record: bool = True,
    history: Path | str | None = None,
) -> Path:
    """Write ``RUN_DIR/summary.json`` (computing the summary if not given) and return its path.

    With ``record`` (the default) the run is also added to the run history ``history`` (None:
    ``$AGENTGAUGE_HISTORY``, else the user's data folder; docs/gates-and-ci.md); a history
    that cannot be written only warns.
    """
    run_dir = Path(run_dir)
    if summary is None:
        summary = summarize(run_dir)
    path = run_dir / SUMMARY_FILE
    from .._secrets import register_env, scrub_bytes

    register_env()
    data = orjson.dumps(summary.model_dump(mode="json"), option=orjson.OPT_INDENT_2)
    from .._suite_code import open_regular

    with open_regular(path, "wb") as fh:  # a regular file: never a symlink planted there
        fh.write(scrub_bytes(data) + b"\n")
    if record:
        from ._history import record_run

        try:
            record_run(run_dir, summary, path=history)
        except (OSError, UserError) as exc:  # the history is a convenience, never a failure
            import sys

            print(f"warning: run history not updated: {exc}", file=sys.stderr)
    return path


def finish_run(
    run_dir: Path,
    *,
    gate: bool = False,
    gates: Gates | None = None,
    record: bool = True,
    history: Path | str | None = None,
    live: Folded | None = None,
) -> tuple[Summary, GateReport | None]:
    """What follows a run: its summary written to ``summary.json`` (and, with ``record``, the
    run history ``history``: see :func:`write_summary`), and with ``gate`` the suite's gates
    evaluated (:func:`gate_run`). What ``agentgauge run`` and ``agentgauge score`` call after
    the run; ``gates`` spares reading the suite file again; ``live``: the summary folded while
    the run wrote its journal (:class:`~agentgauge.metrics.LiveSummary`), taken when it is sure
    to be the file's."""
    report: GateReport | None = None
    if gate:  # the gates (and the comparison modules a baseline needs) only when asked
        from ._gating import gate_run

        summary, report, _ = gate_run(run_dir, gates=gates, live=live)
    else:
        summary = summarize(run_dir, gates=gates, live=live)
    write_summary(run_dir, summary, record=record, history=history)
    return summary, report
