"""``agentgauge export-otel``: a run as OpenTelemetry traces (GenAI semantic conventions).

::

    agentgauge export-otel RUN_DIR [-o trace.json] [--endpoint URL] [--protocol P]
                                   [--timeout S] [--no-content]

The work is done by :func:`agentgauge.io.export_run_otlp`; see docs/bring-your-agent.md.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .._messages import printable

__all__ = ["command"]


@click.command(name="export-otel")
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option(
    "--output", "-o", type=click.Path(path_type=Path), help="Write OTLP/JSON to this file."
)
@click.option(
    "--endpoint",
    envvar="AGENTGAUGE_OTEL_ENDPOINT",
    help="Send the traces to this OTLP receiver: over HTTP a base URL (e.g. "
    "http://localhost:4318; /v1/traces is appended), over gRPC http(s)://HOST:PORT (e.g. "
    "http://localhost:4317). Default: $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (as is), else "
    "$OTEL_EXPORTER_OTLP_ENDPOINT.",
)
@click.option(
    "--protocol",
    type=click.Choice(["http/protobuf", "http/json", "grpc"]),
    help="OTLP/HTTP with a protobuf body (default; needs agentgauge[otlp]), OTLP/HTTP with a "
    "JSON body, or OTLP/gRPC (needs agentgauge[otlp-grpc]). "
    "Default: $OTEL_EXPORTER_OTLP_TRACES_PROTOCOL / $OTEL_EXPORTER_OTLP_PROTOCOL.",
)
@click.option(
    "--timeout",
    "timeout_s",
    type=click.FloatRange(min=0, min_open=True),
    help="Seconds one request may take, at the most (default: "
    "$OTEL_EXPORTER_OTLP_TIMEOUT in milliseconds, else 10).",
)
@click.option(
    "--content/--no-content",
    default=True,
    show_default=True,
    help="Include what may quote the conversation: messages and system prompt, tool arguments "
    "and results, explanations and error messages.",
)
def command(
    run_dir: Path,
    output: Path | None,
    endpoint: str | None,
    protocol: str | None,
    timeout_s: float | None,
    content: bool,
) -> None:
    """Export RUN_DIR as OpenTelemetry traces: one trace per case and trial.

    Without -o and without an endpoint (option or environment) the OTLP/JSON document is
    printed; -o without --endpoint writes the file only.
    """
    from ..exchange import OtelExport, export_run_otlp, otlp_target, results_to_otlp
    from ..rundir import iter_results
    from ..runner import read_record

    record = read_record(run_dir)
    export = OtelExport(
        run_id=record.run_id, agent=record.agent, suite=record.suite, content=content
    )
    # -o alone writes the file only; the environment's endpoint applies without -o
    wanted = endpoint is not None or output is None
    target = otlp_target(endpoint, protocol=protocol, timeout_s=timeout_s) if wanted else None
    if output is None and target is None:
        doc = results_to_otlp(iter_results(run_dir), export)
        click.echo(json.dumps(doc, ensure_ascii=False, indent=1))
        return
    count = export_run_otlp(run_dir, export, output=output, endpoint=target)
    shown = target.shown if target is not None else ""  # never credentials or a query
    where = " and ".join(x for x in (str(output) if output else "", shown) if x)
    click.echo(printable(f"exported {count} span(s) of run {record.run_id} to {where}"))
    sys.stdout.flush()
