"""Layer figures of src/agentgauge (issue 11): package edges and 2-cycles, upward imports against
the layer order in pyproject.toml, cross-package private imports, and the longest functions.

    python scripts/arch_figures.py [REPO] [--top N]

Counts every ``import`` statement, also lazy ones inside functions and ``TYPE_CHECKING`` blocks,
once per statement (``from x import a, b`` is one import). The base layer (root private modules,
``errors``) is not a package: importing it is never upward or private.
"""

from __future__ import annotations

import argparse
import ast
import re
import tomllib
from collections import defaultdict
from pathlib import Path


def layer_order(repo: Path) -> dict[str, int]:
    config = tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = next(c for c in config["contracts"] if c.get("type") == "layers")["layers"]
    rank: dict[str, int] = {}
    for i, layer in enumerate(reversed(layers)):
        for name in re.split(r"[|:]", layer):
            rank[name.strip()] = i
    return rank


def _target(mod: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = mod.split(".")
    if not is_pkg:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


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
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                functions.append((n, f"{rel}:{node.lineno} {node.name}"))
            if isinstance(node, ast.ImportFrom):
                targets = [_target(mod, f.name == "__init__.py", node)]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names][:1]
            else:
                continue
            for t in targets:
                if not t.startswith("agentgauge."):
                    continue
                dst = t.split(".")[1]
                if not src_pkg or dst == src_pkg or dst.startswith("_") or dst == "errors":
                    continue
                edges[src_pkg].add(dst)
                if rank.get(dst, -1) > rank.get(src_pkg, 99):
                    upward.append(f"{rel}:{node.lineno}: {src_pkg} -> {t}")
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
    for d in ("runner", "cli"):
        top = [x for x in functions if f"agentgauge/{d}/" in x[1]][: args.top]
        print(f"longest in {d}/:", ", ".join(f"{n} {w}" for n, w in top))
    print("longest overall:", ", ".join(f"{n} {w}" for n, w in functions[: args.top]))


if __name__ == "__main__":
    main()
