"""A suite two scripted agents pass differently, for the multi-agent (matrix) tests of the
runner, the comparison and its reports (``tests/`` is on sys.path through its conftest)."""

from __future__ import annotations

from pathlib import Path


def words_suite(tmp_path: Path, words: int = 8, *, name: str = "words", extra: str = "") -> Path:
    """``words`` cases only an echoing agent (``mock:echo``) passes, one only ``mock:`` passes;
    ``extra`` is YAML placed before ``cases:`` (defaults, a matrix, gates)."""
    cases = "".join(
        f"  - id: say-{i}\n    category: echo\n    input: please say word{i}\n"
        f"    expect: {{response_contains: [word{i}]}}\n"
        for i in range(words)
    )
    cases += (
        "  - id: mock-only\n    category: fixed\n    input: hi\n"
        "    expect: {response_contains: [mock reply]}\n"
    )
    path = tmp_path / "suite.yaml"
    path.write_text(f"name: {name}\n{extra}cases:\n{cases}")
    return path
