"""The user's opt-ins: the flag, the environment variable and the key of the user's own config
file that let a suite run its code (``allow_suite_code``) or send the user's credentials to an
endpoint it names (``allow_suite_endpoints``). Never a setting of the suite or a run directory.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Literal

from ..errors import UserError
from ..files import read_text

__all__ = [
    "CONFIG_KEY",
    "ENDPOINTS_CONFIG_KEY",
    "ENDPOINTS_ENV_VAR",
    "ENDPOINTS_FLAG",
    "ENV_VAR",
    "FLAG",
    "allowed",
    "endpoints_allowed",
    "user_config_file",
]

#: the command-line flag and the environment variable that let a suite run its code
FLAG: Literal["--allow-suite-code"] = "--allow-suite-code"
ENV_VAR: Literal["AGENTGAUGE_ALLOW_SUITE_CODE"] = "AGENTGAUGE_ALLOW_SUITE_CODE"
#: the key of the user's config file (true, false or a list of folders)
CONFIG_KEY = "allow_suite_code"

#: the flag and the environment variable that let an endpoint a suite or run directory names
#: receive the user's credentials (``OPENAI_API_KEY`` ...)
ENDPOINTS_FLAG: Literal["--allow-suite-endpoints"] = "--allow-suite-endpoints"
ENDPOINTS_ENV_VAR: Literal["AGENTGAUGE_ALLOW_SUITE_ENDPOINTS"] = "AGENTGAUGE_ALLOW_SUITE_ENDPOINTS"
#: the key of the user's config file (true, false or a list of endpoint URLs)
ENDPOINTS_CONFIG_KEY = "allow_suite_endpoints"

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"", "0", "false", "no", "off"})


def user_config_file() -> Path:
    """``$AGENTGAUGE_CONFIG``, else ``$XDG_CONFIG_HOME/agentgauge/config.toml``, else
    ``~/.config/agentgauge/config.toml``. Never a file of the suite or of the current folder."""
    env = os.environ.get("AGENTGAUGE_CONFIG")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".config"
    return base / "agentgauge" / "config.toml"


def _config_value(key: str) -> tuple[Path, object]:
    """The user's config file and the value of ``key`` in it (False when absent)."""
    path = user_config_file()
    if not path.exists() and not path.is_symlink():
        return path, False
    text = read_text(path, str(path))  # the input limits: a FIFO, device or huge file refused
    import tomllib  # only when the user has a config file

    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        at = re.search(r"at line (\d+)", str(exc))
        where = f"{path}:{at.group(1) if at else 1}"
        why = exc if isinstance(exc, tomllib.TOMLDecodeError) else "nested too deep"
        raise UserError(f"{where}: cannot read this config file ({why})") from None
    return path, data.get(key, False)


def _env_flag(name: str) -> bool | None:
    """``$name`` as a boolean (None: not set); another value is a UserError."""
    env = os.environ.get(name)
    if env is None:
        return None
    value = env.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise UserError(f"{name}={env!r}: expected 1 or 0")


def _from_config(suite_dir: Path) -> bool:
    """Whether the user's config allows the code of suites in ``suite_dir``.

    ``allow_suite_code = true`` allows every suite; a list of folders allows the suites inside
    one of them (``allow_suite_code = ["~/work/suites"]``).
    """
    path, value = _config_value(CONFIG_KEY)
    if isinstance(value, bool):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        here = suite_dir.resolve()
        return any(here.is_relative_to(Path(v).expanduser().resolve()) for v in value)
    raise UserError(f"{path}: {CONFIG_KEY}: expected true, false or a list of folders")


def allowed(flag: bool | None, suite_dir: Path) -> bool:
    """The user's opt-in to suite code: ``flag`` when given, else
    ``$AGENTGAUGE_ALLOW_SUITE_CODE``, else the user's config file."""
    if flag is not None:
        return flag
    env = _env_flag(ENV_VAR)
    return env if env is not None else _from_config(suite_dir)


def endpoints_allowed(flag: bool | None) -> bool | tuple[str, ...]:
    """The user's opt-in to endpoints a suite or run directory names: ``flag`` when given, else
    ``$AGENTGAUGE_ALLOW_SUITE_ENDPOINTS``, else ``allow_suite_endpoints`` of the user's config
    file — true, false, or a list of endpoint URLs (``["http://gpu-box:8000/v1"]``) that may
    receive the credentials whoever names them."""
    if flag is not None:
        return flag
    env = _env_flag(ENDPOINTS_ENV_VAR)
    if env is not None:
        return env
    path, value = _config_value(ENDPOINTS_CONFIG_KEY)
    if isinstance(value, bool):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise UserError(
        f"{path}: {ENDPOINTS_CONFIG_KEY}: expected true, false or a list of endpoint URLs"
    )
