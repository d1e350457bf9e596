"""``agentgauge export-otel``: a run as OpenTelemetry traces (GenAI semantic conventions).

::

    agentgauge export-otel RUN_DIR [-o trace.json] [--endpoint URL] [--no-content]

The work is done by :func:`agentgauge.io.export_run_otlp`; see docs/bring-your-agent.md.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import click

__all__ = ["command"]


@click.command(name="export-otel")
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option(
    "--output", "-o", type=click.Path(path_type=Path), help="Write OTLP/JSON to this file."
)
@click.option(
    "--endpoint",
    envvar="AGENTGAUGE_OTEL_ENDPOINT",
    help="POST the traces to this OTLP/HTTP receiver (e.g. http://localhost:4318).",
)
@click.option(
    "--content/--no-content",
    default=True,
    show_default=True,
    help="Include the conversation (gen_ai.input.messages / gen_ai.output.messages).",
)
def command(run_dir: Path, output: Path | None, endpoint: str | None, content: bool) -> None:
    """Export RUN_DIR as OpenTelemetry traces: one trace per case and trial.

    Without -o or --endpoint the OTLP/JSON document is printed.
    """
    from ..io import OtelExport, export_run_otlp, iter_results, results_to_otlp
    from ..runner import read_record

    record = read_record(run_dir)
    export = OtelExport(
        run_id=record.run_id, agent=record.agent, suite=record.suite, content=content
    )
    if output is None and endpoint is None:
        doc = results_to_otlp(iter_results(run_dir), export)
        click.echo(json.dumps(doc, ensure_ascii=False, indent=1))
        return
    count = export_run_otlp(run_dir, export, output=output, endpoint=endpoint)
    shown = re.sub(r"//[^/@]*@", "//", endpoint) if endpoint else ""  # no credentials shown
    where = " and ".join(x for x in (str(output) if output else "", shown) if x)
    click.echo(f"exported {count} span(s) of run {record.run_id} to {where}")
    sys.stdout.flush()
