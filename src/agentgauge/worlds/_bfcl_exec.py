"""BFCL's multi-turn back-ends (the ``bfcl-eval`` package, Apache-2.0) and how BFCL executes a
call on them, without ``eval``.

BFCL's checker turns every decoded call into a string of Python call syntax
(``cd(folder='document')``), prefixes each back-end method name with the name of the instance
that owns it and ``eval``\\ s the string; the result the model sees is the return value as a
string (``str``; a ``dict`` as ``json.dumps``), or ``"Error during execution: <exception>"``.
Here the same string is parsed (``compile(..., "<string>", "eval")``, so a syntax error reads the
same) and walked: literals, containers, unary and bounded arithmetic, and calls of the
back-ends' public methods (nested calls too) — nothing else runs. A name that is not a method
is a ``NameError``, as it is in BFCL (which would also find Python's builtins; we do not).

Only the eight multi-turn back-ends are known, by class name (:data:`BACKENDS`): a suite names
a class, never a module.
"""

from __future__ import annotations

import ast
import copy
import importlib
import inspect
import json
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from ..errors import MissingExtraError, WorldError

__all__ = [
    "BACKENDS",
    "BFCL_INSTALL",
    "STATELESS",
    "BackendSet",
    "fc_call_string",
    "format_result",
    "require_bfcl_eval",
]

#: the multi-turn back-ends: class name -> module of ``bfcl_eval``'s ``func_source_code``
BACKENDS: Final[Mapping[str, str]] = {
    "GorillaFileSystem": "gorilla_file_system",
    "MathAPI": "math_api",
    "MessageAPI": "message_api",
    "TwitterAPI": "posting_api",
    "TicketAPI": "ticket_api",
    "TradingBot": "trading_bot",
    "TravelAPI": "travel_booking",
    "VehicleControlAPI": "vehicle_control",
}
#: back-ends BFCL builds without loading a scenario
STATELESS: Final = frozenset({"MathAPI"})
_PACKAGE: Final = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code"
#: how to install the back-ends: bfcl-eval pins ~30 packages the back-ends do not need
BFCL_INSTALL: Final = "pip install --no-deps bfcl-eval mpmath"
#: names BFCL refuses to call whatever they are (checked on the call's function name)
_FORBIDDEN: Final = frozenset({"kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"})
_LAST_NAME: Final = re.compile(r"\b([a-zA-Z_]\w*)\s*$")
_MAX_SIZE: Final = 1_000_000


def require_bfcl_eval() -> None:
    """Raise :class:`MissingExtraError` (with the install command) unless ``bfcl_eval`` and
    ``mpmath`` import."""
    try:
        importlib.import_module(_PACKAGE)
        importlib.import_module("mpmath")
    except ImportError:
        raise MissingExtraError("bfcl-eval", "bfcl", command=BFCL_INSTALL) from None


def _backend_class(name: str) -> type[Any]:
    module = BACKENDS.get(name)
    if module is None:
        known = ", ".join(BACKENDS)
        raise WorldError(f"unknown BFCL back-end '{name}' (known: {known})")
    require_bfcl_eval()
    try:
        cls: type[Any] = getattr(importlib.import_module(f"{_PACKAGE}.{module}"), name)
    except (ImportError, AttributeError) as exc:
        raise WorldError(f"BFCL back-end '{name}' cannot be loaded: {exc}") from None
    return cls


class BackendSet:
    """The back-end instances of one BFCL entry (its ``involved_classes``, each loaded with its
    part of ``initial_config``), and BFCL's map from method name to the instance owning it (a
    later class wins a shared name, as in BFCL)."""

    def __init__(
        self,
        involved: Sequence[str],
        initial_config: Mapping[str, Any],
        *,
        long_context: bool = False,
    ) -> None:
        self.instances: dict[str, Any] = {}
        self.methods: dict[str, Callable[..., Any]] = {}
        for name in involved:
            cls = _backend_class(name)
            try:
                instance = cls()
                if name not in STATELESS:
                    config = copy.deepcopy(initial_config.get(name, {}))
                    instance._load_scenario(config, long_context=long_context)
            except Exception as exc:
                why = f"{type(exc).__name__}: {exc}"
                raise WorldError(f"BFCL back-end {name}: its scenario failed: {why}") from exc
            self.instances[name] = instance
            for method, bound in inspect.getmembers(instance, predicate=inspect.ismethod):
                if not method.startswith("_"):
                    self.methods[method] = bound

    def execute(self, calls: Sequence[str]) -> list[str]:
        """Each call string's execution result, as BFCL's ``execute_multi_turn_func_call``."""
        return [self.run(c) for c in calls]

    def run(self, source: str) -> str:
        try:
            return format_result(self._evaluate(source))
        except Exception as exc:
            return f"Error during execution: {exc}"

    def _evaluate(self, source: str) -> Any:
        head = source.split("(")[0] if "(" in source else source
        last = _LAST_NAME.search(head)
        if last is not None and last.group(1) in self.methods:
            head = head[: last.start()] + "instance." + head[last.start() :]
        if "." in head:
            head = head.split(".")[1]
        if head in _FORBIDDEN:
            raise Exception(f"Function call {head} is not allowed.")
        tree = compile(source, "<string>", "eval", ast.PyCF_ONLY_AST)
        assert isinstance(tree, ast.Expression)
        return self._value(tree.body)

    def _value(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            items = [self._value(e) for e in node.elts]
            kind = type(node)
            return items if kind is ast.List else tuple(items) if kind is ast.Tuple else set(items)
        if isinstance(node, ast.Dict):
            out: dict[Any, Any] = {}
            for k, v in zip(node.keys, node.values, strict=True):
                if k is None:
                    out.update(self._value(v))
                else:
                    out[self._value(k)] = self._value(v)
            return out
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return _UNARY[type(node.op)](self._value(node.operand))
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return _binary(node.op, self._value(node.left), self._value(node.right))
        if isinstance(node, ast.Name):
            raise NameError(f"name '{node.id}' is not defined")
        if isinstance(node, ast.Attribute):
            base: ast.expr = node
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name):
                raise NameError(f"name '{base.id}' is not defined")
        raise ValueError(f"agentgauge does not evaluate {type(node).__name__} in a call")

    def _call(self, node: ast.Call) -> Any:
        func = node.func
        if not isinstance(func, ast.Name) or func.id not in self.methods:
            self._value(func)  # the NameError eval gives
            raise ValueError(f"agentgauge does not call {ast.unparse(func)}")
        args: list[Any] = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(self._value(a.value))
            else:
                args.append(self._value(a))
        kwargs: dict[str, Any] = {}
        for kw in node.keywords:
            if kw.arg is None:
                kwargs.update(self._value(kw.value))
            else:
                kwargs[kw.arg] = self._value(kw.value)
        return self.methods[func.id](*args, **kwargs)


_UNARY: Final[dict[type, Callable[[Any], Any]]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: operator.not_,
    ast.Invert: operator.invert,
}
_BINARY: Final[dict[type, Callable[[Any, Any], Any]]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}


def _binary(op: ast.operator, left: Any, right: Any) -> Any:
    """Arithmetic as Python does it, within bounds (no huge powers or repetitions)."""
    if isinstance(op, ast.Pow) and (
        not isinstance(right, int | float) or abs(right) > 1000 or abs(left) > 10**6
    ):
        raise ValueError("agentgauge does not evaluate a power this large")
    if isinstance(op, ast.Mult):
        for seq, times in ((left, right), (right, left)):
            sized = isinstance(seq, str | list | tuple) and isinstance(times, int)
            if sized and len(seq) * times > _MAX_SIZE:
                raise ValueError("agentgauge does not evaluate a repetition this large")
    return _BINARY[type(op)](left, right)


def format_result(value: Any) -> str:
    """A method's return value as the model sees it in BFCL: a string as is, a dict as
    ``json.dumps`` (``str`` when that fails), anything else ``str``."""
    if type(value) is str:
        return value
    if type(value) is dict:
        try:
            return json.dumps(value)
        except Exception:
            return str(value)
    return str(value)


def fc_call_string(name: str, arguments: Mapping[str, Any]) -> str:
    """A function-calling model's call as BFCL writes it for execution
    (``convert_to_function_call``): ``name(k=repr(v),...)``."""
    return f"{name}({','.join(f'{k}={v!r}' for k, v in arguments.items())})"
