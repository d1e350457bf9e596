"""BFCL's own verdicts on multi-turn result files, for the conformance tests: runs
``bfcl_eval.eval_checker.eval_runner._evaluate_single_multi_turn_entry`` (the per-entry step of
BFCL's ``multi_turn_runner``: the inference-error and force-termination checks, the decoding of
every step with the model handler's ``decode_execute``, then ``multi_turn_checker``).

    python tests/bfcl_reference_runner.py JOB.json OUT.json

JOB: ``{"fc": bool, "entries": [{"result": ..., "truth": [[call, ...], ...], "entry": {...}},
...]}`` (``entry``: the question line, with ``id``, ``involved_classes``, ``initial_config``);
OUT: per entry ``{"id", "valid", "error_type", "error_message"}``.

``eval_runner`` imports every model handler of BFCL, and those import ~30 packages (openai,
anthropic, numpy, tree-sitter ...) that ``pip install --no-deps bfcl-eval`` leaves out and the
multi-turn path never uses: in this process every third-party module a ``bfcl_eval`` module
imports, but ``mpmath``, is a stand-in, so what runs of BFCL is the same whatever else is
installed. It runs as
a child process so that the stand-ins never reach the test process.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import io
import json
import sys
import types
from pathlib import Path
from typing import Any

_REAL = {"bfcl_eval", "mpmath"}


class _StandInMeta(type):
    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _StandIn

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]  # used as a decorator
        return type.__call__(cls)


class _StandIn(metaclass=_StandInMeta):
    """Any name of a left-out package: a class, a decorator, a value with every attribute."""

    def __init__(self, *args: Any, **kwargs: Any) -> None: ...

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return _StandIn()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _StandIn()

    def __iter__(self) -> Any:
        return iter(())

    def __or__(self, other: Any) -> Any:
        return _StandIn

    __ror__ = __or__


class _StandInModule(types.ModuleType):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.__path__: list[str] = []  # a package: its submodules are stand-ins too

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _StandIn


def _imported_by_bfcl() -> bool:
    """Whether the import being resolved is a statement of a ``bfcl_eval`` module."""
    frame = sys._getframe(2)
    while frame is not None:
        module = str(frame.f_globals.get("__name__", ""))
        if not module.startswith(("importlib", "_frozen_importlib")):
            return module.split(".")[0] == "bfcl_eval"
        frame = frame.f_back  # type: ignore[assignment]
    return False


class _StandIns(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        top = name.split(".")[0]
        if top in _REAL or top in sys.stdlib_module_names or not _imported_by_bfcl():
            return None  # (mpmath's own optional imports, gmpy2 ..., are left alone)
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec: Any) -> types.ModuleType:
        return _StandInModule(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        return None


class _Handler:
    """The part of BFCL's ``BaseHandler`` the multi-turn runner uses."""

    def __init__(self, fc: bool) -> None:
        from bfcl_eval.model_handler import utils

        self._decode = utils.convert_to_function_call if fc else self._prompt
        self._utils = utils

    def _prompt(self, result: Any) -> Any:
        return self._utils.default_decode_execute_prompting(result)

    def decode_execute(self, result: Any, has_tool_call_tag: bool) -> Any:
        return self._decode(result)


def main(job_path: str, out_path: str) -> None:
    sys.meta_path.insert(0, _StandIns())
    from bfcl_eval.eval_checker.eval_runner import _evaluate_single_multi_turn_entry

    job = json.loads(Path(job_path).read_text(encoding="utf-8"))
    handler = _Handler(bool(job["fc"]))
    out = []
    for n, item in enumerate(job["entries"]):
        entry = dict(item["entry"])
        category = entry["id"].rsplit("_", 1)[0]
        # a model name per entry: BFCL keeps the back-ends in module globals by name and id
        with contextlib.redirect_stdout(io.StringIO()):
            got = _evaluate_single_multi_turn_entry(
                handler, entry["id"], item["result"], item["truth"], entry, f"ref{n}", category
            )
        error = got.get("error") or {}
        message = error.get("error_message", "")
        out.append(
            {
                "id": entry["id"],
                "valid": bool(got["valid"]),
                "error_type": error.get("error_type"),
                "error_message": message[0] if isinstance(message, list) else message,
            }
        )
    Path(out_path).write_text(json.dumps(out), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
