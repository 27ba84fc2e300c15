"""``controller.stream(endpoint, params, body=...)``: POST streams as LLM
APIs answer them, against a real streaming service on 127.0.0.1 in
OpenAI's and Anthropic's wire shapes (``tests/llm_server.py``, uvicorn),
under both drivers: the body through the endpoint's middleware, events as
they come, typed by the schema or by the event's name, ``[DONE]`` ending
the stream unseen, and a POST never sent again when it drops."""

from __future__ import annotations

import inspect
import time
import uuid
from collections.abc import Iterator
from typing import Any, Literal

import anyio
import anyio.to_thread
import httpx
import pydantic
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    BodyTooLarge,
    EventSchemas,
    Exchange,
    RestEndpoint,
    RestwireError,
    ServerSentEvent,
    TransportError,
    UnauthorizedError,
    UsageError,
)
from restwire.middlewares import AccessToken, CamelCaseKeys, IdempotencyKey
from tests.llm_server import ANTHROPIC_KEY, OPENAI_KEY, LlmServer

pytestmark = pytest.mark.anyio

WORDS = ["Hello", " there", ",", " friend", "!"]


@pytest.fixture(scope="module")
def llm() -> Iterator[LlmServer]:
    with LlmServer() as server:
        yield server


@pytest.fixture(autouse=True)
def fresh(llm: LlmServer) -> None:
    llm.requests.clear()


# -- what the streams read -------------------------------------------------------


class Delta(pydantic.BaseModel):
    role: str | None = None
    content: str | None = None


class Choice(pydantic.BaseModel):
    index: int
    delta: Delta
    finish_reason: str | None = None


class ChatChunk(pydantic.BaseModel):
    id: str
    object: Literal["chat.completion.chunk"]
    choices: list[Choice]


class MessageStart(pydantic.BaseModel):
    type: Literal["message_start"]
    message: dict[str, Any]


class TextDelta(pydantic.BaseModel):
    type: str
    text: str


class ContentBlockDelta(pydantic.BaseModel):
    type: Literal["content_block_delta"]
    index: int
    delta: TextDelta


class MessageStop(pydantic.BaseModel):
    type: Literal["message_stop"]


def openai(llm: LlmServer) -> RestEndpoint[Any]:
    return RestEndpoint(
        url_prefix=llm.origin, path="/v1/chat/completions", method="POST"
    ).use(AccessToken.bearer(OPENAI_KEY))


def anthropic(llm: LlmServer) -> RestEndpoint[Any]:
    return RestEndpoint(
        url_prefix=llm.origin,
        path="/v1/messages",
        method="POST",
        headers={"anthropic-version": "2023-06-01"},
    ).use(AccessToken(ANTHROPIC_KEY, header="x-api-key"))


ASK = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hi"}]}
MESSAGES = EventSchemas[MessageStart | ContentBlockDelta | MessageStop](
    {
        "message_start": MessageStart,
        "content_block_delta": ContentBlockDelta,
        "message_stop": MessageStop,
    }
)


async def read(
    controller: Any,
    endpoint: RestEndpoint[Any],
    params: Any = None,
    body: Any = None,
    count: int | None = None,
    **options: Any,
) -> tuple[list[Any], BaseException | None]:
    """What the stream yielded (the first ``count``, or all) and the error
    that ended it, if one did; under either driver, the iterator closed."""
    values = controller.stream(endpoint, params, body, **options)
    if inspect.isawaitable(values):
        values = await values  # the sync controller's, through Awaitable
    got: list[Any] = []
    try:
        if hasattr(values, "__aiter__"):
            try:
                async for value in values:
                    got.append(value)
                    if len(got) == count:
                        break
            finally:
                await values.aclose()
        else:
            try:
                for value in values:
                    got.append(value)
                    if len(got) == count:
                        break
            finally:
                values.close()
    except Exception as error:
        return got, error
    return got, None


def text_of(chunks: list[ChatChunk]) -> str:
    return "".join(chunk.choices[0].delta.content or "" for chunk in chunks)


# -- OpenAI's shape ----------------------------------------------------------------


async def test_the_body_goes_through_the_middleware_and_done_is_not_yielded(
    controller: Any, llm: LlmServer
) -> None:
    endpoint = openai(llm).use(IdempotencyKey(), CamelCaseKeys())
    body = {**ASK, "stream": True, "maxTokens": 20}
    got, error = await read(controller, endpoint, body=body)
    assert error is None
    assert all(isinstance(event, ServerSentEvent) for event in got)
    assert [event.json()["choices"][0]["delta"] for event in got] == [
        {"role": "assistant", "content": ""},
        *({"content": word} for word in WORDS),
        {},
    ]
    (sent,) = llm.requests
    assert sent.body == {**ASK, "stream": True, "max_tokens": 20}  # snake_case
    assert sent.headers["authorization"] == f"Bearer {OPENAI_KEY}"
    assert sent.headers["accept"] == "text/event-stream"
    assert sent.headers["content-type"] == "application/json"
    assert uuid.UUID(sent.headers["idempotency-key"]).version == 4
    assert controller.store.partitions == {}  # nothing kept


async def test_events_are_typed_by_the_schema(controller: Any, llm: LlmServer) -> None:
    endpoint = openai(llm).extend(schema=ChatChunk, data_expiry_length=0)
    got, error = await read(controller, endpoint, body={**ASK, "stream": True})
    assert error is None
    assert all(isinstance(chunk, ChatChunk) for chunk in got)
    assert text_of(got) == "".join(WORDS)
    assert got[-1].choices[0].finish_reason == "stop"


async def test_done_ends_the_stream_though_the_connection_stays_open(
    controller: Any, llm: LlmServer
) -> None:
    endpoint = openai(llm).extend(schema=ChatChunk, data_expiry_length=0)
    params = {"then": "done-hold", "name": "done-hold"}
    got, error = await read(controller, endpoint, params, {**ASK, "stream": True})
    assert error is None
    assert text_of(got) == "".join(WORDS)
    # the server, still sending comments, sees the client go
    assert await anyio.to_thread.run_sync(llm.left("done-hold").wait, 5)


async def test_the_sentinel_is_configurable(controller: Any, llm: LlmServer) -> None:
    endpoint = openai(llm)
    body = {**ASK, "stream": True}
    got, _ = await read(controller, endpoint, {"done": "STOP"}, body, done="STOP")
    assert len(got) == 7
    got, _ = await read(controller, endpoint, None, body, done=None)
    assert [event.data for event in got[-2:]][1] == "[DONE]"
    assert len(got) == 8


async def test_a_post_stream_that_drops_is_not_sent_again(
    controller: Any, llm: LlmServer
) -> None:
    endpoint = openai(llm).extend(schema=ChatChunk, data_expiry_length=0)
    got, error = await read(
        controller, endpoint, {"then": "drop"}, {**ASK, "stream": True}, retry=0
    )
    assert text_of(got) == "Hello there"  # what came: role, two words
    assert isinstance(error, TransportError)
    assert str(error).startswith(f"POST {llm.origin}/v1/chat/completions?then=drop:")
    assert "after 3 events; a POST stream is not sent again" in str(error)
    assert isinstance(error.__cause__, httpx.HTTPError)
    time.sleep(0.2)
    assert len(llm.requests) == 1


async def test_a_clean_end_without_done_ends_a_post_stream(
    controller: Any, llm: LlmServer
) -> None:
    got, error = await read(
        controller, openai(llm), {"then": "end"}, {**ASK, "stream": True}, retry=0
    )
    assert error is None
    assert len(got) == 7
    assert len(llm.requests) == 1


async def test_a_refused_post_stream_raises_its_status_error(
    controller: Any, llm: LlmServer
) -> None:
    endpoint = openai(llm).use(AccessToken.bearer("sk-wrong-key"))
    got, error = await read(controller, endpoint, body={**ASK, "stream": True})
    assert got == []
    assert isinstance(error, UnauthorizedError)
    assert "sk-wrong-key" not in str(error)
    assert error.json()["error"]["code"] == "invalid_api_key"


async def test_the_read_timeout_bounds_the_silence_between_events(
    controller: Any, llm: LlmServer
) -> None:
    endpoint = openai(llm).extend(timeout=httpx.Timeout(5, read=0.5))
    params = {"then": "silent", "name": "silent"}
    started = time.monotonic()
    got, error = await read(controller, endpoint, params, {**ASK, "stream": True})
    assert len(got) == 7
    assert isinstance(error, TransportError)
    assert "nothing came for 0.5 s (the read timeout)" in str(error)
    assert time.monotonic() - started < 4
    assert len(llm.requests) == 1


async def test_an_event_past_max_event_size_is_refused(
    controller: Any, llm: LlmServer
) -> None:
    params = {"big": "5000", "then": "hold", "name": "big"}
    got, error = await read(
        controller, openai(llm), params, {**ASK, "stream": True}, max_event_size=1000
    )
    assert got == []
    assert isinstance(error, BodyTooLarge)
    assert "max_event_size=1000 bytes" in str(error)
    assert await anyio.to_thread.run_sync(llm.left("big").wait, 5)


async def test_cancelling_mid_stream_releases_the_connection(
    controller_factory: Any, mode: str, llm: LlmServer
) -> None:
    # one connection in the pool: a second stream gets it only if the
    # first gave it back
    controller = controller_factory(
        limits=httpx.Limits(max_connections=1),
        timeout=httpx.Timeout(5, pool=3),
    )
    endpoint = openai(llm).extend(schema=ChatChunk, data_expiry_length=0)
    params = {"then": "hold", "name": "cancelled"}
    got: list[Any] = []
    if mode == "sync":
        chunks = await controller.stream(endpoint, params, {**ASK, "stream": True})
        got.append(next(chunks))
        chunks.close()
        assert len(got) == 1
    else:
        with anyio.move_on_after(5) as scope:
            async for chunk in controller.stream(
                endpoint, params, {**ASK, "stream": True}
            ):
                got.append(chunk)
                scope.cancel()  # the task is cancelled in the middle of the stream
        assert scope.cancelled_caught
        # (the cancellation lands at the loop's next wait for the server: a
        # chunk that had already come in may be handed over first, as on a
        # busy machine, where the server's next chunk is there 5 ms later)
        assert got
    assert await anyio.to_thread.run_sync(llm.left("cancelled").wait, 5)
    again, error = await read(controller, endpoint, body={**ASK, "stream": True})
    assert error is None
    assert text_of(again) == "".join(WORDS)


# -- Anthropic's shape: a type per event name ------------------------------------------


async def test_events_are_typed_by_their_name(controller: Any, llm: LlmServer) -> None:
    endpoint = anthropic(llm).extend(schema=MESSAGES, data_expiry_length=0)
    body = {"model": "claude-3-5-sonnet-20240620", "max_tokens": 64, "stream": True}
    got, error = await read(controller, endpoint, body=body)
    assert error is None
    assert [type(event) for event in got] == [
        MessageStart,
        *[ContentBlockDelta] * len(WORDS),
        MessageStop,
    ]  # ping, content_block_start/stop and message_delta left out
    assert "".join(e.delta.text for e in got if isinstance(e, ContentBlockDelta)) == (
        "".join(WORDS)
    )
    (sent,) = llm.requests
    assert sent.headers["x-api-key"] == ANTHROPIC_KEY
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert sent.body == body


async def test_events_of_other_names_may_be_yielded_as_they_are(
    controller: Any, llm: LlmServer
) -> None:
    schemas = EventSchemas({"content_block_delta": ContentBlockDelta}, others="event")
    endpoint = anthropic(llm).extend(schema=schemas, data_expiry_length=0)
    got, error = await read(controller, endpoint, body={"stream": True})
    assert error is None
    names = [e.event if isinstance(e, ServerSentEvent) else "typed" for e in got]
    assert names == [
        "message_start",
        "content_block_start",
        "ping",
        *["typed"] * len(WORDS),
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]


async def test_an_event_schemas_endpoint_is_refused_by_fetch_before_sending(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    endpoint = RestEndpoint(
        url_prefix="https://api.example.com", path="/v1/messages", method="POST"
    ).extend(schema=MESSAGES)
    with pytest.raises(
        UsageError, match=r"^POST https://api\.example\.com/v1/messages: .*stream\(\)"
    ):
        await controller.fetch(endpoint, body={"stream": True})
    assert httpx_mock.get_requests() == []


class Overloaded(RestwireError):
    pass


class ProviderErrors:
    """An ``on_event`` middleware: Anthropic's ``event: error`` raised."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def on_event(self, exchange: Exchange, event: ServerSentEvent) -> None:
        self.seen.append(event.event)
        if event.event == "error":
            raise Overloaded(f"{exchange.label}: {event.json()['error']['message']}")


async def test_on_event_sees_every_event_and_may_end_the_stream(
    controller: Any, llm: LlmServer
) -> None:
    watcher = ProviderErrors()
    endpoint = anthropic(llm).extend(schema=MESSAGES, data_expiry_length=0)
    endpoint = endpoint.use(watcher)
    got, error = await read(controller, endpoint, {"then": "error"}, {"stream": 1})
    assert [type(event) for event in got] == [
        MessageStart,
        *[ContentBlockDelta] * len(WORDS),
    ]
    assert isinstance(error, Overloaded)
    assert str(error) == f"POST {llm.origin}/v1/messages?then=error: Overloaded"
    assert watcher.seen[:3] == ["message_start", "content_block_start", "ping"]
    assert watcher.seen[-2:] == ["message_delta", "error"]  # skipped ones too
    assert len(llm.requests) == 1


def test_event_schemas_are_checked_where_written() -> None:
    with pytest.raises(UsageError, match="mapping of event names"):
        EventSchemas({})
    with pytest.raises(UsageError, match="not an event name"):
        EventSchemas({"a\nb": MessageStop})
    with pytest.raises(UsageError, match=r"not a schema: EventSchemas\['delta'\]"):
        EventSchemas({"delta": 42})  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="'skip' or 'event'"):
        EventSchemas({"delta": MessageStop}, others="raise")  # type: ignore[call-overload]
    assert EventSchemas(dict(MESSAGES.schemas)) == MESSAGES
    assert hash(MESSAGES) == hash(EventSchemas(dict(MESSAGES.schemas)))
    assert "'message_stop': MessageStop" in repr(MESSAGES)
