"""The embedded model itself: one llama.cpp model per file and process, and how it scores.

``_local`` decides what to reply; this module holds what it decides with: loading a GGUF file
once per (path, context size, threads) and freeing it at exit (``_load``), rendering turns with
the file's chat template, tokenizing, the KV-cache reuse of scoring prefixes seen before
(``_LoadedModel.reuse_prefix``: saved cache states restored instead of decoded) and
log P(target | prefix) in batches (``_LoadedModel.logprob``). llama-cpp-python is imported
only when a model is loaded (``_llama_cpp``).
"""

from __future__ import annotations

import atexit
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from ..errors import MissingExtraError, ProviderError, UserError

__all__: list[str] = []


class _LoadedModel:
    """One llama.cpp model per (path, n_ctx, n_threads) and process, used under a lock."""

    def __init__(self, llama: Any) -> None:
        self.llama = llama
        self.lock = threading.Lock()
        self.grammars: OrderedDict[str, Any] = OrderedDict()
        self._formatter: Any = None
        #: saved cache states of scoring prefixes seen twice (the same tools offered again)
        self.prefix_states: OrderedDict[tuple[int, ...], Any] = OrderedDict()
        self.prefix_state_bytes = 0
        self.prefixes_seen: OrderedDict[int, None] = OrderedDict()

    def render(self, turns: list[dict[str, str]]) -> str:
        """``turns`` as the model's chat template renders them, ready for the assistant."""
        if self._formatter is None:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            llama = self.llama
            template = llama.metadata.get("tokenizer.chat_template") or _CHATML

            def token_text(token: int) -> str:
                if token < 0:
                    return ""
                return bytes(llama.detokenize([token], special=True)).decode(errors="ignore")

            self._formatter = Jinja2ChatFormatter(
                template=template,
                eos_token=token_text(llama.token_eos()),
                bos_token=token_text(llama.token_bos()),
            )
        return str(self._formatter(messages=turns).prompt)

    def tokens(self, text: str) -> list[int]:
        return list(self.llama.tokenize(text.encode(), add_bos=False, special=True))

    def reuse_prefix(self, body: list[int]) -> int:
        """Bring as much of ``body`` into the KV cache as is cheap; returns how much is there.

        The longest common prefix with the previous evaluation stays. A scoring prefix seen
        for the second time (each offered function's card, case after case) is decoded and
        its cache state saved; from then on it is restored instead of decoded.
        """
        import ctypes

        import llama_cpp

        llama = self.llama
        common = 0
        for a, b in zip(llama.input_ids[: llama.n_tokens], body, strict=False):
            if a != b:
                break
            common += 1
        if common < len(body) and len(body) >= _MIN_SAVED_PREFIX:
            key = tuple(body)
            state = self.prefix_states.get(key)
            if state is not None:
                llama.n_tokens = 0
                llama.eval([])  # an empty cache to restore into
                if llama_cpp.llama_state_seq_set_data(llama.ctx, state, len(state), 0):
                    self.prefix_states.move_to_end(key)
                    llama.input_ids[: len(body)] = body
                    llama.n_tokens = len(body)
                    return len(body)
                common = 0
            elif hash(key) in self.prefixes_seen:
                llama.n_tokens = common
                llama.eval(body[common:])
                size = llama_cpp.llama_state_seq_get_size(llama.ctx, 0)
                if size <= _MAX_SAVED_BYTES:
                    state = (ctypes.c_uint8 * size)()
                    if llama_cpp.llama_state_seq_get_data(llama.ctx, state, size, 0) == size:
                        self.prefix_states[key] = state
                        self.prefix_state_bytes += size
                        while self.prefix_state_bytes > _MAX_SAVED_BYTES:
                            _, old = self.prefix_states.popitem(last=False)
                            self.prefix_state_bytes -= len(old)
                return len(body)
            else:
                self.prefixes_seen[hash(key)] = None
                if len(self.prefixes_seen) > 4096:
                    self.prefixes_seen.popitem(last=False)
        llama.n_tokens = common
        llama.eval([])  # drops the cache entries after ``common``
        return common

    def logprob(self, prefix: list[int], target: list[int]) -> float:
        """log P(``target`` | ``prefix``) under the model.

        The KV cache keeps the longest common prefix with the previous evaluation; the rest of
        the prefix and the target are decoded together, in one batch when they fit, with
        logits at the positions that predict a target token.
        """
        import llama_cpp
        import numpy as np

        llama = self.llama
        if not prefix or not target or len(prefix) + len(target) > llama.n_ctx():
            raise ProviderError(
                f"local: cannot score {len(target)} tokens after {len(prefix)} in a context "
                f"window of {llama.n_ctx()}",
                transient=False,
            )
        vocab = llama.n_vocab()
        start = self.reuse_prefix(prefix[:-1])  # decode >= 1 prefix token: fresh logits
        tokens = prefix[start:] + target[:-1]
        first_output = len(prefix) - 1 - start  # the position that predicts target[0]
        total = 0.0
        step = max(1, llama.n_batch)
        for i in range(0, len(tokens), step):
            chunk = tokens[i : i + step]
            batch = llama_cpp.llama_batch_init(len(chunk), 0, 1)
            try:
                outputs = []
                for j, token in enumerate(chunk):
                    batch.token[j] = token
                    batch.pos[j] = start + i + j
                    batch.n_seq_id[j] = 1
                    batch.seq_id[j][0] = 0
                    wanted = i + j >= first_output
                    batch.logits[j] = wanted
                    if wanted:
                        outputs.append((j, target[i + j - first_output]))
                batch.n_tokens = len(chunk)
                if llama_cpp.llama_decode(llama.ctx, batch) != 0:
                    raise ProviderError("local: llama_decode failed", transient=False)
                for j, token in outputs:
                    ptr = llama_cpp.llama_get_logits_ith(llama.ctx, j)
                    row = np.ctypeslib.as_array(ptr, shape=(vocab,)).astype(np.float64)
                    top = row.max()
                    total += float(row[token] - top - np.log(np.exp(row - top).sum()))
            finally:
                llama_cpp.llama_batch_free(batch)
        # what the cache now holds, for the next evaluation's prefix match: the prefix less its
        # last token (so the next generation always computes fresh logits); the entries after
        # it are dropped by the next evaluation
        llama.input_ids[start : len(prefix)] = prefix[start:]
        llama.n_tokens = len(prefix) - 1
        return total


#: ChatML, for GGUF files that carry no chat template
_CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
#: scoring prefixes shorter than this (tokens) are decoded, not saved and restored
_MIN_SAVED_PREFIX = 16
#: memory for saved scoring-prefix states (~23 KB per token for SmolLM2-135M)
_MAX_SAVED_BYTES = 32 * 1024 * 1024
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
                    # one thread per generated token: a one-token step is too small to split
                    # (waking a second thread costs more than it saves: 25 vs 14 ms a token)
                    n_threads=1,
                    n_threads_batch=n_threads,
                    seed=0,
                    verbose=False,
                )
            except (ValueError, RuntimeError) as exc:
                raise UserError(f"local:{path}: cannot load the model ({exc})") from None
            if not _MODELS:
                atexit.register(_close_models)
            model = _MODELS[key] = _LoadedModel(llama)
        return model


def _close_models() -> None:
    """Free the loaded models at exit, while llama.cpp's module is still whole: left to the
    garbage collector at interpreter shutdown, ``Llama.__del__`` prints a TypeError traceback
    after everything else (pytest's closing line included)."""
    with _MODELS_LOCK:
        for model in _MODELS.values():
            model.llama.close()
        _MODELS.clear()
