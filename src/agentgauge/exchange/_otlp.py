"""OTLP/JSON traces: read spans from files, write spans as documents (no OpenTelemetry SDK).

The encoding is OTLP's JSON mapping of ``ExportTraceServiceRequest`` (what an OTLP/HTTP receiver
accepts at ``/v1/traces`` with ``Content-Type: application/json``, and what the collector's file
exporter writes, one document per line): ``resourceSpans[].scopeSpans[].spans[]`` with hex
trace/span ids, nanosecond times as decimal strings and typed attribute values
(``{"stringValue": ...}``, ``{"intValue": "3"}``, ``arrayValue``, ``kvlistValue``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import orjson

from ..errors import UserError
from ..files import open_input, too_deep, too_deep_message

__all__ = [
    "SPAN_KIND_CLIENT",
    "SPAN_KIND_INTERNAL",
    "STATUS_ERROR",
    "STATUS_OK",
    "Span",
    "SpanEvent",
    "decode_value",
    "encode_attributes",
    "looks_like_otlp",
    "otlp_document",
    "read_spans",
]

SPAN_KIND_INTERNAL: Final = 1
SPAN_KIND_CLIENT: Final = 3
STATUS_OK: Final = 1
STATUS_ERROR: Final = 2
_OTLP_HEAD: Final = re.compile(rb'\s*\{\s*"resourceSpans"\s*:')
#: the most spans read from one set of files
MAX_SPANS: Final = 1_000_000


@dataclass(frozen=True, slots=True)
class SpanEvent:
    name: str
    time_ns: int
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Span:
    """One span, attributes decoded to plain values."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start_ns: int
    end_ns: int
    attributes: dict[str, Any] = field(default_factory=dict)
    events: tuple[SpanEvent, ...] = ()
    #: 0 unset, 1 ok, 2 error
    status_code: int = 0
    status_message: str = ""
    kind: int = SPAN_KIND_INTERNAL
    #: ``file:line`` the span was read from
    where: str = ""

    @property
    def is_error(self) -> bool:
        return self.status_code == STATUS_ERROR or "error.type" in self.attributes


# ------------------------------------------------------------------------------ values


def encode_value(value: Any) -> dict[str, Any]:
    """A Python value as an OTLP ``AnyValue``."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, Sequence):
        return {"arrayValue": {"values": [encode_value(v) for v in value]}}
    if isinstance(value, Mapping):
        return {"kvlistValue": {"values": encode_attributes(value)}}
    return {"stringValue": json.dumps(value, ensure_ascii=False, default=str)}


def encode_attributes(attrs: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Attributes as OTLP key/value pairs (``None`` values are left out)."""
    return [{"key": k, "value": encode_value(v)} for k, v in attrs.items() if v is not None]


def decode_value(raw: Any) -> Any:
    """An OTLP ``AnyValue`` (JSON mapping) as a Python value; unknown shapes become None."""
    if not isinstance(raw, dict):
        return None
    if "stringValue" in raw:
        return raw["stringValue"]
    if "intValue" in raw:
        try:
            return int(raw["intValue"])
        except (TypeError, ValueError):
            return None
    if "doubleValue" in raw:
        value = raw["doubleValue"]
        return float(value) if isinstance(value, int | float | str) else None
    if "boolValue" in raw:
        return bool(raw["boolValue"])
    if "arrayValue" in raw:
        values = (raw["arrayValue"] or {}).get("values", [])
        return [decode_value(v) for v in values] if isinstance(values, list) else []
    if "kvlistValue" in raw:
        return _decode_attributes((raw["kvlistValue"] or {}).get("values", []))
    if "bytesValue" in raw:
        return raw["bytesValue"]
    return None


def _decode_attributes(raw: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if not isinstance(raw, list):
        return out
    for kv in raw:
        if isinstance(kv, dict) and isinstance(kv.get("key"), str):
            out[kv["key"]] = decode_value(kv.get("value"))
    return out


# ------------------------------------------------------------------------------ writing


def otlp_document(
    spans: Sequence[Span], resource: Mapping[str, Any], scope: tuple[str, str]
) -> dict[str, Any]:
    """An ``ExportTraceServiceRequest`` in OTLP's JSON mapping holding ``spans``."""

    def one(s: Span) -> dict[str, Any]:
        out: dict[str, Any] = {
            "traceId": s.trace_id,
            "spanId": s.span_id,
            "name": s.name,
            "kind": s.kind,
            "startTimeUnixNano": str(s.start_ns),
            "endTimeUnixNano": str(s.end_ns),
            "attributes": encode_attributes(s.attributes),
        }
        if s.parent_id:
            out["parentSpanId"] = s.parent_id
        if s.events:
            out["events"] = [
                {
                    "timeUnixNano": str(e.time_ns),
                    "name": e.name,
                    "attributes": encode_attributes(e.attributes),
                }
                for e in s.events
            ]
        status: dict[str, Any] = {"code": s.status_code}
        if s.status_message:
            status["message"] = s.status_message
        out["status"] = status
        return out

    return {
        "resourceSpans": [
            {
                "resource": {"attributes": encode_attributes(resource)},
                "scopeSpans": [
                    {
                        "scope": {"name": scope[0], "version": scope[1]},
                        "spans": [one(s) for s in spans],
                    }
                ],
            }
        ]
    }


# ------------------------------------------------------------------------------ reading


def looks_like_otlp(path: Path) -> bool:
    """Whether a file starts like an OTLP/JSON trace export (``{"resourceSpans": ...``)."""
    try:
        with open_input(path, str(path)) as fh:
            head = fh.read(65536)
    except UserError:
        return False
    return _OTLP_HEAD.match(head) is not None


def _int(raw: Any) -> int:
    try:
        return int(raw)
    except (TypeError, ValueError):
        return 0


def _spans_of(doc: Any, where: str) -> Iterator[Span]:
    if not isinstance(doc, dict) or not isinstance(doc.get("resourceSpans"), list):
        raise UserError(
            f"{where}: not an OTLP trace export (expected an object with resourceSpans)"
        )
    for rs in doc["resourceSpans"]:
        scopes = (
            rs.get("scopeSpans", rs.get("instrumentationLibrarySpans"))
            if isinstance(rs, dict)
            else None
        )
        for ss in scopes if isinstance(scopes, list) else []:
            spans = ss.get("spans") if isinstance(ss, dict) else None
            for raw in spans if isinstance(spans, list) else []:
                if not isinstance(raw, dict):
                    raise UserError(f"{where}: a span is not an object")
                trace_id, span_id = raw.get("traceId"), raw.get("spanId")
                if not isinstance(trace_id, str) or not isinstance(span_id, str):
                    raise UserError(f"{where}: a span without traceId/spanId strings")
                status_raw = raw.get("status")
                status: dict[str, Any] = status_raw if isinstance(status_raw, dict) else {}
                code = status.get("code", 0)
                if isinstance(code, str):  # the enum's name, as some exporters write it
                    code = {"STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2}.get(code, 0)
                events_raw = raw.get("events")
                events: list[Any] = events_raw if isinstance(events_raw, list) else []
                yield Span(
                    trace_id=trace_id,
                    span_id=span_id,
                    parent_id=str(raw.get("parentSpanId") or "") or None,
                    name=str(raw.get("name", "")),
                    start_ns=_int(raw.get("startTimeUnixNano")),
                    end_ns=_int(raw.get("endTimeUnixNano")),
                    attributes=_decode_attributes(raw.get("attributes")),
                    events=tuple(
                        SpanEvent(
                            str(e.get("name", "")),
                            _int(e.get("timeUnixNano")),
                            _decode_attributes(e.get("attributes")),
                        )
                        for e in events
                        if isinstance(e, dict)
                    ),
                    status_code=code if isinstance(code, int) else 0,
                    status_message=str(status.get("message", "")),
                    kind=_int(raw.get("kind")),
                    where=where,
                )


def _parse(text: bytes) -> Any:
    """orjson (fast); what only Python's json reads (NaN, huge integers) falls back to it."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def read_spans(paths: Sequence[str | Path]) -> list[Span]:
    """Every span in OTLP/JSON files: one document per file, or one per line (JSONL).

    Raises :class:`UserError` (``file:line: message``) for a file that is not an OTLP export.
    """
    out: list[Span] = []
    for given in paths:
        path = Path(given)
        with open_input(path, str(path)) as fh:
            data = fh.read()
        stripped = data.strip()
        docs: list[tuple[int, bytes]]
        try:
            docs = [(1, stripped)] if stripped else []
            parsed = [_parse(stripped)] if stripped else []
        except ValueError:
            docs = [(n, line) for n, line in enumerate(data.splitlines(), 1) if line.strip()]
            parsed = []
            for n, line in docs:
                try:
                    parsed.append(_parse(line))
                except ValueError as err:
                    raise UserError(f"{path}:{n}: invalid JSON: {err}") from None
                except RecursionError:
                    raise UserError(too_deep_message(str(path), n, ())) from None
        except RecursionError:
            raise UserError(too_deep_message(str(path), 1, ())) from None
        if not parsed:
            raise UserError(f"{path}:1: the file is empty (expected an OTLP/JSON trace export)")
        for (number, text), doc in zip(docs, parsed, strict=True):
            deep = too_deep(doc, text)
            if deep is not None:
                raise UserError(too_deep_message(str(path), number, deep))
            out.extend(_spans_of(doc, f"{path}:{number}"))
            if len(out) > MAX_SPANS:
                raise UserError(f"{path}:{number}: more than {MAX_SPANS:,} spans")
    return out
