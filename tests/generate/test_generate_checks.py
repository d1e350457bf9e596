"""What the checks drop, and the command line: a case that cannot fail, one no agent can pass
and a conversation an agent passes without listening are dropped with the reason (shown in the
file's header and on stderr); bad input is one line and exit 2."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from generate_helpers import QUICKSTART, shop_suite

from agentgauge.generate import GenerateConfig, generate_suite
from agentgauge.generate._check import check_written
from agentgauge.suites import check_suite
from cli_process import run_agentgauge

WEAK = textwrap.dedent(
    """\
    name: weak
    tools:
      - name: get_weather
        parameters: {type: object, properties: {city: {type: string}}, required: [city]}
        simulation: {result: {temperature: 18}}
    cases:
      - id: anything-goes
        input: Hello there.
        expect: {reference: It is sunny.}
        metadata: {generate: {family: direct}}
      - id: never-told
        input: What's the weather?
        expect: {tool_calls: [{name: get_weather, arguments: {city: Quito}}]}
        user: {otherwise: Thanks., max_turns: 2}
        tags: [family:missing_fact]
        metadata: {generate: {family: missing_fact}}
      - id: told-at-once
        input: What's the weather in Quito?
        expect: {tool_calls: [{name: get_weather, arguments: {city: Quito}}]}
        user: {otherwise: Thanks., max_turns: 2}
        tags: [family:missing_fact]
        metadata:
          generate:
            family: missing_fact
            opening_call: {name: get_weather, arguments: {city: Quito}}
      - id: fine
        input: Weather in Lima, please.
        expect: {tool_calls: [{name: get_weather, arguments: {city: Lima}}]}
        metadata: {generate: {family: direct}}
    """
)


def test_cases_that_fail_a_check_are_dropped_with_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(WEAK, encoding="utf-8")
    _, dropped, _ = check_written(path, allow_code=False, satisfiable=True, seed=0)
    why = {d.case_id: (d.stage, d.reason) for d in dropped}
    assert why["anything-goes"][0] == "audit"
    assert "cannot fail" in why["anything-goes"][1]
    assert why["never-told"][0] == "oracle"  # the user never says Quito: nobody can pass it
    assert why["told-at-once"][0] == "wrong-agent"  # passed without listening to the user
    assert "guessing agent" in why["told-at-once"][1]
    assert "fine" not in why


def test_a_tool_that_always_fails_drops_its_direct_case_and_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "suite.yaml").write_text(
        textwrap.dedent(
            """\
            name: broken
            tools:
              - name: get_weather
                parameters: {type: object, properties: {city: {type: string}}, required: [city]}
                simulation: {fault: error, error: down for good}
              - name: convert_currency
                parameters:
                  type: object
                  properties: {amount: {type: number}, to_currency: {type: string}}
                  required: [amount, to_currency]
                simulation: {result: {converted: 1}}
            """
        ),
        encoding="utf-8",
    )
    result = generate_suite(folder, GenerateConfig(seed=2, families=("direct",)))
    assert [d.case_id for d in result.dropped] == ["direct-get-weather"]
    assert result.dropped[0].stage == "oracle"
    assert "# Dropped:" in result.text
    assert "direct-get-weather: oracle:" in result.text
    assert [c.id for c in result.suite.cases] == ["direct-convert-currency"]
    assert "1 of 2 generated cases written; 1 dropped." in result.text


def test_cli_writes_a_suite_that_validates_with_mutation(tmp_path: Path) -> None:
    res = run_agentgauge(
        "generate", str(QUICKSTART), "-o", str(tmp_path / "out"), "--seed", "3", cwd=tmp_path
    )
    assert res.returncode == 0, res.stderr
    assert "wrote " in res.stderr
    assert "0 dropped" in res.stderr
    written = tmp_path / "out" / "suite.yaml"
    valid = run_agentgauge("validate", "--mutate", str(written), cwd=tmp_path)
    assert valid.returncode == 0, valid.stdout + valid.stderr
    assert "0 case(s) cannot fail, 0 right transcript(s) fail" in valid.stdout
    again = run_agentgauge("generate", str(QUICKSTART), "-o", str(written), cwd=tmp_path)
    assert again.returncode == 2
    assert "exists; pass --force" in again.stderr


def test_cli_on_a_world_suite(tmp_path: Path) -> None:
    shop = shop_suite(tmp_path)
    res = run_agentgauge("generate", str(shop), "-o", str(tmp_path / "g.yaml"), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    valid = run_agentgauge("validate", "--mutate", str(tmp_path / "g.yaml"), cwd=tmp_path)
    assert valid.returncode == 0, valid.stdout
    assert "skip_write" in valid.stdout


def test_a_tools_file_is_a_source_too(tmp_path: Path) -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "lookup_invoice",
                "description": "Look up an invoice by its number.",
                "parameters": {
                    "type": "object",
                    "properties": {"invoice_number": {"type": "string"}},
                    "required": ["invoice_number"],
                },
            },
        },
        {
            "type": "function",
            "function": {
                "name": "send_reminder",
                "description": "Send a payment reminder.",
                "parameters": {
                    "type": "object",
                    "properties": {"email": {"type": "string"}, "days": {"type": "integer"}},
                    "required": ["email", "days"],
                },
            },
        },
    ]
    src = tmp_path / "tools.json"
    src.write_text(json.dumps(tools), encoding="utf-8")
    res = run_agentgauge("generate", str(src), "-o", str(tmp_path / "t.yaml"), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    check = check_suite(tmp_path / "t.yaml")
    assert check.problems == []
    assert not check.failed()
    assert check.loaded is not None
    assert len(check.loaded.suite.cases) >= 10
    # tools without a simulation answer with a stub, so every case runs as written
    assert all(t.simulation is not None for t in check.loaded.suite.tools)


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ntools:\n  - name: 3\n    parameters: []\ncases: []\n")
    cases = [
        (["generate", str(tmp_path / "nope"), "-o", "o.yaml"], "no such file"),
        (["generate", str(bad), "-o", "o.yaml"], "bad.yaml:"),
        (["generate", str(QUICKSTART), "-o", "o.yaml", "--family", "nope"], "unknown family"),
        (["generate", str(QUICKSTART), "-o", "o.yaml", "--per-family", "0"], "--per-family"),
    ]
    for args, expected in cases:
        res = run_agentgauge(*args, cwd=tmp_path)
        assert res.returncode == 2, (args, res.stderr)
        assert expected in res.stderr, res.stderr
        assert "Traceback" not in res.stderr


def test_a_python_world_needs_the_opt_in_and_runs_no_code_without_it(tmp_path: Path) -> None:
    folder = tmp_path / "pyworld"
    folder.mkdir()
    marker = tmp_path / "ran"
    (folder / "shop.py").write_text(
        f"open({str(marker)!r}, 'w').write('x')\n"
        "class Shop:\n    def __init__(self, state):\n        self.orders = state['orders']\n"
        "    def get_order(self, order_id):\n        return self.orders[order_id]\n",
        encoding="utf-8",
    )
    (folder / "suite.yaml").write_text(
        "name: py\nworld: {class: shop.py:Shop, state: {orders: {A1: {status: pending}}}}\n"
        "tools:\n  - name: get_order\n    parameters: {type: object, properties: "
        "{order_id: {type: string}}, required: [order_id]}\n",
        encoding="utf-8",
    )
    res = run_agentgauge("generate", str(folder), "-o", str(tmp_path / "p.yaml"), cwd=tmp_path)
    assert res.returncode == 2
    assert "--allow-suite-code" in res.stderr
    assert "Traceback" not in res.stderr
    assert not marker.exists()
    ok = run_agentgauge(
        "generate", str(folder), "-o", str(tmp_path / "p.yaml"), "--allow-suite-code", cwd=tmp_path
    )
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / "shop.py").is_file()  # the world's class is copied beside the suite
