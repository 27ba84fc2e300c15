"""Anthropic's messages, streamed: a type per event name.

An API key on every request, and data pushed as it comes.
Each choice, and why:

- ``AccessToken(key, header="x-api-key")`` and ``anthropic-version`` on
  the base: Anthropic reads the key from ``x-api-key`` (a credential:
  kept to its origin, never shown) and the API version from a header.
- ``controller.stream(messages, body=...)``: a ``POST`` with a JSON body
  (``"stream": true``) answered as named events. ``EventSchemas`` reads
  each by its name: ``message_start``, ``content_block_delta`` and
  ``message_stop`` here; ``ping`` and the other names are left out
  (``others="event"`` would yield them as ``ServerSentEvent``\\ s), so
  event types Anthropic adds later do not break the loop.
- ``AnthropicErrors``, a four-line ``on_event`` middleware: Anthropic
  reports a failure mid-stream as ``event: error`` after a 200; it is
  raised as a ``RestwireError`` naming the call, after the events that
  came. A dropped stream is never sent again by itself.

To use it against Anthropic: ``messages_endpoint(ANTHROPIC_API,
os.environ["ANTHROPIC_API_KEY"])`` and a model you may call.
"""

from __future__ import annotations

from typing import Any

import pydantic

from restwire import (
    Controller,
    EventSchemas,
    Exchange,
    RestEndpoint,
    RestwireError,
    ServerSentEvent,
)
from restwire.middlewares import AccessToken

from .tour import Tour

#: The demo API's key: yours comes from the environment (see above).
ANTHROPIC_KEY = "sk-ant-demo"

TITLE = "Anthropic: messages streamed, each event typed by its name"

ANTHROPIC_API = "https://api.anthropic.com"


class Message(pydantic.BaseModel):
    id: str
    model: str


class MessageStart(pydantic.BaseModel):
    message: Message


class TextDelta(pydantic.BaseModel):
    type: str
    text: str = ""


class ContentBlockDelta(pydantic.BaseModel):
    index: int
    delta: TextDelta


class MessageStop(pydantic.BaseModel):
    type: str


Event = MessageStart | ContentBlockDelta | MessageStop


class AnthropicError(RestwireError):
    """An ``event: error`` in the middle of a stream."""


class AnthropicErrors:
    """Raise Anthropic's mid-stream ``event: error``."""

    def on_event(self, exchange: Exchange, event: ServerSentEvent) -> None:
        if event.event == "error":
            raise AnthropicError(f"{exchange.label}: {event.data[:200]}")


def messages_endpoint(base_url: str, key: str) -> RestEndpoint[Event]:
    return RestEndpoint(
        url_prefix=base_url,
        path="/v1/messages",
        method="POST",
        headers={"anthropic-version": "2023-06-01"},
        schema=EventSchemas[Event](
            {
                "message_start": MessageStart,
                "content_block_delta": ContentBlockDelta,
                "message_stop": MessageStop,
            }
        ),
        data_expiry_length=0,
    ).use(AccessToken(key, header="x-api-key"), AnthropicErrors())


def run(base_url: str, tour: Tour) -> Any:
    messages = messages_endpoint(base_url, ANTHROPIC_KEY)
    question = {
        "model": "claude-3-5-sonnet-20240620",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": "events have names"}],
        "stream": True,
    }
    kinds: list[str] = []
    text = ""
    with tour.client() as client, Controller(client) as controller:
        for event in controller.stream(messages, body=question):
            kinds.append(type(event).__name__)
            if isinstance(event, MessageStart):
                tour.say(f"started: {event.message.id} ({event.message.model})")
            elif isinstance(event, ContentBlockDelta):
                text += event.delta.text
            else:
                tour.say("stopped")
    tour.say(f"text: {text}")
    return {"text": text, "kinds": kinds}
