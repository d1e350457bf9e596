"""Mutual TLS for OTLP export, configured as the OpenTelemetry SDKs configure it
(``OTEL_EXPORTER_OTLP_[TRACES_]CLIENT_CERTIFICATE`` / ``..._CLIENT_KEY``): a receiver on
loopback that demands a client certificate gets one, signed by the test's own CA; a missing,
unusable, encrypted or mismatched certificate or key is one line naming its variable, exit 2,
never a prompt and never the key's contents. Before, the variables were not read and such a
receiver could not be reached."""

from __future__ import annotations

import json
import shutil
import ssl
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from agentgauge.cli import cli
from otlp_pki import pki
from otlp_receiver import Receiver, receiver_factory

__all__ = ["pki", "receiver_factory"]  # the fixtures, imported for pytest

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl CLI")

SUITE = """
name: mtls
cases:
  - id: hello
    input: Say hello.
    expect: {behavior: answer}
"""


@pytest.fixture
def mtls_receiver(pki: Path, receiver_factory: Any) -> Receiver:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(pki / "receiver.pem", pki / "receiver.key")
    context.load_verify_locations(pki / "test-ca.pem")
    context.verify_mode = ssl.CERT_REQUIRED  # no client certificate, no connection
    receiver: Receiver = receiver_factory(tls=context)
    return receiver


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    (tmp_path / "suite.yaml").write_text(SUITE)
    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps({"text": "Hello!"}) + "\n")
    out = tmp_path / "run"
    result = _cli("run", str(tmp_path / "suite.yaml"), "--agent", f"mock:{script}", "-o", str(out),
                  "--no-cache", "--no-history", env={})  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


def _cli(*args: str, env: dict[str, str]) -> Result:
    return CliRunner().invoke(cli, list(args), env=env)


def _export(run_dir: Path, receiver: Receiver, **env: str) -> Result:
    variables = {f"OTEL_EXPORTER_OTLP_{k}": v for k, v in env.items()}
    variables.setdefault("OTEL_EXPORTER_OTLP_TIMEOUT", "3000")
    return _cli("export-otel", str(run_dir), "--endpoint", receiver.url, "--protocol",
                "http/json", env=variables)  # fmt: skip


def _one_line_error(result: Result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert "Traceback" not in result.output
    return lines[0]


def test_the_client_certificate_and_key_reach_a_receiver_that_demands_them(
    run_dir: Path, mtls_receiver: Receiver, pki: Path
) -> None:
    result = _export(
        run_dir,
        mtls_receiver,
        CERTIFICATE=str(pki / "test-ca.pem"),
        CLIENT_CERTIFICATE=str(pki / "agentgauge-client.pem"),
        CLIENT_KEY=str(pki / "agentgauge-client.key"),
    )
    assert result.exit_code == 0, result.output
    assert mtls_receiver.client_names == ["agentgauge-client"]
    assert mtls_receiver.spans()


def test_the_traces_specific_variables_win(
    run_dir: Path, mtls_receiver: Receiver, pki: Path
) -> None:
    result = _export(
        run_dir,
        mtls_receiver,
        CERTIFICATE=str(pki / "test-ca.pem"),
        CLIENT_CERTIFICATE=str(pki / "stranger.pem"),
        CLIENT_KEY=str(pki / "stranger.key"),
        TRACES_CLIENT_CERTIFICATE=str(pki / "agentgauge-client.pem"),
        TRACES_CLIENT_KEY=str(pki / "agentgauge-client.key"),
    )
    assert result.exit_code == 0, result.output
    assert mtls_receiver.client_names == ["agentgauge-client"]


@pytest.mark.parametrize("client", [None, "stranger"])
def test_no_client_certificate_or_one_the_receiver_does_not_trust_fails_in_one_line(
    run_dir: Path, mtls_receiver: Receiver, pki: Path, client: str | None
) -> None:
    env = {"CERTIFICATE": str(pki / "test-ca.pem")}
    if client is not None:
        env |= {"CLIENT_CERTIFICATE": str(pki / f"{client}.pem"),
                "CLIENT_KEY": str(pki / f"{client}.key")}  # fmt: skip
    line = _one_line_error(_export(run_dir, mtls_receiver, **env))
    assert "OTLP export failed" in line
    assert mtls_receiver.spans() == []


def test_a_key_without_its_certificate_is_refused(
    run_dir: Path, mtls_receiver: Receiver, pki: Path
) -> None:
    line = _one_line_error(
        _export(run_dir, mtls_receiver, CLIENT_KEY=str(pki / "agentgauge-client.key"))
    )
    assert line.startswith("OTEL_EXPORTER_OTLP_CLIENT_KEY: a client key without")


@pytest.mark.parametrize(
    ("cert", "key", "variable", "message"),
    [
        ("missing.pem", "agentgauge-client.key", "CLIENT_CERTIFICATE", "no such file"),
        ("agentgauge-client.pem", "missing.key", "CLIENT_KEY", "no such file"),
        ("agentgauge-client.pem", "stranger.key", "CLIENT_CERTIFICATE", "cannot use the client"),
        ("agentgauge-client.pem", "encrypted.key", "CLIENT_CERTIFICATE", "cannot use the client"),
        ("test-ca.srl", "agentgauge-client.key", "CLIENT_CERTIFICATE", "cannot use the client"),
    ],
)
def test_an_unusable_certificate_or_key_names_its_variable_and_never_prompts(
    run_dir: Path,
    mtls_receiver: Receiver,
    pki: Path,
    cert: str,
    key: str,
    variable: str,
    message: str,
) -> None:
    result = _export(
        run_dir,
        mtls_receiver,
        CERTIFICATE=str(pki / "test-ca.pem"),
        CLIENT_CERTIFICATE=str(pki / cert),
        CLIENT_KEY=str(pki / key),
    )
    line = _one_line_error(result)
    assert line.startswith(f"OTEL_EXPORTER_OTLP_{variable}: {message}"), line
    assert "PRIVATE KEY" not in line
    assert mtls_receiver.requests == []
