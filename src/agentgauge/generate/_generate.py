"""Generate a suite: build the candidate cases family by family, write them, check them (see
``_check``), and keep those that pass every check."""

from __future__ import annotations

import random
import tempfile
from dataclasses import replace
from pathlib import Path

from pydantic import ValidationError

from .._messages import one_line
from .._suite_code import SuiteCodePolicy, copy_suite_code, suite_code_files
from ..errors import UserError
from ..schema import Case, Suite
from ._build import BUILDERS
from ._check import Dropped, check_written
from ._config import FAMILIES, GenerateConfig
from ._families import Builder, Candidate, Propose, Rewrite
from ._header import header_lines
from ._result import FamilyCount, GeneratedSuite
from ._world import WorldContext
from ._write import head_record, render

__all__ = ["generate_cases"]


def _world(suite: Suite, config: GenerateConfig, source: str) -> WorldContext | None:
    if suite.world is None:
        return None
    if suite.world.class_ is not None and not config.allow_suite_code:
        raise UserError(
            f"{source}: world.class: the world is suite code ({suite.world.class_}); generate "
            "builds cases on its state only with --allow-suite-code"
        )
    policy = SuiteCodePolicy.for_suite(source or None, config.allow_suite_code or None)
    ctx = WorldContext(suite.world, policy)
    if not ctx.usable:
        raise UserError(f"{source}: world: cannot be built: {ctx.problem}")
    return ctx


def _candidates(b: Builder) -> tuple[list[Candidate], list[Dropped]]:
    made: list[Candidate] = []
    dropped: list[Dropped] = []
    ids: dict[str, int] = {}
    openings: dict[str, str] = {}
    for family in FAMILIES:
        if family not in b.config.families:
            continue
        rng = random.Random(f"{b.config.seed}:{family}")
        for c in BUILDERS[family](b, rng):
            n = ids.get(c.id, 0) + 1
            ids[c.id] = n
            if n > 1:
                c.id = c.record["id"] = f"{c.id}-{n}"
            text = str(c.record["input"])
            if text in openings:
                why = f"same opening message as {openings[text]}"
                dropped.append(Dropped(case_id=c.id, family=family, stage="validate", reason=why))
                continue
            try:
                Case.model_validate(c.record)
            except ValidationError as exc:
                err = exc.errors()[0]
                where = ".".join(str(x) for x in err["loc"])
                dropped.append(Dropped(case_id=c.id, family=family, stage="validate",
                                       reason=f"{where}: {err['msg']}"))  # fmt: skip
                continue
            openings[text] = c.id
            made.append(c)
    return made, dropped


def _proposed(
    b: Builder, propose: Propose, taken: list[Candidate]
) -> tuple[list[Candidate], list[Dropped]]:
    """The goals the generator model proposed, as ``direct`` cases (ids and openings unique:
    the players find a case by its opening)."""
    rng = random.Random(f"{b.config.seed}:proposed")
    made: list[Candidate] = []
    dropped: list[Dropped] = []
    openings = {str(c.record["input"]): c.id for c in taken}
    for c in propose(b, rng):
        text = str(c.record["input"])
        if text in openings:
            why = f"same opening message as {openings[text]}"
            dropped.append(Dropped(case_id=c.id, family=c.family, stage="validate", reason=why))
            continue
        openings[text] = c.id
        try:
            Case.model_validate(c.record)
        except ValidationError as exc:
            dropped.append(Dropped(case_id=c.id, family=c.family, stage="validate",
                                   reason=str(exc.errors()[0]["msg"])))  # fmt: skip
            continue
        made.append(c)
    return made, dropped


def generate_cases(
    suite: Suite,
    config: GenerateConfig,
    *,
    source: str = "",
    source_dir: Path | None = None,
    rewrite: Rewrite | None = None,
    propose: Propose | None = None,
) -> GeneratedSuite:
    """The generated suite for ``suite`` (see the package docstring)."""
    if not suite.tools:
        raise UserError(f"{source or suite.name}: the suite has no tools to generate cases from")
    try:
        # the code the written suite runs: its tools' fakes and its world (not the source's cases')
        files = suite_code_files(suite.model_copy(update={"cases": []}), source_dir)
    except UserError as err:  # the location rule of suite code (nothing was imported)
        raise UserError(f"{source or suite.name}: {err}") from None
    world = _world(suite, config, source)
    b = Builder(suite, config, world, rewrite)
    candidates, dropped = _candidates(b)
    if propose is not None:
        proposed, refused = _proposed(b, propose, candidates)
        candidates += proposed
        dropped += refused
    answered = world.tools if world is not None else frozenset()
    name = f"{suite.name}-generated"
    desc = (f"Cases generated by 'agentgauge generate' from {suite.name} (seed {config.seed}): "
            "user goals over its tools, and conversations with a scripted user.")  # fmt: skip
    head = head_record(suite, name, desc, answered)
    with tempfile.TemporaryDirectory(prefix="agentgauge-generate-") as tmp:
        path = Path(tmp) / "suite.yaml"
        path.write_text(render([], head, [c.record for c in candidates]), encoding="utf-8")
        copy_suite_code(files, source_dir, Path(tmp))
        _, failed, figures = check_written(
            path, allow_code=config.allow_suite_code, satisfiable=config.check, seed=config.seed
        )
    dropped += failed
    gone = {d.case_id for d in dropped}
    kept = [c for c in candidates if c.id not in gone]
    used = {t["name"] for c in kept for t in c.record["expect"].get("tool_calls", [])}
    unused = [t.name for t in suite.tools if t.name not in used]
    if unused:
        b.notes.append(
            f"no written case expects a call to {', '.join(unused)}: no goal drawn for "
            f"{'them' if len(unused) > 1 else 'it'} passed the checks (the world refused it, or "
            "it was dropped); validate --strict reports it as unused-tool"
        )
    counts = [
        FamilyCount(
            family=f,
            written=sum(1 for c in kept if c.family == f),
            dropped=sum(1 for d in dropped if d.family == f),
        )
        for f in FAMILIES
        if f in config.families
    ]
    result = GeneratedSuite(
        suite=Suite.model_validate({**head, "cases": [c.record for c in kept]}),
        text="",
        source=source,
        seed=config.seed,
        counts=counts,
        dropped=dropped,
        notes=[one_line(n) for n in b.notes],
        mutants=sum(figures[c.id][0] for c in kept if c.id in figures),
        mutants_failed=sum(figures[c.id][1] for c in kept if c.id in figures),
        paraphrased=b.paraphrased,
        kept=b.kept,
        proposed=sum(1 for c in kept if c.record["metadata"]["generate"].get("proposed")),
        code=files,
        checked=config.check,
    )
    text = render(header_lines(result, config), head, [c.record for c in kept])
    return replace(result, text=text)
