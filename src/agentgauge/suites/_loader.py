"""Loading suites and case files, with every problem reported as ``file:line: field: message``.

A suite is a YAML or JSON file (or a folder holding ``suite.yaml`` / ``suite.yml`` /
``suite.json``). Its ``tool_files`` and ``case_files`` are read relative to the suite file; the
:class:`~agentgauge.schema.Suite` returned is self-contained: tools from ``tool_files`` follow
the inline ``tools``, cases from ``case_files`` follow the inline ``cases``, and both lists of
file names are emptied. A JSONL file (or a YAML/JSON list of cases) given as a suite is read as
a suite of just those cases, named after the file.

Every case is validated on its own, so one bad case never hides the problems of the next; all
problems are collected and raised together as one :class:`~agentgauge.errors.UserError` whose
``problems`` holds one line each.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from pydantic import ValidationError

from ..errors import UserError
from ..files import (
    Document,
    FixedLocator,
    Locator,
    PathElem,
    format_path,
    iter_jsonl,
    kind_of,
    read_document,
    read_text,
    unknown_field_message,
    validation_problems,
)
from ..schema import FORMAT_VERSION, Case, Suite, ToolSpec, WorldSpec

__all__ = [
    "SUITE_FILE_NAMES",
    "LoadedSuite",
    "Origin",
    "load_cases",
    "load_suite",
    "read_partial_suite",
    "read_suite",
]

#: file names looked for when a folder is given as a suite
SUITE_FILE_NAMES: Final = ("suite.yaml", "suite.yml", "suite.json")
_JSONL_SUFFIXES: Final = (".jsonl", ".ndjson")
#: stop collecting after this many problems (a wrong file can have one per line)
_MAX_PROBLEMS: Final = 1000
#: top-level suite keys holding lists, where an empty value (null) means an empty list
_LIST_KEYS: Final = frozenset({"cases", "tools", "case_files", "tool_files"})
_NATIVE_TOOL_KEYS: Final = frozenset({"name", "description", "parameters", "simulation", "mcp"})
_VENDOR_TOOL_KEYS: Final = frozenset(
    {
        "type",
        "function",
        "input_schema",
        "inputSchema",
        "parameters_json_schema",
        "parametersJsonSchema",
        "function_declarations",
        "functionDeclarations",
    }
)


@dataclass(frozen=True)
class Origin:
    """Where something was read: a file, and a path inside it whose lines can be looked up."""

    file: str
    locator: Locator = field(repr=False, compare=False)
    path: tuple[PathElem, ...] = ()

    def line(self, *sub: PathElem) -> int | None:
        """The line of ``sub`` (a path inside this thing), or of the thing itself."""
        return self.locator.line((*self.path, *sub))

    def where(self, *sub: PathElem) -> str:
        """``file:line`` of ``sub`` (just ``file`` when the line is unknown)."""
        line = self.line(*sub)
        return f"{self.file}:{line}" if line is not None else self.file


@dataclass(frozen=True)
class LoadedSuite:
    """A suite with the origin of each case and tool (for messages that point into files)."""

    suite: Suite
    #: the suite file as shown in messages
    file: str
    #: origin of the suite document itself
    origin: Origin
    #: parallel to ``suite.cases``
    case_origins: list[Origin]
    #: parallel to ``suite.tools``
    tool_origins: list[Origin]


class _Problems:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, *lines: str) -> None:
        room = _MAX_PROBLEMS - len(self.lines)
        self.lines.extend(lines[: max(room, 0)])

    def extend_from(self, err: UserError) -> None:
        self.add(*err.problems)

    @property
    def full(self) -> bool:
        return len(self.lines) >= _MAX_PROBLEMS

    def raise_if_any(self) -> None:
        if not self.lines:
            return
        lines = list(self.lines)
        if self.full:
            lines.append(f"(stopped after {_MAX_PROBLEMS} problems)")
        raise UserError(lines[0], problems=lines)


def find_suite_file(path: Path) -> Path | None:
    """The suite file ``path`` names: itself (any kind of file: reading it refuses a device
    or FIFO with its reason), or the suite file of the folder ``path``."""
    if path.is_dir():
        return next((path / n for n in SUITE_FILE_NAMES if (path / n).is_file()), None)
    return path if path.exists() or path.is_symlink() else None


def _suite_file(path: Path) -> Path:
    if path.is_dir():
        found = find_suite_file(path)
        if found is None:
            raise UserError(f"{path}: no {', '.join(SUITE_FILE_NAMES)} in this folder")
        return found
    if not path.exists():
        raise UserError(f"{path}: no such file or folder")
    return path


def _display_beside(base_display: str, name: str) -> str:
    p = Path(name)
    return str(p) if p.is_absolute() else str(Path(base_display).parent / p)


# --------------------------------------------------------------------------------------- cases


def _validate_case(
    raw: Any,
    origin: Origin,
    shown: Sequence[PathElem],
    problems: _Problems,
) -> Case | None:
    if not isinstance(raw, dict):
        field_path = format_path(shown)
        prefix = f"{origin.where()}: {field_path}: " if field_path else f"{origin.where()}: "
        problems.add(f"{prefix}expected a case (a mapping with id and input), got {kind_of(raw)}")
        return None
    if isinstance(raw.get("input"), list | dict):  # a conversation pasted in a vendor's format
        from ..formats import TranscriptError, foreign_conversation

        try:
            converted = foreign_conversation(raw["input"])
        except TranscriptError as err:
            sub = ("input",) if err.index is None else ("input", err.index)
            at = format_path((*shown, *sub))
            problems.add(f"{origin.where(*sub)}: {at}: {err.detail}")
            return None
        if converted is not None:
            raw = {**raw, "input": converted}
    try:
        return Case.model_validate(raw)
    except ValidationError as err:
        problems.add(
            *validation_problems(
                err,
                raw,
                display=origin.file,
                locator=origin.locator,
                at=origin.path,
                shown=shown,
                model=Case,
            )
        )
        return None


def _cases_from_jsonl(
    text: str, display: str, problems: _Problems
) -> tuple[list[Case], list[Origin]]:
    cases: list[Case] = []
    origins: list[Origin] = []
    bad_lines: list[str] = []
    for record in iter_jsonl(text, display, bad_lines):
        # unparsable lines before this record come first, so problems stay in line order
        problems.add(*bad_lines)
        bad_lines.clear()
        if problems.full:
            break
        origin = Origin(display, FixedLocator(record.line))
        case = _validate_case(record.data, origin, (), problems)
        if case is not None:
            cases.append(case)
            origins.append(origin)
    problems.add(*bad_lines)
    return cases, origins


def _cases_from_document(
    doc: Document, problems: _Problems, at: tuple[PathElem, ...], items: Any
) -> tuple[list[Case], list[Origin]]:
    cases: list[Case] = []
    origins: list[Origin] = []
    if not isinstance(items, list):
        line = doc.locator.line(at)
        problems.add(
            f"{doc.display}:{line}: {format_path(at) or 'cases'}: expected a list of cases, "
            f"got {kind_of(items)}"
        )
        return cases, origins
    for i, raw in enumerate(items):
        if problems.full:
            break
        origin = Origin(doc.display, doc.locator, (*at, i))
        case = _validate_case(raw, origin, (*at, i) if at else (i,), problems)
        if case is not None:
            cases.append(case)
            origins.append(origin)
    return cases, origins


def _read_case_file(
    path: Path, display: str, problems: _Problems, referenced_at: str | None = None
) -> tuple[list[Case], list[Origin]]:
    try:
        if path.suffix.lower() in _JSONL_SUFFIXES:
            text = read_text(path, display, referenced_at=referenced_at)
            return _cases_from_jsonl(text, display, problems)
        doc = read_document(path, display, referenced_at=referenced_at)
    except UserError as err:
        problems.extend_from(err)
        return [], []
    data = doc.data
    if isinstance(data, dict) and "cases" in data:
        return _cases_from_document(doc, problems, ("cases",), data["cases"])
    if data is None:
        problems.add(f"{display}:1: the file is empty (expected a list of cases)")
        return [], []
    return _cases_from_document(doc, problems, (), data)


def load_cases(path: str | Path) -> list[Case]:
    """Read cases from a JSONL file (one case per line) or a YAML/JSON list of cases.

    Raises :class:`UserError` listing every problem as ``file:line: field: message``.
    """
    problems = _Problems()
    cases, _ = _read_case_file(Path(path), str(path), problems)
    problems.raise_if_any()
    return cases


# --------------------------------------------------------------------------------------- tools


def _tool_entries(doc: Document) -> list[tuple[tuple[PathElem, ...], Any]]:
    data = doc.data
    if isinstance(data, list):
        return [((i,), item) for i, item in enumerate(data)]
    if isinstance(data, dict) and isinstance(data.get("tools"), list) and "name" not in data:
        return [(("tools", i), item) for i, item in enumerate(data["tools"])]
    return [((), data)]


def _convert_tool(raw: Any, where: str) -> list[ToolSpec]:
    """Tools from one entry in any known format (via the converters when present)."""
    try:
        from ..formats import tools_from_data
    except ImportError:  # pragma: no cover - the seam for a build without converters
        return [_convert_tool_minimal(raw, where)]
    return tools_from_data(raw, source=where)


def _convert_tool_minimal(raw: Any, where: str) -> ToolSpec:
    if isinstance(raw, dict) and raw.get("type") == "function" and "function" in raw:
        raw = raw["function"]
    try:
        return ToolSpec.model_validate(raw)
    except ValidationError as err:
        raise UserError(f"{where}: {one_error(err)}") from None


def one_error(err: ValidationError) -> str:
    first = err.errors(include_url=False)[0]
    return f"{format_path(first['loc'])}: {first['msg']}"


def _tool_problem_prefix(doc: Document, path: tuple[PathElem, ...]) -> str:
    line = doc.locator.line(path)
    where = f"{doc.display}:{line}" if line is not None else doc.display
    return f"{where}: {format_path(path)}" if path else where


def _tools_from_entry(
    doc: Document, path: tuple[PathElem, ...], raw: Any, problems: _Problems
) -> list[ToolSpec]:
    if isinstance(raw, dict) and "name" in raw and not (_VENDOR_TOOL_KEYS & raw.keys()):
        unknown = [k for k in raw if k not in _NATIVE_TOOL_KEYS]
        if unknown:
            for key in unknown:
                problems.add(
                    f"{_tool_problem_prefix(doc, (*path, str(key)))}: "
                    f"{unknown_field_message(str(key), ToolSpec)}"
                )
            return []
    try:
        return _convert_tool(raw, _tool_problem_prefix(doc, path))
    except UserError as err:
        problems.extend_from(err)
        return []


def _read_tool_file(
    path: Path, display: str, problems: _Problems, referenced_at: str | None
) -> tuple[list[ToolSpec], list[Origin]]:
    try:
        doc = read_document(path, display, referenced_at=referenced_at)
    except UserError as err:
        problems.extend_from(err)
        return [], []
    if doc.data is None:
        problems.add(f"{display}:1: the file is empty (expected tool definitions)")
        return [], []
    tools: list[ToolSpec] = []
    origins: list[Origin] = []
    for at, raw in _tool_entries(doc):
        for tool in _tools_from_entry(doc, at, raw, problems):
            tools.append(tool)
            origins.append(Origin(display, doc.locator, at))
    from ..formats import tool_name_problems

    for line in tool_name_problems(doc, tools):  # a name no provider accepts (docs/tool-formats.md)
        problems.add(line)
    return tools, origins


def _normalise_inline_tools(head: dict[str, Any], doc: Document, problems: _Problems) -> None:
    """Inline tools may be pasted in a vendor's format: convert those to native in place."""
    tools = head.get("tools")
    if not isinstance(tools, list):
        return
    for i, raw in enumerate(tools):
        if isinstance(raw, dict) and (_VENDOR_TOOL_KEYS & raw.keys()):
            converted = _tools_from_entry(doc, ("tools", i), raw, problems)
            if len(converted) == 1:
                tools[i] = converted[0].model_dump(exclude_defaults=True)
                if converted[0].mcp:  # left out of dumps (request keys), kept here
                    tools[i]["mcp"] = True


# --------------------------------------------------------------------------------------- suites


def _file_list(
    head: dict[str, Any], key: str, doc: Document, problems: _Problems
) -> list[tuple[str, str]]:
    """The (file name, "suite.yaml:7: key[0]") pairs of ``tool_files`` / ``case_files``."""
    names = head.get(key)
    if not isinstance(names, list):
        return []  # reported by the Suite model (or absent)
    out: list[tuple[str, str]] = []
    for i, name in enumerate(names):
        if isinstance(name, str):
            out.append((name, f"{doc.display}:{doc.locator.line((key, i))}: {key}[{i}]"))
    return out


@dataclass
class _Head:
    """Everything of a suite but the cases of its ``case_files`` (not read yet)."""

    display: str
    root: Origin
    problems: _Problems
    #: the suite without its cases; None when it has problems
    suite: Suite | None
    tools: list[ToolSpec] = field(default_factory=list)
    tool_origins: list[Origin] = field(default_factory=list)
    #: the inline cases
    cases: list[Case] = field(default_factory=list)
    case_origins: list[Origin] = field(default_factory=list)
    #: (path, file name as shown, "suite.yaml:7: case_files[0]") of each case file
    case_files: list[tuple[Path, str, str | None]] = field(default_factory=list)
    #: every tool definition was read without a problem (so a name it lacks is really missing)
    tools_complete: bool = False


def _read_head(path: str | Path) -> _Head:
    """Read a suite but for its case files; problems are collected, not raised (except when
    the file is not a suite at all)."""
    given = Path(path)
    suite_path = _suite_file(given)
    display = str(given if suite_path == given else given / suite_path.name)
    problems = _Problems()

    if suite_path.suffix.lower() in _JSONL_SUFFIXES:
        only_cases = _Head(
            display, Origin(display, FixedLocator(1)), problems, Suite(name=suite_path.stem)
        )
        only_cases.case_files.append((suite_path, display, None))
        return only_cases

    doc = read_document(suite_path, display)
    data = doc.data
    root = Origin(display, doc.locator)
    if data is None:
        raise UserError(f"{display}:1: the file is empty (expected a suite: name, tools, cases)")
    if isinstance(data, list):
        cases, origins = _cases_from_document(doc, problems, (), data)
        return _Head(display, root, problems, Suite(name=suite_path.stem), [], [], cases, origins)
    if not isinstance(data, dict):
        raise UserError(
            f"{display}:1: expected a suite (a mapping with name, tools and cases), "
            f"got {kind_of(data)}"
        )

    # "$schema" points editors at the JSON Schema (agentgauge schema); it is not suite data.
    # An empty list key (`cases:` with nothing under it, while drafting) means an empty list.
    data = {k: v for k, v in data.items() if not (v is None and k in _LIST_KEYS)}
    head = {k: v for k, v in data.items() if k not in ("cases", "$schema")}
    _normalise_inline_tools(head, doc, problems)
    suite: Suite | None = None
    try:
        suite = Suite.model_validate(head)
    except ValidationError as err:
        problems.add(
            *validation_problems(err, head, display=display, locator=doc.locator, model=Suite)
        )
    if suite is not None and suite.version > FORMAT_VERSION:
        problems.add(
            f"{display}:{doc.locator.line(('version',))}: version: this suite is format version "
            f"{suite.version}; this agentgauge reads up to version {FORMAT_VERSION} "
            "(upgrade agentgauge)"
        )
        suite = None

    if suite is not None and suite.world is not None and suite.world.state_file is not None:
        suite = _with_state_file(suite, suite_path, display, doc, problems)
    tools: list[ToolSpec] = list(suite.tools) if suite else []
    tool_origins = [Origin(display, doc.locator, ("tools", i)) for i in range(len(tools))]
    for name, referenced_at in _file_list(head, "tool_files", doc, problems):
        more, more_origins = _read_tool_file(
            suite_path.parent / name, _display_beside(display, name), problems, referenced_at
        )
        tools.extend(more)
        tool_origins.extend(more_origins)

    tools_complete = suite is not None and not problems.lines
    cases, case_origins = _cases_from_document(doc, problems, ("cases",), data.get("cases", []))
    case_files: list[tuple[Path, str, str | None]] = [
        (suite_path.parent / name, _display_beside(display, name), referenced_at)
        for name, referenced_at in _file_list(head, "case_files", doc, problems)
    ]
    return _Head(
        display, root, problems, suite, tools, tool_origins, cases, case_origins, case_files,
        tools_complete,
    )  # fmt: skip


def _with_state_file(
    suite: Suite, suite_path: Path, display: str, doc: Document, problems: _Problems
) -> Suite | None:
    """``suite`` with its ``world.state_file`` read into ``world.state`` (None: a problem)."""
    assert suite.world is not None
    assert suite.world.state_file is not None
    name = suite.world.state_file
    at = f"{display}:{doc.locator.line(('world', 'state_file'))}: world.state_file"
    try:
        state = read_document(suite_path.parent / name, _display_beside(display, name),
                              referenced_at=at)  # fmt: skip
    except UserError as err:
        problems.extend_from(err)
        return None
    if not isinstance(state.data, dict):
        problems.add(f"{state.display}:1: expected the world's state: a mapping of collections, "
                     f"got {kind_of(state.data)}")  # fmt: skip
        return None
    raw = suite.world.model_dump(by_alias=True, exclude={"state_file", "state"})
    try:
        world = WorldSpec.model_validate({**raw, "state": state.data})
    except ValidationError as err:
        problems.add(f"{state.display}:1: world state: {one_error(err)}")
        return None
    return suite.model_copy(update={"world": world})


def _resolved(head: _Head, cases: list[Case]) -> Suite:
    """The suite of ``head`` with its tools merged in and ``cases`` as its cases."""
    assert head.suite is not None  # no problems means the head validated (and its version is known)
    return head.suite.model_copy(
        update={"tools": head.tools, "cases": cases, "tool_files": [], "case_files": []}
    )


def read_suite(path: str | Path) -> LoadedSuite:
    """Read a suite with the origin of every case and tool (for lint and explanations).

    Raises :class:`UserError` listing every problem found, one ``file:line: field: message``
    line each.
    """
    head = _read_head(path)
    cases, case_origins = head.cases, head.case_origins
    for file, display, referenced_at in head.case_files:
        more_cases, more_origins = _read_case_file(file, display, head.problems, referenced_at)
        cases.extend(more_cases)
        case_origins.extend(more_origins)
    head.problems.raise_if_any()
    return LoadedSuite(
        _resolved(head, cases), head.display, head.root, case_origins, head.tool_origins
    )


def read_partial_suite(path: str | Path) -> LoadedSuite | None:
    """The part of a suite with problems that did load: its tools and the cases that validated
    (for checks worth reporting beside the problems). None when the tool definitions themselves
    have a problem, or the file is not a suite at all."""
    try:
        head = _read_head(path)
    except UserError:
        return None
    if head.suite is None or not head.tools_complete:
        return None
    cases, case_origins = head.cases, head.case_origins
    for file, display, referenced_at in head.case_files:
        more_cases, more_origins = _read_case_file(file, display, head.problems, referenced_at)
        cases.extend(more_cases)
        case_origins.extend(more_origins)
    return LoadedSuite(
        _resolved(head, cases), head.display, head.root, case_origins, head.tool_origins
    )


def load_suite(path: str | Path) -> Suite:
    """Read a suite file (YAML or JSON), a folder holding ``suite.yaml``, or a JSONL of cases.

    ``tool_files`` and ``case_files`` are resolved relative to the suite file and merged in.
    Raises :class:`UserError` listing every problem as ``file:line: field: message``.
    """
    return read_suite(path).suite
