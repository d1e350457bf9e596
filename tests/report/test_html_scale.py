"""The HTML report of a big run: one page plus a sidecar directory of case-detail chunks.

What is checked: where the page and the sidecar go and when; that every result's details are in
exactly one chunk, in order, and the page's index says where; that hostile text is escaped in
the chunks too; determinism; stale chunks of an earlier report are removed; the CLI and
``write_report`` write the sidecar; the streaming latency histogram matches the exact one.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentgauge.cli._report import command as report_command
from agentgauge.errors import UserError
from agentgauge.io import ResultsWriter, iter_results, write_record
from agentgauge.metrics import summarize
from agentgauge.report import _html_index as index_mod
from agentgauge.report import write_report
from agentgauge.report._html import sidecar_dir, write_html
from agentgauge.report._html_data import EXACT_LATENCIES, LatencyBins, histogram
from agentgauge.schema import CaseResult, RunRecord

PAYLOAD = "</script><script>alert(3)</script>"
CATEGORIES = ("orders", "refunds", "shipping", "accounts", "billing", "returns")


def hostile_index(n: int) -> int:
    """The one result of a big run whose id and reply are hostile markup."""
    return n * 7 // 10


def case_id(i: int, n: int) -> str:
    return f"case-{i:05d}" + (PAYLOAD if i == hostile_index(n) else "")


def simulated(i: int, n: int) -> CaseResult:
    """Result ``i`` of ``n``: every 5th failed, every 37th errored, one tool call and a trace."""
    status = "error" if i % 37 == 0 else "failed" if i % 5 == 0 else "passed"
    tool = "lookup_order" if status == "passed" else "cancel_order"
    reply = f"Order {i} ships tomorrow." + (f" {PAYLOAD}" if i == hostile_index(n) else "")
    lat = 100.0 + (i * 7919) % 900
    return CaseResult.model_validate(
        {
            "case_id": case_id(i, n),
            "status": status,
            "score": 1.0 if status == "passed" else 0.0,
            "category": CATEGORIES[i % len(CATEGORIES)],
            "tags": ["bench", f"shard{i % 4}"],
            "expected_tools": ["lookup_order"],
            "explanation": ""
            if status == "passed"
            else f"tool_selection: expected lookup_order, got {tool} (case {i})",
            "error": "ProviderError: HTTP 503" if status == "error" else None,
            "calls": [{"name": tool, "arguments": {"order": str(i)}, "id": f"c{i}"}],
            "text": reply,
            "messages": [
                {"role": "user", "content": f"Where is order {i}? marker-{i:05d}"},
                {"role": "assistant", "content": reply},
            ],
            "trace": [
                {
                    "kind": "model",
                    "start": 1.0,
                    "end": 1.0 + lat / 1000,
                    "latency_ms": lat,
                    "model": "mock",
                    "usage": {"input_tokens": 40, "output_tokens": 12},
                }
            ],
            "latency_ms": lat,
            "model_calls": 1,
            "tool_calls": 1,
        }
    )


def make_big_run(root: Path, n: int) -> Path:
    """A run directory of ``n`` simulated results, written with the real ResultsWriter."""
    run = root / "big"
    write_record(
        run,
        RunRecord(
            run_id="big-run",
            suite="big-suite",
            agent="mock:big",
            started_at="2026-12-01T00:00:00+00:00",
            finished_at="2026-12-01T00:05:00+00:00",
            agentgauge_version="test",
            case_count=n,
        ),
    )
    writer = ResultsWriter(run, fresh=True)
    for i in range(n):
        writer.write(simulated(i, n))
    writer.close()
    return run


def _page_data(page: str) -> dict[str, Any]:
    m = re.search(r'<script type="application/json" id="ag-data">(.*?)</script>', page, re.S)
    assert m is not None
    data: dict[str, Any] = json.loads(m.group(1))
    return data


_CHUNK = re.compile(r'agentgaugeCases\("(\w+)",(\d+),(\d+),(\[.*\])\);\n', re.S)


def _chunk(path: Path) -> tuple[str, int, int, list[dict[str, Any]]]:
    m = _CHUNK.fullmatch(path.read_text(encoding="utf-8"))
    assert m is not None, path.read_text()[:200]
    return m.group(1), int(m.group(2)), int(m.group(3)), json.loads(m.group(4))


@pytest.fixture(scope="module")
def big_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_big_run(tmp_path_factory.mktemp("scale"), 1200)


def _write(run: Path, out: Path, **kw: Any) -> Any:
    return write_html(out, summarize(run), iter_results(run), **kw)


def test_a_small_run_is_one_file(big_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    written = _write(big_run, out)  # 1,200 results: under the inline limit
    assert written.sidecar is None
    assert written.chunks == 0
    assert not sidecar_dir(out).exists()
    data = _page_data(out.read_text(encoding="utf-8"))
    assert data["n"] == 1200
    assert len(data["details"]) == 1200
    assert "chunks" not in data


def test_a_big_run_gets_a_sidecar_with_every_case(
    big_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_mod, "CHUNK_RESULTS", 100)
    out = tmp_path / "report.html"
    written = _write(big_run, out, inline_limit=1000)
    assert written.sidecar == tmp_path / "report.d"
    assert written.results == 1200
    page = out.read_text(encoding="utf-8")
    data = _page_data(page)
    assert "details" not in data
    assert "t" not in data["cols"]
    meta = data["chunks"]
    assert meta["dir"] == "report.d"
    files = sorted(p.name for p in written.sidecar.iterdir())
    assert (
        files
        == [f"cases-{k:04d}.js" for k in range(12)]
        == [f"cases-{k:04d}.js" for k in range(written.chunks)]
    )
    assert meta["starts"] == list(range(0, 1200, 100))
    assert written.sidecar_bytes == sum(p.stat().st_size for p in written.sidecar.iterdir())
    # every detail is in the chunk the index points at, at its offset, for its own case
    for k, name in enumerate(files):
        token, chunk, start, details = _chunk(written.sidecar / name)
        assert (token, chunk, start) == (meta["token"], k, meta["starts"][k])
        for j, d in enumerate(details):
            i = start + j
            assert d["messages"][0]["content"] == f"Where is order {i}? marker-{i:05d}"
            assert data["cols"]["id"][i] == case_id(i, 1200)
    assert "the 12 files in report.d/ next to this page" in page


def test_a_chunk_closes_at_its_byte_budget(
    big_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_mod, "CHUNK_BYTES", 20_000)
    written = _write(big_run, tmp_path / "r.html", inline_limit=10)
    sizes = [p.stat().st_size for p in sorted(written.sidecar.iterdir())]
    assert len(sizes) > 12  # more chunks than the 500-result limit alone would make
    assert max(sizes) < 20_000 + 3_000  # a chunk holds its budget and at most one more result
    starts = _page_data((tmp_path / "r.html").read_text())["chunks"]["starts"]
    assert starts[0] == 0
    assert starts == sorted(set(starts))
    assert starts[-1] < 1200


def test_hostile_text_is_escaped_in_the_page_and_the_chunks(big_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    written = _write(big_run, out, inline_limit=100)
    page = out.read_text(encoding="utf-8")
    assert page.count("<script") == 2
    assert page.count("</script>") == 2
    assert "alert(3)" not in page.replace("\\u003cscript\\u003ealert(3)", "")
    h = hostile_index(1200)
    assert _page_data(page)["cols"]["id"][h] == case_id(h, 1200)
    found = False
    for p in written.sidecar.iterdir():
        text = p.read_text(encoding="utf-8")
        assert not set("<>&") & set(text), p.name  # no markup character survives
        _, _, start, details = _chunk(p)
        for j, d in enumerate(details):
            if start + j == h:
                assert d["text"].endswith(PAYLOAD)
                found = True
    assert found


def test_deterministic_and_stale_chunks_removed(big_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    stale = sidecar_dir(out)
    stale.mkdir()
    (stale / "cases-0099.js").write_text("stale")
    (stale / "notes.txt").write_text("the user's own file")
    first = _write(big_run, out, inline_limit=100)
    assert not (stale / "cases-0099.js").exists()
    assert (stale / "notes.txt").exists()  # only chunk files are ever removed
    snap = {p.name: p.read_bytes() for p in first.sidecar.iterdir()}
    page = out.read_bytes()
    _write(big_run, out, inline_limit=100)
    assert out.read_bytes() == page
    assert {p.name: p.read_bytes() for p in stale.iterdir()} == snap
    # the same page written small again: the chunks go, the user's file stays
    _write(big_run, out)
    assert sorted(p.name for p in stale.iterdir()) == ["notes.txt"]


def test_cli_and_write_report_write_the_sidecar(
    big_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("agentgauge.report._html.INLINE_LIMIT", 500)
    out = tmp_path / "run.html"
    result = CliRunner().invoke(report_command, [str(big_run), "--format", "html", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert len(list((tmp_path / "run.d").iterdir())) == 3  # 1,200 results, 500 a chunk
    assert _page_data(out.read_text(encoding="utf-8"))["chunks"]["dir"] == "run.d"
    # to a stream with no file name there is nowhere to put a sidecar: capped, embedded
    import io

    buf = io.StringIO()
    write_report(big_run, "html", buf)
    data = _page_data(buf.getvalue())
    assert "chunks" not in data
    assert len(data["details"]) == 1200  # under render_html's 2,000 transcript cap


def test_streaming_latency_histogram_matches_the_exact_one() -> None:
    lat = [(50.0 + (i * 7919) % 4000, ("passed", "failed", "error")[i % 3]) for i in range(30_000)]
    lat += [(60_000.0, "error")] * 3  # a long tail
    acc = LatencyBins()
    for v, st in lat:
        acc.add(v, st)
    acc.add(0.0, "passed")  # no latency recorded: not drawn
    assert acc.approximate
    assert len(lat) > EXACT_LATENCIES
    approx, exact = acc.bins(), histogram(lat)
    # the same scale; the 99th percentile (where the overflow bar starts) is right to 1 %
    assert approx[0].high - approx[0].low == exact[0].high - exact[0].low == 200
    assert approx[-1].overflow
    assert exact[-1].overflow
    assert approx[-1].high == exact[-1].high == 60_000.0  # the slowest is exact
    assert abs(len(approx) - len(exact)) <= 1
    assert sum(b.total for b in approx) == len(lat)
    for slot in ("passed", "failed", "error"):
        assert sum(getattr(b, slot) for b in approx) == sum(getattr(b, slot) for b in exact)
    for a, e in zip(approx[:-2], exact[:-2], strict=False):
        # a 1 % bucket straddling a bar's edge may land on either side of it
        assert abs(a.total - e.total) <= 0.1 * e.total, (a, e)
    small = LatencyBins()
    for v, st in lat[:100]:
        small.add(v, st)
    assert not small.approximate
    assert small.bins() == histogram(lat[:100])


def test_no_secret_reaches_the_page_or_the_chunks(tmp_path: Path) -> None:
    from agentgauge._secrets import register

    secret = "sk-html-scale-0123456789abcdef"
    register(secret)
    run = tmp_path / "leaky"
    with ResultsWriter(run, fresh=True) as w:
        for i in range(30):
            r = simulated(i, 30)
            w.write_line(  # lines written before the key was known to be one
                r.model_copy(update={"text": f"the key is {secret}", "explanation": secret})
                .model_dump_json()
                .encode()
                + b"\n"
            )
    (run / "results.jsonl").write_text(
        (run / "results.jsonl").read_text().replace("***", secret), encoding="utf-8"
    )
    assert secret in (run / "results.jsonl").read_text()
    for limit in (1000, 5):  # one file, then a sidecar
        out = tmp_path / f"r{limit}.html"
        written = _write(run, out, inline_limit=limit)
        assert secret in str(next(iter(iter_results(run))).text)
        texts = [out.read_text(encoding="utf-8")]
        if written.sidecar is not None:
            texts += [p.read_text(encoding="utf-8") for p in written.sidecar.iterdir()]
        assert all(secret not in t for t in texts)
        assert any("the key is ***" in t for t in texts)


def test_a_file_where_the_sidecar_goes_is_a_user_error(
    big_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentgauge.cli import cli

    (tmp_path / "report.d").write_text("not a directory")
    with pytest.raises(UserError, match=r"report\.d: exists and is not a directory"):
        _write(big_run, tmp_path / "report.html", inline_limit=10)
    monkeypatch.setattr("agentgauge.report._html.INLINE_LIMIT", 10)
    out = tmp_path / "report.html"
    result = CliRunner().invoke(cli, ["report", str(big_run), "--format", "html", "-o", str(out)])
    assert result.exit_code == 2
    assert "report.d: exists and is not a directory" in result.output
    assert "Traceback" not in result.output
    assert (tmp_path / "report.d").read_text() == "not a directory"


def test_a_huge_integer_in_tool_arguments_does_not_break_the_report(tmp_path: Path) -> None:
    # results handed over from Python (a file read back has it as a float already)
    big = 2**70
    results = []
    for i in range(3):
        data = simulated(i + 1, 3).model_dump()
        data["calls"] = [{"name": "lookup_order", "arguments": {"order": big}, "id": "c"}]
        results.append(CaseResult.model_validate(data))
    run = tmp_path / "bigint"
    with ResultsWriter(run, fresh=True) as w:
        for r in results:
            w.write(r)
    summary = summarize(run)
    for limit in (10, 1):
        out = tmp_path / f"r{limit}.html"
        written = write_html(out, summary, iter(results), inline_limit=limit)
        assert written.results == 3
        texts = [out.read_text(encoding="utf-8")]
        if written.sidecar is not None:
            texts += [p.read_text(encoding="utf-8") for p in written.sidecar.iterdir()]
        assert any(f'\\"order\\": {big}' in t for t in texts)


def test_a_case_whose_details_fail_says_so_and_the_rest_is_written(
    big_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = index_mod.transcript

    def flaky(r: CaseResult) -> dict[str, Any]:
        if r.case_id == "case-00007":
            raise ValueError("odd value in case-00007")
        return real(r)

    monkeypatch.setattr(index_mod, "transcript", flaky)
    for limit in (10_000, 100):  # embedded, then in the sidecar
        out = tmp_path / f"r{limit}.html"
        written = _write(big_run, out, inline_limit=limit)
        assert written.results == 1200
        page = out.read_text(encoding="utf-8")
        data = _page_data(page)
        if written.sidecar is None:
            details = data["details"]
        else:
            details = _chunk(written.sidecar / "cases-0000.js")[3]
        assert details[7]["error"] == (
            "the report could not show this case's details (ValueError: odd value in case-00007)"
        )
        assert details[8]["messages"][0]["content"] == "Where is order 8? marker-00008"
