"""``agentgauge run --otel-endpoint``: the run sent to an OTLP receiver after it ended."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from ..runner import RunOutcome

__all__ = ["export_otel"]


def export_otel(outcome: RunOutcome, endpoint: str) -> None:
    """Send the run to the OTLP receiver: the OTEL_EXPORTER_OTLP_* variables say how (headers,
    protocol, compression); each request gets the OTLP timeout ($OTEL_EXPORTER_OTLP_TIMEOUT,
    else the run's --timeout when given, else 10 s) and no more."""
    import os

    from ..errors import UserError
    from ..exchange import OtelExport, export_run_otlp, otlp_target

    rec = outcome.record
    export = OtelExport(run_id=rec.run_id, agent=rec.agent, suite=rec.suite)
    given = rec.options.get("timeout_s")
    env_timeout = any(
        os.environ.get(f"OTEL_EXPORTER_OTLP_{k}TIMEOUT", "").strip() for k in ("TRACES_", "")
    )
    timeout = float(given) if isinstance(given, int | float) and not env_timeout else None
    try:  # the run is on disk: a receiver that is down must not cost its summary or gate
        target = otlp_target(endpoint, timeout_s=timeout)
        sent = export_run_otlp(outcome.run_dir, export, endpoint=target)
        click.echo(f"otel: sent {sent} span(s) to the OTLP endpoint")
    except UserError as err:
        click.echo(
            f"warning: {err} (send it later: agentgauge export-otel {outcome.run_dir} "
            "--endpoint URL)",
            err=True,
        )
