"""The JSON Schema of the suite format, for editors (``agentgauge schema``).

pydantic generates the schema of the models; one thing it cannot see is the shorthand of
argument matchers (expanded by a ``before`` validator): in a file, an argument expectation may
be a plain scalar or list (``city: Paris`` means ``{value: Paris}``) or a mapping without
matcher keys (a nested object compared field by field). The generated ``ArgMatcher`` object is
kept as ``ArgMatcherObject`` and ``ArgMatcher`` becomes the union of the written forms, so a
file that agentgauge accepts also validates in an editor. ``scorers:`` entries are one variant
per known scorer (from the scorer catalog), so scorer and argument names complete and typos show.
"""

from __future__ import annotations

import copy
import inspect
import re
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


#: descriptions for fields that carry no ``#:`` comment in the models (editor hover text)
_DESCRIPTIONS: dict[tuple[str, str], str] = {
    ("Suite", "version"): "Format version of this file (1).",
    ("Suite", "name"): "Name of the suite (shown in reports).",
    ("Suite", "description"): "What the suite tests.",
    ("Suite", "tools"): "Tools the agent may call: name, description, JSON Schema parameters.",
    ("Suite", "defaults"): "Defaults applied to every case.",
    ("Suite", "cases"): "The test cases.",
    ("Suite", "gates"): "Thresholds `agentgauge gate` checks (docs/gates-and-ci.md).",
    ("Case", "id"): "Unique id of the case; results are keyed by it.",
    ("Case", "category"): (
        "happy_path, ambiguous, edge_case, adversarial, error_recovery, tool_call, no_tool, "
        "clarify, error_handling, not_supported, or your own."
    ),
    ("Case", "difficulty"): "Free text, e.g. easy / medium / hard (reports slice by it).",
    ("Case", "tags"): "Free-form tags (reports slice by them).",
    ("Case", "description"): "What the case checks.",
    ("Case", "expect"): "What should happen in reply to the input.",
    ("Case", "labels"): "Intent / route / skill labels for module-level metrics.",
    ("Case", "max_steps"): "Model calls allowed per user turn (default: defaults.max_steps).",
    ("Expectation", "behavior"): (
        "tool_call (implied by tool_calls), any_tool, no_tool, answer, clarify, refuse, recover."
    ),
    ("Expectation", "tool_calls"): "Expected tool calls, each with argument matchers.",
    ("Expectation", "order"): (
        "How several calls line up: strict, in_order, any_order (default), subset, superset."
    ),
    ("CallExpectation", "name"): "The tool expected to be called.",
    ("CallExpectation", "arguments"): (
        "A matcher per argument: a plain value, or {one_of, any, optional, tolerance, "
        "ignore_case, regex, date, ...}."
    ),
    ("Turn", "user"): "The user's next message.",
    ("Turn", "expect"): "What should happen in reply to this message.",
    ("Defaults", "system"): "System prompt of every case (a case's `system` overrides it).",
    ("Defaults", "max_steps"): "Model calls allowed per user turn.",
    ("Defaults", "extra_arguments"): "fail: an argument the expectation does not mention fails.",
    ("Defaults", "timeout_s"): "Wall-clock limit per case, seconds.",
    ("Defaults", "trials"): "Independent runs of each case (pass@k / pass^k).",
    ("Defaults", "faults"): "Faults injected at a rate into every case.",
    ("ToolSpec", "name"): "The tool's name, as the agent calls it.",
    ("ToolSpec", "description"): "What the tool does (shown to the agent).",
    ("ToolSim", "result"): "A static result (any JSON value).",
    ("ToolSim", "fault"): "error, exception, timeout, empty or malformed.",
    ("ToolSim", "error"): "The error text the agent sees (implies fault: error).",
    ("ToolSim", "function"): (
        "file.py:callable (module:callable: module.py) of a stateful Python fake, a file in the "
        "suite's folder; runs only with --allow-suite-code."
    ),
    ("FaultRate", "kind"): "error, exception, timeout, empty or malformed.",
    ("FaultRate", "rate"): "Fraction of tool calls that get the fault (seeded).",
    ("Labels", "intents"): "Expected intents.",
    ("Labels", "route"): "Expected route.",
    ("Labels", "skill"): "Expected skill.",
    ("Message", "role"): "system, user, assistant or tool.",
    ("Message", "content"): "The message text (a tool result's JSON text for role tool).",
    ("ToolCall", "name"): "The tool called.",
    ("ToolCall", "arguments"): "The arguments passed.",
    ("ToolCall", "id"): "Call id (tool messages answer it with tool_call_id).",
    ("PartialValue", "value"): "A value earning partial credit.",
    ("PartialValue", "credit"): "The credit it earns, 0 to 1.",
    ("ResultRef", "tool"): "The earlier tool whose result holds the value.",
}

_FIELD = re.compile(r"^\s+(\w+)\s*:")


def _field_comments(cls: type) -> dict[str, str]:
    """The ``#:`` comments written above a model's fields, by field name."""
    try:
        source = inspect.getsource(cls)
    except (OSError, TypeError):
        return {}
    out: dict[str, str] = {}
    pending: list[str] = []
    for line in source.splitlines():
        stripped = line.strip()
        if stripped.startswith("#:"):
            pending.append(stripped[2:].strip())
            continue
        match = _FIELD.match(line)
        if match and pending:
            out[match.group(1)] = " ".join(pending)
        pending = []
    return out


def _describe_fields(schema: dict[str, Any]) -> None:
    """Give every property without a description its ``#:`` comment from the model source."""
    from .. import schema as models

    targets: list[tuple[dict[str, Any], type]] = [(schema, Suite)]
    for name, definition in schema.get("$defs", {}).items():
        cls = getattr(models, name.removesuffix("Object"), None)
        if isinstance(cls, type) and isinstance(definition, dict):
            targets.append((definition, cls))
    for definition, cls in targets:
        comments = _field_comments(cls)
        for field, prop in definition.get("properties", {}).items():
            text = comments.get(field) or _DESCRIPTIONS.get((cls.__name__, field))
            if text and isinstance(prop, dict) and "description" not in prop:
                prop["description"] = text


_ARG_TYPES: dict[str, dict[str, Any]] = {
    "bool": {"type": "boolean"},
    "int": {"type": "integer"},
    "number": {"type": "number"},
    "string": {"type": "string"},
    "regex": {"type": "string", "format": "regex"},
    "strings": {"type": "array", "items": {"type": "string"}},
    "numbers": {"type": "array", "items": {"type": "number"}},
    "object": {"type": "object"},
    "objects": {"type": "array", "items": {"type": "object"}},
    "scale": {
        "oneOf": [
            {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
            {"const": "pass_fail"},
        ]
    },
}


def _scorer_variants(base: dict[str, Any]) -> dict[str, Any]:
    """``ScorerRef`` as one variant per known scorer: its name as a constant, its own ``args``.

    Editors then complete scorer names and argument names and flag a typo, as ``validate``
    does (both read the scorer catalog).
    """
    from ._catalog import SCORER_INFO

    variants = []
    for info in SCORER_INFO.values():
        variant = copy.deepcopy(base)
        for key in ("title", "description"):
            variant.pop(key, None)
        variant["properties"]["scorer"] = {"const": info.name, "description": info.summary}
        args: dict[str, Any] = {}
        for arg in info.all_args():
            prop = {**_ARG_TYPES[arg.kind], "description": arg.help}
            if arg.minimum is not None:
                prop["minimum"] = arg.minimum
            if arg.maximum is not None:
                prop["maximum"] = arg.maximum
            args[arg.name] = prop
        variant["properties"]["args"] = {
            "type": "object",
            "properties": args,
            "additionalProperties": False,
        }
        variants.append(variant)
    own = copy.deepcopy(base)  # a check of one's own: python:file.py:function, any args
    for key in ("title", "description"):
        own.pop(key, None)
    own["properties"]["scorer"] = {
        "type": "string",
        "pattern": "^python:.+:[A-Za-z_][A-Za-z0-9_.]*$",
        "description": "your own function: python:file.py:function (a file of the suite's folder)",
    }
    variants.append(own)
    return {"description": base.get("description", ""), "oneOf": variants}


def suite_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a suite file, shorthand forms included."""
    schema = Suite.model_json_schema()
    defs = schema.setdefault("$defs", {})
    if "ArgMatcher" in defs:
        defs["ArgMatcherObject"] = defs.pop("ArgMatcher")
        defs["ArgMatcher"] = _matcher_union("#/$defs/ArgMatcher")
    _describe_fields(schema)
    if "ScorerRef" in defs:
        defs["ScorerRef"] = _scorer_variants(defs["ScorerRef"])
    # a suite file may name its schema, as JSON editors expect: {"$schema": "suite.schema.json"}
    schema.setdefault("properties", {})["$schema"] = {
        "type": "string",
        "description": "The JSON Schema of this file (ignored by agentgauge).",
    }
    return {"$schema": DIALECT, **schema, "title": "agentgauge suite"}
