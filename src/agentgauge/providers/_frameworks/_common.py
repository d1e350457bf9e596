"""What the framework adapters share: loading the user's object, options, JSON helpers."""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from typing import Any

from ...errors import MissingExtraError, ProviderError, UserError
from ...schema import JsonValue
from .._base import ModelRequest, ModelResponse
from .._common import as_bool, redact
from ._turn import AgentTurn

__all__ = [
    "FrameworkAgent",
    "agent_error",
    "arguments",
    "context_factory",
    "json_value",
    "load_target",
    "parse_options",
    "require",
    "run_context",
    "target_tag",
]


def require(module: str, package: str, extra: str) -> Any:
    """Import ``module`` of an optional framework, or say which extra installs it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(package, extra) from None


def parse_options(
    prefix: str, rest: str, options: dict[str, Any], known: Mapping[str, bool | str | None]
) -> tuple[str, dict[str, Any]]:
    """``FILE.py:attr?opt=1`` -> (target, options); ``known`` maps option -> default (a bool
    default: a flag; otherwise the value is kept as text). ``base_url`` (``--base-url``) is
    refused: the agent brings its own model client, which agentgauge cannot repoint."""
    target, sep, query = rest.partition("?")
    values: dict[str, Any] = dict(known)
    if sep:
        for item in query.split("&"):
            key, _, value = item.partition("=")
            if key not in known:
                raise UserError(
                    f"{prefix}:{rest}: unknown option '{key}' (known: {', '.join(known) or 'none'})"
                )
            values[key] = as_bool(value) if isinstance(known[key], bool) else value
    if options.pop("base_url", None) is not None:
        raise UserError(
            f"--base-url: {prefix}:{target} brings its own model client, which agentgauge does "
            "not repoint: set the server in the agent's code or its environment (OPENAI_BASE_URL "
            "for the OpenAI Agents SDK, pydantic-ai's and langchain-openai's OpenAI clients), "
            "and run without --base-url"
        )
    if options:
        raise UserError(f"{prefix}:{target}: unknown option(s) {sorted(options)}")
    return target, values


def context_factory(prefix: str, target: str, name: str | None) -> Any:
    """The ``?context=NAME`` function: ``NAME`` in the agent's own file or module, or
    ``FILE.py:function`` / ``package.module:function``; None without the option."""
    if not name:
        return None
    where = target.rpartition(":")[0]
    full = name if ":" in name else f"{where}:{name}"
    factory = load_target(prefix, full)
    if not callable(factory):
        raise UserError(f"{prefix}:{target}?context={name}: is not a function")
    return factory


async def run_context(factory: Any, turn: AgentTurn) -> Any:
    """What a framework run receives as its context for ``turn``'s case and trial: the
    factory's value for the case's :class:`AgentContext`, else the case's ``agent_context``
    values (None when there are none). A factory may be async."""
    context = turn.context
    if factory is None:
        return dict(context.values) if context is not None and context.values else None
    value = factory(context)
    if inspect.isawaitable(value):
        value = await value
    return value


def load_target(prefix: str, target: str) -> Any:
    """The object ``file.py:attr`` or ``package.module:attr`` names (the user's agent)."""
    from .._python import load_object

    try:
        return load_object(target)
    except UserError as err:
        raise UserError(str(err).replace("python:", f"{prefix}:", 1)) from None


def target_tag(target: str) -> str:
    """The adapter's ``cache_tag``: a fingerprint of the Python files in the folder of the
    user's file (or module), so editing the agent invalidates its replayed results. (The
    object itself is a framework class, whose source is the framework's, not the user's.)"""
    import hashlib
    import importlib.util
    from pathlib import Path

    from ..._stamps import file_stamps

    where = target.rpartition(":")[0]
    if where.endswith(".py") or "/" in where or "\\" in where:
        folder = Path(where).expanduser().resolve().parent
    else:
        try:
            spec = importlib.util.find_spec(where)
        except (ImportError, ValueError):
            return ""
        if spec is None or not spec.origin:
            return ""
        folder = Path(spec.origin).resolve().parent
    stamps = file_stamps(folder.glob("*.py"), folder)
    return "src:" + hashlib.blake2b(stamps, digest_size=8).hexdigest()


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


class FrameworkAgent:
    """What every framework adapter shares: a name, and no single model call (the framework
    runs its own loop; the runner drives it through ``run_turn``)."""

    name: str

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"

    async def generate(self, request: ModelRequest) -> ModelResponse:
        raise ProviderError(
            f"{self.name}: a framework agent runs its own loop; use it as the agent under test "
            "(agentgauge run), not as a single model call",
            transient=False,
        )
