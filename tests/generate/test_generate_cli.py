"""``agentgauge generate`` as a command: the same command gives the same bytes in another process
(another hash seed: no set or dict order leaks into the file), on the quickstart and on a world
example, and both validate and audit clean; and what is dropped is printed and written — how
many and why, one line per case."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from generate_helpers import QUICKSTART, REPO

from cli_process import run_agentgauge

BROKEN = """\
name: broken
tools:
  - name: get_weather
    description: Get the weather for a city
    parameters: {type: object, properties: {city: {type: string}}, required: [city]}
    simulation: {fault: error, error: down for good}
  - name: send_email
    description: Send an email
    parameters:
      type: object
      properties: {to: {type: string}, subject: {type: string}, body: {type: string}}
      required: [to, subject]
    simulation: {result: {sent: true}}
  - name: search_flights
    description: Search flights between two airports
    parameters:
      type: object
      properties: {origin: {type: string}, destination: {type: string}, date: {type: string}}
      required: [origin, destination, date]
    simulation: {result: [{flight: XY1}]}
"""


def _cli(*args: str, cwd: Path, hash_seed: str = "0") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    env.pop("AGENTGAUGE_SEED", None)
    return run_agentgauge(*args, cwd=cwd, env=env)


@pytest.mark.parametrize(
    "source", [QUICKSTART, REPO / "examples" / "users"], ids=["quickstart", "users"]
)
def test_same_command_same_bytes_in_another_process(source: Path, tmp_path: Path) -> None:
    outs = []
    for n, (seed, hash_seed) in enumerate((("3", "1"), ("3", "2"), ("4", "1"))):
        out = tmp_path / f"g{n}.yaml"
        res = _cli("generate", str(source), "-o", out.name, "--seed", seed, cwd=tmp_path,
                   hash_seed=hash_seed)  # fmt: skip
        assert res.returncode == 0, res.stderr
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]  # another process, another hash seed: the same file
    assert outs[0] != outs[2]  # another seed: other cases
    valid = _cli("validate", "--mutate", str(tmp_path / "g0.yaml"), cwd=tmp_path)
    assert valid.returncode == 0, valid.stdout + valid.stderr
    assert "0 case(s) cannot fail, 0 right transcript(s) fail" in valid.stdout


def test_what_is_dropped_is_printed_and_written_how_many_and_why(tmp_path: Path) -> None:
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "suite.yaml").write_text(BROKEN, encoding="utf-8")
    res = _cli("generate", "broken", "-o", "g.yaml", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    printed = [ln.removeprefix("dropped: ") for ln in res.stderr.splitlines()
               if ln.startswith("dropped: ")]  # fmt: skip
    # every case whose goal needs get_weather (always down) is dropped, and nothing else
    assert printed
    assert all(": oracle: the oracle agent does not pass it" in p for p in printed)
    assert all("down for good" in p for p in printed)
    total = re.search(r"wrote g\.yaml: (\d+) cases \(.*\); (\d+) dropped", res.stderr)
    assert total is not None, res.stderr
    assert int(total.group(2)) == len(printed)
    text = (tmp_path / "g.yaml").read_text(encoding="utf-8")
    header = text.split("\n\n", 1)[0]
    flat = " ".join(ln.lstrip("# ").strip() for ln in header.splitlines())
    n = int(total.group(1))
    assert f"{n} of {n + len(printed)} generated cases written; {len(printed)} dropped." in flat
    for p in printed:
        assert p in flat  # each reason in the file's header too
    dropped_ids = {p.split(":", 1)[0] for p in printed}
    written = set(re.findall(r"^- id: (\S+)$", text, re.MULTILINE))
    assert written
    assert not dropped_ids & written
    per_family = re.search(r"Cases per family \(written/dropped\): ([^A-Z]*)", flat)
    assert per_family is not None
    assert sum(int(d) for d in re.findall(r"\d+/(\d+)", per_family.group(1))) == len(printed)
