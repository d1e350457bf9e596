"""Regenerate docs/img/dashboard.png: the dashboard of a real three-agent run, in Chromium.

    python scripts/dashboard_screenshot.py [-o docs/img/dashboard.png] [--keep RUN_DIR]

Runs ``agentgauge run examples/modules`` with the three scripted agents of
tests/report/dashboard_agents.py (careful, hasty, kb_router) into a temporary folder, opens its
``dashboard.html`` in the system Chromium (``/usr/bin/chromium``, through Playwright, as the
browser tests do), keeps the first three scenarios of each per-scenario chart (the page lists
eight; the picture would be twice as long) and saves a full-page screenshot. Prints which
values carry a star, so what the picture shows can be checked against the rule
(docs/reports.md: a star only where a named test finds the value better than every other
shown agent's).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
AGENTS = "tests/report/dashboard_agents.py"

_TRIM = """() => {
  for (const box of document.querySelectorAll('.agd-bars')) {
    const groups = [...box.children].filter(e => e.classList.contains('agd-bgroup'));
    groups.slice(3).forEach(e => e.remove());
  }
}"""

_STARS = """() => [...document.querySelectorAll('.agd-card')].flatMap(card => {
  const agent = card.querySelector('.agd-name')?.textContent.trim() ?? '?';
  return [...card.querySelectorAll('.agd-row')].filter(r => r.textContent.includes('\u2605')).map(
    row => agent + ': ' + row.textContent.replace(/\\s+/g, ' ').trim());
})"""


def _run(out: Path) -> Path:
    names = ("careful", "hasty", "kb_router")
    agents = [f"--agent={name}=python:{AGENTS}:{name}" for name in names]
    cmd = [sys.executable, "-m", "agentgauge", "run", "examples/modules", "--allow-suite-code"]
    cmd += [*agents, "-o", str(out), "--no-history", "--no-progress", "--no-cache"]
    subprocess.run(cmd, cwd=REPO, check=True, env={**os.environ, "COLUMNS": "100"})
    return out / "dashboard.html"


def _shoot(page_path: Path, png: Path) -> list[str]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium")
        page = browser.new_page(viewport={"width": 1240, "height": 900})
        page.goto(page_path.as_uri())
        page.evaluate(_TRIM)
        stars: list[str] = page.evaluate(_STARS)
        page.screenshot(path=str(png), full_page=True)
        browser.close()
    return stars


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", type=Path, default=REPO / "docs" / "img" / "dashboard.png")
    ap.add_argument("--keep", type=Path, help="Run into this folder and keep it.")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = args.keep or Path(tmp) / "compare"
        stars = _shoot(_run(run_dir), args.output)
    print(f"wrote {args.output} ({args.output.stat().st_size // 1024} KB)")
    print("starred:" if stars else "starred: none")
    for line in stars:
        print(f"  {line}")


if __name__ == "__main__":
    main()
