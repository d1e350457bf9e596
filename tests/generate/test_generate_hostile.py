"""A suite given to ``agentgauge generate`` is someone else's file: untrusted input. Its text
cannot break the file written from it (a line break in its name, a control character or a
terminal escape in a tool's error), the code it names is located by the suite-code rule before
anything is copied (no ``..``, no absolute path, no symlink out of its folder) and runs only with
``--allow-suite-code``, and nothing of its defaults that names code or real tools is copied."""

from __future__ import annotations

import json
import os
import re
import subprocess
import textwrap
from pathlib import Path

import pytest

from agentgauge.generate import GenerateConfig, generate_suite, write_generated
from agentgauge.suites import check_suite, load_suite
from cli_process import run_agentgauge

_TOOLS = """\
tools:
  - name: get_weather
    parameters: {type: object, properties: {city: {type: string}}, required: [city]}
    simulation: %s
  - name: convert_currency
    parameters:
      type: object
      properties: {amount: {type: number}, to_currency: {type: string}}
      required: [amount, to_currency]
    simulation: {result: {converted: 1}}
"""
#: ends the header's comment and adds keys of its own, rings the bell, retitles the terminal
EVIL_NAME = "e\\ncases: []\\ngates: {min_pass_rate: 0.0}\\n#\\x07\\e]0;pwned\\a\\u2028x"
EVIL_ERROR = "down\\ncases: []\\r\\e]0;pwned\\a"


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "AGENTGAUGE_ALLOW_SUITE_CODE"}
    return run_agentgauge(*args, cwd=cwd, env=env)


def _suite(folder: Path, head: str, sim: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "suite.yaml").write_text(head + _TOOLS % sim, encoding="utf-8")
    return folder


def test_text_from_the_source_cannot_break_the_written_file(tmp_path: Path) -> None:
    source = _suite(tmp_path / "s", f'name: "{EVIL_NAME}"\n',
                    f'{{fault: error, error: "{EVIL_ERROR}"}}')  # fmt: skip
    result = generate_suite(source, GenerateConfig(seed=1, families=("direct",)))
    assert [d.case_id for d in result.dropped] == ["direct-get-weather"]  # its tool always fails
    out = write_generated(result, tmp_path / "g.yaml")[0]
    text = out.read_text(encoding="utf-8")
    header = text.split("\n\n", 1)[0].split("\n")
    assert all(line.startswith("#") for line in header), header
    assert all(ch == "\n" or ch.isprintable() for ch in text)  # YAML refuses control characters
    check = check_suite(out)
    assert check.problems == []
    suite = load_suite(out)
    assert suite.gates is None  # the name's "gates:" stayed a part of the name
    assert suite.name.startswith("e\ncases: []")
    assert [c.id for c in suite.cases] == ["direct-convert-currency"]
    assert r"\x07" in "\n".join(header)  # shown, escaped, in the header
    # the terminal gets the reasons escaped too
    res = _cli("generate", str(source), "-o", str(tmp_path / "c.yaml"), "--family", "direct",
               cwd=tmp_path)  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "\x1b" not in res.stderr
    assert "\x07" not in res.stderr
    dropped = [ln for ln in res.stderr.splitlines() if ln.startswith("dropped:")]
    assert len(dropped) == 1
    assert "cases: []" in dropped[0]


@pytest.mark.parametrize("how", ["dotdot", "absolute", "symlink"])
def test_code_outside_the_suite_folder_is_refused_and_nothing_is_copied(
    how: str, tmp_path: Path
) -> None:
    outside = tmp_path / "a" / "evil.py"
    outside.parent.mkdir()
    outside.write_text("def weather(city):\n    return {'t': 1}\n", encoding="utf-8")
    folder = tmp_path / "a" / "b"
    ref = {"dotdot": "../evil.py:weather", "absolute": f"{outside}:weather",
           "symlink": "fakes.py:weather"}[how]  # fmt: skip
    _suite(folder, "name: s\n", f"{{function: '{ref}'}}")
    if how == "symlink":
        (folder / "fakes.py").symlink_to(outside)
    out = tmp_path / "o" / "x"
    for extra in (["--no-check"], ["--allow-suite-code"]):
        res = _cli("generate", str(folder), "-o", str(out / "g.yaml"), *extra, cwd=tmp_path)
        assert res.returncode == 2, (extra, res.stderr)
        assert len(res.stderr.strip().splitlines()) == 1, res.stderr
        assert "refused" in res.stderr
        assert "Traceback" not in res.stderr
        assert not out.exists()
        assert not (tmp_path / "o" / "evil.py").exists()  # where ../evil.py would have gone


def test_fakes_run_only_with_the_opt_in(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    folder = _suite(tmp_path / "s", "name: s\n", "{function: fakes.py:weather}")
    (folder / "fakes.py").write_text(
        f"open({str(marker)!r}, 'w').write('x')\ndef weather(city):\n    return {{'t': 1}}\n",
        encoding="utf-8",
    )
    res = _cli("generate", str(folder), "-o", str(tmp_path / "g.yaml"), cwd=tmp_path)
    assert res.returncode == 2
    assert "--allow-suite-code" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    assert not marker.exists()
    res = _cli("generate", str(folder), "-o", str(tmp_path / "n.yaml"), "--no-check", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert not marker.exists()  # written and copied, never imported
    assert (tmp_path / "fakes.py").is_file()
    res = _cli("generate", str(folder), "-o", str(tmp_path / "y.yaml"), "--allow-suite-code",
               cwd=tmp_path)  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert marker.exists()  # the opt-in does run it (so the marker above could have shown it)


def test_defaults_naming_code_or_real_tools_are_not_copied(tmp_path: Path) -> None:
    head = textwrap.dedent(
        """\
        name: s
        defaults:
          system: You are a helpful assistant.
          tool_mode: real
          agent: python:evil.py:agent
          judge: python:evil.py:judge
          user: {model: python:evil.py:user}
        scorers: [{scorer: "python:evil.py:score"}]
        """
    )
    folder = _suite(tmp_path / "s", head, "{result: {t: 1}}")
    result = generate_suite(folder, GenerateConfig(seed=0, families=("direct", "missing_fact")))
    assert result.suite.cases
    assert "python:" not in result.text
    assert "evil" not in result.text
    assert result.suite.defaults.tool_mode == "mock"  # the cases are built on the simulations
    assert result.suite.defaults.system == "You are a helpful assistant."
    assert result.suite.scorers == []


def test_case_ids_from_odd_tool_names_are_plain_slugs(tmp_path: Path) -> None:
    def tool(name: str, param: str) -> dict[str, object]:
        schema = {"type": "object", "properties": {param: {"type": "string"}}, "required": [param]}
        spec = {"name": name, "description": "Look up an order", "parameters": schema}
        return {"type": "function", "function": spec}

    names = ["get\nweather", "../../etc", "get_weather", "Ünïcode!"]
    # a tools file refuses such names (docs/tool-formats.md); a suite's own tools keep them
    src = tmp_path / "suite.json"
    tools = [tool(n, "order_id") for n in names]
    src.write_text(json.dumps({"name": "odd", "tools": tools}), encoding="utf-8")
    result = generate_suite(src, GenerateConfig(seed=0, families=("direct",)))
    ids = [c.id for c in result.suite.cases]
    assert len(ids) == len(names)
    assert all(re.fullmatch(r"[a-z0-9][a-z0-9-]*", i) for i in ids), ids  # no '/', '.', breaks
    assert len(set(ids)) == len(ids)
    out = write_generated(result, tmp_path / "g.yaml")[0]
    assert check_suite(out).problems == []


def test_odd_schemas_give_a_valid_suite_or_a_reason_never_a_crash(tmp_path: Path) -> None:
    def tool(name: str, props: dict[str, object], required: list[str] | None = None) -> object:
        schema = {"type": "object", "properties": props,
                  "required": list(props) if required is None else required}  # fmt: skip
        spec = {"name": name, "description": f"Look up thing {name}", "parameters": schema}
        return {"type": "function", "function": spec}

    tools = [
        tool("a", {"n": {"type": "integer", "minimum": 10, "maximum": 1}}),
        tool("b", {"e": {"enum": []}}),
        tool("c", {"e": {"enum": [1, "x", None, {"k": 1}, [1]]}}),
        tool("d", {"x": {"type": ["string", "null"]}}),
        tool("e", {"x": {"type": "number", "minimum": 1e308}}),
        tool(
            "f", {"x": {"type": "array", "items": {"type": "array", "items": {"type": "object"}}}}
        ),
        tool("g", {"x": {"type": "string", "minLength": 100000}}),
        tool("h", {"x": {"type": "object"}, "y": {}}),
        tool("k", {"x": {"type": "integer", "enum": [3]}}, ["x", "not_a_property"]),
    ]
    src = tmp_path / "tools.json"
    src.write_text(json.dumps(tools), encoding="utf-8")
    res = _cli("generate", str(src), "-o", str(tmp_path / "g.yaml"), cwd=tmp_path)
    assert "Traceback" not in res.stderr
    assert res.returncode == 0, res.stderr
    check = check_suite(tmp_path / "g.yaml")
    assert check.problems == []
    assert [f.format() for f in check.findings if f.severity == "error"] == []
    assert check.loaded is not None
    assert check.loaded.suite.cases


def test_code_only_the_source_cases_name_is_neither_copied_nor_required(tmp_path: Path) -> None:
    folder = _suite(tmp_path / "s", "name: s\n", "{result: {t: 1}}")
    (folder / "case_fakes.py").write_text("def weather(city):\n    return {}\n", encoding="utf-8")
    with (folder / "suite.yaml").open("a", encoding="utf-8") as f:
        f.write(
            "cases:\n  - id: own\n    input: Weather in Lima?\n"
            "    tool_results: {get_weather: {function: case_fakes.py:weather}}\n"
            "    expect: {tool_calls: [{name: get_weather, arguments: {city: Lima}}]}\n"
        )
    result = generate_suite(folder, GenerateConfig(seed=0, families=("direct", "tool_error")))
    assert result.code == []
    assert "--allow-suite-code" not in result.text
    written = write_generated(result, tmp_path / "out" / "g.yaml", source_dir=folder)
    assert written == [tmp_path / "out" / "g.yaml"]
    assert not (tmp_path / "out" / "case_fakes.py").exists()
