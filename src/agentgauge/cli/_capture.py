"""``agentgauge capture``: OpenTelemetry traces of an agent become test cases.

::

    agentgauge capture TRACE... -o cases.jsonl [--turn N] [--responses responses.jsonl]

The work is done by :func:`agentgauge.io.capture_cases`; see docs/bring-your-agent.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from .._messages import printable

__all__ = ["command"]


@click.command(name="capture")
@click.argument("traces", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--output", "-o", required=True, type=click.Path(path_type=Path), help="Cases file (JSONL)."
)
@click.option(
    "--turn",
    type=click.IntRange(min=1),
    help="Test this user turn (1 = the first) instead of the failing or the last one.",
)
@click.option(
    "--responses",
    "responses_out",
    type=click.Path(path_type=Path),
    help="Also write what the agent did in each turn, for agentgauge score --responses.",
)
@click.option("--overwrite", is_flag=True, help="Replace OUTPUT if it exists.")
def command(
    traces: tuple[Path, ...],
    output: Path,
    turn: int | None,
    responses_out: Path | None,
    overwrite: bool,
) -> None:
    """Turn each conversation in TRACE files into a test case.

    A TRACE is an OTLP/JSON trace export, or a logged conversation (JSON or JSONL) in any
    format agentgauge reads (OpenAI, Responses, Anthropic, Gemini, LangChain). The case's input
    is the conversation up to the failing turn (a span with error status; else the last turn),
    and its expectation starts as the calls the agent made there: edit it to what the agent
    should have done, then `agentgauge validate OUTPUT`.
    """
    from .._secrets import scrub
    from ..errors import UserError
    from ..exchange import capture_cases

    for path in (output, responses_out):
        if path is not None and path.exists() and not overwrite:
            raise UserError(f"{path}: already exists (use --overwrite or another file)")
    captured = capture_cases(list(traces), turn)
    output.parent.mkdir(parents=True, exist_ok=True)
    with output.open("w", encoding="utf-8") as fh:
        for c in captured:
            fh.write(scrub(json.dumps(c.data, ensure_ascii=False)) + "\n")
    if responses_out is not None:
        with responses_out.open("w", encoding="utf-8") as fh:
            for c in captured:
                r = c.response
                record: dict[str, Any] = {"case_id": r.case_id}
                if r.messages:
                    record["messages"] = [
                        m.model_dump(mode="json", exclude_defaults=True) for m in r.messages
                    ]
                else:  # the turn got no reply at all (its model call failed)
                    record["calls"] = []
                if r.labels is not None:
                    record["labels"] = r.labels.model_dump(mode="json", exclude_defaults=True)
                fh.write(scrub(json.dumps(record, ensure_ascii=False)) + "\n")
    for c in captured:
        calls = ", ".join(call.name for call in c.response.calls) or "no call"
        click.echo(printable(f"{c.case.id}: turn {c.turn} ({c.reason}); observed: {calls}"))
    click.echo(
        f"captured {len(captured)} case(s) to {output}: edit each expect to what the agent "
        f"should have done, then run agentgauge validate {output}"
    )
