"""Reading a run directory: its record, its gates and its summary."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Protocol

import orjson

from ..errors import UserError
from ..files import read_yaml_text
from ..rundir import load_record as load_run
from ..schema import Feedback, Gates, ModuleSettings, RunRecord
from ..suites import find_suite_file
from ._model import Summary
from ._modules import ModuleAcc
from ._summarize import summarize_results


def load_gates_file(path: Path) -> Gates:
    """A YAML (or JSON) file of :class:`Gates` (or of a mapping with a ``gates:`` key).

    Read by the suite loader's rules, so a problem is reported as ``file:line: field: message``
    (every problem, first one in the message) like any suite problem.
    """
    from pydantic import ValidationError

    from ..files import read_document, validation_problems

    display = str(path)
    doc = read_document(path, display)  # a missing file or bad YAML/JSON is a UserError
    data = doc.data
    at: tuple[str, ...] = ()
    if isinstance(data, dict) and isinstance(data.get("gates"), dict):
        data, at = data["gates"], ("gates",)
    if data is None:
        data = {}
    try:
        return Gates.model_validate(data)
    except ValidationError as exc:
        problems = validation_problems(
            exc, data, display=display, locator=doc.locator, at=at, shown=at, model=Gates
        )
        raise UserError(problems[0], problems=problems) from exc


_CASE_FILE_SUFFIXES = (".jsonl", ".ndjson")
#: how the first line of a block-style suite begins: a top-level key, or ``-`` of a case list
_BLOCK_DOCUMENT = re.compile(r"""^(?:-(?:\s|$)|[A-Za-z_$"'])""")
#: a loader problem about the gates: ``suite.yaml:3: gates.min_pass_rate: ...``
_GATES_PROBLEM = re.compile(r":\d+: gates\b")

#: a top-level section read without the cases: (its key, its model)
_Section = tuple[str, type[Gates] | type[ModuleSettings]]
_GATES: _Section = ("gates", Gates)
_MODULES: _Section = ("modules", ModuleSettings)


class _Unsure(Exception):
    """The quick read of a suite cannot tell a section; the suite loader has to decide."""


def _key_line(key: str) -> re.Pattern[str]:
    return re.compile(rf"""^(?:{key}|"{key}"|'{key}')\s*:(?:\s|$)""")


def _top_block(text: str, key: str = "gates") -> str | None:
    """The top-level ``key:`` entry of a YAML document, as YAML text (``None``: not there).

    Suites can hold thousands of inline cases; parsing the whole document just to read the
    gates took tens of seconds on an imported BFCL suite, so only this block is parsed. Raises
    :class:`_Unsure` when the document is not one this line-based cut can be sure about: not
    block style at the top (a flow mapping, JSON in a ``.yaml`` file), or the key twice.
    """
    key_line = _key_line(key)
    lines = text.splitlines()
    block: list[str] | None = None
    first_content = True
    for i, line in enumerate(lines):
        if first_content:
            if not line.strip() or line.startswith(("#", "%")) or line.rstrip() == "---":
                continue
            first_content = False
            if not _BLOCK_DOCUMENT.match(line):
                raise _Unsure
        if not key_line.match(line):
            continue
        if block is not None:
            raise _Unsure  # a duplicate key: the loader reports it
        block = [line]
        for following in lines[i + 1 :]:
            if following and not following[0].isspace() and not following.startswith("#"):
                break
            block.append(following)
    return "\n".join(block) if block is not None else None


def _quick_section(path: Path, section: _Section) -> Gates | ModuleSettings | None:
    """A top-level section of the suite document ``path`` read without its cases (``None``:
    not there). Raises :class:`_Unsure` whenever the quick read fails: nothing is guessed."""
    from ..files import read_bytes

    key, model = section
    try:
        # with the input limits: a special or huge file is left to the loader, which refuses it
        text = read_bytes(path, str(path)).decode("utf-8")
        if path.suffix.lower() == ".json":
            data = orjson.loads(text)
        else:
            block = _top_block(text, key)
            if block is None:
                return None
            # the suite loader's YAML rules (1.2 core schema, no merge keys), not yaml.safe_load
            data = read_yaml_text(block, str(path)).data
    except (OSError, ValueError, UserError) as exc:  # ValueError: bad JSON or UTF-8
        raise _Unsure from exc
    if not isinstance(data, dict) or data.get(key) is None:
        return None  # a list of cases (which has no gates), or no such section
    try:
        return model.model_validate(data[key])
    except ValueError as exc:
        raise _Unsure from exc


def _loaded_section(path: Path, section: _Section) -> Gates | ModuleSettings | None:
    """A section of the suite at ``path`` as the suite loader (``agentgauge run``) reads it.

    A suite that does not load is a :class:`UserError` naming its first problem (one about the
    gates if there is one): gating on the defaults instead would pass runs the suite's own
    gates fail.
    """
    from ..importers import looks_like_bfcl
    from ..suites import open_suite

    if looks_like_bfcl(path):
        return None  # BFCL data scored with `agentgauge score`: no agentgauge gates in it
    try:
        suite = open_suite(path).suite
    except UserError as err:
        problems = err.problems or [str(err)]
        about_gates = [p for p in problems if _GATES_PROBLEM.search(p)]
        first = (about_gates or problems)[0]
        more = len(problems) - 1
        others = f"; {more} more problem(s): agentgauge validate {path}" if more else ""
        raise UserError(
            f"{first} (the suite's {section[0]} cannot be read{others}; fix the suite or pass "
            "--gates FILE)"
        ) from err
    return suite.gates if section is _GATES else suite.modules


def suite_exists(path: Path) -> bool:
    """Whether the suite a run recorded is still there: a file, or a folder holding a suite
    file (or BFCL data, which ``agentgauge score`` reads as a suite)."""
    if path.is_dir():
        from ..importers import looks_like_bfcl

        return find_suite_file(path) is not None or looks_like_bfcl(path)
    # any kind of file (a FIFO, a device) is there: reading it refuses it with its reason
    return path.exists() or path.is_symlink()


def suite_gates(run: RunRecord | None) -> Gates | None:
    """The ``gates:`` of the suite a run was made from, when that suite is still there.

    Only the top-level ``gates`` mapping is read (the cases are not loaded or validated). When
    that quick read fails, the suite is loaded as ``agentgauge run`` loads it: its gates if it
    loads, else a :class:`UserError` naming the problem (``file:line: field: message``) — never
    the defaults in silence. A folder means its ``suite.yaml`` (``.yml``, ``.json``); JSONL case
    files and BFCL data have no gates. A suite that is gone gives ``None`` (``gate_run`` refuses
    to gate such a run on the defaults).
    """
    found = _suite_section(run, _GATES)
    assert found is None or isinstance(found, Gates)
    return found


def suite_modules(run: RunRecord | None) -> ModuleSettings | None:
    """The ``modules:`` of the suite a run was made from (read as :func:`suite_gates` reads
    the gates), None when it has none or is gone."""
    found = _suite_section(run, _MODULES)
    assert found is None or isinstance(found, ModuleSettings)
    return found


def _suite_section(run: RunRecord | None, section: _Section) -> Gates | ModuleSettings | None:
    if run is None or not run.suite_path:
        return None
    given = Path(run.suite_path)
    path = find_suite_file(given)
    if path is None or path.suffix.lower() in _CASE_FILE_SUFFIXES:
        return None
    try:
        return _quick_section(path, section)
    except _Unsure:
        return _loaded_section(given, section)


def resolve_gates(run_dir: Path, gates_file: Path | None = None) -> Gates:
    """``--gates FILE`` if given, else the suite's gates, else the defaults."""
    if gates_file is not None:
        return load_gates_file(gates_file)
    return suite_gates(load_run(run_dir)) or Gates()


#: the run directory's files besides the journal that a summary reads (see below)
_SIDE_FILES = ("reviews.jsonl", "feedback.jsonl")


def has_side_files(run_dir: Path) -> bool:
    """Whether ``run_dir`` holds expert reviews or a feedback file (which the summary reads)."""
    return any(os.path.lexists(run_dir / name) for name in _SIDE_FILES)


class Folded(Protocol):
    """A summary folded as the run wrote its results (:class:`~._live.LiveSummary`)."""

    def summary(
        self,
        run: RunRecord | None,
        *,
        gates: Gates,
        modules: ModuleSettings | None,
        confidence: float,
    ) -> Summary | None:
        """The summary of the journal as it is now, made with these inputs (None: the fold
        cannot be sure it is the file pass's; the file is read)."""


def _reviews(run_dir: Path) -> dict[tuple[str, int], int]:
    """RUN_DIR/reviews.jsonl's grades; its module (a model to build) only when there is one."""
    path = run_dir / "reviews.jsonl"
    if not path.exists() and not path.is_symlink():
        return {}
    from ._reviews import read_reviews

    return read_reviews(run_dir)


def _feedback(run_dir: Path) -> dict[str, Feedback]:
    """RUN_DIR/feedback.jsonl's feedback; its module (models, OTLP spans) only when there is one."""
    path = run_dir / "feedback.jsonl"
    if not path.exists() and not path.is_symlink():
        return {}
    from ..exchange import FEEDBACK_FILE, read_feedback

    return read_feedback(run_dir / FEEDBACK_FILE)


def summarize(
    run_dir: Path,
    *,
    gates: Gates | None = None,
    confidence: float = 0.95,
    modules: ModuleSettings | None = None,
    live: Folded | None = None,
) -> Summary:
    """Every metric of the run in ``run_dir`` (one streaming pass over ``results.jsonl``).

    ``gates`` supplies the latency budgets and the sample-size floor, ``modules`` where the
    module metrics read retrieval and fallbacks; by default both come from the suite file named
    in ``run.json``. The planning-path grades are ``RUN_DIR/reviews.jsonl``'s, the user
    feedback not on the results themselves ``RUN_DIR/feedback.jsonl``'s. ``live``: the
    summary folded while the run wrote the journal, taken instead of the pass when it is sure
    to be the same (:class:`~agentgauge.metrics.LiveSummary`).
    """
    from ..rundir import iter_light_results, iter_results

    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise UserError(f"{run_dir}: no such run directory")
    run = load_run(run_dir)
    if gates is None:
        gates = suite_gates(run) or Gates()
    if modules is None:
        modules = suite_modules(run)
    if live is not None:
        folded = live.summary(run, gates=gates, modules=modules, confidence=confidence)
        if folded is not None:
            return folded
    # retrieval read from tool results needs the trace the light reader leaves out
    reader = iter_results if modules is not None and modules.retrieval else iter_light_results
    return summarize_results(
        reader(run_dir),
        run=run,
        gates=gates,
        confidence=confidence,
        modules=modules,
        reviews=_reviews(run_dir),
        feedback=_feedback(run_dir),
    )


def module_acc(run_dir: Path, warnings: list[str]) -> tuple[ModuleAcc, bool]:
    """The module metrics' accumulator of ``run_dir`` as :func:`summarize` builds it (the
    suite's ``modules:``, the run's reviews and feedback), and whether the results must be
    read whole (retrieval from tool results needs the trace). For ``compare``, which pairs
    its per-result verdicts (``ModuleAcc.seen``): a suite whose ``modules:`` cannot be read
    is noted in ``warnings`` and its tool-read retrieval and fallbacks left unmeasured."""
    run = load_run(run_dir)
    try:
        modules = suite_modules(run)
    except UserError as err:
        modules = None
        warnings.append(
            f"module metrics of {run_dir}: the suite's modules: cannot be read, so retrieval and "
            f"fallbacks read from tools are not compared ({err})"
        )
    acc = ModuleAcc(
        settings=modules or ModuleSettings(),
        reviews=_reviews(run_dir),
        feedback_file=_feedback(run_dir),
        run_id=run.run_id if run is not None else None,
    )
    return acc, bool(modules is not None and modules.retrieval)
