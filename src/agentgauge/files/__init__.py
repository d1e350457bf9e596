"""Bounded reading of every file agentgauge reads, whoever wrote it.

The size, nesting-depth and integer-range limits (``_limits``), the YAML 1.2 / JSON / JSONL reader
that keeps line numbers (``_yaml``) and pydantic validation errors turned into one-line
``file:line: field: message`` problems (``_yaml_errors``). Every loader and importer reads
through here, so a hostile input is refused the same way wherever it arrives.
"""

from ._limits import (
    MAX_DEPTH,
    PathElem,
    check_database,
    decode_utf8,
    iter_lines,
    max_file_bytes,
    open_input,
    out_of_range_int,
    parse_json,
    read_bytes,
    read_plain_text,
    read_text,
    too_deep,
    too_deep_message,
)
from ._yaml import (
    Document,
    FixedLocator,
    Locator,
    iter_jsonl,
    jsonl_records,
    read_document,
    read_json_text,
    read_yaml_text,
)
from ._yaml import _CoreLoader as CoreLoader
from ._yaml_errors import (
    format_path,
    kind_of,
    read_model_file,
    unknown_field_message,
    validated,
    validation_problems,
)

__all__ = [
    "MAX_DEPTH",
    "CoreLoader",
    "Document",
    "FixedLocator",
    "Locator",
    "PathElem",
    "check_database",
    "decode_utf8",
    "format_path",
    "iter_jsonl",
    "iter_lines",
    "jsonl_records",
    "kind_of",
    "max_file_bytes",
    "open_input",
    "out_of_range_int",
    "parse_json",
    "read_bytes",
    "read_document",
    "read_json_text",
    "read_model_file",
    "read_plain_text",
    "read_text",
    "read_yaml_text",
    "too_deep",
    "too_deep_message",
    "unknown_field_message",
    "validated",
    "validation_problems",
]
