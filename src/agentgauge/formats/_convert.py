"""Tool definitions to and from the vendors' formats: pure functions, no network, no SDKs.

Formats (see docs/tool-formats.md):

- ``openai``: chat completions, ``{"type": "function", "function": {...}}`` with ``name``,
  ``description`` and ``parameters`` inside (the bare function object is read too);
- ``openai-responses``: Responses API, ``{"type": "function", name, description, parameters,
  strict}``;
- ``anthropic``: ``{name, description, input_schema}``;
- ``gemini``: ``{"function_declarations": [{name, description, parameters}]}`` whose ``parameters``
  is Gemini's OpenAPI subset (upper-case types such as ``"STRING"``, ``nullable``);
  ``parameters_json_schema`` (newer SDKs) and the REST camelCase spellings are read too;
- ``mcp``: ``{name, description, inputSchema, annotations?}``, and the ``{"tools": [...]}`` result
  of an MCP ``tools/list`` call;
- ``native``: agentgauge's own :class:`~agentgauge.schema.ToolSpec`.

BFCL writes parameter types with Python names (``dict``, ``float``, ``tuple``, ``any``);
:func:`bfcl_schema_to_json_schema` maps them to JSON Schema, and :func:`tools_from_data` applies it
when it meets such a schema.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final, Literal, get_args

from ..errors import UserError
from ..schema import JsonValue, ToolSpec

__all__ = [
    "TOOL_FORMATS",
    "ToolFormat",
    "bfcl_schema_to_json_schema",
    "bfcl_type",
    "from_anthropic",
    "from_gemini",
    "from_mcp",
    "from_openai",
    "from_openai_responses",
    "gemini_schema_to_json_schema",
    "json_schema_to_gemini",
    "read_tools_file",
    "to_anthropic",
    "to_gemini",
    "to_mcp",
    "to_openai",
    "to_openai_responses",
    "tool_from_data",
    "tools_from_data",
    "tools_to_format",
]

ToolFormat = Literal["openai", "openai-responses", "anthropic", "gemini", "mcp", "native"]
TOOL_FORMATS: Final[tuple[str, ...]] = get_args(ToolFormat)

_EMPTY_OBJECT: Final = {"type": "object", "properties": {}}

# --------------------------------------------------------------------------- JSON Schema dialects

#: BFCL's Python-style type names and their JSON Schema equivalents (``None``: no constraint)
_BFCL_TYPES: Final[dict[str, str | None]] = {
    "dict": "object",
    "float": "number",
    "tuple": "array",
    "list": "array",
    "any": None,
    "str": "string",
    "int": "integer",
    "bool": "boolean",
    "integer": "integer",
    "string": "string",
    "boolean": "boolean",
    "array": "array",
    "object": "object",
    "number": "number",
    "null": "null",
}
#: type names that only BFCL's dialect uses (their presence marks a BFCL schema)
_PYTHON_ONLY_TYPES: Final = frozenset(
    {"dict", "float", "tuple", "list", "any", "str", "int", "bool"}
)

#: schema keywords whose value is one sub-schema / a mapping of them / a list of them
_SUB_ONE: Final = ("items", "additionalProperties", "not", "contains")
_SUB_MAP: Final = ("properties", "patternProperties", "$defs", "definitions")
_SUB_LIST: Final = ("anyOf", "oneOf", "allOf", "prefixItems")


def _map_schema(schema: Any, node: Callable[[dict[str, Any]], dict[str, Any]]) -> Any:
    """Apply ``node`` to every sub-schema of ``schema``, bottom-up; returns a new schema."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _SUB_ONE and isinstance(value, dict):
            out[key] = _map_schema(value, node)
        elif key == "items" and isinstance(value, list):
            out[key] = [_map_schema(v, node) for v in value]
        elif key in _SUB_MAP and isinstance(value, dict):
            out[key] = {k: _map_schema(v, node) for k, v in value.items()}
        elif key in _SUB_LIST and isinstance(value, list):
            out[key] = [_map_schema(v, node) for v in value]
        else:
            out[key] = value
    return node(out)


def _walk_types(schema: Any) -> set[str]:
    """Every ``type`` name used anywhere in ``schema``."""
    found: set[str] = set()

    def visit(node: dict[str, Any]) -> dict[str, Any]:
        t = node.get("type")
        if isinstance(t, str):
            found.add(t)
        elif isinstance(t, list):
            found.update(x for x in t if isinstance(x, str))
        return node

    _map_schema(schema, visit)
    return found


def _bfcl_node(node: dict[str, Any]) -> dict[str, Any]:
    t = node.get("type")
    if isinstance(t, str) and t in _BFCL_TYPES:
        mapped = _BFCL_TYPES[t]
        if mapped is None:
            del node["type"]
        else:
            node["type"] = mapped
    return node


def bfcl_schema_to_json_schema(params: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    """Map a BFCL ``parameters`` schema (Python-style types) to JSON Schema.

    ``dict`` becomes ``object``, ``float`` ``number``, ``tuple`` (and ``list``) ``array``, and
    ``any`` loses its ``type`` (no constraint); the JSON Schema names BFCL also uses pass through.
    Properties, items and combinators are mapped recursively; every other keyword (``enum``,
    ``default``, ``description``, ``required``, BFCL's own ``optional``...) is kept as it is.
    """
    result = _map_schema(dict(params), _bfcl_node)
    assert isinstance(result, dict)
    return result


#: keywords of Gemini's OpenAPI-subset ``Schema`` (anything else is dropped on the way to Gemini)
_GEMINI_KEYS: Final = frozenset(
    {
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "anyOf",
        "propertyOrdering",
        "default",
        "items",
        "minimum",
        "maximum",
    }
)


def _gemini_in_node(node: dict[str, Any]) -> dict[str, Any]:
    t = node.get("type")
    if isinstance(t, str):
        lowered = t.lower()
        if lowered == "type_unspecified":
            del node["type"]
            t = None
        else:
            node["type"] = lowered
            t = lowered
    if node.pop("nullable", False) is True:
        if isinstance(t, str) and t != "null":
            node["type"] = [t, "null"]
        elif t is None and "anyOf" in node:
            node["anyOf"] = [*node["anyOf"], {"type": "null"}]
    return node


def gemini_schema_to_json_schema(schema: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    """Map Gemini's OpenAPI-subset schema (``"OBJECT"``, ``nullable``) to JSON Schema."""
    result = _map_schema(dict(schema), _gemini_in_node)
    assert isinstance(result, dict)
    return result


def _gemini_out_node(node: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in node.items() if k in _GEMINI_KEYS}
    if "const" in node and "enum" not in node:
        out["enum"] = [node["const"]]
    t = node.get("type")
    if isinstance(t, list):
        kinds = [x for x in t if isinstance(x, str) and x != "null"]
        if len(kinds) < len(t):
            out["nullable"] = True
        if len(kinds) == 1:
            out["type"] = kinds[0].upper()
        else:
            del out["type"]
            if kinds:
                out["anyOf"] = [{"type": k.upper()} for k in kinds]
    elif isinstance(t, str):
        out["type"] = t.upper()
    enum = out.get("enum")
    if isinstance(enum, list) and None in enum:  # Gemini enums hold strings; null is `nullable`
        enum = out["enum"] = [e for e in enum if e is not None]
        out["nullable"] = True
    if isinstance(enum, list) and out.get("type", "STRING") != "STRING":
        # Gemini accepts `enum` on strings only: keep the allowed values in the description
        del out["enum"]
        allowed = "one of: " + ", ".join(json.dumps(e) for e in enum)
        text = out.get("description")
        out["description"] = f"{text} ({allowed})" if isinstance(text, str) and text else allowed
    if "anyOf" in out and isinstance(out["anyOf"], list):
        variants = [v for v in out["anyOf"] if v != {"type": "NULL"}]
        if len(variants) < len(out["anyOf"]):
            out["nullable"] = True
            out["anyOf"] = variants
    return out


def json_schema_to_gemini(schema: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    """Map JSON Schema to Gemini's OpenAPI subset.

    Types become upper-case, ``["string", "null"]`` becomes ``STRING`` with ``nullable``, ``const``
    becomes a one-value ``enum``; an ``enum`` on a non-string type (Gemini allows enums on
    strings only) moves into the description as ``(one of: 1, 2, 3)``; keywords Gemini's
    ``Schema`` does not know (``additionalProperties``, ``$ref``...) are dropped. Use
    ``to_gemini(..., json_schema=True)`` to hand the schema over unchanged as
    ``parameters_json_schema`` instead.
    """
    result = _map_schema(dict(schema), _gemini_out_node)
    assert isinstance(result, dict)
    return result


def _normalise_parameters(params: Any, where: str) -> dict[str, JsonValue]:
    """A parameters schema in any dialect we know, as JSON Schema."""
    if params is None:
        return dict(_EMPTY_OBJECT)
    if not isinstance(params, dict):
        raise UserError(f"{where}: parameters must be a JSON Schema object, got {_kind(params)}")
    types = _walk_types(params)
    if types & _PYTHON_ONLY_TYPES:
        return bfcl_schema_to_json_schema(params)
    if any(t.isupper() for t in types):
        return gemini_schema_to_json_schema(params)
    return dict(params)


# --------------------------------------------------------------------------- one tool each way


def _require_name(obj: Mapping[str, Any], where: str) -> str:
    name = obj.get("name")
    if not isinstance(name, str) or not name:
        raise UserError(f"{where}: a tool needs a non-empty string 'name'")
    return name


def _spec(obj: Mapping[str, Any], params: Any, where: str) -> ToolSpec:
    description = obj.get("description")
    return ToolSpec(
        name=_require_name(obj, where),
        description=description if isinstance(description, str) else "",
        parameters=_normalise_parameters(params, f"{where}.parameters"),
    )


def _params(tool: ToolSpec) -> dict[str, JsonValue]:
    return dict(tool.parameters) if tool.parameters else dict(_EMPTY_OBJECT)


def to_openai(tool: ToolSpec, *, strict: bool | None = None) -> dict[str, JsonValue]:
    """Chat-completions form: ``{"type": "function", "function": {...}}``."""
    function: dict[str, JsonValue] = {
        "name": tool.name,
        "description": tool.description,
        "parameters": _params(tool),
    }
    if strict is not None:
        function["strict"] = strict
    return {"type": "function", "function": function}


def from_openai(obj: Mapping[str, Any], *, where: str = "tool") -> ToolSpec:
    """Read a chat-completions tool, or the bare function object inside one."""
    if obj.get("type") == "function" and isinstance(obj.get("function"), dict):
        return from_openai(obj["function"], where=f"{where}.function")
    return _spec(obj, obj.get("parameters"), where)


def to_openai_responses(tool: ToolSpec, *, strict: bool = False) -> dict[str, JsonValue]:
    """Responses-API form: ``{"type": "function", "name", "description", "parameters", "strict"}``.

    ``strict`` is written out because the Responses API treats a missing value as ``true``, which
    rejects schemas that do not list every property as required.
    """
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": _params(tool),
        "strict": strict,
    }


def from_openai_responses(obj: Mapping[str, Any], *, where: str = "tool") -> ToolSpec:
    return _spec(obj, obj.get("parameters"), where)


def to_anthropic(tool: ToolSpec) -> dict[str, JsonValue]:
    """Anthropic Messages API form: ``{name, description, input_schema}``."""
    return {"name": tool.name, "description": tool.description, "input_schema": _params(tool)}


def from_anthropic(obj: Mapping[str, Any], *, where: str = "tool") -> ToolSpec:
    return _spec(obj, obj.get("input_schema"), where)


def to_gemini(tool: ToolSpec, *, json_schema: bool = False) -> dict[str, JsonValue]:
    """One Gemini function declaration (put a list of them under ``function_declarations``).

    By default ``parameters`` holds Gemini's OpenAPI subset; ``json_schema=True`` writes the JSON
    Schema unchanged as ``parameters_json_schema`` (google-genai >= 1.0).
    """
    out: dict[str, JsonValue] = {"name": tool.name, "description": tool.description}
    if json_schema:
        out["parameters_json_schema"] = _params(tool)
    elif tool.properties():
        out["parameters"] = json_schema_to_gemini(_params(tool))
    return out


def from_gemini(obj: Mapping[str, Any], *, where: str = "tool") -> ToolSpec:
    """Read one function declaration (snake_case or REST camelCase)."""
    for key in ("parameters_json_schema", "parametersJsonSchema"):
        if key in obj:
            return _spec(obj, obj[key], where)
    params = obj.get("parameters")
    if isinstance(params, dict):
        params = gemini_schema_to_json_schema(params)
    return _spec(obj, params, where)


def to_mcp(tool: ToolSpec) -> dict[str, JsonValue]:
    """MCP tool definition: ``{name, description, inputSchema}``."""
    return {"name": tool.name, "description": tool.description, "inputSchema": _params(tool)}


def from_mcp(obj: Mapping[str, Any], *, where: str = "tool") -> ToolSpec:
    """Read an MCP tool definition (``annotations``, ``title``, ``outputSchema`` are not kept)."""
    return _spec(obj, obj.get("inputSchema"), where)


def _to_native(tool: ToolSpec) -> dict[str, JsonValue]:
    return tool.model_dump(mode="json", exclude_none=True)


def tools_to_format(
    tools: list[ToolSpec],
    fmt: ToolFormat | str,
    *,
    strict: bool | None = None,
    json_schema: bool = False,
) -> JsonValue:
    """The tools in ``fmt``, as the value a request or file would hold.

    A list of tool objects for ``openai``, ``openai-responses``, ``anthropic`` and ``native``;
    ``{"function_declarations": [...]}`` (one Gemini ``Tool``) for ``gemini``;
    ``{"tools": [...]}`` (a ``tools/list`` result) for ``mcp``.

    ``json_schema=True`` (``gemini`` only) writes each parameter schema unchanged as
    ``parameters_json_schema`` instead of converting it to Gemini's OpenAPI subset; for any
    other format it is a ``ValueError`` (those formats hold JSON Schema already).
    """
    if json_schema and fmt != "gemini":
        raise ValueError(f"json_schema=True is for the gemini format only, not {fmt!r}")
    if fmt == "openai":
        return [to_openai(t, strict=strict) for t in tools]
    if fmt == "openai-responses":
        return [to_openai_responses(t, strict=bool(strict)) for t in tools]
    if fmt == "anthropic":
        return [to_anthropic(t) for t in tools]
    if fmt == "gemini":
        return {"function_declarations": [to_gemini(t, json_schema=json_schema) for t in tools]}
    if fmt == "mcp":
        return {"tools": [to_mcp(t) for t in tools]}
    if fmt == "native":
        return [_to_native(t) for t in tools]
    raise UserError(f"unknown tool format '{fmt}' (choose one of {', '.join(TOOL_FORMATS)})")


# --------------------------------------------------------------------------- detection


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__ if value is not None else "null"


_NATIVE_KEYS: Final = frozenset({"name", "description", "parameters", "simulation", "mcp"})


def tool_from_data(obj: Any, *, where: str = "tool") -> ToolSpec:
    """One tool definition in any known format (``mcp: true`` beside it marks a tool an MCP
    server serves, in any format)."""
    spec = _tool_from_data(obj, where)
    mark = obj.get("mcp") if isinstance(obj, dict) else None
    if mark is None:
        return spec
    if not isinstance(mark, bool):
        raise UserError(f"{where}.mcp: expected true or false, got {_kind(mark)}")
    return spec.model_copy(update={"mcp": mark})


def _tool_from_data(obj: Any, where: str) -> ToolSpec:
    if not isinstance(obj, dict):
        raise UserError(f"{where}: expected a tool definition object, got {_kind(obj)}")
    kind = obj.get("type")
    if kind == "function" and isinstance(obj.get("function"), dict):
        return from_openai(obj, where=where)
    if kind == "function" and "name" in obj:
        return from_openai_responses(obj, where=where)
    if "input_schema" in obj:
        return from_anthropic(obj, where=where)
    if isinstance(obj.get("toolSpec"), dict):  # Amazon Bedrock Converse
        spec = obj["toolSpec"]
        schema = spec.get("inputSchema")
        params = schema.get("json") if isinstance(schema, dict) else None
        return _spec(spec, params, f"{where}.toolSpec")
    if "inputSchema" in obj:
        return from_mcp(obj, where=where)
    if "parameters_json_schema" in obj or "parametersJsonSchema" in obj:
        return from_gemini(obj, where=where)
    if "name" in obj and (kind is None or kind == "custom"):
        if "simulation" in obj and set(obj) <= _NATIVE_KEYS:
            try:
                return ToolSpec.model_validate(obj)
            except ValueError as err:
                raise UserError(f"{where}: {err}".splitlines()[0]) from None
        return from_openai(obj, where=where)
    if kind is not None:
        raise UserError(
            f"{where}: tool type '{kind}' is not a function tool (only function tools convert)"
        )
    keys = ", ".join(sorted(map(str, obj))) or "none"
    raise UserError(
        f"{where}: not a recognised tool definition (keys: {keys}); expected OpenAI "
        "(type/function), OpenAI Responses, Anthropic (input_schema), Gemini "
        "(function_declarations), MCP (inputSchema) or agentgauge (name/parameters)"
    )


def tools_from_data(data: Any, *, source: str = "tools") -> list[ToolSpec]:
    """Tool definitions from parsed JSON/YAML in any known format.

    ``data`` may be one tool, a list of tools, a Gemini ``Tool`` (``function_declarations``), an
    MCP ``tools/list`` result or a request body holding ``tools`` (or OpenAI's legacy
    ``functions``, or Bedrock's ``toolConfig``); lists of these nest freely. Amazon Bedrock
    ``{"toolSpec": {name, description, inputSchema: {json}}}`` tools are read too.
    ``source`` prefixes error messages, e.g. a file name. Raises :class:`UserError` naming the
    first definition that is not recognised.
    """
    out: list[ToolSpec] = []
    _collect(data, source, out)
    return out


def _collect(data: Any, where: str, out: list[ToolSpec]) -> None:
    if isinstance(data, list):
        for i, item in enumerate(data):
            _collect(item, f"{where}[{i}]", out)
        return
    if isinstance(data, dict):
        for key in ("function_declarations", "functionDeclarations"):
            if key in data:
                decls = data[key]
                if not isinstance(decls, list):
                    raise UserError(f"{where}.{key}: expected a list, got {_kind(decls)}")
                for i, decl in enumerate(decls):
                    if not isinstance(decl, dict):
                        raise UserError(f"{where}.{key}[{i}]: expected an object")
                    out.append(from_gemini(decl, where=f"{where}.{key}[{i}]"))
                return
        for key in ("tools", "functions", "toolConfig"):
            if key in data and "name" not in data:
                _collect(data[key], f"{where}.{key}", out)
                return
    out.append(tool_from_data(data, where=where))


def read_tools_file(path: str | Path) -> list[ToolSpec]:
    """Read tool definitions in any known format from a JSON or YAML file. A name no provider
    accepts (a line break, a space, ``../``: :func:`tool_name_problem`) is a :class:`UserError`
    ``file:line: tools[i].name: why``."""
    # read as every input file is (size and type limits, YAML 1.2 plain data, nesting limit)
    from ..files import read_document, read_json_text, read_text

    p = Path(path)
    if not p.exists() and not p.is_symlink():
        raise UserError(f"{p}: cannot read: no such file")
    from ._names import check_tool_names

    if p.suffix.lower() in (".yaml", ".yml"):
        doc = read_document(p, str(p))
    else:
        doc = read_json_text(read_text(p, str(p)), str(p), p)
    if doc.data is None:
        raise UserError(f"{p}:1: the file is empty")
    tools = tools_from_data(doc.data, source=str(p))
    check_tool_names(doc, tools)  # a name no provider accepts: refused, with its line
    return tools


#: JSON Schema type -> BFCL type name
_JSON_TO_BFCL: Final = {
    "string": "string",
    "integer": "integer",
    "number": "float",
    "boolean": "boolean",
    "array": "array",
    "object": "dict",
}
_BFCL_NAMES: Final = frozenset(
    {"string", "integer", "float", "boolean", "array", "tuple", "dict", "any"}
)


def bfcl_type(schema: Any) -> str | None:
    """The BFCL type name of a JSON Schema property (``None`` when it has no usable type)."""
    if not isinstance(schema, dict):
        return None
    hint = schema.get("x-bfcl-type")
    if isinstance(hint, str) and hint in _BFCL_NAMES:
        return hint
    t = schema.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), None)
    if t is None:
        return "any"
    if not isinstance(t, str):
        return None
    if t in _BFCL_NAMES:  # a BFCL-typed schema used as is
        return t
    return _JSON_TO_BFCL.get(t, t)
