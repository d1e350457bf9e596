"""The results journal keeps a result whose tool arguments hold an integer beyond 64 bits."""

from __future__ import annotations

from pathlib import Path

from agentgauge.io import ResultsWriter, iter_results
from agentgauge.schema import CaseResult, ToolCall

BIG = 123456789012345678901234567890


def test_result_with_integer_beyond_64_bits_is_written(tmp_path: Path) -> None:
    big = CaseResult(
        case_id="big-ü",
        status="failed",
        calls=[ToolCall(name="météo", arguments={"n": BIG, "city": "Zürich"})],
    )
    small = CaseResult(case_id="small", status="passed")
    with ResultsWriter(tmp_path) as writer:
        writer.write(big)
        writer.write(small)
    lines = (tmp_path / "results.jsonl").read_bytes().splitlines()
    assert len(lines) == 2
    assert str(BIG).encode() in lines[0]
    read = list(iter_results(tmp_path / "results.jsonl"))
    assert [r.case_id for r in read] == ["big-ü", "small"]
    assert read[0].calls[0].arguments["city"] == "Zürich"
