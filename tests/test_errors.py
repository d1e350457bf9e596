"""The one documented exception tree: every public error class lives in agentgauge.errors."""

from __future__ import annotations

import inspect
import pkgutil
from importlib import import_module

import agentgauge
from agentgauge import errors
from agentgauge.judges import JudgeError


def test_judge_error_is_in_the_tree() -> None:
    assert JudgeError is errors.JudgeError
    assert issubclass(JudgeError, errors.ScorerError)
    assert issubclass(JudgeError, errors.AgentGaugeError)
    assert "JudgeError" in (errors.__doc__ or "")


def test_every_documented_error_is_exported() -> None:
    classes = {
        name
        for name, value in vars(errors).items()
        if inspect.isclass(value) and issubclass(value, BaseException)
    }
    assert classes == set(errors.__all__)
    for name in classes:
        assert name in (errors.__doc__ or ""), f"{name} missing from the tree in errors.py"


def test_no_public_package_defines_its_own_error_class() -> None:
    """A public package may re-export an error, but the class is defined in agentgauge.errors."""
    defined_elsewhere = []
    for info in pkgutil.iter_modules(agentgauge.__path__):
        if info.name.startswith("_") or not info.ispkg:
            continue
        package = import_module(f"agentgauge.{info.name}")
        for name in getattr(package, "__all__", ()):
            value = getattr(package, name)
            is_error = inspect.isclass(value) and issubclass(value, Exception)
            if is_error and value.__module__ != "agentgauge.errors":
                defined_elsewhere.append(f"agentgauge.{info.name}.{name}")
    assert defined_elsewhere == [], defined_elsewhere
