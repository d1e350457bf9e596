"""Your own agent as a Python callable: ``python:package.module:function`` or
``python:path/to/agent.py:function``.

The callable (sync or async) receives either ``(messages, tools)`` — the conversation so far as
:class:`~agentgauge.schema.Message` objects and the offered :class:`~agentgauge.schema.ToolSpec`
list — or, when it takes exactly one parameter, an :class:`AgentInput` with the same data plus
the generation config. It returns the agent's next turn as any of:

- ``str``: a text reply;
- a :class:`~agentgauge.schema.ToolCall` or a list of them;
- a :class:`~agentgauge.schema.Message` (text and/or tool calls);
- a :class:`~agentgauge.providers.ModelResponse` (to report token usage, the model, ...);
- a dict ``{"text": ..., "tool_calls": [{"name": ..., "arguments": {...}}], "usage": {...},
  "labels": {"route": ..., "skill": ..., "intents": [...]}}`` (the http: reply contract; a key
  it does not know is an error, not dropped);
- ``None``: an empty reply.

Sync callables run in a worker thread of their own (so a blocking agent does not stall the run,
and the case's ``--timeout`` holds: a call still running at the deadline is abandoned — a thread
cannot be killed, so it runs on in the background, but what it returns is discarded and it
received private copies of the messages and tools, so it cannot change the next case); pass
``?thread=0`` to call a cheap, non-blocking function inline (it cannot be interrupted: a case it
keeps past the deadline is still recorded as a timeout once it returns). If the name points to
an object with an async ``generate`` method (a Provider), it is used as is. An exception from
the callable is recorded on the case as an error, with the innermost line of the agent's own
file it passed through (``... (at agent.py:12 in decide)``); raise
:class:`agentgauge.errors.ProviderError` with ``transient=True`` to have the runner retry.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import importlib
import importlib.util
import inspect
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio.to_thread

from ..errors import ProviderError, UserError
from ..schema import Message, ToolCall, Usage
from ._agent_input import AgentInput
from ._base import ModelRequest, ModelResponse, Provider
from ._common import as_bool, redact
from ._http import response_from_body

__all__ = ["AgentInput", "PythonProvider", "create", "load_object"]


def _import_file(path: Path) -> Any:
    if not path.is_file():
        raise UserError(f"python:{path}: no such file")
    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:10]
    module_name = f"agentgauge_user_{path.stem}_{digest}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise UserError(f"python:{path}: cannot import this file")
    module = importlib.util.module_from_spec(spec)
    folder = str(path.resolve().parent)
    if folder not in sys.path:  # let the agent import its sibling modules
        sys.path.insert(0, folder)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[module_name]
        raise UserError(
            f"python:{path}: importing it failed: {type(exc).__name__}: {exc}"
        ) from None
    return module


def load_object(target: str) -> Any:
    """Resolve ``package.module:attr`` or ``path/to/file.py:attr`` (``attr`` may be dotted)."""
    where, sep, attr = target.rpartition(":")
    if not sep or not where or not attr:
        raise UserError(
            f"python:{target}: expected 'python:package.module:function' or "
            "'python:path/to/file.py:function'"
        )
    if where.endswith(".py") or "/" in where or "\\" in where:
        module = _import_file(Path(where).expanduser())
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as exc:
            raise UserError(f"python:{target}: cannot import '{where}' ({exc})") from None
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UserError(f"python:{target}: '{where}' has no attribute '{attr}'") from None
    return obj


def _takes_one_argument(func: Callable[..., Any]) -> bool:
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [
        p
        for p in params
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    has_varargs = any(p.kind == p.VAR_POSITIONAL for p in params)
    return len(positional) == 1 and not has_varargs


async def call_in_thread(func: Callable[..., Any], *args: Any) -> Any:
    """Call a blocking ``func`` in a new daemon thread; cancelling the wait abandons the call.

    The runner's per-case deadline cancels the waiting task. A thread cannot be stopped, so the
    call runs on in the background; when it ends, its value (or exception) is dropped, because
    the future it would resolve was cancelled. The thread is a daemon, so an agent stuck forever
    does not keep the process alive after the run. (anyio's worker threads cannot be abandoned
    this way without blocking interpreter exit.) Other event loops than asyncio use anyio's
    worker threads with ``abandon_on_cancel``.
    """
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # not asyncio (trio)
        return await anyio.to_thread.run_sync(func, *args, abandon_on_cancel=True)
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def deliver(ok: bool, value: Any) -> None:
        if future.done():  # cancelled: the case timed out and has moved on
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def work() -> None:
        try:
            outcome: tuple[bool, Any] = (True, context.run(func, *args))
        except Exception as exc:
            outcome = (False, exc)
        except BaseException as exc:  # SystemExit and the like, raised by the agent
            outcome = (False, RuntimeError(f"{type(exc).__name__}: {exc}"))
        with contextlib.suppress(RuntimeError):  # the event loop is closed: the run is over
            loop.call_soon_threadsafe(deliver, *outcome)

    threading.Thread(target=work, name="agentgauge python agent", daemon=True).start()
    return await future


def to_response(value: Any, where: str = "python agent") -> ModelResponse:
    """Turn whatever an agent callable returned into a ModelResponse."""
    if isinstance(value, ModelResponse):
        return value
    if value is None:
        message = Message(role="assistant", content="")
    elif isinstance(value, str):
        message = Message(role="assistant", content=value)
    elif isinstance(value, ToolCall):
        message = Message(role="assistant", tool_calls=[value])
    elif isinstance(value, Message):
        message = (
            value if value.role == "assistant" else value.model_copy(update={"role": "assistant"})
        )
    elif isinstance(value, list | tuple) and all(isinstance(c, ToolCall) for c in value):
        message = Message(role="assistant", tool_calls=list(value))
    elif isinstance(value, dict):
        return response_from_body(value, where)
    else:
        raise ProviderError(
            f"{where}: returned {type(value).__name__}; expected str, ToolCall(s), Message, "
            "ModelResponse or a dict with 'text'/'tool_calls'",
            transient=False,
        )
    return ModelResponse(
        message=message,
        usage=Usage(),
        usage_reported=False,  # a bare reply says nothing about tokens
        finish_reason="tool_calls" if message.tool_calls else "stop",
    )


def defining_file(obj: Any) -> Path | None:
    """The resolved Python file that defines ``obj`` (its class for an instance), or None."""
    target = obj if inspect.isroutine(obj) or inspect.isclass(obj) else type(obj)
    try:
        source = inspect.getsourcefile(target)
    except TypeError:  # a builtin
        return None
    return Path(source).resolve() if source else None


def raised_at(exc: BaseException, source: Path | None) -> str:
    """`` (at FILE:LINE in FUNCTION)``: the innermost frame of the agent's own file in the
    exception's traceback (else the innermost one of that file's folder), so the case's error
    says where the agent failed; ``""`` when none of its frames is there."""
    import traceback

    if source is None:
        return ""
    frames = traceback.extract_tb(exc.__traceback__)
    resolved = [(Path(f.filename).resolve(), f) for f in frames if f.filename]
    mine = [f for path, f in resolved if path == source]
    near = [f for path, f in resolved if path.parent == source.parent]
    found = mine or near
    if not found:
        return ""
    frame = found[-1]
    shown = Path(frame.filename)
    with contextlib.suppress(ValueError, OSError):
        shown = shown.resolve().relative_to(Path.cwd())
    return f" (at {shown}:{frame.lineno} in {frame.name})"


def source_tag(obj: Any) -> str:
    """A fingerprint of the Python files in the folder of the module that defines ``obj``.

    It is the provider's ``cache_tag``: edit the agent (or a module beside it) and its cached
    responses and replayed results no longer apply. ``""`` when the source is unknown.
    """
    source = defining_file(obj)
    if source is None:
        return ""
    from .._stamps import file_stamps

    folder = source.parent
    stamps = file_stamps(folder.glob("*.py"), folder)
    return "src:" + hashlib.blake2b(stamps, digest_size=8).hexdigest()


class PythonProvider:
    """Calls a user function for each model turn."""

    def __init__(self, func: Callable[..., Any], *, name: str, thread: bool = True) -> None:
        self.func = func
        self.name = name
        self.cache_tag = source_tag(func)
        self._one_arg = _takes_one_argument(func)
        self._is_async = inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(
            getattr(func, "__call__", None)  # noqa: B004 - an object with an async __call__
        )
        self._thread = thread
        self._source = defining_file(func)

    def __repr__(self) -> str:
        return f"PythonProvider(name={self.name!r})"

    def _args(self, request: ModelRequest, *, private: bool = False) -> tuple[Any, ...]:
        """The callable's arguments; ``private``: deep copies, for a call that may be abandoned.

        The runner shares message and tool objects between trials of a case (a list input) and
        between cases (the suite's tools); a call abandoned at its deadline keeps running, so it
        must not hold anything it could change under a later case.
        """
        messages = list(request.messages)
        tools = list(request.tools)
        if private:
            messages = [m.model_copy(deep=True) for m in messages]
            tools = [t.model_copy(deep=True) for t in tools]
        if self._one_arg:
            return (AgentInput(messages=messages, tools=tools, config=request.config),)
        return (messages, tools)

    async def generate(self, request: ModelRequest) -> ModelResponse:
        threaded = self._thread and not self._is_async
        args = self._args(request, private=threaded)
        try:
            if self._is_async:
                value = await self.func(*args)
            elif threaded:
                value = await call_in_thread(self.func, *args)
            else:
                value = self.func(*args)
                if inspect.isawaitable(value):
                    value = await value
        except ProviderError:
            raise
        except Exception as exc:
            detail = redact(f"{type(exc).__name__}: {exc}")
            where = raised_at(exc, self._source)
            raise ProviderError(
                f"{self.name}: the agent raised {detail}{where}", transient=False
            ) from exc
        return to_response(value, self.name)


def create(rest: str, **options: Any) -> Provider:
    """``python:package.module:function`` / ``python:path/file.py:function`` (``?thread=0``)."""
    target, sep, query = rest.partition("?")
    thread = True
    if sep:
        for item in query.split("&"):
            key, _, value = item.partition("=")
            if key != "thread":
                raise UserError(f"python:{rest}: unknown option '{key}' (known: thread)")
            thread = as_bool(value)
    if "thread" in options:
        thread = as_bool(options.pop("thread"))
    options.pop("base_url", None)
    if options:
        raise UserError(f"python:{target}: unknown option(s) {sorted(options)}")
    obj = load_object(target)
    name = f"python:{target}"
    generate = getattr(obj, "generate", None)
    if generate is not None and inspect.iscoroutinefunction(generate):
        if not isinstance(getattr(obj, "name", None), str):
            with contextlib.suppress(AttributeError):
                obj.name = name
        if not getattr(obj, "cache_tag", None):
            with contextlib.suppress(AttributeError):
                obj.cache_tag = source_tag(obj)
        assert isinstance(obj, Provider)
        return obj
    if not callable(obj):
        raise UserError(f"python:{target}: is not callable")
    return PythonProvider(obj, name=name, thread=thread)
