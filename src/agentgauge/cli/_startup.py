"""What the command line does before a command's modules import (issue 26, start-up).

Two things a library import never does, only ``agentgauge`` the command:

- the bytecode cache of the source ``dataclasses`` and ``typing`` compile (``_codecache``);
- **no pydantic plugin discovery.** pydantic looks for plugins the first time it builds a model:
  ``importlib.metadata`` (with ``email``, ``zipfile``, ``csv`` ...) and a scan of every installed
  distribution's entry points, ~3 % of a one-case run. A pydantic plugin observes the validation
  of models; in this process those are agentgauge's own records (and those of an in-process
  ``python:`` agent), which no plugin of the user's is for. So the command line gives pydantic
  an empty plugin list, in this process only (the environment is untouched: an MCP server, a
  suite's code or a worker process started from here sees the user's plugins).
  ``AGENTGAUGE_PYDANTIC_PLUGINS=1`` keeps pydantic's own discovery, and so does any
  ``PYDANTIC_DISABLE_PLUGINS`` the user set (pydantic then reads it itself).

And one thing after it, only when ``agentgauge`` is the program (:func:`exit_process`, called
by ``cli.run``, the console script and ``python -m agentgauge``; never by ``main`` itself, which
tests and other programs call in their own process): **no interpreter teardown.** Once the
command has returned, what an interpreter's exit still does that matters is done in the same
order — threads joined (a live non-daemon thread sends the exit the usual way), the ``atexit``
handlers run (OpenTelemetry exporters, the embedded model's close, ``logging``'s flush,
``weakref.finalize`` clean-ups), ``stdout`` and ``stderr`` flushed — and the process ends with
``os._exit``, without destroying every module and object one by one (a tenth of a one-case
run's exit). Every file a command writes is closed before it returns (tested).
``AGENTGAUGE_FAST_EXIT=0`` keeps the interpreter's own exit.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
import types
from typing import Any, NoReturn

from .. import _codecache

__all__ = ["begin", "end", "exit_process"]

_LOADER = "pydantic.plugin._loader"


def _no_plugins() -> tuple[()]:
    return ()


def _real_loader(name: str) -> Any:
    """Any other name of pydantic's plugin loader (a pydantic newer than this code): the real
    module is loaded in the stand-in's place and answers. (Not a dunder: the import system asks
    every module for ``__path__``.)"""
    if name.startswith("__"):
        raise AttributeError(name)
    import importlib.machinery
    import importlib.util

    import pydantic.plugin

    spec = importlib.machinery.PathFinder.find_spec(_LOADER, list(pydantic.plugin.__path__))
    if spec is None or spec.loader is None:
        raise AttributeError(name)
    module = importlib.util.module_from_spec(spec)
    sys.modules[_LOADER] = module
    spec.loader.exec_module(module)
    pydantic.plugin._loader = module  # type: ignore[attr-defined]
    return getattr(module, name)


class _NoPlugins:
    """A finder and loader of pydantic's plugin loader module, first on ``sys.meta_path``: the
    module it makes finds no plugins. (A finder, not a ``sys.modules`` entry, so the module is
    imported as any other: its package first, then set on it.)"""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> Any:
        if name != _LOADER:
            return None
        import importlib.machinery

        return importlib.machinery.ModuleSpec(name, _NoPlugins)  # type: ignore[arg-type]

    @staticmethod
    def create_module(spec: Any) -> None:
        return None  # the default module

    @staticmethod
    def exec_module(module: types.ModuleType) -> None:
        module.__doc__ = "agentgauge's stand-in: pydantic plugins off in the command line"
        module.get_plugins = _no_plugins  # type: ignore[attr-defined]
        module.__getattr__ = _real_loader  # type: ignore[method-assign]


def skip_pydantic_plugins() -> bool:
    """Put an empty plugin loader where pydantic looks for its own; False if the user keeps
    pydantic's (``AGENTGAUGE_PYDANTIC_PLUGINS=1``, ``PYDANTIC_DISABLE_PLUGINS`` set) or pydantic
    already loaded it."""
    if os.environ.get("AGENTGAUGE_PYDANTIC_PLUGINS") == "1":
        return False
    if "PYDANTIC_DISABLE_PLUGINS" in os.environ or _LOADER in sys.modules:
        return False
    if _NoPlugins not in sys.meta_path:
        sys.meta_path.insert(0, _NoPlugins)
    return True


def begin() -> None:
    """Before the command's modules import."""
    _codecache.install()
    skip_pydantic_plugins()


def end() -> None:
    """After the command: the new entries of the bytecode cache written."""
    _codecache.save()


def _other_threads() -> bool:
    """A live non-daemon thread besides this one (the interpreter's exit would wait for it)."""
    main = threading.main_thread()
    return any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate())


def _flushed() -> bool:
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        if stream is None:
            continue
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: the usual exit reports it (status 120)
            return False
    return True


def exit_process(code: str | int | None = 0) -> NoReturn:
    """End the process with ``code`` (a ``SystemExit`` code) after the parts of an interpreter's
    exit that matter, without its teardown; the usual ``sys.exit`` when that is not safe: a
    non-daemon thread still running, a code that is not a status number, a standard stream
    that cannot be flushed, or ``AGENTGAUGE_FAST_EXIT=0``."""
    status = 0 if code is None else code
    if (
        os.environ.get("AGENTGAUGE_FAST_EXIT") == "0"
        or not isinstance(status, int)
        or isinstance(status, bool)
        or _other_threads()
    ):
        sys.exit(code)
    atexit._run_exitfuncs()  # as the interpreter would, once (it empties the list)
    if not _flushed() or _other_threads():  # (a handler may have started a thread)
        sys.exit(code)
    os._exit(status & 0xFF)
