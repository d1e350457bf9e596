"""The public surface of agentgauge.metrics and agentgauge.report."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest


@pytest.mark.parametrize("package", ["agentgauge.metrics", "agentgauge.report"])
def test_all_names_resolve_and_none_is_private(package: str) -> None:
    module = importlib.import_module(package)
    assert module.__all__ == sorted(module.__all__, key=lambda n: (not n.isupper(), n))
    for name in module.__all__:
        assert not name.startswith("_")
        assert getattr(module, name) is not None


def test_metrics_does_not_import_rich_or_scipy() -> None:
    code = (
        "import sys, agentgauge.metrics;"
        "print([m for m in ('rich', 'scipy', 'numpy', 'click') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
