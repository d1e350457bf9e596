"""Reading a run directory: its record, its gates and its summary."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import yaml

from ..errors import UserError
from ..schema import Gates, RunRecord
from ._model import Summary
from ._summarize import SUMMARY_FILE, load_run, summarize_results


def load_gates_file(path: Path) -> Gates:
    """A YAML (or JSON) file of :class:`Gates` (or of a mapping with a ``gates:`` key)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UserError(f"{path}: cannot read gates file: {exc.strerror}") from exc
    except yaml.YAMLError as exc:
        raise UserError(f"{path}: not valid YAML: {str(exc).splitlines()[0]}") from exc
    if isinstance(data, dict) and isinstance(data.get("gates"), dict):
        data = data["gates"]
    if data is None:
        data = {}
    try:
        return Gates.model_validate(data)
    except ValueError as exc:
        lines = str(exc).splitlines()
        detail = "; ".join(
            f"{a.strip()}: {b.strip()}" for a, b in zip(lines[1::2], lines[2::2], strict=False)
        )
        raise UserError(f"{path}: invalid gates: {detail or lines[0]}") from exc


_GATES_KEY = re.compile(r"""^(?:gates|"gates"|'gates')\s*:(?:\s|$)""")


def _gates_block(text: str) -> str | None:
    """The top-level ``gates:`` entry of a YAML document, as YAML text (``None``: no gates).

    Suites can hold thousands of inline cases; parsing the whole document just to read the
    gates took tens of seconds on an imported BFCL suite, so only this block is parsed.
    """
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if _GATES_KEY.match(line):
            block = [line]
            for following in lines[i + 1 :]:
                if following and not following[0].isspace() and not following.startswith("#"):
                    break
                block.append(following)
            return "\n".join(block)
    return None


def suite_gates(run: RunRecord | None) -> Gates | None:
    """The ``gates:`` of the suite file a run was made from, when that file is still there.

    Only the top-level ``gates`` mapping is read (the cases are not loaded or validated).
    A folder means its ``suite.yaml``; JSONL case files have no gates.
    """
    if run is None or not run.suite_path:
        return None
    path = Path(run.suite_path)
    if path.is_dir():
        path = path / "suite.yaml"
    suffix = path.suffix.lower()
    if not path.is_file() or suffix not in (".yaml", ".yml", ".json"):
        return None
    try:
        text = path.read_text(encoding="utf-8")
        if suffix == ".json":
            data = orjson.loads(text)
        else:
            block = _gates_block(text)
            data = yaml.safe_load(block) if block is not None else None
    except (OSError, ValueError, yaml.YAMLError):
        return None  # the suite loader reports broken suites; metrics just use defaults
    if not isinstance(data, dict) or not isinstance(data.get("gates"), dict):
        return None
    try:
        return Gates.model_validate(data["gates"])
    except ValueError as exc:
        raise UserError(f"{path}: invalid gates: {str(exc).splitlines()[-1].strip()}") from exc


def resolve_gates(run_dir: Path, gates_file: Path | None = None) -> Gates:
    """``--gates FILE`` if given, else the suite's gates, else the defaults."""
    if gates_file is not None:
        return load_gates_file(gates_file)
    return suite_gates(load_run(run_dir)) or Gates()


def summarize(run_dir: Path, *, gates: Gates | None = None, confidence: float = 0.95) -> Summary:
    """Every metric of the run in ``run_dir`` (one streaming pass over ``results.jsonl``).

    ``gates`` supplies the latency budgets and the sample-size floor; by default they come from
    the suite file named in ``run.json``.
    """
    from ._read import iter_light_results

    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise UserError(f"{run_dir}: no such run directory")
    run = load_run(run_dir)
    if gates is None:
        gates = suite_gates(run) or Gates()
    return summarize_results(
        iter_light_results(run_dir), run=run, gates=gates, confidence=confidence
    )


def write_summary(run_dir: Path, summary: Summary | None = None, *, record: bool = True) -> Path:
    """Write ``RUN_DIR/summary.json`` (computing the summary if not given) and return its path.

    With ``record`` (the default) the run is also added to the run history (docs/gates-and-ci.md);
    a history that cannot be written only warns.
    """
    run_dir = Path(run_dir)
    if summary is None:
        summary = summarize(run_dir)
    path = run_dir / SUMMARY_FILE
    path.write_bytes(
        orjson.dumps(summary.model_dump(mode="json"), option=orjson.OPT_INDENT_2) + b"\n"
    )
    if record:
        from ._history import record_run

        try:
            record_run(run_dir, summary)
        except (OSError, UserError) as exc:  # the history is a convenience, never a failure
            import sys

            print(f"warning: run history not updated: {exc}", file=sys.stderr)
    return path
