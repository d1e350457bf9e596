"""The HTML report's *Planning review* section: a person grades each scored result's path 1–5
in the page (docs/metrics.md#module-metrics). The grades are kept in the page and in the
browser's localStorage (per run), and downloaded as ``reviews.jsonl`` — the same lines
``agentgauge review`` writes, so the file goes into the run folder as it is and feeds the
planning-path metric and ``agentgauge calibrate``. The items travel in the page's one data
blob (``"review"``); the script (``templates/review.js``, run after ``report.js`` in the page's
one script) sets every untrusted text through ``textContent``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from ..metrics import PLANNING_TASK, Summary, plan_text
from ..schema import CaseResult
from ._html_charts import esc
from ._html_data import script_json

__all__ = ["REVIEW_CAP", "ReviewItems"]

#: results offered for grading in one page (the first ones in the results file)
REVIEW_CAP: Final = 200
_TEXT_CAP: Final = 2000


def _cut(text: str) -> str:
    return text if len(text) <= _TEXT_CAP else text[: _TEXT_CAP - 1] + "…"


def _question(r: CaseResult) -> str:
    users = [m.content for m in r.messages if m.role == "user" and m.content]
    return "\n".join(users) if users else "(the case input is not in the result)"


@dataclass(slots=True)
class ReviewItems:
    """The scored results a reviewer can grade in the page, collected as results go by."""

    items: list[dict[str, Any]] = field(default_factory=list)
    left_out: int = 0

    def add(self, r: CaseResult) -> None:
        if r.status == "error":
            return  # nothing was judged; its path says nothing about planning
        if len(self.items) >= REVIEW_CAP:
            self.left_out += 1
            return
        expected = list(dict.fromkeys([*r.expected_tools, *r.later_expected_tools]))
        self.items.append(
            {
                "id": f"{r.case_id}#{r.trial}",
                "category": r.category,
                "status": r.status,
                # the inputs of a reviews.jsonl line, as `agentgauge review` writes them
                "inputs": {
                    "question": _cut(_question(r)),
                    "expected": ", ".join(expected),
                    "plan": _cut(plan_text(r)),
                    "agent_output": _cut(r.text or ""),
                },
            }
        )

    def data(self, summary: Summary) -> str:
        """The items as the ``"review"`` member of the page's data blob (script-safe JSON)."""
        run = summary.run
        key = f"{run.suite}|{run.run_id}" if run is not None else "run"
        return script_json({"task": PLANNING_TASK, "run": key, "items": self.items})

    def section(self) -> str:
        """The section ("" when there is nothing to grade)."""
        if not self.items:
            return ""
        more = (
            f" The first {len(self.items)} scored results are here; {self.left_out} more can be "
            "graded with agentgauge review RUN_DIR."
            if self.left_out
            else ""
        )
        note = (
            "Grade each path 1 (wrong plan) to 5 (the path an expert would take). The grades stay "
            "in this browser (localStorage, per run) until you download them as reviews.jsonl: "
            "put that file in the run folder (agentgauge report then shows the planning-path "
            "grade, min_planning_grade gates it, agentgauge calibrate --task planning_path "
            f"measures a judge against it).{more}"
        )
        return (
            '<section id="review">\n<h2>Planning review</h2>\n'
            f'<p class="note">{esc(note)}</p>\n'
            '<div class="controls"><button type="button" id="review-download">Download '
            'reviews.jsonl</button> <span id="review-count" class="muted" aria-live="polite">'
            '</span></div>\n<div id="review-list"></div>\n'
            "<noscript><p>Grading needs JavaScript (or use agentgauge review RUN_DIR).</p>"
            "</noscript>\n</section>\n"
        )
