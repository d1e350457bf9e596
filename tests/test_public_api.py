"""The public surface: curated, lazily imported, and free of vendor SDK imports."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import agentgauge

PUBLIC_PACKAGES = [
    "agentgauge",
    "agentgauge.schema",
    "agentgauge.io",
    "agentgauge.files",
    "agentgauge.formats",
    "agentgauge.suites",
    "agentgauge.rundir",
    "agentgauge.importers",
    "agentgauge.exchange",
    "agentgauge.providers",
    "agentgauge.scoring",
    "agentgauge.runner",
    "agentgauge.metrics",
    "agentgauge.load",
    "agentgauge.report",
    "agentgauge.judges",
    "agentgauge.testing",
]


def test_lazy_exports_match_all() -> None:
    assert set(agentgauge._EXPORTS) | {"__version__"} == set(agentgauge.__all__)


def test_every_exported_name_resolves() -> None:
    for package in PUBLIC_PACKAGES:
        module = importlib.import_module(package)
        for name in module.__all__:
            assert getattr(module, name) is not None, f"{package}.{name}"


def test_no_private_names_exported() -> None:
    for package in PUBLIC_PACKAGES:
        module = importlib.import_module(package)
        leaked = [n for n in module.__all__ if n.startswith("_") and n != "__version__"]
        assert leaked == [], f"{package} exports private names {leaked}"


def test_unknown_attribute_raises() -> None:
    with pytest.raises(AttributeError, match="no_such_thing"):
        _ = agentgauge.no_such_thing  # type: ignore[attr-defined]


def test_importing_does_not_import_vendor_sdks_or_heavy_runtimes() -> None:
    code = (
        "import sys, agentgauge, agentgauge.cli, agentgauge.schema, agentgauge.providers;"
        "agentgauge.Suite;"
        "heavy = [m for m in ('openai', 'anthropic', 'google.genai', 'llama_cpp', 'onnxruntime',"
        " 'numpy', 'scipy') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_cli_help_does_not_import_pydantic() -> None:
    code = (
        "import sys; from agentgauge.cli import cli;"
        "import click.testing; r = click.testing.CliRunner().invoke(cli, ['--help']);"
        "print(r.exit_code, 'pydantic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "False"]
