"""The JSON Schema of the suite format, for editors (``agentgauge schema``).

pydantic generates the schema of the models; one thing it cannot see is the shorthand of
argument matchers (expanded by a ``before`` validator): in a file, an argument expectation may
be a plain scalar or list (``city: Paris`` means ``{value: Paris}``) or a mapping without
matcher keys (a nested object compared field by field). The generated ``ArgMatcher`` object is
kept as ``ArgMatcherObject`` and ``ArgMatcher`` becomes the union of the written forms, so a
file that agentgauge accepts also validates in an editor.
"""

from __future__ import annotations

from typing import Any

from ._case import Suite
from ._expect import MATCHER_KEYS

#: the JSON Schema dialect pydantic generates
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _matcher_union(ref: str) -> dict[str, Any]:
    return {
        "description": (
            "What an argument value must be. Short forms: a scalar or list is an exact value; "
            "a mapping without matcher keys is a nested object, one expectation per field."
        ),
        "anyOf": [
            {"$ref": f"{ref}Object"},
            {"type": ["string", "number", "boolean", "null"]},
            {"type": "array", "items": {"$ref": ref}},
            {
                "type": "object",
                "propertyNames": {"not": {"enum": sorted(MATCHER_KEYS)}},
                "additionalProperties": {"$ref": ref},
            },
        ],
    }


def suite_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a suite file, shorthand forms included."""
    schema = Suite.model_json_schema()
    defs = schema.setdefault("$defs", {})
    if "ArgMatcher" in defs:
        defs["ArgMatcherObject"] = defs.pop("ArgMatcher")
        defs["ArgMatcher"] = _matcher_union("#/$defs/ArgMatcher")
    # a suite file may name its schema, as JSON editors expect: {"$schema": "suite.schema.json"}
    schema.setdefault("properties", {})["$schema"] = {
        "type": "string",
        "description": "The JSON Schema of this file (ignored by agentgauge).",
    }
    return {"$schema": DIALECT, **schema, "title": "agentgauge suite"}
