"""The demo API taught two LLM providers' streaming answers, for the
OpenAI and Anthropic recipes.

Each route checks what the provider checks (its key header, a JSON body
with ``model`` and ``messages``) and answers ``"stream": true`` with a
server-sent event stream in the provider's shape:

| route | conventions |
|---|---|
| ``POST /v1/chat/completions`` | OpenAI: ``Authorization: Bearer OPENAI_KEY`` (else 401 ``{"error": {"code": "invalid_api_key", ...}}``); ``data: {"object": "chat.completion.chunk", "choices": [{"delta": ...}]}`` per word, a last chunk with ``finish_reason: "stop"``, then ``data: [DONE]``; without ``stream``, one ``chat.completion`` |
| ``POST /v1/messages`` | Anthropic: ``x-api-key: ANTHROPIC_KEY`` and ``anthropic-version: 2023-06-01`` (else 401 or 400 ``{"type": "error", "error": ...}``); ``max_tokens`` required; named events ``message_start``, ``content_block_start``, ``ping``, ``content_block_delta`` per word, ``content_block_stop``, ``message_delta``, ``message_stop`` |

The answer repeats the last user message's words after ``"You said:"``,
one word an event.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .demo_api import Answer, Request, Route

__all__ = ["ANTHROPIC_KEY", "OPENAI_KEY", "Llm"]

#: The API keys the OpenAI-like and Anthropic-like routes accept.
OPENAI_KEY = "sk-demo-openai"
ANTHROPIC_KEY = "sk-ant-demo"


def _sse(data: Any, event: str | None = None) -> bytes:
    text = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {text}\n\n".encode()


def _words(body: Any) -> list[str] | None:
    """The answer's words (each with its leading space), or ``None`` when
    the body has no user message to answer."""
    if not isinstance(body, dict) or not isinstance(body.get("model"), str):
        return None
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return None
    last = messages[-1]
    if not isinstance(last, dict) or not isinstance(last.get("content"), str):
        return None
    return ["You", " said:"] + [" " + word for word in last["content"].split()]


class Llm:
    """OpenAI's chat completions and Anthropic's messages, streamed."""

    def routes(self) -> list[tuple[str, re.Pattern[str], Route]]:
        return [
            ("POST", re.compile(r"/v1/chat/completions"), self._chat),
            ("POST", re.compile(r"/v1/messages"), self._messages),
        ]

    def _chat(self, request: Request, match: re.Match[str]) -> Answer:
        if request.headers.get("authorization") != f"Bearer {OPENAI_KEY}":
            error = {
                "message": "Incorrect API key provided",
                "type": "invalid_request_error",
                "param": None,
                "code": "invalid_api_key",
            }
            return Answer(401, {"error": error})
        body = request.json()
        words = _words(body)
        if words is None:
            error = {
                "message": "'model' and 'messages' are required",
                "type": "invalid_request_error",
                "param": "messages",
                "code": None,
            }
            return Answer(400, {"error": error})

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            return _sse(
                {
                    "id": "chatcmpl-demo",
                    "object": "chat.completion.chunk",
                    "model": body["model"],
                    "choices": [choice],
                }
            )

        if not body.get("stream"):
            message = {"role": "assistant", "content": "".join(words)}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            return Answer(200, {"id": "chatcmpl-demo", "choices": [choice]})
        chunks = [chunk({"role": "assistant", "content": ""})]
        chunks += [chunk({"content": word}) for word in words]
        chunks += [chunk({}, "stop"), _sse("[DONE]")]
        return Answer.streamed(chunks, "text/event-stream")

    def _messages(self, request: Request, match: re.Match[str]) -> Answer:
        if request.headers.get("x-api-key") != ANTHROPIC_KEY:
            error = {"type": "authentication_error", "message": "invalid x-api-key"}
            return Answer(401, {"type": "error", "error": error})
        body = request.json()
        words = _words(body)
        version = request.headers.get("anthropic-version")
        if version != "2023-06-01" or words is None or "max_tokens" not in body:
            problem = "anthropic-version" if version != "2023-06-01" else "body"
            error = {"type": "invalid_request_error", "message": problem}
            return Answer(400, {"type": "error", "error": error})
        message = {
            "id": "msg_demo",
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": body["model"],
            "stop_reason": None,
            "usage": {"input_tokens": 5, "output_tokens": 1},
        }
        chunks = [
            _sse({"type": "message_start", "message": message}, "message_start"),
            _sse(
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
                "content_block_start",
            ),
            _sse({"type": "ping"}, "ping"),
        ]
        chunks += [
            _sse(
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": word},
                },
                "content_block_delta",
            )
            for word in words
        ]
        chunks += [
            _sse({"type": "content_block_stop", "index": 0}, "content_block_stop"),
            _sse(
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn"},
                    "usage": {"output_tokens": len(words)},
                },
                "message_delta",
            ),
            _sse({"type": "message_stop"}, "message_stop"),
        ]
        return Answer.streamed(chunks, "text/event-stream")
