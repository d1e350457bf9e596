"""The Cases section of the HTML report: the filter controls (with counts computed here, at
generation time), the scroll box the page's script draws the visible rows into, and the panel a
case's details open in."""

from __future__ import annotations

from ._html_charts import esc
from ._html_index import CaseIndex, DetailsNote

__all__ = ["cases_section"]

#: the table's columns: (key the script sorts by, header)
COLUMNS = (
    ("id", "case"),
    ("trial", "trial"),
    ("status", "status"),
    ("category", "category"),
    ("score", "score"),
    ("latency_ms", "latency"),
    ("why", "explanation"),
)


def _options(label: str, items: list[tuple[str, int]]) -> str:
    opts = "".join(
        f'<option value="{esc(name)}">{esc(name)} ({n:,})</option>' for name, n in items if n
    )
    return f'<option value="">{esc(label)}</option>{opts}'


def _note(n: int, note: DetailsNote) -> str:
    text = f"{n:,} results. Click a row (or press Enter on it) to see its transcript, scores and "
    text += "trace timing; click a column header to sort."
    if not note.inline:
        return text + (
            f" This run is large: each case's details are loaded when you open it, from the "
            f"{note.chunks} files in {note.directory}/ next to this page (keep the two together)."
        )
    if note.omitted:
        text += (
            f" Only {note.carried} results carry a transcript here ({note.failing_carried} "
            f"failed or errored, which come first, and the first {note.passing_carried} passing "
            f"ones); the other {note.omitted} are listed without one. Write the report to a file "
            "(agentgauge report RUN --format html -o report.html) to keep every case's details "
            "in a directory next to it."
        )
    return text


def cases_section(index: CaseIndex, note: DetailsNote) -> str:
    statuses = list(zip(index.status.names, index.status.counts, strict=True))
    categories = sorted(zip(index.category.names, index.category.counts, strict=True))
    controls = (
        '<div class="controls">'
        '<input id="q" type="search" placeholder="filter: case id, category, tag, explanation…" '
        'aria-label="filter">'
        f'<select id="status" aria-label="status">{_options("all statuses", statuses)}</select>'
        f'<select id="category" aria-label="category">'
        f"{_options('all categories', categories)}</select>"
        '<span id="count" class="muted" aria-live="polite"></span></div>\n'
    )
    head = "".join(f'<th data-key="{k}" class="c-{k}">{esc(h)}</th>' for k, h in COLUMNS)
    table = (
        '<div id="cases-scroll" class="cases-scroll" tabindex="-1">'
        '<table id="cases-table" class="cases"><thead><tr>'
        f"{head}</tr></thead><tbody></tbody></table></div>\n"
        '<div id="case-detail" class="case-detail" hidden></div>\n'
        "<noscript><p>The case table needs JavaScript.</p></noscript>\n"
    )
    body = controls + table
    return (
        f'<section id="cases">\n<h2>Cases</h2>\n<p class="note">{esc(_note(index.n, note))}</p>'
        f"{body}</section>\n"
    )
