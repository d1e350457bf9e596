"""Calibration against human labels: kappa, weighted kappa, confusion matrix, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.errors import UserError
from agentgauge.judges import (
    Judge,
    JudgeConfig,
    LabelledExample,
    calibrate,
    cohen_kappa,
    read_labels,
    weighted_kappa,
)
from agentgauge.testing import MockProvider

EQ = ("different", "equivalent")


def test_cohen_kappa_matches_a_hand_computed_value() -> None:
    # po = 7/10; human: 5 e, 5 d; judge: 6 e, 4 d; pe = (5*6 + 5*4) / 100 = 0.5
    # kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
    pairs = (
        [("equivalent", "equivalent")] * 4
        + [("equivalent", "different")]
        + [("different", "different")] * 3
        + [("different", "equivalent")] * 2
    )
    assert cohen_kappa(pairs, EQ) == pytest.approx(0.4)
    assert cohen_kappa([("different", "different")] * 3, EQ) is None  # undefined
    assert cohen_kappa([("different", "equivalent"), ("equivalent", "different")], EQ) == -1.0


def test_weighted_kappa_matches_a_hand_computed_value() -> None:
    # quadratic weights (a-b)^2/16; observed: two off-by-one pairs -> (2/16)/5 = 0.025;
    # expected: uniform marginals -> sum (a-b)^2 over 5x5 = 100 -> 100/16/25 = 0.25
    pairs = [(1, 1), (2, 2), (3, 4), (5, 5), (4, 3)]
    assert weighted_kappa(pairs) == pytest.approx(0.9)
    assert weighted_kappa([(3, 3), (3, 3)]) is None


def _write(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _eq_row(out: str, label: str) -> dict[str, object]:
    return {
        "task": "equivalence_answer",
        "inputs": {"question": "Capital of France?", "reference": "Paris", "agent_output": out},
        "label": label,
    }


def test_calibrate_reports_agreement_and_confusion(tmp_path: Path) -> None:
    rows = [
        _eq_row("Paris.", "equivalent"),
        _eq_row("It is Paris.", "equivalent"),
        _eq_row("Lyon.", "different"),
        _eq_row("Nice.", "different"),
    ]
    verdicts = ["equivalent", "different", "different", "equivalent"]
    mock = MockProvider([json.dumps({"reasoning": "r", "verdict": v}) for v in verdicts])
    judge = Judge(mock, JudgeConfig(cache=False))
    report = anyio.run(calibrate, judge, read_labels(_write(tmp_path, rows)))
    [t] = report.tasks
    assert (t.n, t.agreement, t.kappa) == (4, 0.5, 0.0)
    assert t.confusion() == [[1, 1], [1, 1]]  # rows human (different, equivalent)
    assert len(t.disagreements) == 2


def test_calibrate_counts_judge_errors_apart(tmp_path: Path) -> None:
    rows = [_eq_row("Paris.", "equivalent"), _eq_row("Lyon.", "different")]
    mock = MockProvider(['{"reasoning": "r", "verdict": "equivalent"}', "bad", "bad"])
    report = anyio.run(
        calibrate, Judge(mock, JudgeConfig(cache=False)), read_labels(_write(tmp_path, rows))
    )
    [t] = report.tasks
    assert (t.n, t.errors, t.agreement) == (1, 1, 1.0)


def test_calibrate_scores_with_weighted_kappa(tmp_path: Path) -> None:
    rows = [
        {
            "task": "relevance",
            "inputs": {"question": "When does the museum close?", "agent_output": a},
            "label": lab,
        }
        for a, lab in [("The museum closes at 6 pm.", 5), ("Bananas.", 1), ("Museum.", 2)]
    ]
    judge = Judge.from_config(JudgeConfig(spec="mock:judge", cache=False))
    report = anyio.run(calibrate, judge, read_labels(_write(tmp_path, rows)))
    [t] = report.tasks
    assert t.labels == ("1", "2", "3", "4", "5")
    assert t.weighted_kappa is not None


def test_labels_file_problems_name_the_line(tmp_path: Path) -> None:
    bad = _write(tmp_path, [_eq_row("x", "equivalent"), _eq_row("y", "same")])
    with pytest.raises(UserError, match=r"labels.jsonl:2: label 'same' is not one of"):
        read_labels(bad)
    with pytest.raises(UserError, match="unknown judge task"):
        read_labels(_write(tmp_path, [{"task": "vibes", "inputs": {}, "label": "x"}]))
    with pytest.raises(UserError, match="1-5"):
        read_labels(_write(tmp_path, [{"task": "fluency", "inputs": {}, "label": 7}]))
    assert LabelledExample(task="fluency", inputs={}, label=3).label == 3


def test_calibrate_cli(tmp_path: Path) -> None:
    path = _write(tmp_path, [_eq_row("Paris.", "equivalent"), _eq_row("Lyon.", "different")])
    res = CliRunner().invoke(cli, ["calibrate", "--labels", str(path), "--judge", "mock:judge"])
    assert res.exit_code == 0, res.output
    assert "equivalence_answer: n=2 agreement=1.000 kappa=1.000" in res.output
    res = CliRunner().invoke(
        cli, ["calibrate", "--labels", str(path), "--judge", "mock:judge", "--json"]
    )
    data = json.loads(res.output)
    assert data["tasks"][0]["confusion"] == [[1, 0], [0, 1]]
    res = CliRunner().invoke(
        cli, ["calibrate", "--labels", str(tmp_path / "no.jsonl"), "--judge", "mock:judge"]
    )
    assert res.exit_code == 2
    assert "cannot read labels" in res.output


def test_calibrate_warns_when_kappa_is_below_the_threshold(tmp_path: Path) -> None:
    rows = [
        _eq_row("Paris.", "equivalent"),
        _eq_row("It is Paris.", "equivalent"),
        _eq_row("Lyon.", "different"),
        _eq_row("Nice.", "different"),
    ]
    verdicts = ["equivalent", "different", "different", "equivalent"]  # kappa 0.0
    mock = MockProvider([json.dumps({"reasoning": "r", "verdict": v}) for v in verdicts])
    report = anyio.run(
        calibrate, Judge(mock, JudgeConfig(cache=False)), read_labels(_write(tmp_path, rows))
    )
    [warning] = report.low_agreement(0.6)
    assert warning.startswith("equivalence_answer: kappa 0.000 is below 0.6")
    assert report.low_agreement(-0.5) == []


def test_calibrate_cli_warns_on_low_kappa(tmp_path: Path) -> None:
    path = _write(tmp_path, [_eq_row("Paris.", "equivalent"), _eq_row("Lyon.", "different")])
    args = ["calibrate", "--labels", str(path), "--judge", "mock:judge"]
    ok = CliRunner().invoke(cli, args)
    assert "warning:" not in ok.output  # kappa 1.0 meets the default 0.6
    # an unreachable threshold: the same perfect judge is flagged
    res = CliRunner().invoke(cli, [*args, "--min-kappa", "1", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["warnings"] == []  # 1.0 is not below 1
    bad = [_eq_row("Paris.", "different"), _eq_row("Lyon.", "equivalent")]
    flipped = CliRunner().invoke(
        cli, ["calibrate", "--labels", str(_write(tmp_path, bad)), "--judge", "mock:judge"]
    )
    assert "warning: equivalence_answer: kappa" in flipped.output
