"""The HTML report: sections, numbers, escaping of untrusted agent output, determinism, the cap
on embedded transcripts, the CLI, and (with Node.js) the page's script against a small fake DOM."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from lxml import html as lxml_html

from agentgauge.cli._report import command as report_command
from agentgauge.io import iter_results
from agentgauge.metrics import ConfusionCell, compare, evaluate_gates, summarize
from agentgauge.report import render_html, write_report
from agentgauge.report._html_charts import confusion_matrix
from agentgauge.report._html_data import histogram, script_json
from agentgauge.schema import Gates

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"

PAYLOAD = "</script><script>alert(1)</script>"
EVIL_CATEGORY = '<img src=x onerror="alert(2)">'


def _trace(t0: float) -> list[dict[str, Any]]:
    return [
        {
            "kind": "model",
            "start": t0,
            "end": t0 + 0.4,
            "latency_ms": 400.0,
            "model": "mock-1",
            "usage": {"input_tokens": 120, "output_tokens": 12},
            "ttft_ms": 90.0,
        },
        {
            "kind": "tool",
            "start": t0 + 0.4,
            "end": t0 + 0.45,
            "latency_ms": 50.0,
            "tool": "get_weather",
            "arguments": {"city": "Paris"},
            "result": {"temp_c": 18, "sky": "clear"},
        },
        {
            "kind": "model",
            "start": t0 + 0.45,
            "end": t0 + 0.9,
            "latency_ms": 450.0,
            "model": "mock-1",
            "usage": {"input_tokens": 160, "output_tokens": 20},
        },
    ]


def _result(case_id: str, status: str, **kw: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "case_id": case_id,
        "status": status,
        "score": 1.0 if status == "passed" else 0.0,
        "category": "weather",
        "difficulty": "easy",
        "tags": ["weather"],
        "expected_behavior": "tool_call",
        "expected_tools": ["get_weather"],
        "model_calls": 2,
        "tool_calls": 1,
        "usage": {"input_tokens": 280, "output_tokens": 32},
        "latency_ms": 900.0,
        "cost_usd": 0.002,
        "behavior": "tool_call",
    }
    out.update(kw)
    return out


def _weather(case_id: str, ok: bool, text: str = "It is 18 °C and clear in Paris.") -> dict:
    called = "get_weather" if ok else "get_forecast"
    return _result(
        case_id,
        "passed" if ok else "failed",
        scores=[
            {
                "name": "tool_selection",
                "value": 1.0 if ok else 0.0,
                "passed": ok,
                "expected": "get_weather",
                "actual": called,
                "explanation": "" if ok else f"expected get_weather, called {called}",
            },
            {
                "name": "arguments",
                "value": 1.0,
                "passed": True,
                "parts": [{"name": "arguments.city", "value": 1.0, "passed": True}],
            },
        ],
        explanation="" if ok else f"tool_selection: expected get_weather, called {called}",
        calls=[{"name": called, "arguments": {"city": "Paris"}}],
        text=text,
        messages=[
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "tool_calls": [{"name": called, "arguments": {"city": "Paris"}, "id": "c1"}],
            },
            {"role": "tool", "name": called, "tool_call_id": "c1", "content": '{"temp_c": 18}'},
            {"role": "assistant", "content": text},
        ],
        trace=_trace(1_790_000_000.0),
    )


def make_run(root: Path) -> Path:
    """A small run with transcripts, one error, and hostile agent output."""
    run = root / "run"
    run.mkdir()
    results = [
        _weather("weather-paris", True),
        _weather("weather-lyon", False, text=f"Sorry {PAYLOAD} & <b>bold</b>"),
        _weather("weather-rome", True),
        _result(
            "refuse-delete",
            "failed",
            category=EVIL_CATEGORY,
            expected_behavior="refuse",
            expected_tools=[],
            behavior="answer",
            explanation=f"behavior: expected refuse, got answer {PAYLOAD}",
            scores=[
                {
                    "name": "behavior",
                    "value": 0.0,
                    "passed": False,
                    "expected": "refuse",
                    "actual": "answer",
                }
            ],
            text=PAYLOAD,
            tool_calls=0,
            latency_ms=300.0,
        ),
        _result(
            "weather-oslo",
            "error",
            error="ProviderError: HTTP 503",
            explanation="provider error: HTTP 503 after 3 attempts",
            latency_ms=0.0,
            cost_usd=None,
        ),
    ]
    (run / "results.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in results))
    record = {
        "run_id": "html-run",
        "suite": "html-demo",
        "agent": "mock:html",
        "started_at": "2026-11-20T09:00:00Z",
        "finished_at": "2026-11-20T09:01:00Z",
        "git_commit": "abcdef0123456789abcdef0123456789abcdef01",
        "agentgauge_version": "0.1.0",
        "case_count": 5,
    }
    (run / "run.json").write_text(json.dumps(record), encoding="utf-8")
    return run


def _render(run: Path, **kw: Any) -> str:
    gates = Gates(min_pass_rate=0.8)
    s = summarize(run, gates=gates)
    return render_html(s, iter_results(run), gates=evaluate_gates(s, gates), **kw)


def _blob(page: str) -> dict[str, Any]:
    m = re.search(r'<script type="application/json" id="ag-data">(.*?)</script>', page, re.S)
    assert m is not None
    data: dict[str, Any] = json.loads(m.group(1))
    return data


def _rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The columnar index as one dict per row (names decoded)."""
    cols, d = data["cols"], data["dict"]
    return [
        {
            "id": cols["id"][i],
            "trial": cols["trial"][i],
            "status": d["status"][cols["st"][i]],
            "category": d["cat"][cols["cat"][i]],
            "tags": [d["tag"][t] for t in cols["tags"][i]],
            "why": cols["why"][i],
            "t": cols["t"][i] if "t" in cols else i,
        }
        for i in range(data["n"])
    ]


@pytest.fixture
def run(tmp_path: Path) -> Path:
    return make_run(tmp_path)


def test_sections_and_header(run: Path) -> None:
    page = _render(run)
    assert page.startswith("<!DOCTYPE html>")
    for anchor in ("headline", "gates", "slices", "tools", "behavior", "cost", "latency", "cases"):
        assert f'<section id="{anchor}">' in page
    assert 'id="baseline"' not in page
    assert "<title>agentgauge: html-demo — html-run</title>" in page
    for text in ("mock:html", "html-run", "2026-11-20T09:00:00Z", "abcdef012345", "gate failed"):
        assert text in page
    assert "<dt>took</dt><dd>1 min 00 s</dd>" in page
    assert "pass rate" in page
    assert "error rate" in page


def test_headline_numbers_match_the_summary(run: Path) -> None:
    s = summarize(run)
    page = _render(run)
    pr = s.overall.pass_rate
    assert (pr.passed, pr.n) == (2, 4)
    assert "50.0%" in page
    assert f"[{pr.low * 100:.1f}–{pr.high * 100:.1f}] · 2/4" in page  # type: ignore[operator]
    assert "20.0%" in page  # error rate over all results
    assert "· 1/5" in page
    # the tool confusion cell: expected get_weather, called get_forecast once
    assert 'title="expected get_weather, called get_forecast: 1">1</td>' in page
    assert 'title="expected get_weather, called get_weather: 2">2</td>' in page
    # cost: 4 results reported $0.002 each
    assert "$0.0080 over 4 results" in page


def test_embedded_rows_and_transcripts(run: Path) -> None:
    data = _blob(_render(run))
    rows = _rows(data)
    assert data["n"] == 5
    assert [r["id"] for r in rows] == [
        "weather-paris",
        "weather-lyon",
        "weather-rome",
        "refuse-delete",
        "weather-oslo",
    ]
    assert [r["status"] for r in rows] == ["passed", "failed", "passed", "failed", "error"]
    assert all(r["t"] >= 0 for r in rows)  # a small run embeds every transcript
    assert rows[3]["category"] == EVIL_CATEGORY
    assert rows[1]["why"] == "tool_selection: expected get_weather, called get_forecast"
    # the row index is compact: a status, category, difficulty or tag is a number
    assert data["cols"]["st"] == [0, 1, 0, 1, 2]
    assert data["dict"]["status"] == ["passed", "failed", "error", "user_error"]
    assert data["cols"]["tags"] == [[0]] * 5
    lyon = data["details"][rows[1]["t"]]
    assert lyon["messages"][-1]["content"] == f"Sorry {PAYLOAD} & <b>bold</b>"
    assert lyon["messages"][1]["tool_calls"][0]["name"] == "get_forecast"
    assert [e["offset_ms"] for e in lyon["trace"]] == [0.0, 400.0, 450.0]
    assert lyon["trace"][1]["result"] == '{\n  "temp_c": 18,\n  "sky": "clear"\n}'
    assert data["details"][rows[4]["t"]]["error"] == "ProviderError: HTTP 503"
    scores = [(s["name"], s["depth"]) for s in lyon["scores"]]
    assert scores == [("tool_selection", 0), ("arguments", 0), ("arguments.city", 1)]


def test_untrusted_text_cannot_break_out(run: Path) -> None:
    page = _render(run)
    # only the data blob and the report's own script open or close a script element
    assert page.count("<script") == 2
    assert page.count("</script>") == 2
    assert "alert(1)" not in page.replace("\\u003c/script\\u003e\\u003cscript\\u003ealert(1)", "")
    # the category is rendered as text everywhere on the server side
    assert EVIL_CATEGORY not in page
    assert "&lt;img src=x onerror=&quot;alert(2)&quot;&gt;" in page
    doc = lxml_html.fromstring(page)
    assert doc.xpath("//img") == []
    assert [s.get("type") for s in doc.xpath("//script")] == ["application/json", None]
    assert not any(k.startswith("on") for el in doc.iter() for k in el.attrib)


def test_script_json_escapes_every_markup_character() -> None:
    text = script_json({"a": "</script><!-- & \u2028"})
    assert not set("<>&") & set(text)
    assert json.loads(text) == {"a": "</script><!-- & \u2028"}


def test_deterministic_and_no_clock_time(run: Path) -> None:
    page = _render(run)
    assert page == _render(run)
    stamps = set(re.findall(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}", page))
    assert stamps == {"2026-11-20T09:00", "2026-11-20T09:01"}


def test_no_network_references(run: Path) -> None:
    page = _render(run)
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in page
    assert "@import" not in page
    assert "url(" not in page
    doc = lxml_html.fromstring(page)
    assert doc.xpath("//link | //*[@src] | //iframe | //object") == []
    assert all(h.startswith("#") for h in doc.xpath("//@href"))


def test_latency_histogram(run: Path) -> None:
    page = _render(run)
    assert '<svg class="hist"' in page
    bins = histogram([(900.0, "passed"), (900.0, "failed"), (900.0, "passed"), (300.0, "failed")])
    assert sum(b.total for b in bins) == 4
    assert sum(b.passed for b in bins) == 2
    assert bins[0].low == 0
    assert bins[-1].high >= 900
    # one bar segment per (bin, status) present
    assert page.count('<rect class="passed"') == 1
    assert page.count('<rect class="failed"') == 2


def test_histogram_keeps_a_long_tail_in_one_overflow_bar() -> None:
    lat = [(1000.0 + i, "passed") for i in range(200)] + [(60_000.0, "error")]
    bins = histogram(lat)
    assert bins[-1].overflow
    assert (bins[-1].error, bins[-1].high) == (1, 60_000.0)
    assert bins[-2].high <= 2000  # the regular bins stop near the 99th percentile
    assert sum(b.total for b in bins) == 201
    no_tail = histogram([(1000.0, "passed"), (1500.0, "failed")])
    assert not no_tail[-1].overflow
    assert no_tail[-1].high >= 1500


def test_transcript_cap_keeps_failures_first(run: Path) -> None:
    page = _render(run, transcripts=2)
    data = _blob(page)
    carried = [r["id"] for r in _rows(data) if r["t"] >= 0]
    assert carried == ["weather-lyon", "refuse-delete"]
    assert len(data["details"]) == 2
    assert "Only 2 results carry a transcript here (2 failed or errored" in page
    assert "the first 0 passing ones); the other 3 are listed without one" in page


def test_transcript_cap_fills_up_with_passing_results(run: Path) -> None:
    # 3 results failed or errored, so a cap of 4 leaves room for the first passing one
    data = _blob(_render(run, transcripts=4))
    carried = [r["id"] for r in _rows(data) if r["t"] >= 0]
    assert carried == ["weather-paris", "weather-lyon", "refuse-delete", "weather-oslo"]
    transcript = data["details"][_rows(data)[3]["t"]]
    assert transcript["text"] == PAYLOAD


def test_confusion_matrix_keeps_the_most_frequent_tools() -> None:
    cells = [
        ConfusionCell(expected=f"t{i:02d}", actual=f"t{i:02d}", count=i + 1) for i in range(30)
    ]
    cells += [ConfusionCell(expected="t29", actual=f"x{i:02d}", count=1) for i in range(12)]
    page = confusion_matrix(cells)
    assert "Showing the 15 most frequent expected tools of 30" in page
    assert page.count('<th scope="row">') == 15
    assert '<th scope="row">t29</th>' in page  # the most frequent comes first
    assert '<th scope="row">t14</th>' not in page
    # 15 diagonal columns, 5 more called tools, then the rest summed into "other"
    assert page.count('class="rot"') == 21
    assert "other (7 tools)" in page
    assert 'title="expected t29, called other tools: 7">7</td>' in page
    assert "<h3>Most frequent confusions</h3>" in page


def test_small_confusion_matrix_is_complete_and_aligned() -> None:
    cells = [
        ConfusionCell(expected="b", actual="b", count=3),
        ConfusionCell(expected="a", actual="c", count=1),
        ConfusionCell(expected="a", actual="a", count=2),
    ]
    page = confusion_matrix(cells)
    heads = re.findall(r'class="rot"><span>(\w+)</span>', page)
    assert heads == ["a", "b", "c"]  # the rows' order first, so the diagonal is a diagonal
    assert "Showing" not in page


def test_slice_tables_are_capped(tmp_path: Path) -> None:
    run = tmp_path / "many"
    run.mkdir()
    lines = [
        orjson.dumps(_result(f"c{i}", "passed", tags=[f"tag{i:02d}", "all"])) for i in range(60)
    ]
    (run / "results.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    page = _render(run)
    assert "Showing the 40 largest of 61 tag slices" in page
    assert "<td>all</td><td>60</td>" in page


def test_repeated_trials_and_an_empty_run(tmp_path: Path) -> None:
    run = tmp_path / "trials"
    run.mkdir()
    lines = [
        orjson.dumps(_result(f"c{i}", "passed" if (i + t) % 4 else "failed", trial=t))
        for t in range(3)
        for i in range(6)
    ]
    (run / "results.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    (run / "run.json").write_text(
        '{"run_id": "t", "suite": "s", "agent": "a", "started_at": "2026-01-01T00:00:00Z",'
        ' "agentgauge_version": "0.1.0", "trials": 3}',
        encoding="utf-8",
    )
    page = _render(run)
    assert "<h3>Repeated trials</h3>" in page
    assert "<tr><td>3</td><td>100.0%</td><td>33.3%</td></tr>" in page  # pass@3, pass^3
    assert "Flaky (trials disagree): <code>c0</code>" in page
    assert "<dt>trials</dt><dd>3</dd>" in page

    (run / "results.jsonl").write_bytes(b"")
    empty = _render(run)
    assert _blob(empty)["n"] == 0
    assert _blob(empty)["cols"]["id"] == []
    assert '<svg class="hist"' not in empty
    assert "No result had an expectation about which tool to call." in empty


def test_baseline_section_from_fixture_runs() -> None:
    out_new, out_base = FIXTURES / "new", FIXTURES / "base"
    gates = Gates(max_regression_points=2)
    s = summarize(out_new, gates=gates)
    cmp = compare(out_base, out_new)
    page = render_html(
        s, iter_results(out_new), gates=evaluate_gates(s, gates, cmp), comparison=cmp
    )
    assert '<section id="baseline">' in page
    assert f"p = {cmp.mcnemar_p:.3g}" in page
    assert "3 fixed, 2 broken" in page
    assert '<h3 class="ko">Broken (2)</h3>' in page
    assert "<code>book-trip</code>" in page
    assert "<code>weather-lyon</code>" in page
    assert "-100.0 pts" in page  # task completion dropped


def test_snapshot_of_the_fixture_page(snapshot: Callable[[str, str], None]) -> None:
    """The page for the shared fixture runs, with the (long, static) CSS and script left out."""
    gates = Gates(min_pass_rate=0.8, max_latency_s={"p95": 3}, max_regression_points=2)
    s = summarize(FIXTURES / "new", gates=gates)
    cmp = compare(FIXTURES / "base", FIXTURES / "new")
    report = evaluate_gates(s, gates, cmp)
    page = render_html(s, iter_results(FIXTURES / "new"), gates=report, comparison=cmp)
    page = re.sub(r"<style>\n.*?</style>", "<style>…</style>", page, flags=re.S)
    page = re.sub(r"<script>\n.*?</script>", "<script>…</script>", page, flags=re.S)
    snapshot("new_vs_base.html", page.replace(str(FIXTURES), "FIXTURES"))


def test_cli_writes_the_file(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    result = CliRunner().invoke(
        report_command,
        [
            str(FIXTURES / "new"),
            "--format",
            "html",
            "-o",
            str(out),
            "--baseline",
            str(FIXTURES / "base"),
        ],
    )
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert page.endswith("</html>\n")
    assert "Against the baseline" in page


def test_write_report_dispatch(run: Path) -> None:
    import io

    buf = io.StringIO()
    write_report(run, "html", buf)
    assert "<h1>html-demo</h1>" in buf.getvalue()


# --- the page's script, run by Node.js against a minimal fake DOM ------------------------------

FAKE_DOM = HERE / "test_html_fake_dom.js"


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_script_runs_against_a_fake_dom(run: Path, tmp_path: Path) -> None:
    page_path = tmp_path / "report.html"
    page_path.write_text(_render(run), encoding="utf-8")
    proc = subprocess.run(
        ["node", str(FAKE_DOM), str(page_path)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["rows"] == 5
    assert out["count"] == "5 results"
    assert out["open"] == "row open"
    assert out["panelHidden"] is False
    detail = out["detail"]
    assert detail.startswith("weather-lyon trial 0 failed")
    assert f"Sorry {PAYLOAD} & <b>bold</b>" in detail  # shown as text, never as markup
    for needle in ("get_forecast", "Trace timing", "temp_c"):
        assert needle in detail
    assert out["afterToggle"] == [True, "row"]  # Enter on the open row closes it
    assert out["failed"] == ["weather-lyon", "refuse-delete"]
    assert out["search"] == ["weather-oslo"]
    assert out["sortedDesc"] == ["900 ms", "900 ms", "900 ms", "300 ms", "–"]
    assert out["ariaSort"] == "descending"
    # opening a case puts it in the address, closing it puts the filter back
    assert out["hashes"] == ["#case=weather-lyon&trial=0", "#cases", "#q=oslo", "#cases"]
    # opening report.html#q=refuse shows that case only
    proc = subprocess.run(
        ["node", str(FAKE_DOM), str(page_path), "#q=refuse"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"rows": ["refuse-delete"], "q": "refuse"}


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.mark.skipif(_chromium() is None, reason="no headless Chromium installed")
def test_renders_in_headless_chromium(run: Path, tmp_path: Path) -> None:
    page_path = tmp_path / "report.html"
    page_path.write_text(_render(run), encoding="utf-8")
    chromium = _chromium()
    assert chromium is not None
    proc = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            page_path.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.count('class="row"') == 5  # the script drew every row
    assert "5 results" in proc.stdout
    assert "Uncaught" not in proc.stderr
    assert proc.stdout.count("<script") == 2  # agent text drawn as text, not as elements
