"""A throwaway PKI for the TLS tests, made with the openssl command line: two CAs (``test-ca``
and ``other-ca``), a server certificate for 127.0.0.1 (``receiver``) and two client
certificates (``agentgauge-client`` of test-ca, ``stranger`` of other-ca), EC P-256 keys, valid
two days; ``encrypted.key`` is agentgauge-client's key under a password."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def _key(name: str, cwd: Path) -> None:
    _openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
             "-out", f"{name}.key", cwd=cwd)  # fmt: skip


def _signed(name: str, ca: str, ext: str, cwd: Path) -> None:
    """``name.key`` / ``name.pem``: a certificate for CN=name signed by ``ca``."""
    _key(name, cwd)
    _openssl("req", "-new", "-key", f"{name}.key", "-subj", f"/CN={name}", "-out", f"{name}.csr",
             cwd=cwd)  # fmt: skip
    (cwd / f"{name}.ext").write_text(ext)
    _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
             "-CAcreateserial", "-days", "2", "-extfile", f"{name}.ext", "-out", f"{name}.pem",
             cwd=cwd)  # fmt: skip


def _ca(name: str, cwd: Path) -> None:
    _key(name, cwd)
    _openssl("req", "-x509", "-new", "-key", f"{name}.key", "-subj", f"/CN={name}", "-days", "2",
             "-out", f"{name}.pem", cwd=cwd)  # fmt: skip


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("pki")
    _ca("test-ca", d)
    _ca("other-ca", d)
    server_ext = "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n"
    client_ext = "extendedKeyUsage=clientAuth\n"
    _signed("receiver", "test-ca", server_ext, d)
    _signed("agentgauge-client", "test-ca", client_ext, d)
    _signed("stranger", "other-ca", client_ext, d)
    _openssl("pkey", "-in", "agentgauge-client.key", "-aes256", "-passout", "pass:secret",
             "-out", "encrypted.key", cwd=d)  # fmt: skip
    return d
