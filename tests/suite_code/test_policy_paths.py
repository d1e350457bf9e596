"""Paths a run directory names, and the files agentgauge writes in one, stay inside it: a crafted
matrix.json member folder (absolute, ``..``, a symlink out), a symlink or FIFO planted in place of
results.jsonl, the lock, summary.json or the merge's staging folder are refused; ``merge``
refuses result lines for trials or cases the run does not have.

Each test failed on the code before (a resume wrote results, run.json and the lock outside the
matrix folder; appended to the file a symlink pointed at; merge wrote 81 results for 80 pairs).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import orjson
import pytest
from policy_helpers import invoke, suite_file

from agentgauge.errors import PathRefused, UserError
from agentgauge.metrics import write_summary
from agentgauge.rundir import RESULTS_FILE, merge_runs


def _matrix(tmp_path: Path, cases: int = 2) -> Path:
    """A finished matrix of two mock members, the second one marked as not started."""
    path = suite_file(tmp_path / "s", "", cases=cases)
    out = tmp_path / "m"
    code, text = invoke("run", str(path), "-o", str(out), "--no-progress", "--no-cache",
                        "--agent", "a=mock:", "--agent", "b=mock:echo")  # fmt: skip
    assert code == 0, text
    return out


def _edit(out: Path, **member: object) -> None:
    manifest = json.loads((out / "matrix.json").read_text())
    manifest["members"][1].update({"state": "pending", **member})
    (out / "matrix.json").write_text(json.dumps(manifest, indent=2))


@pytest.mark.parametrize("where", ["absolute", "dotdot", "nested-dotdot"])
def test_a_crafted_member_run_dir_never_makes_resume_write_outside(
    tmp_path: Path, where: str
) -> None:
    out = _matrix(tmp_path)
    victim = tmp_path / "victim"
    rel = {"absolute": str(victim), "dotdot": "../victim", "nested-dotdot": "b/../../victim"}
    _edit(out, run_dir=rel[where])
    code, text = invoke("run", "--resume", str(out), "--no-progress")
    assert code == 2, text
    line = text.splitlines()[0]
    assert line.startswith(f"{out}/matrix.json:"), line
    assert ": members[1].run_dir: refused: " in line
    assert not victim.exists()


def test_a_member_folder_that_is_a_symlink_out_is_refused(tmp_path: Path) -> None:
    out = _matrix(tmp_path)
    victim = tmp_path / "victim"
    victim.mkdir()
    _edit(out, run_dir="c")
    (out / "c").symlink_to(victim)
    code, text = invoke("run", "--resume", str(out), "--no-progress")
    assert code == 2, text
    assert "members[1].run_dir: refused: 'c' resolves to" in text
    assert list(victim.iterdir()) == []


@pytest.mark.parametrize("label", ["../victim", "/tmp/x", "a/b", ".hidden"])
def test_a_crafted_member_label_is_refused(tmp_path: Path, label: str) -> None:
    out = _matrix(tmp_path)
    _edit(out, label=label)
    code, text = invoke("run", "--resume", str(out), "--no-progress")
    assert code == 2, text
    assert "members[1].label: refused:" in text
    assert not (tmp_path / "victim").exists()


def _interrupted(tmp_path: Path) -> Path:
    path = suite_file(tmp_path / "s", "", cases=2)
    run_dir = tmp_path / "run"
    code, text = invoke("run", str(path), "--agent", "mock:", "-o", str(run_dir),
                        "--no-progress", "--no-cache")  # fmt: skip
    assert code == 0, text
    first = (run_dir / RESULTS_FILE).read_text().splitlines(keepends=True)[0]
    (run_dir / RESULTS_FILE).unlink()
    return run_dir, first  # type: ignore[return-value]


@pytest.mark.parametrize("name", [RESULTS_FILE, ".agentgauge.lock", "summary.json"])
def test_a_symlink_planted_in_a_run_dir_is_never_written_through(tmp_path: Path, name: str) -> None:
    run_dir, first = _interrupted(tmp_path)
    (run_dir / RESULTS_FILE).write_text(first)
    victim = tmp_path / "bashrc"
    victim.write_text("export PATH=$HOME/bin:$PATH  # no newline at the end")
    (run_dir / name).unlink(missing_ok=True)
    (run_dir / name).symlink_to(victim)
    code, text = invoke("run", "--resume", str(run_dir), "--no-progress")
    assert code == 2, text
    assert f"{run_dir / name}: refused: a symlink" in text
    assert victim.read_text() == "export PATH=$HOME/bin:$PATH  # no newline at the end"


@pytest.mark.parametrize("name", [RESULTS_FILE, ".agentgauge.lock"])
def test_a_fifo_in_a_run_dir_is_refused_without_hanging(tmp_path: Path, name: str) -> None:
    run_dir, first = _interrupted(tmp_path)
    (run_dir / RESULTS_FILE).write_text(first)
    (run_dir / name).unlink(missing_ok=True)
    os.mkfifo(run_dir / name)
    code, text = invoke("run", "--resume", str(run_dir), "--no-progress")
    assert code == 2, text
    assert f"{run_dir / name}" in text
    assert "not a regular file" in text


def test_run_json_is_replaced_through_a_new_temporary_file(tmp_path: Path) -> None:
    """A ``run.json.tmp`` planted as a symlink (the old fixed temporary name) is not written
    through: the temporary file is a new one of a name of its own."""
    run_dir, first = _interrupted(tmp_path)
    (run_dir / RESULTS_FILE).write_text(first)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (run_dir / "run.json.tmp").symlink_to(victim)
    code, text = invoke("run", "--resume", str(run_dir), "--no-progress")
    assert code == 0, text
    assert victim.read_text() == "keep me"
    assert not any(p.name.endswith(".tmp") and p.name != "run.json.tmp" for p in run_dir.iterdir())


def test_summary_json_is_written_only_as_a_regular_file(tmp_path: Path) -> None:
    run_dir, first = _interrupted(tmp_path)
    (run_dir / RESULTS_FILE).write_text(first)
    (run_dir / "summary.json").unlink(missing_ok=True)
    (run_dir / "summary.json").mkdir()
    with pytest.raises(PathRefused, match="a folder, not a regular file"):
        write_summary(run_dir, record=False)
    (run_dir / "summary.json").rmdir()
    assert write_summary(run_dir, record=False).is_file()  # the good case


# ------------------------------------------------------------------------------ merge


def _shards(tmp_path: Path, n: int = 2, cases: int = 8) -> list[Path]:
    path = suite_file(tmp_path / "s", "", cases=cases)
    dirs = []
    for i in range(1, n + 1):
        d = tmp_path / f"shard{i}"
        code, text = invoke("run", str(path), "--agent", "mock:", "-o", str(d), "--no-progress",
                            "--no-cache", "--shard", f"{i}/{n}", "--trials", "2")  # fmt: skip
        assert code == 0, text
        dirs.append(d)
    return dirs


def _append(d: Path, **fields: object) -> None:
    line = orjson.loads((d / RESULTS_FILE).read_bytes().splitlines()[0])
    line.update(fields)
    with open(d / RESULTS_FILE, "ab") as fh:
        fh.write(orjson.dumps(line) + b"\n")


def test_merge_refuses_a_trial_the_run_does_not_have(tmp_path: Path) -> None:
    dirs = _shards(tmp_path)
    _append(dirs[0], trial=2)
    with pytest.raises(UserError, match=r"results.jsonl:\d+: trial: 2 is not a trial of this run"):
        merge_runs(dirs, tmp_path / "merged")
    assert not (tmp_path / "merged" / RESULTS_FILE).exists()


def test_merge_refuses_a_pair_of_another_shard_or_an_unknown_case(tmp_path: Path) -> None:
    dirs = _shards(tmp_path)
    from agentgauge.rundir import Shard

    ghost = next(f"ghost{i}" for i in range(100) if not Shard(1, 2).holds(f"ghost{i}", 0))
    _append(dirs[0], case_id=ghost, trial=0)
    with pytest.raises(UserError, match=f"case_id: '{ghost}' trial 0 does not belong to shard"):
        merge_runs(dirs, tmp_path / "merged")


def test_merge_refuses_more_pairs_than_the_run_has(tmp_path: Path) -> None:
    """81 results for 80 pairs: an unsharded run with one line for a case it does not have."""
    dirs = _shards(tmp_path, n=1, cases=40)  # 40 cases x 2 trials = 80 pairs
    _append(dirs[0], case_id="not-in-the-suite", trial=0)
    assert len((dirs[0] / RESULTS_FILE).read_bytes().splitlines()) == 81
    with pytest.raises(UserError, match=r"81 distinct \(case, trial\) pairs, but the run has 80"):
        merge_runs(dirs, tmp_path / "merged")
    assert not (tmp_path / "merged" / RESULTS_FILE).exists()


def test_merge_refuses_a_staging_symlink_and_merges_the_good_shards(tmp_path: Path) -> None:
    dirs = _shards(tmp_path)
    out = tmp_path / "merged"
    out.mkdir()
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious").write_text("keep")
    (out / ".merge-staging").symlink_to(victim)
    with pytest.raises(PathRefused, match="merge-staging: refused"):
        merge_runs(dirs, out)
    assert (victim / "precious").read_text() == "keep"
    (out / ".merge-staging").unlink()
    report = merge_runs(dirs, out)  # the good case: every pair once
    assert report.results == 16
    assert report.complete


def test_validate_lists_the_paths_a_suite_names(tmp_path: Path) -> None:
    (tmp_path / "elsewhere.jsonl").write_text('{"id": "x", "input": "hi"}\n')
    header = (
        "case_files: [../elsewhere.jsonl]\n"
        "matrix:\n  agents:\n    - 'mock:'\n    - {agent: 'mock:echo', label: echo}"
    )
    path = suite_file(tmp_path / "s", header)
    code, text = invoke("validate", str(path))
    assert code == 0, text
    listing = text[text.index("paths this suite names (3):") :].splitlines()[1:4]
    assert listing[0] == f"    {path}:5: matrix.agents[0]: writes OUT/mock/ allowed"
    assert listing[1] == f"    {path}:6: matrix.agents[1]: writes OUT/echo/ allowed"
    assert listing[2] == (
        f"    {path}:2: case_files[0]: reads {(tmp_path / 'elsewhere.jsonl').resolve()} "
        "(outside the suite's folder (read only)) allowed"
    )
    code, text = invoke("validate", str(path), "--format", "json")
    paths = json.loads(text)["suites"][0]["paths"]
    assert [(p["action"], p["verdict"]) for p in paths] == [
        ("writes", "allowed"),
        ("writes", "allowed"),
        ("reads", "allowed"),
    ]


@pytest.mark.parametrize("name", ["comparison.md", "junit.xml", "dashboard.html", "matrix.json"])
def test_the_matrix_folders_files_are_never_written_through_a_symlink(
    tmp_path: Path, name: str
) -> None:
    from agentgauge.metrics import compare_matrix
    from agentgauge.report import write_matrix_reports

    out = _matrix(tmp_path)
    comparison = compare_matrix(out)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    if name == "matrix.json":  # resumed: the manifest is rewritten
        _edit(out)  # the second member to run again: the manifest will be written
        manifest = (out / name).read_text()
        (out / name).unlink()
        (out / "real.json").write_text(manifest)
        (out / name).symlink_to(out / "real.json")
        code, text = invoke("run", "--resume", str(out), "--no-progress")
        assert code == 2, text
        assert f"{out / name}: refused: a symlink" in text
        return
    (out / name).unlink()
    (out / name).symlink_to(victim)
    with pytest.raises(PathRefused, match="refused: a symlink"):
        write_matrix_reports(out, comparison)
    assert victim.read_text() == "keep me"


def test_merge_checks_case_ids_against_the_unchanged_suite(tmp_path: Path) -> None:
    """A forged case id in place of a real one (the count stays right) is refused when the
    run's suite is there and unchanged; when it changed, the merge says it could not check."""
    dirs = _shards(tmp_path, n=1, cases=4)
    journal = dirs[0] / RESULTS_FILE
    lines = journal.read_bytes().splitlines(keepends=True)
    forged = orjson.loads(lines[-1])
    forged["case_id"] = "ghost"
    journal.write_bytes(b"".join(lines[:-1]) + orjson.dumps(forged) + b"\n")
    code, text = invoke("merge", str(dirs[0]), "-o", str(tmp_path / "merged"), "--no-history")
    assert code == 2, text
    assert f"{journal}:8: case_id: 'ghost' is not a case of the run's suite" in text
    assert not (tmp_path / "merged" / RESULTS_FILE).exists()
    suite = tmp_path / "s" / "suite.yaml"
    suite.write_text(suite.read_text().replace("name: hostile", "name: changed"))
    code, text = invoke("merge", str(dirs[0]), "-o", str(tmp_path / "merged"), "--no-history")
    assert "note: case ids not checked against the suite: the suite " in text
    assert "has changed since the runs" in text
