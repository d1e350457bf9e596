"""Layer and size figures of src/agentgauge (issues 11 and 23): package edges and 2-cycles, upward
imports against the layer order in pyproject.toml, cross-package private imports, import circles
between the files of one package, the largest package's share of the source, and functions over
80 lines and modules over 600 lines.

    python scripts/arch_figures.py [REPO] [--top N]

Counts every ``import`` statement, also lazy ones inside functions and ``TYPE_CHECKING`` blocks,
once per statement (``from x import a, b`` is one import). The base layer (root private modules,
``errors``) is not a package: importing it is never upward or private. A file circle is a set of
sibling modules of one package (a subpackage counts as one sibling) that import each other round
a loop; ``lint-imports`` (the ``acyclic_siblings`` contract) refuses one.
"""

from __future__ import annotations

import argparse
import ast
import re
import tomllib
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 600


def layer_order(repo: Path) -> dict[str, int]:
    config = tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = next(c for c in config["contracts"] if c.get("type") == "layers")["layers"]
    rank: dict[str, int] = {}
    for i, layer in enumerate(reversed(layers)):
        for name in re.split(r"[|:]", layer):
            rank[name.strip().strip("()")] = i
    return rank


def _target(mod: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = mod.split(".")
    if not is_pkg:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(mod: str, is_pkg: bool, tree: ast.AST) -> Iterable[tuple[ast.stmt, list[str]]]:
    """Each import statement with the modules it may name (``from p import m`` may name ``p.m``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = _target(mod, is_pkg, node)
            yield node, [base] + [f"{base}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            yield node, [a.name for a in node.names]


def _sibling(module: str, package: str) -> str | None:
    """The child of ``package`` that holds ``module`` (``None``: not below ``package``)."""
    if not module.startswith(package + "."):
        return None
    return package + "." + module[len(package) + 1 :].split(".")[0]


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return sorted(found)


def file_circles(root: Path) -> list[list[str]]:
    """Import circles between sibling modules of one package below ``root`` (src/agentgauge)."""
    modules: dict[str, Path] = {}
    for f in sorted(root.rglob("*.py")):
        rel = f.relative_to(root.parent)
        modules[".".join(rel.with_suffix("").parts).removesuffix(".__init__")] = f
    packages = {m for m, f in modules.items() if f.name == "__init__.py" and "." in m}
    edges: dict[str, dict[str, set[str]]] = {p: defaultdict(set) for p in packages}
    for mod, f in modules.items():
        for _, names in _imports(mod, f.name == "__init__.py", ast.parse(f.read_text())):
            for imported in {n for n in names if n in modules and n != mod}:
                for package in packages:
                    a, b = _sibling(mod, package), _sibling(imported, package)
                    if a and b and a != b:
                        edges[package][a].add(b)
    return [c for p in sorted(packages) for c in _cycles(edges[p])]


def _sizes(root: Path) -> tuple[dict[str, int], list[tuple[int, str]]]:
    per_package: dict[str, int] = defaultdict(int)
    modules: list[tuple[int, str]] = []
    for f in sorted(root.rglob("*.py")):
        rel = f.relative_to(root.parent)
        n = len(f.read_text().splitlines())
        per_package[rel.parts[1] if len(rel.parts) > 2 else "(root modules)"] += n
        modules.append((n, str(rel)))
    return dict(per_package), sorted(modules, reverse=True)


def _print_sizes(root: Path, functions: list[tuple[int, str]]) -> None:
    per_package, modules = _sizes(root)
    total = sum(per_package.values())
    name, lines = max(per_package.items(), key=lambda kv: kv[1])
    print(f"largest package: {name} {lines} of {total} lines ({100 * lines / total:.1f} %)")
    circles = file_circles(root)
    print("file circles:", len(circles))
    for c in circles:
        print("  ", " <-> ".join(c))
    long = [f for f in functions if f[0] > MAX_FUNCTION_LINES]
    print(f"functions > {MAX_FUNCTION_LINES} lines:", len(long))
    for n, where in long:
        print(f"   {n} {where}")
    big = [m for m in modules if m[0] > MAX_MODULE_LINES]
    print(f"modules > {MAX_MODULE_LINES} lines:", len(big))
    for n, where in big:
        print(f"   {n} {where}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("repo", nargs="?", default=str(Path(__file__).resolve().parents[1]))
    ap.add_argument("--top", type=int, default=5)
    args = ap.parse_args()
    repo = Path(args.repo)
    root = repo / "src" / "agentgauge"
    rank = layer_order(repo)
    edges: dict[str, set[str]] = defaultdict(set)
    upward: list[str] = []
    private: list[tuple[str, str]] = []
    functions: list[tuple[int, str]] = []
    for f in sorted(root.rglob("*.py")):
        rel = f.relative_to(root.parent)
        mod = ".".join(rel.with_suffix("").parts).removesuffix(".__init__")
        src_pkg = mod.split(".")[1] if "." in mod else ""
        tree = ast.parse(f.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                functions.append((n, f"{rel}:{node.lineno} {node.name}"))
        for stmt, names in _imports(mod, f.name == "__init__.py", tree):
            for t in names[:1]:
                if not t.startswith("agentgauge."):
                    continue
                dst = t.split(".")[1]
                if not src_pkg or dst == src_pkg or dst.startswith("_") or dst == "errors":
                    continue
                edges[src_pkg].add(dst)
                if rank.get(dst, -1) > rank.get(src_pkg, 99):
                    upward.append(f"{rel}:{stmt.lineno}: {src_pkg} -> {t}")
                if any(c.startswith("_") for c in t.split(".")[2:]):
                    private.append((str(rel), t))
    pairs = {tuple(sorted((a, b))) for a in edges for b in edges[a] if a in edges.get(b, ())}
    cycles = sorted(pairs)
    print("upward imports:", len(upward))
    for u in upward:
        print("  ", u)
    files = len({p[0] for p in private})
    print(f"cross-package private imports: {len(private)} from {files} files")
    for p in private:
        print("  ", *p)
    print("package 2-cycles:", cycles or "none")
    functions.sort(reverse=True)
    _print_sizes(root, functions)
    for d in ("runner", "cli"):
        top = [x for x in functions if f"agentgauge/{d}/" in x[1]][: args.top]
        print(f"longest in {d}/:", ", ".join(f"{n} {w}" for n, w in top))
    print("longest overall:", ", ".join(f"{n} {w}" for n, w in functions[: args.top]))


if __name__ == "__main__":
    main()
