"""The code a suite may run, and the rule that keeps a suite from running any other.

A suite is data, but four of its fields name Python code: a tool's ``function:`` fake (in
``tools[].simulation``, ``cases[].tool_results`` or a case's inline ``tools``), an agent
``defaults.agent: python:...``, a judge ``python:...`` (``defaults.judge``,
``scorers[].judge``) and a scorer of one's own (``scorers[].scorer: python:checks.py:fn``).
Such code runs only when both hold:

1. the user opted in: ``--allow-suite-code``, ``AGENTGAUGE_ALLOW_SUITE_CODE=1``, or
   ``allow_suite_code`` in the user's own config file — never a setting of the suite;
2. it is a Python file inside the suite's own folder: ``fakes.py:fn``, or the shorthand
   ``fakes:fn`` / ``pkg.fakes:fn`` for ``fakes.py`` / ``pkg/fakes.py`` there. No module is ever
   imported by name (``subprocess:getoutput`` looks for ``subprocess.py`` in the suite's folder,
   never the standard library), and a path that leaves the folder (``..``, an absolute path, a
   symlink pointing out) is refused whatever the opt-in says.

Every check here reads paths only: nothing is imported before it passed. An agent named on the
user's own command line (``--agent python:...``) is not suite code and is not checked here.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import os
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal

from .errors import SuiteCodeRefused, UserError

if TYPE_CHECKING:
    from .schema import Case, Suite, ToolSim

__all__ = [
    "CODE_PREFIXES",
    "ENV_VAR",
    "FLAG",
    "CodeKind",
    "CodeRef",
    "CodeTarget",
    "SuiteCodePolicy",
    "SuiteCodeRefused",
    "code_prefix",
    "code_refs",
    "import_suite_file",
    "user_config_file",
    "with_checked_judges",
]

#: the command-line flag and the environment variable that opt in
FLAG: Literal["--allow-suite-code"] = "--allow-suite-code"
ENV_VAR: Literal["AGENTGAUGE_ALLOW_SUITE_CODE"] = "AGENTGAUGE_ALLOW_SUITE_CODE"
#: the key of the user's config file
CONFIG_KEY = "allow_suite_code"

CodeKind = Literal["tool function", "agent", "judge", "scorer"]
#: what a :class:`CodeRef` names: Python code, or the program of ``tools_from.mcp.command``
RefKind = CodeKind | Literal["mcp server"]

#: agent specs that name a Python file: ``python:`` and the agent-framework adapters
#: (``openai-agents:file.py:agent`` ...); from a suite they are suite code like ``python:``
CODE_PREFIXES: tuple[str, ...] = ("python:", "openai-agents:", "langgraph:", "pydantic-ai:")


def code_prefix(spec: str) -> str | None:
    """The prefix of a spec that names a Python file (``python:``, ``langgraph:`` ...), or None."""
    return next((p for p in CODE_PREFIXES if spec.startswith(p)), None)


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"", "0", "false", "no", "off"})


def user_config_file() -> Path:
    """``$AGENTGAUGE_CONFIG``, else ``$XDG_CONFIG_HOME/agentgauge/config.toml``, else
    ``~/.config/agentgauge/config.toml``. Never a file of the suite or of the current folder."""
    env = os.environ.get("AGENTGAUGE_CONFIG")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".config"
    return base / "agentgauge" / "config.toml"


def _from_config(suite_dir: Path) -> bool:
    """Whether the user's config allows the code of suites in ``suite_dir``.

    ``allow_suite_code = true`` allows every suite; a list of folders allows the suites inside
    one of them (``allow_suite_code = ["~/work/suites"]``).
    """
    path = user_config_file()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return False
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UserError(f"{path}: cannot read this config file ({exc})") from None
    value = data.get(CONFIG_KEY, False)
    if isinstance(value, bool):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        here = suite_dir.resolve()
        return any(here.is_relative_to(Path(v).expanduser().resolve()) for v in value)
    raise UserError(f"{path}: {CONFIG_KEY}: expected true, false or a list of folders")


def allowed(flag: bool | None, suite_dir: Path) -> bool:
    """The user's opt-in: ``flag`` when given, else ``$AGENTGAUGE_ALLOW_SUITE_CODE``, else the
    user's config file."""
    if flag is not None:
        return flag
    env = os.environ.get(ENV_VAR)
    if env is not None:
        value = env.strip().lower()
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
        raise UserError(f"{ENV_VAR}={env!r}: expected 1 or 0")
    return _from_config(suite_dir)


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
    """Where a suite's code must live (``root``, its folder) and whether the user allowed it."""

    root: Path
    allowed: bool

    @classmethod
    def for_suite(cls, suite_path: str | Path | None, allow: bool | None = None) -> SuiteCodePolicy:
        """The policy of the suite at ``suite_path`` (a suite file or its folder; None: a suite
        built in Python, whose folder is the current one). ``allow`` as for :func:`allowed`."""
        if suite_path is None:
            root = Path.cwd()
        else:
            path = Path(suite_path)
            root = path if path.is_dir() else path.parent
        root = root.resolve()
        return cls(root=root, allowed=allowed(allow, root))

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

    def locate_function(self, ref: str) -> CodeTarget:
        """Where a ``function:`` fake lives: ``fakes.py:fn``, ``sub/fakes.py:fn`` or the
        shorthand ``fakes:fn`` / ``pkg.fakes:fn``. Raises UserError; imports nothing."""
        where, sep, attr = ref.rpartition(":")
        if not sep or not where or not attr:
            raise SuiteCodeRefused(
                f"tool function '{ref}': expected 'file.py:function' (a file in the suite's "
                "folder) or its shorthand 'module:function'"
            )
        if where.endswith(".py") or "/" in where or "\\" in where:
            return self._inside("tool function", ref, where, attr, "")
        parts = where.split(".")
        if not all(p.isidentifier() for p in parts):
            raise SuiteCodeRefused(
                f"tool function '{ref}': '{where}' is neither a file nor a module name"
            )
        rel = "/".join(parts) + ".py"
        try:
            return self._inside("tool function", ref, rel, attr, "")
        except SuiteCodeRefused as err:
            if not str(err).startswith(f"tool function '{ref}': no file"):
                raise
            raise SuiteCodeRefused(
                f"tool function '{ref}': refused: no file {rel} in the suite's folder "
                f"{self.root}; a fake must be a Python file of the suite's own folder "
                f"(an installed module such as '{parts[0]}' is never imported)"
            ) from None

    def locate_spec(self, spec: str, kind: CodeKind) -> CodeTarget | None:
        """The file a suite's ``python:`` agent or judge spec names (None: not a ``python:``
        spec, so no code of the suite). Raises UserError; imports nothing."""
        prefix = code_prefix(spec)
        if prefix is None or (kind != "agent" and prefix != "python:"):
            return None
        target, qmark, query = spec.removeprefix(prefix).partition("?")
        where, sep, attr = target.rpartition(":")
        if not sep or not where or not attr:
            raise SuiteCodeRefused(f"{kind} '{spec}': expected 'python:file.py:function'")
        if not (where.endswith(".py") or "/" in where or "\\" in where):
            raise SuiteCodeRefused(
                f"{kind} '{spec}': refused: a suite may name only a Python file of its own "
                f"folder (python:file.py:function), never a module ('{where}')"
            )
        target_ = self._inside(kind, spec, where, attr, qmark + query)
        return target_ if prefix == "python:" else replace(target_, prefix=prefix)

    # ----------------------------------------------------------------- the opt-in

    def require_opt_in(self, target: CodeTarget) -> None:
        """Raise unless the user allowed suite code; the message names the flag."""
        if self.allowed:
            return
        raise SuiteCodeRefused(
            f"{target.kind} '{target.spec}': runs {target.shown(self.root)} from the suite's "
            f"folder; suite code runs only if you allow it: pass {FLAG} (or set {ENV_VAR}=1)"
        )

    def check_function(self, ref: str) -> CodeTarget:
        """:meth:`locate_function` then :meth:`require_opt_in`."""
        target = self.locate_function(ref)
        self.require_opt_in(target)
        return target

    def check_spec(self, spec: str, kind: CodeKind) -> str:
        """The spec to resolve for a suite's agent or judge: unchanged unless ``python:``, whose
        file must pass the rule and the opt-in (then it is made absolute)."""
        target = self.locate_spec(spec, kind)
        if target is None:
            return spec
        self.require_opt_in(target)
        return target.provider_spec


# --------------------------------------------------------------------- what a suite names


@dataclass(frozen=True, kw_only=True, slots=True)
class CodeRef:
    """One place a suite names code."""

    kind: RefKind
    spec: str
    #: path of the field: inside the suite document (``case_index`` None) or inside the case
    field: tuple[str | int, ...]
    case_index: int | None = None
    case_id: str | None = None
    #: the tool whose fake this is
    tool: str | None = None


def _sim_refs(
    sims: Iterator[tuple[tuple[str | int, ...], str, ToolSim]],
    case_index: int | None,
    case_id: str | None,
) -> Iterator[CodeRef]:
    for path, tool, sim in sims:
        if sim.function is not None:
            yield CodeRef(
                kind="tool function",
                spec=sim.function,
                field=(*path, "function"),
                case_index=case_index,
                case_id=case_id,
                tool=tool,
            )


def _case_sims(case: Case) -> Iterator[tuple[tuple[str | int, ...], str, ToolSim]]:
    from .schema import ToolSpec

    for name, entry in case.tool_results.items():
        if isinstance(entry, list):
            for j, sim in enumerate(entry):
                yield ("tool_results", name, j), name, sim
        else:
            yield ("tool_results", name), name, entry
    for k, tool in enumerate(case.tools or ()):
        if isinstance(tool, ToolSpec) and tool.simulation is not None:
            yield ("tools", k, "simulation"), tool.name, tool.simulation


def case_code_refs(case: Case, index: int | None = None) -> Iterator[CodeRef]:
    """The code one case names (its ``tool_results`` and inline tools' fakes)."""
    yield from _sim_refs(_case_sims(case), index, case.id)


def header_code_refs(
    suite: Suite, *, agent_given: bool = False, judge_given: bool = False
) -> Iterator[CodeRef]:
    """The code the suite's header names: tool fakes, ``defaults.agent`` and the agents of
    ``matrix`` (unless the command line names the agent), ``defaults.judge`` (unless it names
    the judge), scorer judges."""
    yield from _sim_refs(
        (
            (("tools", i, "simulation"), t.name, t.simulation)
            for i, t in enumerate(suite.tools)
            if t.simulation is not None
        ),
        None,
        None,
    )
    if suite.defaults.agent and not agent_given and code_prefix(suite.defaults.agent):
        yield CodeRef(kind="agent", spec=suite.defaults.agent, field=("defaults", "agent"))
    for i, entry in enumerate(suite.matrix.agents if suite.matrix and not agent_given else ()):
        spec = entry if isinstance(entry, str) else entry.agent
        at: tuple[str | int, ...] = ("matrix", "agents", i)
        at += () if isinstance(entry, str) else ("agent",)
        if code_prefix(spec):
            yield CodeRef(kind="agent", spec=spec, field=at)
    if suite.defaults.judge and not judge_given and suite.defaults.judge.startswith("python:"):
        yield CodeRef(kind="judge", spec=suite.defaults.judge, field=("defaults", "judge"))
    for i, ref in enumerate(suite.scorers):
        if ref.judge and ref.judge.startswith("python:"):
            yield CodeRef(kind="judge", spec=ref.judge, field=("scorers", i, "judge"))
        if ref.scorer.startswith("python:"):
            yield CodeRef(kind="scorer", spec=ref.scorer, field=("scorers", i, "scorer"))


def code_refs(
    suite: Suite, *, agent_given: bool = False, judge_given: bool = False
) -> Iterator[CodeRef]:
    """Every place ``suite`` names code (header first, then case by case)."""
    yield from header_code_refs(suite, agent_given=agent_given, judge_given=judge_given)
    for i, case in enumerate(suite.cases):
        yield from case_code_refs(case, i)


def mcp_code_ref(suite: Suite) -> CodeRef | None:
    """The program ``tools_from: {mcp: {command: ...}}`` starts (None: no MCP source, or a
    ``url``, which runs nothing here). Not among :func:`code_refs`: ``run`` checks it when it
    starts the server (``runner/_mcp.py`` ``check_mcp_command``); ``validate`` lists it."""
    source = suite.tools_from.mcp if suite.tools_from is not None else None
    if source is None or source.command is None:
        return None
    return CodeRef(kind="mcp server", spec=source.target, field=("tools_from", "mcp", "command"))


def locate_ref(policy: SuiteCodePolicy, ref: CodeRef) -> CodeTarget:
    """The file and function ``ref`` names, by the location rule (SuiteCodeRefused otherwise);
    the opt-in is not asked. Imports nothing. Not for an ``mcp server`` (a program, no file)."""
    assert ref.kind != "mcp server"
    if ref.kind == "tool function":
        return policy.locate_function(ref.spec)
    target = policy.locate_spec(ref.spec, ref.kind)
    assert target is not None  # code_refs yields python: specs only
    return target


def with_checked_judges(suite: Suite, policy: SuiteCodePolicy, *, judge_given: bool) -> Suite:
    """``suite`` with its ``python:`` judge specs and ``python:`` scorers checked as suite code
    and made absolute (``defaults.judge`` only when the command line names no judge). Raises
    UserError."""
    defaults = suite.defaults
    if defaults.judge and not judge_given:
        defaults = defaults.model_copy(update={"judge": policy.check_spec(defaults.judge, "judge")})
    scorers = []
    for ref in suite.scorers:
        update: dict[str, str] = {}
        if ref.judge:
            update["judge"] = policy.check_spec(ref.judge, "judge")
        if ref.scorer.startswith("python:"):
            update["scorer"] = policy.check_spec(ref.scorer, "scorer")
        scorers.append(ref.model_copy(update=update) if update else ref)
    return suite.model_copy(update={"defaults": defaults, "scorers": scorers})


def defined_names(path: Path) -> set[str] | None:
    """The names a Python file defines at its top level, read without running it (None: it
    does not parse)."""
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError):
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
