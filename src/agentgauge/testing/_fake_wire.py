"""The wire bodies :class:`~agentgauge.testing.FakeOpenAIServer` sends: Chat Completions and
Responses API replies, plain and as server-sent events, built from one scripted reply."""

from __future__ import annotations

from typing import Any

import orjson

from ._fake_replies import _Reply


def _out_tokens(reply: _Reply) -> int:
    return max(1, len(reply.text or "") // 4 + 8 * len(reply.calls))


def _wire_calls(n: int, reply: _Reply) -> list[dict[str, Any]]:
    return [
        {
            "id": c.id or f"call_{n}_{i}",
            "type": "function",
            "function": {"name": c.name, "arguments": orjson.dumps(c.arguments).decode()},
        }
        for i, c in enumerate(reply.calls)
    ]


def _chat_body(model: str, n: int, reply: _Reply, prompt_tokens: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    if reply.calls:
        message["tool_calls"] = _wire_calls(n, reply)
    out = _out_tokens(reply)
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if reply.calls else "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": out,
            "total_tokens": prompt_tokens + out,
        },
    }


def _chat_chunks(
    model: str, n: int, reply: _Reply, prompt_tokens: int, payload: dict[str, Any]
) -> list[bytes]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{n}",
            "object": "chat.completion.chunk",
            "created": 1700000000,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    events = [chunk({"role": "assistant", "content": ""})]
    text = reply.text or ""
    for i in range(0, len(text), 8):
        events.append(chunk({"content": text[i : i + 8]}))
    for i, call in enumerate(_wire_calls(n, reply)):
        args = call["function"]["arguments"]
        head = {"index": i, "id": call["id"], "type": "function"}
        head["function"] = {"name": call["function"]["name"], "arguments": ""}
        events.append(chunk({"tool_calls": [head]}))
        for j in range(0, len(args), 10):
            piece = {"index": i, "function": {"arguments": args[j : j + 10]}}
            events.append(chunk({"tool_calls": [piece]}))
    events.append(chunk({}, "tool_calls" if reply.calls else "stop"))
    if (payload.get("stream_options") or {}).get("include_usage"):
        out = _out_tokens(reply)
        last = chunk({})
        last["choices"] = []
        last["usage"] = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": out,
            "total_tokens": prompt_tokens + out,
        }
        events.append(last)
    return [b"data: " + orjson.dumps(e) + b"\n\n" for e in events] + [b"data: [DONE]\n\n"]


def _responses_body(model: str, n: int, reply: _Reply, prompt_tokens: int) -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    if reply.text is not None:
        output.append(
            {
                "type": "message",
                "id": f"msg_{n}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
            }
        )
    for i, c in enumerate(reply.calls):
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{n}_{i}",
                "call_id": c.id or f"call_{n}_{i}",
                "name": c.name,
                "arguments": orjson.dumps(c.arguments).decode(),
                "status": "completed",
            }
        )
    out = _out_tokens(reply)
    return {
        "id": f"resp_{n}",
        "object": "response",
        "created_at": 1700000000,
        "status": "completed",
        "model": model,
        "output": output,
        "usage": {
            "input_tokens": prompt_tokens,
            "output_tokens": out,
            "total_tokens": prompt_tokens + out,
        },
    }


def _responses_events(body: dict[str, Any], reply: _Reply) -> list[bytes]:
    started = dict(body, status="in_progress", output=[])
    events: list[dict[str, Any]] = [{"type": "response.created", "response": started}]
    text = reply.text or ""
    for i in range(0, len(text), 8):
        events.append(
            {"type": "response.output_text.delta", "output_index": 0, "delta": text[i : i + 8]}
        )
    calls = [o for o in body["output"] if o["type"] == "function_call"]
    for i, call in enumerate(calls, start=1 if reply.text is not None else 0):
        added = dict(call, arguments="", status="in_progress")
        events.append({"type": "response.output_item.added", "output_index": i, "item": added})
        events.append(
            {
                "type": "response.function_call_arguments.delta",
                "output_index": i,
                "item_id": call["id"],
                "delta": call["arguments"],
            }
        )
    events.append({"type": "response.completed", "response": body})
    return [
        b"event: " + e["type"].encode() + b"\ndata: " + orjson.dumps(e) + b"\n\n" for e in events
    ]


# ---------------------------------------------------------------------- HTTP/1.1 protocol
