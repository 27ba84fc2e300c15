"""OpenAI's chat completions, streamed: a POST answered as server-sent events.

An API key on every request, and data pushed as it comes, on the most
common streaming call in Python today. Each choice, and why:

- ``AccessToken.bearer(key)``: OpenAI takes the API key as
  ``Authorization: Bearer sk-...``; kept to its origin, never shown.
- ``controller.stream(chat, body=...)``: the request is a ``POST`` with a
  JSON body (``"stream": true``), and the answer an event stream, each
  event a ``chat.completion.chunk``. The body goes through the endpoint's
  middleware like any call's; each chunk is read by ``ChatChunk`` (pydantic
  models: fields OpenAI adds later are ignored) as it arrives.
- ``data: [DONE]``, OpenAI's last event, ends the loop without being
  yielded.
- A dropped stream is never sent again by itself: the question would be
  answered (and paid for) twice. You get the chunks that came, then a
  ``TransportError``; asking again is your choice.
- ``data_expiry_length=0``: chunks are not records to keep.

To use it against OpenAI (or a compatible server: vLLM, Ollama, LiteLLM):
``chat_endpoint(OPENAI_API, os.environ["OPENAI_API_KEY"])`` and a model
you may call.
"""

from __future__ import annotations

from typing import Any

import pydantic

from restwire import Controller, RestEndpoint
from restwire.middlewares import AccessToken

from .tour import Tour

#: The demo API's key: yours comes from the environment (see above).
OPENAI_KEY = "sk-demo-openai"

TITLE = "OpenAI: a chat completion streamed, chunk by chunk, until [DONE]"

OPENAI_API = "https://api.openai.com"


class Delta(pydantic.BaseModel):
    role: str | None = None
    content: str | None = None


class Choice(pydantic.BaseModel):
    index: int
    delta: Delta
    finish_reason: str | None = None


class ChatChunk(pydantic.BaseModel):
    id: str
    model: str
    choices: list[Choice]


def chat_endpoint(base_url: str, key: str) -> RestEndpoint[ChatChunk]:
    return RestEndpoint(
        url_prefix=base_url,
        path="/v1/chat/completions",
        method="POST",
        schema=ChatChunk,
        data_expiry_length=0,
    ).use(AccessToken.bearer(key))


def run(base_url: str, tour: Tour) -> Any:
    chat = chat_endpoint(base_url, OPENAI_KEY)
    question = {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": "streams are neat"}],
        "stream": True,
    }
    pieces: list[str] = []
    finish = None
    with tour.client() as client, Controller(client) as controller:
        for chunk in controller.stream(chat, body=question):
            choice = chunk.choices[0]
            pieces.append(choice.delta.content or "")
            finish = choice.finish_reason or finish
            tour.say(f"chunk: {choice.delta.content!r}")
    answer = "".join(pieces)
    tour.say(f"answer: {answer} (finish_reason {finish})")
    return {"answer": answer, "chunks": len(pieces), "finish": finish}
