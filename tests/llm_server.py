"""A real streaming service on 127.0.0.1, in OpenAI's and Anthropic's wire
shapes, under uvicorn (Starlette's ``StreamingResponse``): what
``controller.stream(endpoint, params, body=...)`` is tested against.

The shapes are the providers' documented ones, written here from their API
references, not from ``recipes/demo_llm.py`` (the demo API's imitation),
so the recipes are checked against a second reading:

- ``POST /v1/chat/completions`` (OpenAI's "Create chat completion" with
  ``"stream": true``): ``Authorization: Bearer OPENAI_KEY``; each event
  ``data: {chat.completion.chunk}``, the first delta with the role, one
  per word, a last one with ``finish_reason: "stop"``, then ``data:
  [DONE]``. Without ``stream``, one ``chat.completion`` JSON body.
- ``POST /v1/messages`` (Anthropic's "Messages" with ``"stream": true``):
  ``x-api-key: ANTHROPIC_KEY`` and ``anthropic-version: 2023-06-01``;
  named events ``message_start``, ``content_block_start``, ``ping``,
  ``content_block_delta`` (one per word), ``content_block_stop``,
  ``message_delta``, ``message_stop``, as the "Raw HTTP Stream response"
  example of Anthropic's streaming guide shows them.

Query parameters steer the test (``controller.stream(endpoint, params)``
sends them): ``then`` is what follows the words: ``done`` (the usual end),
``done-hold`` (OpenAI: ``[DONE]``, then the connection kept open with
comments, so only the sentinel can end the loop), ``end`` (the body ends
with no ``[DONE]``), ``drop`` (the connection drops mid-body), ``hold``
(a comment every 20 ms until the client goes away), ``silent`` (nothing,
until the client goes away), ``error`` (the provider's mid-stream error:
OpenAI's ``data: {"error": ...}``, Anthropic's ``event: error``). ``name``
keys ``hung_up``, set when the client went away; ``big`` adds one event
of that many bytes of data first; ``done`` replaces OpenAI's ``[DONE]``.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any, Self

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.waiting import HANG

__all__ = ["ANTHROPIC_KEY", "OPENAI_KEY", "LlmServer", "Received"]

OPENAI_KEY = "sk-test-llm-5c1d"
ANTHROPIC_KEY = "sk-ant-test-9e2f"
WORDS = ("Hello", " there", ",", " friend", "!")


@dataclass
class Received:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any


def _sse(data: Any, event: str | None = None) -> bytes:
    text = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {text}\n\n".encode()


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-123",
        "object": "chat.completion.chunk",
        "created": 1694268190,
        "model": "gpt-4o-mini",
        "system_fingerprint": "fp_44709d6fcb",
        "choices": [
            {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        ],
    }


@dataclass
class LlmServer:
    """The service in a thread; a context manager."""

    requests: list[Received] = field(default_factory=list)
    #: name -> set when that stream's client went away.
    hung_up: dict[str, threading.Event] = field(default_factory=dict)
    origin: str = ""

    def __post_init__(self) -> None:
        app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
                Route("/v1/messages", self._messages, methods=["POST"]),
            ]
        )
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self.origin = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
        config = uvicorn.Config(
            app, log_level="critical", lifespan="off", timeout_graceful_shutdown=1
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True
        )

    def __enter__(self) -> Self:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(HANG)
        self._socket.close()

    def left(self, name: str) -> threading.Event:
        """Set when the client of the stream ``name`` went away."""
        return self.hung_up.setdefault(name, threading.Event())

    async def _record(self, request: Request) -> Received:
        raw = await request.body()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode(errors="replace")
        received = Received(
            request.method,
            request.url.path,
            dict(request.query_params),
            {k.lower(): v for k, v in request.headers.items()},
            body,
        )
        self.requests.append(received)
        return received

    # -- OpenAI --------------------------------------------------------------------

    async def _chat(self, request: Request) -> Response:
        received = await self._record(request)
        if received.headers.get("authorization") != f"Bearer {OPENAI_KEY}":
            error = {
                "message": "Incorrect API key provided",
                "type": "invalid_request_error",
                "param": None,
                "code": "invalid_api_key",
            }
            return JSONResponse({"error": error}, status_code=401)
        body = received.body if isinstance(received.body, dict) else {}
        if not body.get("stream"):
            message = {"role": "assistant", "content": "".join(WORDS)}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            return JSONResponse(
                {"id": "chatcmpl-123", "object": "chat.completion", "choices": [choice]}
            )
        events = [_sse(_chunk({"role": "assistant", "content": ""}))]
        events += [_sse(_chunk({"content": word})) for word in WORDS]
        events.append(_sse(_chunk({}, "stop")))
        error = {"message": "The server had an error", "type": "server_error"}
        done = received.query.get("done", "[DONE]")
        return self._stream(
            request, received.query, events, _sse(done), _sse({"error": error})
        )

    # -- Anthropic -----------------------------------------------------------------

    async def _messages(self, request: Request) -> Response:
        received = await self._record(request)
        headers = received.headers
        if headers.get("x-api-key") != ANTHROPIC_KEY:
            error = {"type": "authentication_error", "message": "invalid x-api-key"}
            return JSONResponse({"type": "error", "error": error}, status_code=401)
        if headers.get("anthropic-version") != "2023-06-01":
            error = {"type": "invalid_request_error", "message": "anthropic-version"}
            return JSONResponse({"type": "error", "error": error}, status_code=400)
        message: dict[str, Any] = {
            "id": "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY",
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": "claude-3-5-sonnet-20240620",
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 25, "output_tokens": 1},
        }
        events = [
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
        events += [
            _sse(
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": word},
                },
                "content_block_delta",
            )
            for word in WORDS
        ]
        events += [
            _sse({"type": "content_block_stop", "index": 0}, "content_block_stop"),
            _sse(
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": 15},
                },
                "message_delta",
            ),
        ]
        error = {"type": "overloaded_error", "message": "Overloaded"}
        return self._stream(
            request,
            received.query,
            events,
            _sse({"type": "message_stop"}, "message_stop"),
            _sse({"type": "error", "error": error}, "error"),
        )

    # -- the stream, as the query asks ----------------------------------------------

    def _stream(
        self,
        request: Request,
        query: dict[str, str],
        events: list[bytes],
        last: bytes,
        error: bytes,
    ) -> Response:
        then = query.get("then", "done")
        name = query.get("name", "stream")
        big = int(query.get("big", "0"))
        left = self.left(name)

        async def body() -> AsyncIterator[bytes]:
            try:
                if big:
                    yield _sse("x" * big)
                for index, event in enumerate(events):
                    yield event
                    await asyncio.sleep(0.005)
                    if then == "drop" and index == 2:
                        raise ConnectionAbortedError("the test drops the stream")
                if then == "error":
                    yield error
                    return
                if then in ("done", "done-hold"):
                    yield last
                while then in ("hold", "done-hold", "silent"):
                    if await request.is_disconnected():
                        return
                    if then != "silent":
                        yield b": keep-alive\n\n"
                    await asyncio.sleep(0.02)
            finally:
                left.set()

        return StreamingResponse(
            body(),
            media_type="text/event-stream",
            headers={"cache-control": "no-cache"},
        )


def serve() -> Iterator[LlmServer]:
    """For a fixture: the server, started and stopped."""
    with LlmServer() as server:
        yield server
