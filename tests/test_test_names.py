"""tests/ has no packages (no ``__init__.py``): pytest imports each test module by its basename,
so two ``test_x.py`` in two folders stop it collecting the whole suite ("import file mismatch").
CI failed on exactly that once; this keeps every test module's basename unique."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def shared_basenames(root: Path) -> dict[str, list[str]]:
    """Each test module basename used in more than one folder under ``root``, with its folders."""
    seen: dict[str, list[str]] = defaultdict(list)
    for path in sorted(root.rglob("test_*.py")):
        if "__pycache__" not in path.parts:
            seen[path.name].append(str(path.parent.relative_to(root)))
    return {name: dirs for name, dirs in seen.items() if len(dirs) > 1}


def test_every_test_module_basename_is_unique() -> None:
    assert shared_basenames(TESTS) == {}


def test_a_shared_basename_is_found(tmp_path: Path) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "test_same.py").write_text("")
    (tmp_path / "a" / "test_other.py").write_text("")
    assert shared_basenames(tmp_path) == {"test_same.py": ["a", "b"]}
