"""Sending traces the way the OpenTelemetry SDKs do: protobuf by default, the OTEL_EXPORTER_OTLP_*
environment, a timeout that holds against a hanging receiver, and no header value in any error."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from agentgauge.cli import cli
from agentgauge.errors import MissingExtraError, UserError
from otlp_receiver import Receiver, attrs, receiver_factory

__all__ = ["receiver_factory"]  # the fixture, imported for pytest

SUITE = """
name: weather
tools:
  - name: get_weather
    description: Current weather for a city.
    parameters:
      type: object
      properties: {city: {type: string}}
      required: [city]
    simulation: {result: {temp_c: 18}}
cases:
  - id: paris
    input: Weather in Paris?
    expect:
      tool_calls: [{name: get_weather, arguments: {city: Paris}}]
"""
SCRIPT = [
    {"calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
    {"text": "18 degrees in Paris."},
]
_OTEL_VARS = [
    f"OTEL_EXPORTER_OTLP_{signal}{name}"
    for signal in ("", "TRACES_")
    for name in ("ENDPOINT", "HEADERS", "TIMEOUT", "PROTOCOL", "COMPRESSION", "CERTIFICATE")
]


@pytest.fixture(autouse=True)
def _clean_otel_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in [*_OTEL_VARS, "AGENTGAUGE_OTEL_ENDPOINT"]:
        monkeypatch.delenv(var, raising=False)


def _cli(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), env=env)


def _run(tmp_path: Path, *extra: str, env: dict[str, str] | None = None) -> tuple[Path, Result]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "suite.yaml").write_text(SUITE)
    script = tmp_path / "script.jsonl"
    script.write_text("".join(json.dumps(x) + "\n" for x in SCRIPT))
    run_dir = tmp_path / "run"
    result = _cli(
        "run", str(tmp_path / "suite.yaml"), "--agent", f"mock:{script}", "-o", str(run_dir),
        "--no-cache", "--no-history", *extra, env=env,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return run_dir, result


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return _run(tmp_path)[0]


def test_protobuf_is_the_default_body_decoded_by_the_official_classes(
    run_dir: Path, receiver_factory: Any
) -> None:
    receiver: Receiver = receiver_factory()
    result = _cli("export-otel", str(run_dir), "--endpoint", receiver.url)
    assert result.exit_code == 0, result.output
    (request,) = receiver.requests
    assert request.headers["content-type"] == "application/x-protobuf"
    names = sorted(s["name"] for s in receiver.spans())
    assert names[0].startswith("chat")
    assert names[-1].startswith("invoke_agent mock:")
    root = next(s for s in receiver.spans() if "parentSpanId" not in s)
    assert attrs(root)["agentgauge.case.id"] == "paris"
    assert (len(root["traceId"]), len(root["spanId"])) == (32, 16)


def test_the_sdk_environment_names_the_endpoint_headers_protocol_and_compression(
    run_dir: Path, receiver_factory: Any
) -> None:
    receiver: Receiver = receiver_factory()
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,  # a base URL: /v1/traces is appended
        "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer%20tok,x-team=red%2C%20blue",
    }
    result = _cli("export-otel", str(run_dir), env=env)
    assert result.exit_code == 0, result.output
    assert "exported 4 span(s) of run " in result.output
    request = receiver.requests[0]
    assert request.path == "/v1/traces"
    assert request.headers["authorization"] == "Bearer tok"  # percent-decoded
    assert request.headers["x-team"] == "red, blue"
    assert "tok" not in result.output
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9",  # the traces' own variable wins
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"{receiver.url}/custom/path",  # used as is
        "OTEL_EXPORTER_OTLP_HEADERS": "authorization=general",
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "authorization=traces",
        "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
        "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
    }
    result = _cli("export-otel", str(run_dir), env=env)
    assert result.exit_code == 0, result.output
    request = receiver.requests[1]
    assert request.path == "/custom/path"
    assert request.headers["authorization"] == "traces"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["content-encoding"] == "gzip"
    assert request.doc["resourceSpans"]  # the receiver decompressed and read it


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"OTEL_EXPORTER_OTLP_PROTOCOL": "thrift"}, "OTEL_EXPORTER_OTLP_PROTOCOL: expected one of"),
        ({"OTEL_EXPORTER_OTLP_COMPRESSION": "br"}, "OTEL_EXPORTER_OTLP_COMPRESSION: expected"),
        ({"OTEL_EXPORTER_OTLP_TIMEOUT": "soon"}, "OTEL_EXPORTER_OTLP_TIMEOUT: expected a positive"),
        ({"OTEL_EXPORTER_OTLP_HEADERS": "a=1,broken"}, "OTEL_EXPORTER_OTLP_HEADERS: entry 2:"),
        ({"OTEL_EXPORTER_OTLP_HEADERS": "x=ab%0D%0AHost: evil"}, "entry 1 (x): the value holds"),
        ({"OTEL_EXPORTER_OTLP_HEADERS": "x=%C3%A9vil"}, "entry 1 (x): the value is not ASCII"),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "ftp://u:pw@h/"}, "expected an http:// or https:// URL"),
    ],
)
def test_a_bad_setting_is_one_line_exit_2(run_dir: Path, env: dict[str, str], message: str) -> None:
    result = _cli("export-otel", str(run_dir), "--endpoint", "http://127.0.0.1:9", env=env)
    if "ENDPOINT" in next(iter(env)):
        result = _cli("export-otel", str(run_dir), env=env)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert "Traceback" not in result.output
    assert "evil" not in result.output
    assert "pw" not in result.output


def test_a_refusing_receiver_never_gets_a_header_value_printed(
    run_dir: Path, receiver_factory: Any
) -> None:
    receiver: Receiver = receiver_factory("refuse")  # 401, its body echoes every header
    env = {"OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer%20s3c,x-api-key=k7%2Fq"}
    result = _cli("export-otel", str(run_dir), "--endpoint", receiver.url, env=env)
    assert result.exit_code == 2
    assert "OTLP export failed: HTTP 401" in result.output
    assert receiver.requests[0].headers["authorization"] == "Bearer s3c"  # it was sent
    for value in ("s3c", "k7/q", "k7%2Fq", "k7%2fq"):
        assert value not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_hanging_receiver_is_given_the_timeout_and_no_more(
    tmp_path: Path, receiver_factory: Any
) -> None:
    run_dir = _run(tmp_path / "a")[0]
    receiver: Receiver = receiver_factory("hang")
    result = _cli("export-otel", str(run_dir), "--endpoint", receiver.url, "--timeout", "0.5")
    assert result.exit_code == 2
    assert result.output.strip().endswith("OTLP export failed: no answer within 0.5 s (timeout "
                                          "from --timeout)")  # fmt: skip
    env = {"OTEL_EXPORTER_OTLP_TIMEOUT": "300"}  # milliseconds, as the specification says
    result = _cli("export-otel", str(run_dir), "--endpoint", receiver.url, env=env)
    assert result.exit_code == 2
    assert "no answer within 0.3 s (timeout from OTEL_EXPORTER_OTLP_TIMEOUT)" in result.output
    # a run's export takes the run's --timeout: the run and its summary stay
    run_dir, ran = _run(tmp_path / "b", "--otel-endpoint", receiver.url, "--timeout", "0.5")
    assert "no answer within 0.5 s" in ran.output
    assert (run_dir / "summary.json").exists()


def test_a_415_suggests_the_other_protocol(run_dir: Path, receiver_factory: Any) -> None:
    receiver: Receiver = receiver_factory("unsupported")
    result = _cli("export-otel", str(run_dir), "--endpoint", receiver.url)
    assert result.exit_code == 2
    assert "HTTP 415" in result.output
    assert "try --protocol http/json" in result.output
    result = _cli(
        "export-otel", str(run_dir), "--endpoint", receiver.url, "--protocol", "http/json"
    )
    assert result.exit_code == 0, result.output


def test_protobuf_without_the_extra_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentgauge.exchange._otlp_send import encode_request

    monkeypatch.setitem(sys.modules, "opentelemetry.proto.collector.trace.v1", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'agentgauge\[otlp\]'"):
        encode_request({"resourceSpans": []}, "http/protobuf")
    body, content_type = encode_request({"resourceSpans": []}, "http/json")
    assert (body, content_type) == (b'{"resourceSpans": []}', "application/json")


def test_the_target_follows_the_specification_s_precedence() -> None:
    from agentgauge.io import otlp_target

    assert otlp_target(environ={}) is None
    t = otlp_target(environ={"OTEL_EXPORTER_OTLP_ENDPOINT": "https://h:4318/base/"})
    assert t is not None
    assert t.url == "https://h:4318/base/v1/traces"
    assert (t.protocol, t.compression, t.timeout_s) == ("http/protobuf", "none", 10.0)
    t = otlp_target(
        "http://cli:1",
        timeout_s=2.5,
        environ={
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://env/x",
            "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "7000",
        },
    )
    assert t is not None
    assert (t.url, t.timeout_s) == ("http://cli:1/v1/traces", 2.5)
    t = otlp_target(
        environ={
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://u:pw@env/x?key=v",
            "OTEL_EXPORTER_OTLP_TIMEOUT": "7000",
        }
    )
    assert t is not None
    assert (t.url, t.timeout_s) == ("http://u:pw@env/x?key=v", 7.0)
    assert t.shown == "http://env/x"  # what messages print: no credentials, no query
    with pytest.raises(UserError, match="OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"):
        otlp_target("http://h", environ={"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "-1"})


def test_output_alone_writes_the_file_only_whatever_the_environment_says(
    run_dir: Path, receiver_factory: Any, tmp_path: Path
) -> None:
    receiver: Receiver = receiver_factory()
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url}
    result = _cli("export-otel", str(run_dir), "-o", str(tmp_path / "t.json"), env=env)
    assert result.exit_code == 0, result.output
    assert receiver.requests == []
    assert (tmp_path / "t.json").is_file()
    result = _cli("export-otel", str(run_dir), "-o", str(tmp_path / "u.json"), "--endpoint",
                  receiver.url, env=env)  # fmt: skip
    assert result.exit_code == 0, result.output
    assert len(receiver.requests) == 1


def test_a_busy_receiver_is_retried_within_the_timeout(
    run_dir: Path, receiver_factory: Any
) -> None:
    flaky: Receiver = receiver_factory("flaky")  # 503 once, then 200
    result = _cli("export-otel", str(run_dir), "--endpoint", flaky.url)
    assert result.exit_code == 0, result.output
    assert len(flaky.requests) == 2
    assert flaky.spans()
    busy: Receiver = receiver_factory("unavailable")  # 503 every time
    result = _cli("export-otel", str(run_dir), "--endpoint", busy.url, "--timeout", "1")
    assert result.exit_code == 2
    assert "OTLP export failed: HTTP 503 'busy'" in result.output
    assert len(busy.requests) >= 2  # retried, and given up within the timeout
    refused: Receiver = receiver_factory("refuse")  # 401: not retried
    _cli("export-otel", str(run_dir), "--endpoint", refused.url)
    assert len(refused.requests) == 1
