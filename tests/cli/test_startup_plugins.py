"""The ``agentgauge`` process gives pydantic no plugins (issue 26, start-up; the decision is in
``agentgauge/cli/_startup.py`` and docs/running.md): an installed pydantic plugin is neither
discovered nor loaded, unless ``AGENTGAUGE_PYDANTIC_PLUGINS=1`` or the user's own
``PYDANTIC_DISABLE_PLUGINS`` hands discovery back to pydantic. A fake distribution on the path
registers the plugin; loading its module writes a marker file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from test_startup_codecache import PROBE, SUITE  # the same child (same folder)

PLUGIN = """
import os
with open(os.environ["FAKE_PLUGIN_MARKER"], "a") as fh:
    fh.write("loaded\\n")

class _Plugin:
    def new_schema_validator(self, *args, **kwargs):
        return None, None, None

plugin = _Plugin()
"""


def _site(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    dist = site / "fake_pydantic_plugin-1.0.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-pydantic-plugin\n")
    (dist / "entry_points.txt").write_text("[pydantic]\nfake = fake_pydantic_plugin:plugin\n")
    (site / "fake_pydantic_plugin.py").write_text(PLUGIN)
    return site


def _run(tmp_path: Path, name: str, **extra: str) -> tuple[dict[str, Any], bool]:
    """One ``agentgauge run`` in a child; what it imported, and whether the plugin loaded."""
    marker = tmp_path / f"{name}.marker"
    env = {**os.environ, "FAKE_PLUGIN_MARKER": str(marker)}
    env["PYTHONPATH"] = os.pathsep.join([env.get("PYTHONPATH", ""), str(_site(tmp_path))])
    env["AGENTGAUGE_HISTORY"] = str(tmp_path / "history.sqlite")
    env.pop("PYDANTIC_DISABLE_PLUGINS", None)
    env.pop("AGENTGAUGE_PYDANTIC_PLUGINS", None)
    env.update(extra)
    suite = tmp_path / "one.yaml"
    suite.write_text(SUITE)
    out = tmp_path / f"{name}.json"
    args = ["run", str(suite), "--agent", "mock:", "-o", str(tmp_path / name), "--no-cache"]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(out), *args, "--no-progress", "--no-history"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
        timeout=120,
    )
    assert out.exists(), done.stderr
    data: dict[str, Any] = json.loads(out.read_text())
    assert data["code"] == 0, done.stderr
    return data, marker.exists()


def test_the_command_line_loads_no_pydantic_plugin(tmp_path: Path) -> None:
    data, loaded = _run(tmp_path, "default")
    assert loaded is False
    assert "importlib.metadata" not in data["modules"]  # nor the scan's imports


def test_a_user_can_keep_pydantic_plugins(tmp_path: Path) -> None:
    """The check can fail: the same fake plugin is found and loaded when discovery is on."""
    data, loaded = _run(tmp_path, "kept", AGENTGAUGE_PYDANTIC_PLUGINS="1")
    assert loaded is True
    assert "importlib.metadata" in data["modules"]
    _, loaded = _run(tmp_path, "theirs", PYDANTIC_DISABLE_PLUGINS="some_other_plugin")
    assert loaded is True  # the user's own setting: pydantic discovers, skipping that one
    _, loaded = _run(tmp_path, "all off", PYDANTIC_DISABLE_PLUGINS="__all__")
    assert loaded is False


def test_the_stand_in_hands_any_other_name_to_pydantics_loader() -> None:
    """A pydantic that asks its loader for another name gets the real module's."""
    code = (
        "from agentgauge.cli import _startup\n"
        "assert _startup.skip_pydantic_plugins()\n"
        "import pydantic.plugin._loader as stand_in\n"  # imported as any module is
        "assert tuple(stand_in.get_plugins()) == ()\n"
        "from pydantic.plugin._loader import PYDANTIC_ENTRY_POINT_GROUP, get_plugins\n"
        "assert PYDANTIC_ENTRY_POINT_GROUP == 'pydantic'\n"
        "import sys; print(sys.modules['pydantic.plugin._loader'].__file__)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    env.pop("AGENTGAUGE_PYDANTIC_PLUGINS", None)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("_loader.py")
