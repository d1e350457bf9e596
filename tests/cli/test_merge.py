"""``agentgauge run --shard i/N`` and ``agentgauge merge``: exit 0, 1 (missing), 2 (refused)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.io import iter_results
from agentgauge.metrics import read_history
from agentgauge.runner import read_record


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTGAUGE_HISTORY", str(tmp_path / "history.sqlite"))
    monkeypatch.setenv("AGENTGAUGE_CACHE_DIR", str(tmp_path / "cache"))


def _suite(tmp_path: Path) -> Path:
    cases = "\n".join(f"  - {{id: c{i:02d}, input: 'case {i}'}}" for i in range(12))
    path = tmp_path / "suite.yaml"
    path.write_text(f"name: cli-shards\ncases:\n{cases}\n")
    return path


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def test_run_shards_and_merge(tmp_path: Path) -> None:
    suite = str(_suite(tmp_path))
    dirs = []
    for i in (1, 2):
        d = tmp_path / f"s{i}"
        code, out = _run(
            "run",
            suite,
            "--agent",
            "mock:",
            "--shard",
            f"{i}/2",
            "-o",
            str(d),
            "--no-cache",
            "--no-progress",
            "--trials",
            "2",
        )
        assert code in (0, 1), out
        assert read_record(d).shard == f"{i}/2"
        dirs.append(str(d))
    merged = tmp_path / "merged"
    code, out = _run("merge", dirs[0], "-o", str(merged))
    assert code == 1  # shard 2/2 is missing
    assert "missing shard(s): 2/2" in out
    code, out = _run("merge", "--allow-missing", dirs[0], "-o", str(merged))
    assert code == 0, out
    code, out = _run("merge", *dirs, "-o", str(merged))
    assert code == 0, out
    assert out.strip() == f"merged 2 run(s) into {merged}: 24 result(s)"
    assert len(list(iter_results(merged))) == 24
    assert (merged / "summary.json").exists()
    # the history holds the merged run, never a shard (part of a run)
    rows = read_history(path=tmp_path / "history.sqlite")
    assert [(r.run_dir, r.results) for r in rows] == [(str(merged.resolve()), 24)]
    # --resume keeps the recorded shard: giving another is refused, not ignored
    code, out = _run("run", "--resume", dirs[0], "--shard", "2/2")
    assert code == 2
    assert "--shard cannot be changed on resume" in out


def test_bad_shard_and_mismatched_merge_exit_2(tmp_path: Path) -> None:
    suite = str(_suite(tmp_path))
    code, out = _run("run", suite, "--agent", "mock:", "--shard", "3/2", "-o", str(tmp_path / "x"))
    assert code == 2
    assert "give i/N with 1 <= i <= N" in out
    a, b = tmp_path / "a", tmp_path / "b"
    _run("run", suite, "--agent", "mock:", "--shard", "1/2", "-o", str(a), "--no-cache")
    _run("run", suite, "--agent", "mock:echo", "--shard", "2/2", "-o", str(b), "--no-cache")
    code, out = _run("merge", str(a), str(b), "-o", str(tmp_path / "m"))
    assert code == 2
    assert out.count("\n") == 1  # one clear line
    assert "different agents" in out
