"""A scripted provider: a queue of replies for offline tests of whole agent loops.

```python
from agentgauge.testing import MockProvider
from agentgauge.schema import ToolCall

mock = MockProvider([
    ToolCall(name="get_weather", arguments={"city": "Paris"}),   # first model call
    "It is sunny in Paris.",                                      # second model call
])
```

Spec forms (``--agent``): ``mock:`` answers every request with a fixed text, ``mock:echo``
echoes the last user message, ``mock:PATH.jsonl`` / ``mock:PATH.yaml`` plays a script file.
"""

from __future__ import annotations

import inspect
import itertools
import math
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeAlias

import orjson
from pydantic import ValidationError

from ..errors import ProviderError, UserError
from ..files import (
    FixedLocator,
    decode_utf8,
    format_path,
    kind_of,
    parse_json,
    read_bytes,
    read_yaml_text,
    validation_problems,
)
from ..schema import Message, ToolCall, Usage
from ._base import ModelRequest, ModelResponse
from ._common import as_bool

__all__ = ["MockProvider", "MockReply", "create"]

#: what one script item may be
MockReply: TypeAlias = (
    str
    | ToolCall
    | Sequence[ToolCall]
    | Message
    | ModelResponse
    | BaseException
    | Callable[[ModelRequest], Any]
)

#: the text ``mock:`` answers with
DEFAULT_TEXT = "This is a mock reply."


def _approx_tokens(text: str | None) -> int:
    """A cheap, deterministic stand-in for a tokenizer: about four characters per token."""
    return (len(text) + 3) // 4 if text else 0


def _input_tokens(request: ModelRequest) -> int:
    return sum(_approx_tokens(m.content) + 4 for m in request.messages)


class MockProvider:
    """Answers each request with the next item of a script and records every request.

    A script item is a ``str`` (a text reply), a :class:`ToolCall` or a list of them (an
    assistant turn that calls tools), a :class:`Message`, a :class:`ModelResponse`, an exception
    (raised — use :class:`agentgauge.errors.ProviderError` to simulate 429s or 5xx), or a
    callable ``f(request)`` (sync or async) returning any of those, for stateful fakes.

    When the script runs out, the provider raises a non-transient ``ProviderError`` — unless
    ``repeat_last=True``, in which case the last item answers every further request.
    Tool calls without an ``id`` get ``call_1``, ``call_2``, ...
    With ``record=False`` the requests are counted but not kept (for long runs).
    """

    def __init__(
        self,
        script: Iterable[MockReply] = (),
        *,
        repeat_last: bool = False,
        name: str = "mock",
        model: str = "mock",
        record: bool = True,
    ) -> None:
        self.name = name
        self.model = model
        self.repeat_last = repeat_last
        #: part of the response-cache key (see docs/running.md); set it when two mocks of the
        #: same name answer differently
        self.cache_tag = ""
        self._script: list[MockReply] = list(script)
        self._next = 0
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._record = record
        self._calls = 0
        #: every request received, in order (none when ``record=False``)
        self.requests: list[ModelRequest] = []

    def __repr__(self) -> str:
        return f"MockProvider(name={self.name!r}, items={len(self._script)}, used={self._next})"

    @property
    def calls(self) -> int:
        """How many requests were answered (or raised)."""
        return self._calls

    def add(self, *items: MockReply) -> None:
        """Append replies to the script."""
        with self._lock:
            self._script.extend(items)

    def _take(self) -> MockReply:
        with self._lock:
            if self._next < len(self._script):
                item = self._script[self._next]
                self._next += 1
                return item
            if self.repeat_last and self._script:
                return self._script[-1]
        raise ProviderError(
            f"{self.name}: script exhausted after {len(self._script)} replies", transient=False
        )

    async def generate(self, request: ModelRequest) -> ModelResponse:
        self._calls += 1
        if self._record:
            self.requests.append(request)
        item: Any = self._take()
        if callable(item) and not isinstance(item, BaseException | type):
            item = item(request)
            if inspect.isawaitable(item):
                item = await item
        return self._to_response(item, request)

    def _to_response(self, item: Any, request: ModelRequest) -> ModelResponse:
        if isinstance(item, BaseException):
            raise item
        if isinstance(item, ModelResponse):
            return item
        if isinstance(item, str):
            message = Message(role="assistant", content=item)
        elif isinstance(item, ToolCall):
            message = Message(role="assistant", tool_calls=[self._with_id(item)])
        elif isinstance(item, Message):
            message = item.model_copy(
                update={"tool_calls": [self._with_id(c) for c in item.tool_calls]}
            )
        elif isinstance(item, list | tuple) and all(isinstance(c, ToolCall) for c in item):
            message = Message(role="assistant", tool_calls=[self._with_id(c) for c in item])
        elif isinstance(item, dict):
            return self._to_response(reply_from_dict(item, where=self.name), request)
        else:
            raise TypeError(f"{self.name}: unsupported script item {type(item).__name__}")
        output = _approx_tokens(message.content) + sum(
            _approx_tokens(orjson.dumps(c.arguments).decode()) + 2 for c in message.tool_calls
        )
        return ModelResponse(
            message=message,
            usage=Usage(input_tokens=_input_tokens(request), output_tokens=output),
            model=self.model,
            finish_reason="tool_calls" if message.tool_calls else "stop",
        )

    def _with_id(self, call: ToolCall) -> ToolCall:
        if call.id is not None:
            return call
        return call.model_copy(update={"id": f"call_{next(self._ids)}"})


# --------------------------------------------------------------------------- script files


def reply_from_dict(
    item: dict[str, Any], *, where: str, at: tuple[str | int, ...] = ()
) -> MockReply:
    """One script-file entry: ``{"text": ...}``, ``{"calls": [...]}`` (both may be given), or
    ``{"error": {"status": 429, "retry_after": 1, "message": "..."}}``.

    ``where`` names the entry (``script.jsonl:3``), ``at`` its path in the file (``(2,)``: the
    third item of a YAML list): problems read ``script.jsonl:3: calls[0].name: ...``.
    """

    def fail(path: tuple[str | int, ...], message: str) -> UserError:
        shown = format_path((*at, *path))
        return UserError(f"{where}: {shown}: {message}" if shown else f"{where}: {message}")

    unknown = set(item) - {"text", "calls", "error"}
    if unknown:
        raise fail((), f"unknown key(s) {sorted(unknown)} (expected text, calls, error)")
    if "error" in item:
        return _scripted_error(item["error"], lambda f, m: fail(("error", f), m))
    calls: list[ToolCall] = []
    raw_calls = item.get("calls") or []
    if not isinstance(raw_calls, list):
        raise fail(("calls",), f"expected a list of calls, got {kind_of(raw_calls)}")
    for j, raw in enumerate(raw_calls):
        if not isinstance(raw, dict) or "name" not in raw:
            shown = repr(raw) if len(repr(raw)) <= 80 else repr(raw)[:79] + "…"
            raise fail(("calls", j), f"each call needs a 'name' (got {shown})")
        try:
            calls.append(ToolCall.model_validate(raw))
        except ValidationError as exc:
            display, _, line = where.rpartition(":")
            locator = FixedLocator(int(line) if line.isdigit() else None)
            problems = validation_problems(
                exc, raw, display=display, locator=locator, shown=(*at, "calls", j)
            )
            raise UserError(problems[0], problems=problems) from None
    text = item.get("text")
    if text is not None and not isinstance(text, str):
        text = str(text)
    if not calls:
        return text if text is not None else ""
    return Message(role="assistant", content=text, tool_calls=calls)


def _scripted_error(err: Any, fail: Callable[[str, str], UserError]) -> ProviderError:
    if not isinstance(err, dict):
        err = {"message": str(err)}
    status = _number(err.get("status"), int, "status", fail)
    retry_after = _number(err.get("retry_after"), float, "retry_after", fail)
    transient = err.get("transient")
    return ProviderError(
        str(err.get("message") or f"mock error (status {status})"),
        status=None if status is None else int(status),
        retry_after=retry_after,
        transient=transient if isinstance(transient, bool) else None,
    )


def _number(
    value: Any, kind: type[int] | type[float], field: str, fail: Callable[[str, str], UserError]
) -> float | None:
    if value is None:
        return None
    try:
        number: float | None = kind(value)
    except (TypeError, ValueError, OverflowError):
        number = None
    if number is None or isinstance(value, bool) or not math.isfinite(number):
        raise fail(field, f"expected a number, got {kind_of(value)}")
    return float(number)


def _read_script(path: Path) -> tuple[list[MockReply], bytes]:
    """A script file's replies and its bytes, read with the input limits (a regular file within
    the size limit, nesting depth and YAML alias expansion): JSONL (one reply per line; also
    ``.json``) or YAML (a list of replies). Every problem names ``file:line``."""
    display = str(path)
    if not path.exists() and not path.is_symlink():
        raise UserError(f"mock:{path}: cannot read script (no such file)")
    data = read_bytes(path, display)
    items: list[tuple[str, tuple[str | int, ...], Any]] = []
    if path.suffix in (".yaml", ".yml"):
        doc = read_yaml_text(decode_utf8(data, display), display, path)
        if not isinstance(doc.data, list):
            first = doc.locator.line(()) or 1
            raise UserError(
                f"{display}:{first}: expected a list of replies, got {kind_of(doc.data)}"
            )
        items = [(f"{display}:{doc.locator.line((i,))}", (i,), x) for i, x in enumerate(doc.data)]
    else:
        for n, raw in enumerate(data.split(b"\n"), 1):
            if raw.strip():
                items.append((f"{display}:{n}", (), parse_json(raw, display, n)))
    script: list[MockReply] = []
    for where, at, x in items:
        if isinstance(x, str):
            script.append(x)
        elif isinstance(x, dict):
            script.append(reply_from_dict(x, where=where, at=at))
        else:
            shown = format_path(at)
            prefix = f"{where}: {shown}: " if shown else f"{where}: "
            raise UserError(f'{prefix}expected an object like {{"text": ...}}, got {kind_of(x)}')
    return script, data


def load_script(path: Path) -> list[MockReply]:
    """Read a script file: JSONL (one reply per line) or YAML (a list of replies)."""
    return _read_script(path)[0]


def _echo(request: ModelRequest) -> str:
    for m in reversed(request.messages):
        if m.role == "user":
            return m.content or ""
    return ""


def create(rest: str, **options: Any) -> MockProvider:
    """``mock:`` (fixed text; option ``text``), ``mock:echo``, ``mock:PATH.jsonl|.yaml``.

    Option ``repeat_last`` (default False for script files) replays the last reply forever.
    Option ``record`` (default False: a spec-made mock serves whole runs) keeps every request
    in ``.requests``.
    """
    rest, _, query = rest.partition("?")
    if query:
        from urllib.parse import parse_qsl

        options = {**dict(parse_qsl(query, keep_blank_values=True)), **options}
    repeat_last = as_bool(options.pop("repeat_last", False))
    record = as_bool(options.pop("record", False))
    text = options.pop("text", DEFAULT_TEXT)
    options.pop("base_url", None)  # accepted and ignored so a shared --base-url flag is harmless
    if options:
        raise UserError(f"mock:{rest}: unknown option(s) {sorted(options)}")
    if not rest:
        provider = MockProvider([str(text)], repeat_last=True, name="mock:", record=record)
        # the reply is not in the name: another text must not be served the cached one
        provider.cache_tag = "text:" + _digest(str(text).encode())
        return provider
    if rest == "echo":
        return MockProvider([_echo], repeat_last=True, name="mock:echo", record=record)
    path = Path(rest)
    if path.suffix not in (".jsonl", ".json", ".yaml", ".yml"):
        raise UserError(
            f"mock:{rest}: expected 'mock:', 'mock:echo' or 'mock:PATH.jsonl' / 'mock:PATH.yaml'"
        )
    script, data = _read_script(path)
    provider = MockProvider(script, repeat_last=repeat_last, name=f"mock:{rest}", record=record)
    # an edited script is another agent (the bytes the script was read from)
    provider.cache_tag = f"script:{_digest(data)}:repeat_last={repeat_last}"
    return provider


def _digest(data: bytes) -> str:
    import hashlib

    return hashlib.blake2b(data, digest_size=10).hexdigest()
