"""Per-result reports written by streaming over ``results.jsonl``: JUnit XML and CSV."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path
from typing import IO
from xml.sax.saxutils import escape, quoteattr

from .._secrets import ScrubbingStream, register_env
from ..rundir import iter_light_results
from ..schema import CaseResult
from ._escape import csv_cell, visible

#: characters XML 1.0 does not allow (control characters other than tab, newline, return)
_BAD_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _x(text: str) -> str:
    return visible(_BAD_XML.sub("\ufffd", text))  # C1 controls, bidi overrides: as escapes


def _attr(text: str) -> str:
    return quoteattr(_x(text))


def scrubbing(out: IO[str]) -> IO[str]:
    """``out`` behind the secret scrubber (``_secrets``), unless it already is."""
    register_env()
    if isinstance(out, ScrubbingStream):
        return out
    return ScrubbingStream(out)  # type: ignore[return-value]


def expected_label(r: CaseResult) -> str:
    if r.expected_tools:
        return ", ".join(r.expected_tools)
    return r.expected_behavior or ""


def actual_label(r: CaseResult) -> str:
    called = ", ".join(dict.fromkeys(c.name for c in r.calls))
    if r.expected_tools or not r.behavior:
        return called
    return r.behavior if not called else f"{r.behavior}: {called}"


@dataclass(frozen=True, slots=True)
class JunitCounts:
    """What a ``<testsuite>`` element's attributes say of a run."""

    tests: int = 0
    failures: int = 0
    errors: int = 0
    #: results whose simulated user broke its instructions (``user_error``): neither the
    #: agent's pass nor its failure, so ``<skipped>`` (docs/users.md)
    skipped: int = 0
    total_ms: float = 0.0


def junit_counts(run_dir: Path) -> JunitCounts:
    tests = failures = errors = skipped = 0
    total_ms = 0.0
    for r in iter_light_results(run_dir):
        tests += 1
        failures += r.status == "failed"
        errors += r.status == "error"
        skipped += r.status == "user_error"
        total_ms += r.latency_ms
    return JunitCounts(
        tests=tests, failures=failures, errors=errors, skipped=skipped, total_ms=total_ms
    )


def write_junit(
    run_dir: Path,
    out: IO[str],
    *,
    suite_name: str | None = None,
    properties: dict[str, str] | None = None,
    counts: JunitCounts | None = None,
) -> None:
    """JUnit XML: one ``<testcase>`` per case × trial (classname = category).

    Failures carry the explanation; results with status ``error`` are ``<error>`` elements;
    a ``user_error`` (the simulated user broke its instructions, docs/users.md) is
    ``<skipped type="user_error">`` with its reason: CI counts it neither as a pass nor as the
    agent's failure.
    ``properties`` (e.g. agent, git commit) go into the suite's ``<properties>``. The shape
    follows the Jenkins / Ant schema most CI systems accept.
    """
    out = scrubbing(out)
    n = counts if counts is not None else junit_counts(run_dir)
    name = suite_name or "agentgauge"
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(
        f'<testsuites name={_attr(name)} tests="{n.tests}" failures="{n.failures}" '
        f'errors="{n.errors}" time="{n.total_ms / 1000:.3f}">\n'
    )
    write_junit_testsuite(run_dir, out, name=name, properties=properties, counts=n)
    out.write("</testsuites>\n")


def write_junit_testsuite(
    run_dir: Path,
    out: IO[str],
    *,
    name: str,
    properties: dict[str, str] | None = None,
    counts: JunitCounts | None = None,
) -> None:
    """One run's ``<testsuite>`` element (what :func:`write_junit` wraps; a matrix report
    writes one per agent)."""
    n = counts if counts is not None else junit_counts(run_dir)
    out.write(
        f'  <testsuite name={_attr(name)} tests="{n.tests}" failures="{n.failures}" '
        f'errors="{n.errors}" skipped="{n.skipped}" time="{n.total_ms / 1000:.3f}">\n'
    )
    if properties:
        out.write("    <properties>\n")
        for key, value in properties.items():
            out.write(f"      <property name={_attr(key)} value={_attr(value)}/>\n")
        out.write("    </properties>\n")
    for r in iter_light_results(run_dir):
        case_name = f"{r.case_id} [{r.trial}]"
        head = (
            f"    <testcase classname={_attr(r.category)} name={_attr(case_name)} "
            f'time="{r.latency_ms / 1000:.3f}"'
        )
        if r.status == "passed":
            out.write(head + "/>\n")
            continue
        out.write(head + ">\n")
        text = r.explanation or r.error or r.status
        first = text.splitlines()[0] if text.strip() else r.status
        if r.status == "error":
            tag, kind = "error", "error"
        elif r.status == "user_error":
            tag, kind = "skipped", "user_error"
        else:
            tag, kind = "failure", "failure"
        out.write(f'      <{tag} message={_attr(first)} type="{kind}">{escape(_x(text))}</{tag}>\n')
        out.write("    </testcase>\n")
    out.write("  </testsuite>\n")


#: an attribute value, quoted and escaped
xml_attr = _attr


CSV_COLUMNS = ("id", "trial", "category", "expected", "actual", "status", "score", "explanation")


def write_csv(run_dir: Path, out: IO[str]) -> None:
    """One row per case × trial, for spreadsheets (text cells neutralised: :func:`csv_cell`)."""
    out = scrubbing(out)
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in iter_light_results(run_dir):
        text = r.explanation or r.error or ""
        writer.writerow(
            [
                csv_cell(r.case_id),
                r.trial,
                csv_cell(r.category or ""),
                csv_cell(expected_label(r)),
                csv_cell(actual_label(r)),
                r.status,
                # an error or a user_error was not graded: no score (results.jsonl's 0 or the
                # scorers' partial mean would read as the agent's)
                "" if r.status in ("error", "user_error") else f"{r.score:.4g}",
                csv_cell(text),
            ]
        )
