"""What the framework adapters share: loading the user's object, options, JSON helpers."""

from __future__ import annotations

import json
from typing import Any

from ...errors import MissingExtraError, ProviderError, UserError
from ...schema import JsonValue
from .._common import as_bool, redact

__all__ = ["agent_error", "arguments", "json_value", "load_target", "parse_options", "require"]


def require(module: str, package: str, extra: str) -> Any:
    """Import ``module`` of an optional framework, or say which extra installs it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(package, extra) from None


def parse_options(
    prefix: str, rest: str, options: dict[str, Any], known: dict[str, bool]
) -> tuple[str, dict[str, bool]]:
    """``FILE.py:attr?opt=1`` -> (target, options); ``known`` maps option -> default."""
    target, sep, query = rest.partition("?")
    values = dict(known)
    if sep:
        for item in query.split("&"):
            key, _, value = item.partition("=")
            if key not in known:
                raise UserError(
                    f"{prefix}:{rest}: unknown option '{key}' (known: {', '.join(known) or 'none'})"
                )
            values[key] = as_bool(value)
    options.pop("base_url", None)  # the agent brings its own model client
    if options:
        raise UserError(f"{prefix}:{target}: unknown option(s) {sorted(options)}")
    return target, values


def load_target(prefix: str, target: str) -> Any:
    """The object ``file.py:attr`` or ``package.module:attr`` names (the user's agent)."""
    from .._python import load_object

    try:
        return load_object(target)
    except UserError as err:
        raise UserError(str(err).replace("python:", f"{prefix}:", 1)) from None


def json_value(value: Any) -> JsonValue:
    """A tool result or argument as plain JSON (pydantic models and the like dumped)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    try:
        from pydantic_core import to_jsonable_python

        out: JsonValue = to_jsonable_python(value)
        return out
    except Exception:
        return str(value)


def arguments(raw: Any) -> dict[str, JsonValue]:
    """A tool call's arguments, whether a JSON string or a mapping."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError:
            return {"__raw__": raw}
    if isinstance(raw, dict):
        return {str(k): json_value(v) for k, v in raw.items()}
    return {}


def agent_error(name: str, exc: BaseException) -> ProviderError:
    """A framework's exception as a ProviderError (redacted; never retried)."""
    detail = redact(f"{type(exc).__name__}: {exc}").splitlines()[0]
    return ProviderError(f"{name}: the agent raised {detail}", transient=False)
