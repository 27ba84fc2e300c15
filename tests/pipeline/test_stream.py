"""``controller.stream``: server-sent events through the endpoint's chain,
reconnecting, bounded, closed on every way out; under both drivers, on
pytest-httpx and on a real server (``tests/servers.py``'s ``/sse``)."""

from __future__ import annotations

import inspect
import threading
import time
from collections.abc import AsyncIterator, Iterator
from decimal import Decimal
from typing import Any, ClassVar

import anyio
import anyio.to_thread
import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    BodyTooLarge,
    ContentError,
    Entity,
    RestEndpoint,
    ServerError,
    ServerSentEvent,
    TransportError,
    UnauthorizedError,
)
from restwire.middlewares import AccessToken
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
STREAM = {"content-type": "text/event-stream"}


class Price(Entity):
    id: str = ""
    price: Decimal = Decimal(0)

    schema: ClassVar[dict[str, Any]] = {"price": Decimal}


async def events_of(
    controller: Any,
    endpoint: RestEndpoint[Any],
    count: int | None = None,
    **options: Any,
) -> list[Any]:
    """The first ``count`` values of a stream (all, if ``None``), under
    either driver; the iterator closed after."""
    values = controller.stream(endpoint, **options)
    if inspect.isawaitable(values):
        values = await values  # the sync controller's, through Awaitable
    got: list[Any] = []
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
    return got


class Dropping(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A body that sends ``data`` and then fails as a dropped connection."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def __iter__(self) -> Iterator[bytes]:
        yield self.data
        raise httpx.ReadError("connection reset")

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.data
        raise httpx.ReadError("connection reset")


live = RestEndpoint(url_prefix=API, path="/live")


# -- pytest-httpx --------------------------------------------------------------------


async def test_events_come_through_the_chain_and_nothing_is_kept(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        headers=STREAM, content=b"event: tick\ndata: 1\nid: a\n\ndata: 2\n\n"
    )
    httpx_mock.add_response(status_code=204)
    endpoint = live.use(AccessToken("secret"))
    got = await events_of(controller, endpoint, retry=0)
    assert got == [
        ServerSentEvent("tick", "1", "a", None),
        ServerSentEvent("message", "2", "a", None),
    ]
    first, second = httpx_mock.get_requests()
    assert first.headers["accept"] == "text/event-stream"
    assert first.headers["cache-control"] == "no-cache"
    assert first.headers["access-token"] == "secret"
    assert "last-event-id" not in first.headers
    assert second.headers["last-event-id"] == "a"
    assert controller.store.partitions == {}  # no result, no record


async def test_a_dropped_stream_resumes_from_the_last_event_id(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        headers=STREAM, stream=Dropping(b"retry: 0\n\nid: 1\ndata: one\n\n")
    )
    httpx_mock.add_exception(httpx.ConnectError("refused"))
    httpx_mock.add_response(headers=STREAM, content=b"id: 2\ndata: two\n\n")
    httpx_mock.add_response(status_code=204)
    got = await events_of(controller, live)
    assert [e.data for e in got] == ["one", "two"]
    sent = [r.headers.get("last-event-id") for r in httpx_mock.get_requests()]
    assert sent == [None, "1", "1", "2"]


async def test_reconnections_in_a_row_are_bounded(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_exception(httpx.ConnectError("refused"), is_reusable=True)
    with pytest.raises(
        TransportError, match=r"GET https://api\.example\.com/live.*gave up after 2"
    ):
        await events_of(controller, live, max_reconnects=2, retry=0)
    assert len(httpx_mock.get_requests()) == 3


async def test_a_status_error_is_raised_not_reconnected(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(status_code=503, json={"detail": "down"})
    with pytest.raises(ServerError, match=r"GET https://api\.example\.com/live"):
        await events_of(controller, live)
    assert len(httpx_mock.get_requests()) == 1


async def test_a_response_that_is_not_an_event_stream_is_refused(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"price": 1})
    with pytest.raises(
        ContentError,
        match=r"^GET https://api\.example\.com/live: expected an event stream",
    ):
        await events_of(controller, live)


async def test_bad_options_are_refused(controller: Any) -> None:
    with pytest.raises(ValueError, match="max_event_size"):
        await events_of(controller, live, max_event_size=0)
    with pytest.raises(ValueError, match="max_reconnects"):
        await events_of(controller, live, max_reconnects=-1)


async def test_with_a_schema_events_are_typed_and_stored_as_entities(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    listing = RestEndpoint(url_prefix=API, path="/prices/", schema=[Price])
    httpx_mock.add_response(
        url=f"{API}/prices/",
        json=[{"id": "p1", "price": "1"}, {"id": "p2", "price": "2"}],
    )
    httpx_mock.add_response(
        url=f"{API}/live",
        headers=STREAM,
        content=b'data: {"id": "p2", "price": "20.5"}\n\n',
    )
    before = await controller.get(listing)
    pushed = await events_of(controller, live.extend(schema=Price), 1)
    assert pushed == [Price(id="p2", price=Decimal("20.5"))]
    after = await controller.get(listing)  # from the store, with the push
    assert [p.price for p in before] == [Decimal(1), Decimal(2)]
    assert [p.price for p in after] == [Decimal(1), Decimal("20.5")]
    assert len(httpx_mock.get_requests()) == 2


async def test_data_that_is_not_json_names_the_call(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(headers=STREAM, content=b"id: 9\ndata: oops\n\n")
    with pytest.raises(
        ContentError,
        match=r"^GET https://api\.example\.com/live: the data of event 'message' \(id '9'\) is not JSON",
    ):
        await events_of(controller, live.extend(schema=Price))


# -- a real server ---------------------------------------------------------------------


def sse(server: RecordingServer, name: str, query: str) -> RestEndpoint[Any]:
    return RestEndpoint(url_prefix=server.origin, path=f"/sse/{name}?{query}")


def sent_ids(server: RecordingServer) -> list[str | None]:
    return [r.headers.get("last-event-id") for r in server.requests]


async def test_reconnect_carries_last_event_id_and_honours_retry(
    controller: Any, origin_a: RecordingServer
) -> None:
    endpoint = sse(origin_a, "resume", "do=sse,sse,204&events=2&then=drop&retry=300")
    started = time.monotonic()
    got = await events_of(controller, endpoint)
    took = time.monotonic() - started
    assert [(e.event, e.id) for e in got] == [
        ("price", "1"),
        ("price", "2"),
        ("price", "3"),
        ("price", "4"),
    ]
    assert sent_ids(origin_a) == [None, "2", "4"]
    assert 0.6 <= took < 2.5  # two waits of retry: 300 ms, not the default 3 s


async def test_a_401_refreshes_then_streams(
    controller: Any, origin_a: RecordingServer
) -> None:
    token = AccessToken("old", refresh=lambda: "new")
    endpoint = sse(origin_a, "auth", "do=401,sse,204&events=1").use(token)
    got = await events_of(controller, endpoint, retry=0)
    assert [e.id for e in got] == ["1"]
    sent = [r.headers.get("access-token") for r in origin_a.requests]
    assert sent == ["old", "new", "new"]


async def test_a_401_without_refresh_is_raised(
    controller: Any, origin_a: RecordingServer
) -> None:
    endpoint = sse(origin_a, "denied", "do=401").use(AccessToken("old"))
    with pytest.raises(UnauthorizedError):
        await events_of(controller, endpoint)


@pytest.mark.parametrize("query", ["big=5000", "noline=5000"])
async def test_an_event_past_max_event_size_is_refused(
    controller: Any, origin_a: RecordingServer, query: str
) -> None:
    endpoint = sse(origin_a, "big", f"events=1&{query}&then=hold")
    got: list[Any] = []
    with pytest.raises(BodyTooLarge, match="max_event_size=1000"):
        got = await events_of(controller, endpoint, max_event_size=1000)
    assert got == []
    assert await anyio.to_thread.run_sync(hung_up(origin_a, "big").wait, 5)


def hung_up(server: RecordingServer, name: str) -> threading.Event:
    return server.hung_up.setdefault(name, threading.Event())


async def test_break_closes_the_connection(
    controller: Any, mode: str, origin_a: RecordingServer
) -> None:
    endpoint = sse(origin_a, "leave", "events=3&then=hold")
    got = []
    if mode == "sync":
        for event in await controller.stream(endpoint):
            got.append(event)
            break
    else:
        async for event in controller.stream(endpoint):
            got.append(event)
            break
    assert [e.id for e in got] == ["1"]
    # the server sees the disconnect (it writes a comment every 20 ms)
    assert await anyio.to_thread.run_sync(hung_up(origin_a, "leave").wait, 5)


async def close_soon(controller: Any, mode: str, seconds: float) -> None:
    await anyio.sleep(seconds)
    if mode == "sync":
        await anyio.to_thread.run_sync(controller.controller.close)
    else:
        await controller.close()


async def consume_while_closing(
    controller: Any, mode: str, endpoint: RestEndpoint[Any]
) -> tuple[list[Any], float]:
    """Read ``endpoint``'s stream while the controller closes 0.3 s in;
    what came, and how long the loop took."""
    got: list[Any] = []
    started = time.monotonic()
    if mode == "sync":
        timer = threading.Timer(0.3, controller.controller.close)
        timer.start()
        try:
            for event in await controller.stream(endpoint):
                got.append(event)
        finally:
            timer.cancel()
    else:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(close_soon, controller, mode, 0.3)
            async for event in controller.stream(endpoint):
                got.append(event)
    return got, time.monotonic() - started


async def test_close_during_a_reconnect_wait_ends_at_once(
    controller: Any, mode: str, origin_a: RecordingServer
) -> None:
    endpoint = sse(origin_a, "wait", "events=1&then=drop&retry=20000")
    got, took = await consume_while_closing(controller, mode, endpoint)
    assert [e.id for e in got] == ["1"]
    assert took < 3  # not the 20 s the server asked for
    assert len(origin_a.requests) == 1


async def test_close_during_a_read_ends_it_and_the_connection(
    controller: Any, mode: str, origin_a: RecordingServer
) -> None:
    # the server sends nothing more: only closing can end the read (its
    # timeout is the client's 5 s)
    endpoint = sse(origin_a, "reading", "events=1&then=silent")
    got, took = await consume_while_closing(controller, mode, endpoint)
    assert [e.id for e in got] == ["1"]
    assert took < 3
    assert await anyio.to_thread.run_sync(hung_up(origin_a, "reading").wait, 5)


async def test_a_pushed_entity_shows_in_a_get_of_another_endpoint(
    controller: Any, origin_a: RecordingServer
) -> None:
    body = '{"id": "p1", "price": "0"}'
    one = RestEndpoint(url_prefix=origin_a.origin, path="/json", schema=Price)
    params = {"body": body, "type": "application/json"}
    assert (await controller.get(one, params)).price == Decimal(0)
    endpoint = sse(origin_a, "push", "events=3&entity=p1").extend(schema=Price)
    got = await events_of(controller, endpoint, 3)
    assert [p.price for p in got] == [Decimal(1), Decimal(2), Decimal(3)]
    requests = len(origin_a.requests)
    assert (await controller.get(one, params)).price == Decimal(3)
    assert len(origin_a.requests) == requests  # from the store
