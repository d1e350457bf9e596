"""Decoding one line of a recorded-responses file into a :class:`RecordedResponse`: the native
form, BFCL's result files (function-calling and Python call syntax, single- and multi-turn).
The forms are described in ``_responses.py``, which reads the file (line by line, in bounded
memory) and calls :func:`decode_line` for each."""

from __future__ import annotations

import ast
import json
import operator
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Final

import orjson

from ..errors import UserError
from ..files import MAX_DEPTH, out_of_range_int, too_deep, too_deep_message
from ..schema import Labels, Message, ToolCall
from ..worlds import BFCL_EXEC_PREFIX, BFCL_NOT_A_LIST
from ._recorded import RecordedResponse

__all__ = ["decode_line", "decode_python_calls"]

_NATIVE_KEYS: Final = frozenset(
    {"version", "case_id", "trial", "text", "calls", "messages", "labels"}
)

# ------------------------------------------------------------------------- Python call syntax


class _Undecodable(Exception):
    pass


_BIN_OPS: Final[dict[type, Callable[[Any, Any], Any]]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY_OPS: Final[dict[type, Callable[[Any], Any]]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: operator.not_,
    ast.Invert: operator.invert,
}
_MAX_SIZE: Final = 100_000


def _literal(node: ast.expr) -> Any:
    """A literal expression's value with Python's own semantics (what ``eval`` would give)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY_OPS:
        return _UNARY_OPS[type(node.op)](_literal(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BIN_OPS:
        left, right = _literal(node.left), _literal(node.right)
        if isinstance(node.op, ast.Pow) and (
            not isinstance(right, int | float) or abs(right) > 1000 or abs(left) > 10**6
        ):
            raise _Undecodable("exponent too large to evaluate safely")
        if isinstance(node.op, ast.Mult) and (
            (isinstance(left, str | list | tuple) and isinstance(right, int) and right > _MAX_SIZE)
            or (
                isinstance(right, str | list | tuple) and isinstance(left, int) and left > _MAX_SIZE
            )
        ):
            raise _Undecodable("repetition too large to evaluate safely")
        return _BIN_OPS[type(node.op)](left, right)
    if isinstance(node, ast.List):
        return [_literal(e) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_literal(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise _Undecodable("** in a dict")
        return {_literal(k): _literal(v) for k, v in zip(node.keys, node.values, strict=True)}  # type: ignore[arg-type]
    raise _Undecodable(f"cannot evaluate {type(node).__name__} safely")


def _value(node: ast.expr) -> Any:
    """An argument value, decoded the way BFCL's AST decoder does (without running code)."""
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp):
        # BFCL negates the operand's constant whatever the operator is; keep that
        operand = node.operand
        if not isinstance(operand, ast.Constant):
            raise _Undecodable("unary operator on a non-constant")
        constant: Any = operand.value
        try:
            return -constant
        except TypeError as err:
            raise _Undecodable(str(err)) from None
    if isinstance(node, ast.List):
        return [_value(e) for e in node.elts]
    if isinstance(node, ast.Dict):
        out: dict[Any, Any] = {}
        for k, v in zip(node.keys, node.values, strict=True):
            if k is None:
                raise _Undecodable("** in a dict")
            try:
                out[_value(k)] = _value(v)
            except TypeError as err:  # unhashable key
                raise _Undecodable(str(err)) from None
        return out
    if isinstance(node, ast.BinOp):
        try:
            return _literal(node)
        except (ArithmeticError, TypeError, ValueError) as err:
            raise _Undecodable(str(err)) from None
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        if not node.keywords:
            return ast.unparse(node)
        return _call(node)
    if isinstance(node, ast.Tuple):
        return tuple(_value(e) for e in node.elts)
    if isinstance(node, ast.Subscript):
        return ast.unparse(node.value) + "[" + ast.unparse(node.slice) + "]"
    raise _Undecodable(f"unsupported syntax {type(node).__name__}")


def _call_name(node: ast.Call) -> str:
    parts: list[str] = []
    func = node.func
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts))


def _call(node: ast.Call) -> dict[str, dict[str, Any]]:
    args = {("**" if kw.arg is None else kw.arg): _value(kw.value) for kw in node.keywords}
    return {_call_name(node): args}


def decode_python_calls(text: str) -> list[ToolCall]:
    """Decode ``[f(a=1), g.h(b='x')]`` like BFCL's prompt-mode decoder; ``ValueError`` if not.

    Positional arguments are ignored (as BFCL does); only keyword arguments are kept.
    """
    source = text.strip("`\n ")
    if not source.startswith("["):
        source = "[" + source
    if not source.endswith("]"):
        source = source + "]"
    source = source.strip().strip("'")
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError) as err:
        raise ValueError(f"not Python call syntax: {err}") from None
    body = tree.body
    if isinstance(body, ast.Call):
        nodes: list[ast.expr] = [body]
    elif isinstance(body, ast.List | ast.Tuple | ast.Set):
        nodes = list(body.elts)
    else:
        raise ValueError(f"not a list of calls ({type(body).__name__})")
    calls: list[ToolCall] = []
    for node in nodes:
        if not isinstance(node, ast.Call):
            raise ValueError(f"not a function call: {ast.unparse(node)[:60]}")
        try:
            ((name, args),) = _call(node).items()
        except _Undecodable as err:
            raise ValueError(str(err)) from None
        calls.append(ToolCall(name=name, arguments=args, id=None))
    return calls


# ------------------------------------------------------------------------- BFCL results


def _json_args(raw: Any) -> Any:
    if not isinstance(raw, str):
        return raw
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        data = _python_json(raw)  # NaN / Infinity, which Python's json (used by BFCL) accepts
    if too_deep(data, raw) is not None:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    return data


def _python_json(raw: str | bytes) -> Any:
    """Python's json reading of what orjson refuses, within the limits (docs/suite-format.md)."""
    try:
        data = json.loads(raw)
    except RecursionError:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels") from None
    if out_of_range_int(data) is not None:
        raise ValueError("an integer beyond 64 bits")
    return data


def _bfcl_fc(result: list[Any]) -> tuple[list[ToolCall], str | None]:
    calls: list[ToolCall] = []
    for i, item in enumerate(result):
        if not isinstance(item, dict) or not item:
            return [], f"result[{i}] is not a {{function name: arguments}} object"
        name = next(iter(item))
        try:
            args = _json_args(item[name])
        except ValueError as err:
            return [], f"result[{i}].{name}: arguments are not valid JSON ({err})"
        if not isinstance(args, dict):
            return [], f"result[{i}].{name}: arguments are not an object"
        calls.append(ToolCall(name=str(name), arguments=args, id=None))
    return calls, None


def _nested(value: Any) -> str:
    """A decoded argument as BFCL's ``parse_nested_value`` writes it for execution: a dict of
    dicts is a nested call, another dict is written with quoted keys, anything else ``repr``."""
    if isinstance(value, dict):
        if all(isinstance(v, dict) for v in value.values()):
            name = next(iter(value))  # {} has none: BFCL fails to decode the step too
            args = ", ".join(f"{k}={_nested(v)}" for k, v in value[name].items())
            return f"{name}({args})"
        return "{" + ", ".join(f"'{k}': {_nested(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _prompt_step(text: str) -> list[ToolCall]:
    """A prompt-mode step as BFCL's ``default_decode_execute_prompting`` decodes it: each call
    with its exact execution string in its id (``ValueError``: not decodable)."""
    source = text.strip("`\n ")
    source = ("" if source.startswith("[") else "[") + source
    source = source + ("" if source.endswith("]") else "]")
    try:
        body = ast.parse(source.strip().strip("'"), mode="eval").body
    except (SyntaxError, ValueError) as err:
        raise ValueError(f"not Python call syntax: {err}") from None
    nodes = [body] if isinstance(body, ast.Call) else getattr(body, "elts", None)
    if nodes is None or not all(isinstance(n, ast.Call) for n in nodes):
        raise ValueError("not a list of calls")
    calls = []
    for node in nodes:
        try:
            ((name, args),) = _call(node).items()
            line = f"{name}({', '.join(f'{k}={_nested(v)}' for k, v in args.items())})"
        except (_Undecodable, StopIteration, AttributeError) as err:
            raise ValueError(str(err)) from None
        calls.append(ToolCall(name=name, arguments=args, id=BFCL_EXEC_PREFIX + line))
    return calls


def _fc_step(step: Any) -> list[ToolCall]:
    """A function-calling step as BFCL's ``convert_to_function_call`` decodes it
    (``ValueError``: not decodable; a text reply is not)."""
    items = [step] if isinstance(step, dict) else step
    if not isinstance(items, list):
        raise ValueError("not a list of calls")
    calls = []
    for item in items:
        if not isinstance(item, dict):
            raise ValueError("not a {function name: arguments} object")
        for name, raw in item.items():
            args = _python_json(raw) if isinstance(raw, str) else raw
            if not isinstance(args, dict):
                raise ValueError(f"{name}: arguments are not an object")
            calls.append(ToolCall(name=str(name), arguments=args))
    return calls


def _bfcl_step(step: Any, fc: bool) -> Message:
    """One step of a multi-turn result: the assistant message with its decoded calls, or (an
    undecodable or empty step, which BFCL skips) with the step as text only."""
    try:
        calls = _fc_step(step) if fc else _prompt_step(step) if isinstance(step, str) else []
    except ValueError:
        calls = []
    text = step if isinstance(step, str) else json.dumps(step, ensure_ascii=False)
    return Message(role="assistant", content=None if calls else text, tool_calls=calls)


def _from_bfcl_multi(case_id: str, result: Any, where: str) -> RecordedResponse:
    """A multi-turn result, ``result[turn][step]``: one user message per turn (a placeholder:
    the case holds the real ones) and one assistant message per step."""
    if not isinstance(result, list):
        text = json.dumps(result, ensure_ascii=False)
        message = Message(role="assistant", content=text, name=BFCL_NOT_A_LIST)
        why = "result is not a list of turns"
        return RecordedResponse(
            case_id, 0, [], text, where, "bfcl-multi", None, why, conversation=[message]
        )
    steps = [s for t in result if isinstance(t, list) for s in t]
    fc = any(isinstance(s, list | dict) for s in steps)
    conversation: list[Message] = []
    for i, turn in enumerate(result):
        conversation.append(Message(role="user", content=f"(BFCL turn {i})"))
        for step in turn if isinstance(turn, list) else [turn]:
            conversation.append(_bfcl_step(step, fc))
    calls = [c for m in conversation for c in m.tool_calls]
    texts = [m.content for m in conversation if m.role == "assistant" and m.content]
    return RecordedResponse(case_id, 0, calls, texts[-1] if texts else None, where,
                            "bfcl-multi", conversation=conversation)  # fmt: skip


def _from_bfcl(data: dict[str, Any], where: str) -> RecordedResponse:
    case_id = data["id"]
    if not isinstance(case_id, str):
        raise UserError(f"{where}: id: expected a string")
    result = data.get("result")
    if "multi_turn" in case_id:
        return _from_bfcl_multi(case_id, result, where)
    if isinstance(result, str):
        try:
            calls = decode_python_calls(result)
        except ValueError as err:
            return RecordedResponse(case_id, 0, [], result, where, "bfcl-prompt", None, str(err))
        return RecordedResponse(case_id, 0, calls, None, where, "bfcl-prompt")
    # an undecodable result is kept as the reply text, like a prompt-mode string, so the bfcl
    # mode reports it as BFCL does (ast_decoder:decoder_failed), not as a reply with no call
    if isinstance(result, list):
        calls, error = _bfcl_fc(result)
        text = json.dumps(result, ensure_ascii=False) if error else None
        return RecordedResponse(
            case_id, 0, calls, text, where, "bfcl-fc", None, error, dotted_names_mangled=True
        )
    return RecordedResponse(
        case_id,
        0,
        [],
        json.dumps(result, ensure_ascii=False),
        where,
        "bfcl-fc",
        None,
        f"result is {type(result).__name__}",
    )


# ------------------------------------------------------------------------- native form


def _native_calls(raw: Any, where: str) -> list[ToolCall]:
    if not isinstance(raw, list):
        raise UserError(f"{where}: calls: expected a list of {{name, arguments}}")
    calls: list[ToolCall] = []
    for i, c in enumerate(raw):
        if not isinstance(c, dict) or not isinstance(c.get("name"), str):
            raise UserError(f"{where}: calls[{i}]: expected {{name, arguments}}")
        extra = set(c) - {"name", "arguments", "id", "mcp", "mcp_server"}
        if extra:
            raise UserError(f"{where}: calls[{i}]: unknown field(s) {sorted(extra)}")
        try:
            args = _json_args(c.get("arguments", {}))
        except ValueError:
            raise UserError(f"{where}: calls[{i}].arguments: not valid JSON") from None
        if not isinstance(args, dict):
            raise UserError(f"{where}: calls[{i}].arguments: expected an object")
        call_id = c.get("id")
        if call_id is not None and not isinstance(call_id, str):
            raise UserError(f"{where}: calls[{i}].id: expected a string")
        mcp = c.get("mcp", False)
        if not isinstance(mcp, bool):
            raise UserError(f"{where}: calls[{i}].mcp: expected true or false")
        server = c.get("mcp_server")
        if server is not None and not isinstance(server, str):
            raise UserError(f"{where}: calls[{i}].mcp_server: expected a string")
        calls.append(
            ToolCall(name=c["name"], arguments=args, id=call_id, mcp=mcp, mcp_server=server)
        )
    return calls


def _from_native(data: dict[str, Any], where: str) -> RecordedResponse:
    extra = set(data) - _NATIVE_KEYS
    if extra:
        raise UserError(
            f"{where}: unknown field(s) {sorted(extra)} (known: {sorted(_NATIVE_KEYS)})"
        )
    case_id = data["case_id"]
    if not isinstance(case_id, str):
        raise UserError(f"{where}: case_id: expected a string")
    trial = data.get("trial", 0)
    if not isinstance(trial, int) or isinstance(trial, bool) or trial < 0:
        raise UserError(f"{where}: trial: expected a whole number >= 0")
    text = data.get("text")
    if text is not None and not isinstance(text, str):
        raise UserError(f"{where}: text: expected a string")
    if "messages" in data:
        if "calls" in data or text is not None:
            raise UserError(f"{where}: give either messages or text/calls, not both")
        raw = data["messages"]
        if not isinstance(raw, list) or not raw:
            raise UserError(f"{where}: messages: expected a list of messages (at least one)")
        from ..formats import TranscriptError, foreign_conversation

        try:  # a transcript in a vendor's format (OpenAI, Anthropic, Gemini, LangChain ...)
            raw = foreign_conversation(raw) or raw
        except TranscriptError as err:
            at = "" if err.index is None else f"[{err.index}]"
            raise UserError(f"{where}: messages{at}: {err.detail}") from None
        try:
            messages = [Message.model_validate(m) for m in raw]
        except ValueError as err:
            raise UserError(f"{where}: messages: {str(err).splitlines()[0]}") from None
        calls = [c for m in messages if m.role == "assistant" for c in m.tool_calls]
        finals = [m.content for m in messages if m.role == "assistant" and m.content]
        return RecordedResponse(
            case_id, trial, calls, finals[-1] if finals else None, where, "native", messages
        )
    calls = _native_calls(data.get("calls", []), where)
    if not calls and text is not None:
        from ..formats import json_text_calls

        written = json_text_calls(text)
        if written is not None:  # a prompt-mode tool call written as JSON text: real calls
            return RecordedResponse(case_id, trial, written, text, where, "native-json-text")
    return RecordedResponse(case_id, trial, calls, text, where, "native")


def _labels(raw: Any, where: str) -> Labels:
    from pydantic import ValidationError

    try:
        return Labels.model_validate(raw)
    except ValidationError as err:
        first = err.errors()[0]
        at = "".join(f".{p}" for p in first["loc"])
        raise UserError(
            f"{where}: labels{at}: {first['msg']} "
            "(expected {route, skill, intents, knowledge, fallback})"
        ) from None


# ------------------------------------------------------------------------- one line


def decode_line(display: str, number: int, raw: bytes) -> RecordedResponse:
    """Line ``number`` of the responses file ``display`` as a response; a :class:`UserError`
    (``file:line: field: what is wrong``) when it is not one."""
    where = f"{display}:{number}"
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as err:
        try:  # what orjson refuses but Python's json (BFCL's reader) accepts: NaN
            data = _python_json(raw)
        except ValueError as fallback:
            ours = str(fallback).startswith(("nested deeper", "an integer beyond"))
            reason = str(fallback) if ours else err.args[0]
            raise UserError(f"{where}: invalid JSON: {reason}") from None
    deep = too_deep(data, raw)
    if deep is not None:
        raise UserError(too_deep_message(display, number, deep))
    if not isinstance(data, dict):
        raise UserError(f"{where}: expected a JSON object")
    if "case_id" in data:
        response = _from_native(data, where)
        if data.get("labels") is not None:
            response = replace(response, labels=_labels(data["labels"], where))
        return response
    if "id" in data and "result" in data:
        return _from_bfcl(data, where)
    raise UserError(f"{where}: not a response: expected case_id (agentgauge) or id + result (BFCL)")
