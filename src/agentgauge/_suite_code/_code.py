"""The location rule and the opt-in for the code a suite names (see the package's docstring).

Every check here reads paths only: nothing is imported before it passed.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from ..errors import EndpointRefused, SuiteCodeRefused, UserError
from ..files import read_bytes
from ._endpoints import EndpointUse, endpoint_use
from ._optin import ENV_VAR, FLAG, allowed, endpoints_allowed

__all__ = [
    "CODE_PREFIXES",
    "NAMED_BY_SUITE",
    "CodeKind",
    "CodeTarget",
    "SuiteCodePolicy",
    "code_prefix",
    "defined_names",
    "import_suite_file",
    "resolve_attr",
]

CodeKind = Literal["tool function", "world class", "agent", "judge", "scorer", "user model"]
#: the kinds named ``file.py:name`` (no prefix): a ``function:`` fake, a world's ``class``
FileKind = Literal["tool function", "world class"]

#: ``named_by`` of a field the suite itself names (its refusals are located in the suite file
#: by the caller); any other ``named_by`` is a location (``runs/x/run.json:9: options.base_url``)
#: that prefixes the refusal
NAMED_BY_SUITE = "the suite"

#: agent specs that name a Python file or module: ``python:`` and the agent-framework adapters
#: (``openai-agents:file.py:agent`` ...); from a suite or a run directory they are suite code
CODE_PREFIXES: tuple[str, ...] = ("python:", "openai-agents:", "langgraph:", "pydantic-ai:")


def code_prefix(spec: str) -> str | None:
    """The prefix of a spec that names Python code (``python:``, ``langgraph:`` ...), or None."""
    return next((p for p in CODE_PREFIXES if spec.startswith(p)), None)


@dataclass(frozen=True, kw_only=True, slots=True)
class CodeTarget:
    """A piece of suite code that passed the location rule: a file inside the suite's folder
    and the (dotted) name of a callable in it."""

    kind: CodeKind
    #: as the suite wrote it
    spec: str
    #: resolved, inside :attr:`SuiteCodePolicy.root`
    file: Path
    attr: str
    #: what follows ``?`` in a ``python:`` spec (options of the provider), with the ``?``
    query: str = ""
    #: the spec's prefix (``python:``, or a framework adapter's such as ``langgraph:``)
    prefix: str = "python:"

    def shown(self, root: Path) -> str:
        """``fakes.py:lookup`` (the file relative to the suite's folder)."""
        return f"{self.file.relative_to(root).as_posix()}:{self.attr}"

    @property
    def provider_spec(self) -> str:
        """The ``python:`` spec with the file made absolute (what the provider registry gets)."""
        return f"{self.prefix}{self.file}:{self.attr}{self.query}"


@dataclass(frozen=True, kw_only=True, slots=True)
class SuiteCodePolicy:
    """What a suite (or a run directory) may make agentgauge do: where its code must live
    (``root``, the suite's folder), whether the user allowed that code, and whether endpoints
    it names may receive the user's credentials (``endpoints``: True, False, a list of allowed
    endpoint URLs; None: asked of the environment and the user's config file when needed)."""

    root: Path
    allowed: bool
    endpoints: bool | tuple[str, ...] | None = None

    @classmethod
    def for_suite(
        cls,
        suite_path: str | Path | None,
        allow: bool | None = None,
        allow_endpoints: bool | None = None,
    ) -> SuiteCodePolicy:
        """The policy of the suite at ``suite_path`` (a suite file or its folder; None: a suite
        built in Python, whose folder is the current one). ``allow`` / ``allow_endpoints``: the
        user's flags (None: the environment, then the user's config file, decide)."""
        if suite_path is None:
            root = Path.cwd()
        else:
            path = Path(suite_path)
            root = path if path.is_dir() else path.parent
        root = root.resolve()
        return cls(
            root=root,
            allowed=allowed(allow, root),
            endpoints=None if allow_endpoints is None else allow_endpoints,
        )

    @property
    def endpoint_opt_in(self) -> bool | tuple[str, ...]:
        """The user's opt-in to endpoints a suite or run directory names."""
        return endpoints_allowed(None) if self.endpoints is None else self.endpoints

    # ----------------------------------------------------------------- the location rule

    def _inside(self, kind: CodeKind, spec: str, rel: str, attr: str, query: str) -> CodeTarget:
        label = f"{kind} '{spec}'"
        if not attr or not all(p.isidentifier() for p in attr.split(".")):
            raise SuiteCodeRefused(f"{label}: '{attr}' is not a Python name")
        path = Path(rel)
        if path.is_absolute() or rel.startswith("~") or (len(rel) > 1 and rel[1] == ":"):
            raise SuiteCodeRefused(
                f"{label}: refused: an absolute path; suite code must be a file inside the "
                f"suite's folder, named relative to it"
            )
        if ".." in path.parts:
            raise SuiteCodeRefused(f"{label}: refused: '..' leaves the suite's folder")
        if path.suffix != ".py":
            raise SuiteCodeRefused(f"{label}: refused: '{rel}' is not a .py file")
        full = (self.root / path).resolve()
        if not full.is_relative_to(self.root):
            raise SuiteCodeRefused(
                f"{label}: refused: {rel} resolves to {full}, outside the suite's folder "
                f"{self.root} (a symlink out of it)"
            )
        if not full.is_file():
            raise SuiteCodeRefused(f"{label}: no file {rel} in the suite's folder {self.root}")
        return CodeTarget(kind=kind, spec=spec, file=full, attr=attr, query=query)

    def locate_function(self, ref: str, kind: FileKind = "tool function") -> CodeTarget:
        """Where a ``function:`` fake lives: ``fakes.py:fn``, ``sub/fakes.py:fn`` or the
        shorthand ``fakes:fn`` / ``pkg.fakes:fn`` (a world's ``class``: ``kind`` "world class").
        Raises UserError; imports nothing."""
        where, sep, attr = ref.rpartition(":")
        if not sep or not where or not attr:
            raise SuiteCodeRefused(
                f"{kind} '{ref}': expected 'file.py:function' (a file in the suite's "
                "folder) or its shorthand 'module:function'"
            )
        if where.endswith(".py") or "/" in where or "\\" in where:
            return self._inside(kind, ref, where, attr, "")
        parts = where.split(".")
        if not all(p.isidentifier() for p in parts):
            raise SuiteCodeRefused(f"{kind} '{ref}': '{where}' is neither a file nor a module name")
        rel = "/".join(parts) + ".py"
        try:
            return self._inside(kind, ref, rel, attr, "")
        except SuiteCodeRefused as err:
            if not str(err).startswith(f"{kind} '{ref}': no file"):
                raise
            raise SuiteCodeRefused(
                f"{kind} '{ref}': refused: no file {rel} in the suite's folder "
                f"{self.root}; a fake must be a Python file of the suite's own folder "
                f"(an installed module such as '{parts[0]}' is never imported)"
            ) from None

    def locate_spec(self, spec: str, kind: CodeKind) -> CodeTarget | None:
        """The file a suite's code agent, judge or scorer spec names (None: no code prefix, so
        no code of the suite). A judge or scorer may be ``python:`` only: a framework agent
        (``langgraph:`` ...) runs its own loop and never judges, so it is refused outright.
        Raises SuiteCodeRefused; imports nothing."""
        prefix = code_prefix(spec)
        if prefix is None:
            return None
        if kind != "agent" and prefix != "python:":
            raise SuiteCodeRefused(
                f"{kind} '{spec}': refused: a framework agent ({prefix}) runs its own loop and "
                f"cannot be a {kind}; name a model (openai:..., local:...) or a python: file of "
                "the suite's folder"
            )
        target, qmark, query = spec.removeprefix(prefix).partition("?")
        where, sep, attr = target.rpartition(":")
        if not sep or not where or not attr:
            raise SuiteCodeRefused(f"{kind} '{spec}': expected '{prefix}file.py:name'")
        if not (where.endswith(".py") or "/" in where or "\\" in where):
            raise SuiteCodeRefused(
                f"{kind} '{spec}': refused: a suite may name only a Python file of its own "
                f"folder ({prefix}file.py:name), never a module ('{where}')"
            )
        if prefix != "python:":  # ?context=FILE.py:fn names a second piece of code
            query = self._context_query(kind, spec, query)
        target_ = self._inside(kind, spec, where, attr, qmark + query)
        return target_ if prefix == "python:" else replace(target_, prefix=prefix)

    def _context_query(self, kind: CodeKind, spec: str, query: str) -> str:
        """A framework spec's query with every ``context=`` value checked as suite code: a
        name of the agent's own file passes; ``FILE.py:function`` must pass the location rule
        (made absolute); a module (``os:system``) is refused. Split as the adapter splits it
        (``&`` and the first ``=``, no decoding)."""
        items = []
        for item in query.split("&") if query else ():
            key, eq, value = item.partition("=")
            if key == "context" and ":" in value:
                where, _, attr = value.rpartition(":")
                if not (where.endswith(".py") or "/" in where or "\\" in where):
                    raise SuiteCodeRefused(
                        f"{kind} '{spec}': refused: ?context= may name a function of the "
                        f"agent's own file or a Python file of the suite's folder, never a "
                        f"module ('{where}')"
                    )
                found = self._inside(kind, spec, where, attr, "")
                item = f"{key}{eq}{found.file}:{found.attr}"
            elif key == "context" and value and not all(p.isidentifier() for p in value.split(".")):
                raise SuiteCodeRefused(f"{kind} '{spec}': ?context={value} is not a Python name")
            items.append(item)
        return "&".join(items)

    # ----------------------------------------------------------------- the opt-in

    def require_opt_in(self, target: CodeTarget) -> None:
        """Raise unless the user allowed suite code; the message names the flag."""
        if self.allowed:
            return
        raise SuiteCodeRefused(
            f"{target.kind} '{target.spec}': runs {target.shown(self.root)} from the suite's "
            f"folder; suite code runs only if you allow it: pass {FLAG} (or set {ENV_VAR}=1)"
        )

    def check_function(self, ref: str, kind: FileKind = "tool function") -> CodeTarget:
        """:meth:`locate_function` then :meth:`require_opt_in`."""
        target = self.locate_function(ref, kind)
        self.require_opt_in(target)
        return target

    def check_spec(
        self,
        spec: str,
        kind: CodeKind,
        *,
        named_by: str = NAMED_BY_SUITE,
        options: Mapping[str, object] | None = None,
        options_by: Mapping[str, str] | None = None,
    ) -> str:
        """The spec to resolve for an agent or judge a suite (or a run directory: ``named_by``)
        names: its code must pass the location rule and the opt-in (a code spec is returned with
        its file made absolute), and the endpoint it would send the user's credentials to must
        pass :meth:`check_endpoint`. Raises SuiteCodeRefused; imports nothing."""
        target = self.locate_spec(spec, kind)
        if target is not None:
            self.require_opt_in(target)
            return target.provider_spec
        self.check_endpoint(spec, kind, spec_by=named_by, options=options, options_by=options_by)
        return spec

    def endpoint_use(
        self,
        spec: str,
        kind: str,
        *,
        spec_by: str | None,
        options: Mapping[str, object] | None = None,
        options_by: Mapping[str, str] | None = None,
    ) -> EndpointUse | None:
        """Where ``spec`` would send the user's credentials and the verdict of the endpoint
        rule (None: its provider sends none); see :mod:`._endpoints`."""
        opt_in = self.endpoint_opt_in if spec_by is not None or options_by else False
        return endpoint_use(
            spec, kind=kind, spec_by=spec_by, options=options, options_by=options_by,
            opt_in=opt_in,
        )  # fmt: skip

    def check_endpoint(
        self,
        spec: str,
        kind: str,
        *,
        spec_by: str | None,
        options: Mapping[str, object] | None = None,
        options_by: Mapping[str, str] | None = None,
    ) -> None:
        """Raise :class:`EndpointRefused` when ``spec`` would send a credential of the user's
        to an endpoint a suite or run directory named (``spec_by`` / ``options_by``) without
        the user's opt-in."""
        if spec_by is None and not options_by:
            return  # all of it is the user's word
        use = self.endpoint_use(spec, kind, spec_by=spec_by, options=options, options_by=options_by)
        if use is not None and use.problem is not None:
            where = use.named_by
            raise EndpointRefused(
                use.problem if where in (None, NAMED_BY_SUITE) else f"{where}: {use.problem}"
            )


def defined_names(path: Path) -> set[str] | None:
    """The names a Python file defines at its top level, read without running it (None: it
    does not parse)."""
    try:
        # the input limits: a FIFO or device is refused (never a hang), a huge file too
        tree = ast.parse(read_bytes(path, str(path)), filename=str(path))
    except (UserError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                names.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, ast.AnnAssign | ast.AugAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


# --------------------------------------------------------------------- importing


def import_suite_file(path: Path) -> ModuleType:
    """Import a suite's Python file (already checked) under a name of its own.

    The module is kept, so the fakes of one file share its module-level state; the suite's
    folder is appended to ``sys.path`` (after installed packages: it shadows nothing) so the
    file can import its siblings.
    """
    path = path.resolve()
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:10]
    name = f"agentgauge_suite_{path.stem}_{digest}"
    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UserError(f"{path}: cannot import this file")
    module = importlib.util.module_from_spec(spec)
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.append(folder)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise UserError(f"{path}: importing it failed: {type(exc).__name__}: {exc}") from None
    return module


def resolve_attr(module: ModuleType, attr: str, label: str) -> Any:
    """``module.a.b`` for ``attr`` ``a.b`` (UserError naming ``label`` when missing)."""
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UserError(f"{label}: {module.__file__} has no '{attr}'") from None
    return obj
