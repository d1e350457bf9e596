"""The secret registry (``agentgauge._secrets``) and the writers that go through it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge import _secrets
from agentgauge.cli import cli
from agentgauge.io import ResultsWriter, write_record
from agentgauge.providers import ModelResponse, resolve_provider
from agentgauge.providers._cache import ResponseCache
from agentgauge.report import write_csv, write_junit
from agentgauge.schema import CaseResult, Message, RunRecord

KEY = "sk-registry-7d1e2f3a4b5c6d7e8f90"


def test_register_and_scrub_every_form() -> None:
    _secrets.register(KEY)
    assert _secrets.registered()
    assert _secrets.scrub(f"key {KEY}!") == "key ***!"
    assert _secrets.scrub_bytes(f"[{KEY}]".encode()) == b"[***]"
    odd = 'pa"ss<word>&more-1234'
    _secrets.register(odd)
    # as is, JSON-escaped (in a results line) and HTML-escaped (in the HTML report)
    assert _secrets.scrub(odd) == "***"
    assert _secrets.scrub('"pa\\"ss<word>&more-1234"') == '"***"'
    assert _secrets.scrub("pa&quot;ss&lt;word&gt;&amp;more-1234") == "***"


def test_short_values_are_not_secrets() -> None:
    _secrets.register("true", "1", "abc")
    assert _secrets.scrub("true 1 abc") == "true 1 abc"


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("OPENAI_API_KEY", True),
        ("GOOGLE_API_KEY", True),
        ("AZURE_OPENAI_AD_TOKEN", True),
        ("MYSERVICE_API_KEY", True),
        ("GITHUB_TOKEN", True),
        ("AWS_SECRET_ACCESS_KEY", True),
        ("AGENTGAUGE_JUDGE_KEY", True),
        ("AGENTGAUGE_HTTP_TOKEN", True),
        ("HOME", False),
        ("AGENTGAUGE_CACHE_DIR", False),
        ("TOKENIZERS_PARALLELISM", False),
        ("OPENAI_BASE_URL", False),
    ],
)
def test_secret_env_names(name: str, secret: bool) -> None:
    assert _secrets.is_secret_env_name(name) is secret


def test_register_env_reads_secret_named_variables() -> None:
    value = "envsecret-0a9b8c7d6e5f"
    _secrets.register_env({"SOME_VENDOR_API_KEY": value, "HOME": "/home/someone-else"})
    assert _secrets.scrub(f"{value} /home/someone-else") == "*** /home/someone-else"


def test_providers_register_the_keys_they_are_given() -> None:
    spec_key = "sk-given-in-spec-1f2e3d4c5b6a"
    resolve_provider(f"openai:m?api_key={spec_key}&base_url=http://127.0.0.1:9/v1")
    header = "hdr-credential-99aa88bb77cc"
    resolve_provider(
        "http://127.0.0.1:9/agent", headers={"X-Api-Key": header, "X-Trace": "plainvalue1"}
    )
    assert _secrets.scrub(f"{spec_key} {header} plainvalue1") == "*** *** plainvalue1"


def test_scrubbing_stream_passes_everything_else_through() -> None:
    _secrets.register(KEY)
    inner = io.StringIO()
    stream = _secrets.ScrubbingStream(inner)
    stream.write(f"a {KEY} b\n")
    stream.writelines([KEY, "\n"])
    assert inner.getvalue() == "a *** b\n***\n"
    assert stream.getvalue() == inner.getvalue()  # attributes are the inner stream's


def _result(text: str) -> CaseResult:
    return CaseResult(
        case_id="c1",
        status="failed",
        text=text,
        explanation=f"got {text!r}",
        messages=[Message(role="assistant", content=text)],
    )


def test_results_writer_cache_and_record_scrub(tmp_path: Path) -> None:
    _secrets.register(KEY)
    with ResultsWriter(tmp_path) as writer:
        line = writer.write(_result(f"the key is {KEY}"))
        writer.write_line(f'{{"replayed": "{KEY}"}}\n'.encode())
    data = (tmp_path / "results.jsonl").read_bytes()
    assert KEY.encode() not in data
    assert KEY.encode() not in line
    assert b"the key is ***" in data

    cache = ResponseCache(tmp_path / "cache")
    response = ModelResponse(message=Message(role="assistant", content=KEY), model=KEY)
    cache.put("k", response)
    cache.put_result("r", "passed", 1, KEY.encode() + b"\n")
    cached = cache.get("k")
    cache.close()
    assert cached is not None
    assert (cached.message.content, cached.model) == ("***", "***")
    assert KEY.encode() not in (tmp_path / "cache" / "responses.sqlite3").read_bytes()

    record = RunRecord(
        run_id="r", suite=KEY, agent="mock:", started_at="now", agentgauge_version="0"
    )
    write_record(tmp_path, record)
    assert KEY not in (tmp_path / "run.json").read_text()


def test_junit_and_csv_writers_scrub(tmp_path: Path) -> None:
    _secrets.register(KEY)
    # a run directory written before scrubbing existed: the reports still hide the key
    (tmp_path / "results.jsonl").write_text(_result(KEY).model_dump_json() + "\n")
    for writer in (write_junit, write_csv):
        out = io.StringIO()
        writer(tmp_path, out)
        assert KEY not in out.getvalue()
        assert "***" in out.getvalue()


def test_cli_error_lines_are_scrubbed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-cli-error-5a4b3c2d1e0f9a8b"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    missing = tmp_path / f"suite-{secret}.yaml"
    result = CliRunner().invoke(cli, ["validate", str(missing)])
    assert result.exit_code == 2
    assert "suite-***.yaml" in result.output
    assert secret not in result.output
