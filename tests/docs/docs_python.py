"""The Python the docs show: every ``from agentgauge.x import name`` of a Python block and every
dotted ``agentgauge.x.name`` in inline code names a public name of a real module (in its
``__all__``), and none goes through the ``agentgauge.io`` compatibility facade (new code
imports the package that owns the name: files, formats, suites, rundir, importers, exchange).
Code to copy never reaches a private ``_module`` or ``_name``: neither an import nor an
attribute of a Python block (``formats._convert.to_gemini(...)``), nor a call in inline code
(``agentgauge.formats._convert.to_gemini(tool)``); a bare dotted name in a sentence may point at
where something is implemented (``agentgauge.metrics._stats``).

Offline: the modules are imported, nothing is called."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from collections.abc import Iterator
from types import ModuleType

FACADE = "agentgauge.io"
#: the packages the facade re-exports from, in the order a name is looked for
OWNERS = ("files", "formats", "suites", "rundir", "importers", "exchange")
_DOTTED = re.compile(r"(?<![\w.])agentgauge(?:\.\w+)+")


def python_imports(text: str) -> Iterator[tuple[int, str, str]]:
    """(line within ``text``, module, name) of each agentgauge import of a Python snippet;
    ``import agentgauge.x`` gives the name ``""``. A snippet that does not parse gives none."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] == "agentgauge":
                for alias in node.names:
                    yield node.lineno, node.module, alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "agentgauge":
                    yield node.lineno, alias.name, ""


def dotted_names(text: str) -> Iterator[tuple[str, str, bool]]:
    """(module, name, called) of each dotted ``agentgauge.x.name`` in a piece of inline code
    whose ``agentgauge.x`` is a module: the longest importable prefix is the module, the next
    part the name (``""`` when none); ``called``: a call follows (``agentgauge.x.f(...)``, code
    to copy, not a pointer at where something is implemented)."""
    for match in _DOTTED.finditer(text):
        parts = match.group(0).split(".")
        called = text[match.end() : match.end() + 1] == "("
        for cut in range(len(parts), 1, -1):
            module = ".".join(parts[:cut])
            if _module(module) is not None:
                yield module, parts[cut] if cut < len(parts) else "", called
                break
        # else: "agentgauge.route" and the like are attribute names of traces, not Python


def code_names(text: str) -> Iterator[tuple[int, str]]:
    """(line within ``text``, dotted name) of each agentgauge name a Python snippet's code (not
    its imports) reaches through attributes: ``agentgauge.formats._convert.to_gemini(t)`` after
    ``import agentgauge.formats``, or ``formats._convert`` after ``from agentgauge import
    formats``. The name an import bound is written out in full. A snippet that does not parse
    gives none."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] == "agentgauge":
                for alias in node.names:
                    bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "agentgauge":
                    # ``import agentgauge.x as y`` binds y to agentgauge.x; without ``as``,
                    # ``import agentgauge.x`` binds agentgauge itself
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    else:
                        bound["agentgauge"] = "agentgauge"
    # the attributes a longer chain continues: only the whole chain is looked at
    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or id(node) in inner:
            continue
        parts: list[str] = []
        base: ast.expr = node
        while isinstance(base, ast.Attribute):
            parts.append(base.attr)
            base = base.value
        if isinstance(base, ast.Name) and base.id in bound:
            yield node.lineno, ".".join([bound[base.id], *reversed(parts)])


def import_problem(
    module: str, name: str, facade_ok: bool = False, private_ok: bool = False
) -> str | None:
    """Why ``from module import name`` is wrong for a user, or None. ``facade_ok``: a sentence
    about the facade itself may name an import through it; ``private_ok``: a dotted name in a
    sentence may point at where something is implemented (``agentgauge.metrics._stats``), an
    import is code to copy and must use public names."""
    loaded = _module(module)
    if loaded is None:
        return f"no module {module}"
    if loaded is UNCHECKED:
        return None
    if name and not facade_ok and (module == FACADE or module.startswith(FACADE + ".")):
        owner = _owner(name)
        better = f"agentgauge.{owner}" if owner else "the package that owns it"
        return f"{module} is the compatibility facade: import {name} from {better}"
    if not private_ok:
        if _private(name):
            return f"{name} is private (a name with a leading _)"
        parts = module.split(".")
        for cut, part in enumerate(parts, 1):
            if _private(part):
                return f"{'.'.join(parts[:cut])} is private (a module with a leading _)"
    if not name or _module(f"{module}.{name}") is not None:
        return None
    if not hasattr(loaded, name):
        return f"{module} has no name {name}"
    if name not in getattr(loaded, "__all__", ()):
        return f"{name} is not public in {module} (not in its __all__)"
    return None


def _private(part: str) -> bool:
    """A leading ``_`` marks a private name; a dunder (``__version__``) is not one."""
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def _owner(name: str) -> str | None:
    for package in OWNERS:
        loaded = _module(f"agentgauge.{package}")
        if loaded is not None and name in getattr(loaded, "__all__", ()):
            return package
    return None


#: stands for a module whose extra is not installed: it exists, its names are not checked
UNCHECKED = ModuleType("unchecked")


def _module(name: str) -> ModuleType | None:
    """The module, or None when agentgauge has no such module. A module that exists but needs
    an extra this machine lacks (grpcio, bfcl-eval) is not the doc's error: it is skipped."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name and not err.name.startswith("agentgauge"):
            return UNCHECKED
        return None
    except ImportError:
        return None


def call_problems(text: str) -> Iterator[tuple[int, str]]:
    """(line within ``text``, problem) of each call of a Python snippet to a name it imports
    from agentgauge (``RunConfig(max_concurency=8)``, ``Judge.from_config(...)``) whose keyword
    argument the callable does not take, or that passes more positional arguments than it has."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return
    imported: dict[str, object] = {}
    for _, module, name in python_imports(text):
        loaded = _module(module)
        if name and loaded is not None and loaded is not UNCHECKED and hasattr(loaded, name):
            imported[name] = getattr(loaded, name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            target = _called(node.func, imported)
            if target is not None:
                for problem in _signature_problems(node, *target):
                    yield node.lineno, problem


def _called(func: ast.expr, imported: dict[str, object]) -> tuple[str, object] | None:
    if isinstance(func, ast.Name) and func.id in imported:
        return func.id, imported[func.id]
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        owner = imported.get(func.value.id)
        if owner is not None and hasattr(owner, func.attr):
            return f"{func.value.id}.{func.attr}", getattr(owner, func.attr)
    return None


def _signature_problems(node: ast.Call, label: str, target: object) -> Iterator[str]:
    if not callable(target):
        return
    try:
        params = inspect.signature(target).parameters
    except (TypeError, ValueError):
        return
    kinds = {param.kind for param in params.values()}
    if inspect.Parameter.VAR_KEYWORD not in kinds:
        for keyword in node.keywords:
            if keyword.arg is not None and keyword.arg not in params:
                yield f"{label}() takes no argument {keyword.arg}"
    positional = [
        p for p in params.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    starred = any(isinstance(arg, ast.Starred) for arg in node.args)
    given, takes = len(node.args), len(positional)
    if inspect.Parameter.VAR_POSITIONAL not in kinds and not starred and given > takes:
        yield f"{label}() takes {takes} positional argument(s), given {given}"
