"""Every credential the user configured, in every form a server can echo it, stays out of
every file and the console (issue 21 item 3).

The credentials: a 5-character key in ``OPENAI_API_KEY`` (short keys used to be ignored), a key
with symbols given in the agent spec, an HTTP agent's ``?api_key=`` query value and the
password of its URL's ``user:pass@`` (sent as Basic auth), and a percent-encoded password in
``--base-url``. Loopback servers echo each credential they received raw, percent-encoded
(``quote``, ``quote_plus``), JSON- and HTML-escaped and base64-encoded (and the Basic auth
header as it came) into the answer, the ``model`` field and tool arguments. The runs, their
cache, every report format, the OpenTelemetry export, the cases captured from it and every
line printed are then searched for every form of every credential.
"""

from __future__ import annotations

import base64
import html
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import pytest
from aio_server_helpers import AioServer
from aiohttp import web
from click.testing import CliRunner

from agentgauge import _secrets
from agentgauge.cli import cli
from agentgauge.io import iter_results
from agentgauge.report import REPORT_FORMATS

SHORT_KEY = "k7Qz9"  # OPENAI_API_KEY, 5 characters
SYMBOL_KEY = 'Pw+9/Qa=Lm&<k>"x~'  # in the agent spec (percent-encoded there)
QUERY_KEY = "q9Zt2"  # ?api_key= of the HTTP agent, 5 characters
AGENT_USER, AGENT_PASSWORD = "bob", "p@ss/w0rd!"  # http://bob:p%40ss%2Fw0rd%21@...
BASE_PASSWORD = "b@se:pa55%"  # in --base-url, percent-encoded


def forms(value: str) -> set[str]:
    """The forms the servers below echo (computed here, independently of ``_secrets``)."""
    raw = value.encode()
    escaped = json.dumps(value, ensure_ascii=False)[1:-1]
    script = escaped.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
    out = {value, escaped, script, json.dumps(value)[1:-1], html.escape(value)}
    out.add(html.escape(value, quote=False))
    encoded = {quote(value, safe=""), quote(value), quote_plus(value)}
    out |= encoded | {re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), e) for e in encoded}
    for b64 in (base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()):
        out |= {b64, b64.rstrip("=")}
    return out


def echo(value: str) -> str:
    return " | ".join(sorted(forms(value)))


ALL_FORMS: dict[str, set[str]] = {
    "short key": forms(SHORT_KEY),
    "symbol key": forms(SYMBOL_KEY),
    "query key": forms(QUERY_KEY),
    "agent password": forms(AGENT_PASSWORD) | forms(f"{AGENT_USER}:{AGENT_PASSWORD}"),
    "base-url password": forms(BASE_PASSWORD),
}


def _pattern(form: str) -> re.Pattern[bytes]:
    # a 4-7 character form is looked for as a whole token (it may occur inside a hash)
    if len(form) < 8:
        return re.compile(rb"(?<![A-Za-z0-9_])" + re.escape(form.encode()) + rb"(?![A-Za-z0-9_])")
    return re.compile(re.escape(form.encode()))


def _found(data: bytes) -> list[str]:
    return [
        f"{name}: {form!r}"
        for name, values in ALL_FORMS.items()
        for form in values
        if _pattern(form).search(data)
    ]


SUITE = """\
name: echo-forms
tools:
  - name: lookup
    description: look something up
    parameters: {type: object, properties: {q: {type: string}}, required: [q]}
    simulation: {result: {found: true}}
cases:
  - id: text
    input: "mode=text"
    expect: {behavior: answer, response_contains: [echo]}
  - id: call
    input: "mode=call"
    expect: {tool_calls: [{name: lookup, arguments: {q: x}}]}
  - id: words
    input: "mode=words"
    expect: {behavior: answer, response_contains: [none]}
"""


class _Echo(AioServer):
    """An OpenAI-compatible endpoint and an HTTP agent on one loopback aiohttp app."""

    def __init__(self) -> None:
        super().__init__(
            [web.post("/v1/chat/completions", self._chat), web.post("/agent", self._agent)]
        )

    async def _chat(self, request: web.Request) -> web.Response:
        key = request.headers.get("authorization", "").removeprefix("Bearer ")
        body = await request.json()
        user = next(m for m in body["messages"] if m["role"] == "user")["content"]
        after_tool = any(m["role"] == "tool" for m in body["messages"])
        message: dict[str, Any] = {"role": "assistant", "content": f"echo {echo(key)}"}
        if "words" in user:
            message["content"] = "none of the 1 2 3 values; Test EMPTY none true"
        if "call" in user and not after_tool:
            message["tool_calls"] = [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "lookup", "arguments": json.dumps({"q": echo(key)})},
                }
            ]
        return web.json_response(
            {
                "id": "x",
                "object": "chat.completion",
                "model": f"model-{key}",
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        )

    async def _agent(self, request: web.Request) -> web.Response:
        auth = request.headers.get("authorization", "")
        pair = base64.b64decode(auth.removeprefix("Basic ")).decode() if auth else ""
        query = request.query.get("api_key", "")
        text = f"echo {auth} {echo(pair)} {echo(pair.partition(':')[2])} {echo(query)}"
        return web.json_response({"text": text, "model": f"agent-{query}"})


def _invoke(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    return result.exit_code, result.output


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENAI_API_KEY", SHORT_KEY)
    monkeypatch.setenv("AGENTGAUGE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("AGENTGAUGE_HISTORY", str(tmp_path / "history.sqlite"))
    for var in ("OPENAI_BASE_URL", "AGENTGAUGE_HTTP_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path


def _agents(url: str) -> dict[str, list[str]]:
    host = url.removeprefix("http://")
    return {
        "short-key": ["--agent", "openai:m", "--base-url", f"{url}/v1"],
        "symbol-key": [
            *("--agent", f"openai:m?api_key={quote(SYMBOL_KEY, safe='')}"),
            *("--base-url", f"{url}/v1"),
        ],
        "http-agent": [
            "--agent",
            f"http://{AGENT_USER}:{quote(AGENT_PASSWORD, safe='')}@{host}/agent"
            f"?api_key={QUERY_KEY}",
        ],
        "base-url-password": [
            "--agent",
            "openai:m",
            "--base-url",
            f"http://user:{quote(BASE_PASSWORD, safe='')}@{host}/v1",
        ],
    }


def test_every_credential_in_every_form_stays_out(env: Path) -> None:
    tmp = env
    suite = tmp / "suite.yaml"
    suite.write_text(SUITE)
    printed: list[str] = []
    with _Echo() as srv:
        for name, agent in _agents(srv.url).items():
            run_dir = tmp / "runs" / name
            args = ["run", str(suite), *agent, "-o", str(run_dir), "--no-progress"]
            code, out = _invoke([*args, "--retries", "0"])
            printed.append(out)
            assert code in (0, 1), f"{name}: exit {code}: {out}"
            code, out = _invoke([*args[:-3], "-o", str(run_dir) + "-cached", "--no-progress"])
            printed.append(out)  # the same run again: answers from the cache
    for run_dir in sorted((tmp / "runs").iterdir()):
        for fmt in REPORT_FORMATS:
            out_file = tmp / "reports" / f"{run_dir.name}.{fmt}"
            out_file.parent.mkdir(exist_ok=True)
            code, out = _invoke(["report", str(run_dir), "--format", fmt, "-o", str(out_file)])
            assert code == 0, out
            printed.append(out)
        printed.append(_invoke(["report", str(run_dir)])[1])
        otel = tmp / "otel" / f"{run_dir.name}.json"
        code, out = _invoke(["export-otel", str(run_dir), "-o", str(otel)])
        assert code == 0, out
        printed.append(out)
        printed.append(_invoke(["export-otel", str(run_dir)])[1])  # the document on stdout
        captured = tmp / "captured" / f"{run_dir.name}.jsonl"
        code, out = _invoke(
            ["capture", str(otel), "-o", str(captured), "--responses", str(captured) + ".r"]
        )
        assert code == 0, out
        printed.append(out)

    files = {
        str(p.relative_to(tmp)): hits
        for p in sorted(tmp.rglob("*"))
        if p.is_file() and p.name != "suite.yaml" and (hits := _found(p.read_bytes()))
    }
    in_output = sorted({hit for text in printed for hit in _found(text.encode())})
    total = sum(1 for p in tmp.rglob("*") if p.is_file())
    print(f"files with a credential: {len(files)} of {total}; printed: {in_output}")
    for path, hits in files.items():
        print(f"  {path}: {hits[:4]}")
    assert not files
    assert not in_output
    # the runs happened and the reports are intact: echoes replaced, ordinary words kept
    results = {r.case_id: r for r in iter_results(tmp / "runs" / "short-key")}
    assert "***" in (results["text"].text or "")
    assert results["words"].text == "none of the 1 2 3 values; Test EMPTY none true"
    assert results["words"].status == "passed"
    record = json.loads((tmp / "runs" / "base-url-password" / "run.json").read_text())
    assert record["options"]["base_url"].startswith("http://user:***@127.0.0.1:")
    agent = json.loads((tmp / "runs" / "http-agent" / "run.json").read_text())["agent"]
    assert agent.startswith(f"http://{AGENT_USER}:***@127.0.0.1:"), agent
    assert "api_key" not in agent


# ---------------------------------------------------------------------- the registry's rules


def test_every_form_of_a_long_secret_is_scrubbed() -> None:
    _secrets.register(SYMBOL_KEY)
    for form in forms(SYMBOL_KEY):
        assert _secrets.scrub(f"[{form}]") == "[***]", form
        assert _secrets.scrub_bytes(f"<{form}>".encode()) == b"<***>", form


def test_a_short_key_is_scrubbed_as_a_whole_token_only() -> None:
    _secrets.register(SHORT_KEY)
    assert _secrets.scrub(f"key {SHORT_KEY}, ({SHORT_KEY}).") == "key ***, (***)."
    assert _secrets.scrub(f'"{SHORT_KEY}"') == '"***"'
    b64 = base64.b64encode(SHORT_KEY.encode()).decode()
    assert _secrets.scrub(f"Basic {b64}") == "Basic ***"
    # inside a longer token it is someone else's text: a hash, an identifier
    assert _secrets.scrub(f"x{SHORT_KEY} {SHORT_KEY}9 a_{SHORT_KEY}") == (
        f"x{SHORT_KEY} {SHORT_KEY}9 a_{SHORT_KEY}"
    )
    line = json.dumps({"text": f"it is {SHORT_KEY}", "model": SHORT_KEY, "n": 12345})
    assert json.loads(_secrets.scrub(line)) == {"text": "it is ***", "model": "***", "n": 12345}


@pytest.mark.parametrize(
    ("value", "strength"),
    [
        ("k7Qz9", "short"),
        ("hunter2", "short"),
        ("aBcD", "short"),
        ("sk-abcdef0123456789", "long"),
        ("password", "long"),
        ("abc", None),  # 3 characters: guessed in seconds
        ("none", None),  # words and placeholders local servers get
        ("EMPTY", None),
        ("Test", None),
        ("ollama", None),
        ("sk-1234", None),
        ("12345678", None),  # numbers and punctuation: what files are made of
        ("1e10", None),
        ("--------", None),
    ],
)
def test_the_length_rule(value: str, strength: str | None) -> None:
    assert _secrets.strength(value) == strength
    _secrets.register(value)
    if strength is None:
        assert _secrets.scrub(f"a {value} b") == f"a {value} b"
    else:
        assert _secrets.scrub(f"a {value} b") == "a *** b"


def test_a_url_gives_its_password_and_query_keys() -> None:
    url = "https://bob:p%40ss%2Fw0rd@example.test/v1?api_key=q9Zt2&model=gpt&sig=SIGNATURE123"
    assert _secrets.public_url(url) == (
        "https://bob:***@example.test/v1?api_key=***&model=gpt&sig=***"
    )
    basic = base64.b64encode(b"bob:p@ss/w0rd").decode()
    text = f"p@ss/w0rd p%40ss%2Fw0rd {basic} q9Zt2 SIGNATURE123 gpt bob"
    assert _secrets.scrub(text) == "*** *** *** *** *** gpt bob"


def test_a_basic_header_gives_its_parts() -> None:
    token = base64.b64encode(b"svc:Sup3rSecret").decode()
    _secrets.register_header(f"Basic {token}")
    assert _secrets.scrub(f"{token} svc:Sup3rSecret Sup3rSecret svc") == "*** *** *** svc"


def test_files_of_an_older_run_are_scrubbed_when_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Results written before a key was scrubbed (an older version, another machine): every
    report of them, the OTel export and captured cases still leave out every form of the key
    the reporting process knows."""
    from agentgauge.rundir import write_record
    from agentgauge.schema import CaseResult, Message, RunRecord

    monkeypatch.setenv("MYSERVICE_API_KEY", SYMBOL_KEY)
    run_dir = tmp_path / "old-run"
    run_dir.mkdir()
    record = RunRecord(
        run_id="r1", suite="s", agent="openai:m", started_at="now", agentgauge_version="0"
    )
    write_record(run_dir, record)
    text = f"the key is {SYMBOL_KEY} and {quote(SYMBOL_KEY, safe='')}"
    result = CaseResult(
        case_id="c1",
        status="failed",
        score=0.0,
        text=text,
        messages=[Message(role="user", content="hi"), Message(role="assistant", content=text)],
    )
    # written as an older version would have (today's writer would scrub the key)
    (run_dir / "results.jsonl").write_text(result.model_dump_json() + "\n")
    assert _found((run_dir / "results.jsonl").read_bytes())
    printed = []
    for fmt in REPORT_FORMATS:
        out = tmp_path / f"report.{fmt}"
        code, output = _invoke(["report", str(run_dir), "--format", fmt, "-o", str(out)])
        assert code == 0, output
        printed.append(output)
        assert not _found(out.read_bytes()), (fmt, _found(out.read_bytes()))
    code, output = _invoke(["export-otel", str(run_dir), "-o", str(tmp_path / "otel.json")])
    assert code == 0, output
    assert not _found((tmp_path / "otel.json").read_bytes())
    code, output = _invoke(
        ["capture", str(tmp_path / "otel.json"), "-o", str(tmp_path / "c.jsonl")]
    )
    assert code == 0, output
    assert not _found((tmp_path / "c.jsonl").read_bytes())
    assert not [hit for text in printed for hit in _found(text.encode())]
