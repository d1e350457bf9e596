"""Small pieces everywhere (issue 23; the runner had the rule since issue 11): no function or
method in src/ is over 80 lines and no module over 600. A longer one is split into named steps
or its parts move to a module of their own. ``python scripts/arch_figures.py`` lists the
longest."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "agentgauge"
MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 600


def too_long(root: Path) -> list[str]:
    """Every function over :data:`MAX_FUNCTION_LINES` lines (decorators not counted, nested
    functions counted on their own too) and every module over :data:`MAX_MODULE_LINES`."""
    found = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text()
        rel = path.relative_to(root)
        if (n := len(text.splitlines())) > MAX_MODULE_LINES:
            found.append(f"{rel}: module of {n} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    found.append(f"{rel}:{node.lineno} {node.name} ({n} lines)")
    return found


def test_no_function_over_80_lines_and_no_module_over_600() -> None:
    assert too_long(SRC) == []


def _function(name: str, lines: int, indent: str = "") -> str:
    """A function of exactly ``lines`` lines."""
    body = "".join(f"{indent}    x{i} = {i}\n" for i in range(lines - 2))
    return f"{indent}def {name}() -> int:\n{body}{indent}    return 0\n"


def test_a_long_function_a_long_method_and_a_long_module_are_found(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "ok.py").write_text(_function("fits", 80) + "\n" * (600 - 80))
    assert len((pkg / "ok.py").read_text().splitlines()) == 600
    assert too_long(pkg) == []
    (pkg / "_long.py").write_text(_function("over", 81))
    (pkg / "_method.py").write_text("class C:\n" + _function("method", 81, indent="    "))
    (pkg / "_big.py").write_text("x = 1\n" * 601)
    assert too_long(pkg) == [
        "_big.py: module of 601 lines",
        "_long.py:1 over (81 lines)",
        "_method.py:2 method (81 lines)",
    ]
