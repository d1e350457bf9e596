"""The layer order and the private-module rule are enforced: lint-imports passes on the tree, and
fails on a copy of the tree with a deliberately upward or private import (docs/architecture.md)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter not installed")


def _contracts() -> dict[str, dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return {c["id"]: c for c in config["contracts"]}


def _layer_names(*, optional: bool | None = None) -> list[str]:
    """The layers' module names (``optional``: only those in parentheses, which may not exist
    yet; False: only the others; None: all), without the parentheses."""
    layers = _contracts()["layers"]["layers"]
    assert isinstance(layers, list)
    names = [name.strip() for layer in layers for name in re.split(r"[|:]", layer)]
    return [
        n.strip("()")
        for n in names
        if optional is None or optional == (n.startswith("(") and n.endswith(")"))
    ]


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=root,
        env={"PYTHONPATH": str(root / "src"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def tree_copy(tmp_path: Path) -> Path:
    shutil.copytree(
        ROOT / "src" / "agentgauge",
        tmp_path / "src" / "agentgauge",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copytree(ROOT / "scripts", tmp_path / "scripts", ignore=shutil.ignore_patterns("*.sh"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_the_tree_keeps_every_contract() -> None:
    out = _lint(ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "broken" not in out.stdout.lower().replace("0 broken", "")


def test_an_upward_import_fails(tree_copy: Path) -> None:
    (tree_copy / "src/agentgauge/schema/_upward.py").write_text(
        "from ..runner import RunConfig\n\n__all__ = ['RunConfig']\n"
    )
    out = _lint(tree_copy)
    assert out.returncode == 1
    assert "agentgauge.schema is not allowed to import agentgauge.runner" in out.stdout
    assert "agentgauge.schema._upward -> agentgauge.runner" in out.stdout


def test_a_lazy_upward_import_inside_a_function_fails(tree_copy: Path) -> None:
    (tree_copy / "src/agentgauge/files/_lazy_up.py").write_text(
        "def f() -> object:\n    from ..judges import Judge\n\n    return Judge\n"
    )
    out = _lint(tree_copy)
    assert out.returncode == 1
    assert "agentgauge.files._lazy_up -> agentgauge.judges" in out.stdout


def test_a_private_import_across_packages_fails(tree_copy: Path) -> None:
    (tree_copy / "src/agentgauge/runner/_private.py").write_text(
        "from ..providers._base import ModelRequest\n\n__all__ = ['ModelRequest']\n"
    )
    out = _lint(tree_copy)
    assert out.returncode == 1
    assert "agentgauge.runner._private -> agentgauge.providers._base" in out.stdout


def test_an_import_circle_between_files_of_one_package_fails(tree_copy: Path) -> None:
    """Two modules of one package importing each other (one lazily, inside a function)."""
    (tree_copy / "src/agentgauge/scoring/_circle_a.py").write_text(
        "from ._circle_b import B\n\nA = B + 1\n"
    )
    (tree_copy / "src/agentgauge/scoring/_circle_b.py").write_text(
        "B = 1\n\n\ndef f() -> int:\n    from ._circle_a import A\n\n    return A\n"
    )
    out = _lint(tree_copy)
    assert out.returncode == 1
    assert "file circles: no import circle between the modules of one package BROKEN" in out.stdout
    assert "No cycles are allowed in agentgauge.scoring" in out.stdout
    assert "- ._circle_b -> ._circle_a (1 import)" in out.stdout


def test_a_circle_through_a_type_checking_import_fails(tree_copy: Path) -> None:
    """A circle deeper down (a subpackage's modules), closed by a ``TYPE_CHECKING`` import."""
    folder = tree_copy / "src/agentgauge/providers/_frameworks"
    (folder / "_circle_a.py").write_text("from ._circle_b import B\n\nA = B\n")
    (folder / "_circle_b.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
        "    from ._circle_a import A\n\nB = 1\n"
    )
    out = _lint(tree_copy)
    assert out.returncode == 1
    assert "No cycles are allowed in agentgauge.providers._frameworks" in out.stdout


def test_an_import_of_the_io_facade_from_inside_agentgauge_fails(tree_copy: Path) -> None:
    """``agentgauge.io`` is for users' imports; agentgauge's own modules import the packages it
    re-exports (a lazy import, and one of ``agentgauge.io.importers``, count too)."""
    (tree_copy / "src/agentgauge/runner/_old_io.py").write_text(
        "def f() -> object:\n    from ..io import load_suite\n\n    return load_suite\n"
    )
    (tree_copy / "src/agentgauge/cli/_old_importers.py").write_text(
        "from ..io.importers import import_suite\n\n__all__ = ['import_suite']\n"
    )
    out = _lint(tree_copy)
    assert out.returncode == 1
    assert "io facade: no module of agentgauge imports agentgauge.io BROKEN" in out.stdout
    assert "- agentgauge.runner._old_io -> agentgauge.io (l.2)" in out.stdout
    assert "- agentgauge.cli._old_importers -> agentgauge.io.importers (l.1)" in out.stdout


def test_a_package_without_a_layer_fails(tree_copy: Path) -> None:
    (tree_copy / "src/agentgauge/newthing").mkdir()
    (tree_copy / "src/agentgauge/newthing/__init__.py").write_text("")
    out = _lint(tree_copy)
    assert out.returncode == 1
    assert "agentgauge.newthing" in out.stdout


def test_the_users_layer_sits_below_the_runner(tree_copy: Path) -> None:
    """``users`` (issue 27, placed before it landed) sits below the runner: an import of the
    runner from it is upward and fails."""
    assert "users" in _layer_names(optional=False)
    (tree_copy / "src/agentgauge/users/_upward.py").write_text(
        "from ..runner import RunConfig\n\n__all__ = ['RunConfig']\n"
    )
    out = _lint(tree_copy)
    assert out.returncode == 1
    assert "agentgauge.users is not allowed to import agentgauge.runner" in out.stdout or (
        "agentgauge.users._upward is not allowed to import agentgauge.runner" in out.stdout
    )


def test_the_layers_name_every_package_and_root_module() -> None:
    src = ROOT / "src" / "agentgauge"
    children = {p.stem for p in src.glob("*.py") if p.name != "__init__.py"} | {
        p.name for p in src.iterdir() if (p / "__init__.py").exists()
    }
    assert set(_layer_names(optional=False)) == children - set(_layer_names(optional=True))
    assert children <= set(_layer_names())


def test_architecture_doc_lists_the_same_layers() -> None:
    doc = (ROOT / "docs" / "architecture.md").read_text()
    section = doc.split("## Layers", 1)[1].split("\n## ", 1)[0]
    for name in _layer_names():
        assert f"`{name}`" in section, f"docs/architecture.md: layer {name} missing"


def test_every_exception_to_a_contract_gives_a_reason() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    block = text.split("[tool.importlinter]", 1)[1].split("\n[tool.", 1)[0]
    for ignores in re.findall(r"ignore_imports = \[\n(.*?)\n\]", block, re.S):
        lines = [x.strip() for x in ignores.splitlines() if x.strip()]
        # entries come in groups, each under the comment that gives their reason
        assert lines[0].startswith("#"), f"no reason above {lines[0]}"
        assert all(x.startswith(("#", '"')) for x in lines), lines


def test_private_rule() -> None:
    sys.path.insert(0, str(ROOT))
    try:
        from scripts.import_contracts import is_private_to_another
    finally:
        sys.path.remove(str(ROOT))
    assert is_private_to_another("agentgauge.runner._suite", "agentgauge.providers._base")
    assert is_private_to_another("agentgauge.scoring._bfcl", "agentgauge.io.importers._bfcl")
    assert is_private_to_another("agentgauge", "agentgauge.schema._from_function")
    assert not is_private_to_another("agentgauge.runner._suite", "agentgauge.providers")
    assert not is_private_to_another("agentgauge.runner._suite", "agentgauge.runner._case")
    assert not is_private_to_another("agentgauge.io._lint", "agentgauge.io.importers._bfcl")
    assert not is_private_to_another("agentgauge.runner._suite", "agentgauge._messages")
    assert not is_private_to_another("agentgauge.cli._run", "agentgauge.io.importers")
