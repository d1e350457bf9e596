"""Tool formats and transcripts: converting tool definitions between providers' formats
(``_convert``), reading and writing conversations in other frameworks' message formats
(``_transcripts*``) and tool calls written as JSON text (``_text_calls``). Pure functions over
data; files are read through :mod:`agentgauge.files`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from ._convert import (
    TOOL_FORMATS,
    ToolFormat,
    bfcl_schema_to_json_schema,
    bfcl_type,
    read_tools_file,
    tool_from_data,
    tools_from_data,
    tools_to_format,
)
from ._names import tool_name_problem, tool_name_problems
from ._text_calls import json_text_calls, text_calls

if TYPE_CHECKING:
    from ._transcripts import (
        TRANSCRIPT_FORMATS,
        TranscriptError,
        TranscriptFormat,
        detect_format,
        foreign_conversation,
        messages_from_data,
    )
    from ._transcripts_write import messages_to_format

#: the transcript readers and writers, imported on first use (a plain run reads none)
_TRANSCRIPTS: dict[str, str] = {
    "TRANSCRIPT_FORMATS": "._transcripts",
    "TranscriptError": "._transcripts",
    "TranscriptFormat": "._transcripts",
    "detect_format": "._transcripts",
    "foreign_conversation": "._transcripts",
    "messages_from_data": "._transcripts",
    "messages_to_format": "._transcripts_write",
}

__all__ = [
    "TOOL_FORMATS",
    "TRANSCRIPT_FORMATS",
    "ToolFormat",
    "TranscriptError",
    "TranscriptFormat",
    "bfcl_schema_to_json_schema",
    "bfcl_type",
    "detect_format",
    "foreign_conversation",
    "json_text_calls",
    "messages_from_data",
    "messages_to_format",
    "read_tools_file",
    "text_calls",
    "tool_from_data",
    "tool_name_problem",
    "tool_name_problems",
    "tools_from_data",
    "tools_to_format",
]

__getattr__, __dir__ = lazy_exports(__name__, _TRANSCRIPTS, __all__)
