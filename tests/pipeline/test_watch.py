"""CallWatcher: told of each request a call sends and of its end, under both
controllers; what it adds goes on one hop alone, public headers only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    CallWatcher,
    Exchange,
    NotFoundError,
    RestEndpoint,
    TransportError,
)
from restwire.middlewares import Retry
from tests.servers import RecordingServer

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


class Recorder:
    """A watcher that records what it is told, and asks for two headers on
    each hop: one public (``traceparent``), one not."""

    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []

    def on_send(
        self, exchange: Exchange, request: httpx.Request
    ) -> Mapping[str, str] | None:
        self.events.append(("send", request.method, str(request.url)))
        return {"traceparent": f"hop-{len(self.events)}", "x-user": "ann"}

    def on_sent(
        self,
        exchange: Exchange,
        request: httpx.Request,
        response: httpx.Response | None,
        error: BaseException | None,
    ) -> None:
        status = response.status_code if response is not None else None
        cause = error.__cause__ if error is not None else None
        failed = f"{type(error).__name__}({type(cause).__name__})" if error else None
        self.events.append(("sent", status, failed))

    def on_end(
        self, exchange: Exchange, error: BaseException | None, answered: str | None
    ) -> None:
        self.events.append(("end", type(error).__name__ if error else None, answered))


class Watching:
    """A middleware that registers one Recorder per call."""

    def __init__(self) -> None:
        self.recorders: list[Recorder] = []

    def on_request(self, exchange: Exchange) -> None:
        if not exchange.watchers:
            recorder = Recorder()
            self.recorders.append(recorder)
            exchange.watch(recorder)


def test_a_recorder_is_a_call_watcher() -> None:
    watcher: CallWatcher = Recorder()
    assert watcher is not None


async def test_each_hop_is_told_and_the_end_once(
    controller_factory: Any, origin_a: RecordingServer, origin_b: RecordingServer
) -> None:
    controller = controller_factory()
    watching = Watching()
    away = f"{origin_b.origin}/echo"
    hop = RestEndpoint(
        url_prefix=origin_a.origin, path="/redirect/302", headers={"x-user": "own"}
    ).use(watching)
    await controller.fetch(hop, {"to": away})
    (recorder,) = watching.recorders
    kinds = [event[0] for event in recorder.events]
    assert kinds == ["send", "sent", "send", "sent", "end"]
    assert recorder.events[1] == ("sent", 302, None)
    assert recorder.events[3] == ("sent", 200, None)
    assert recorder.events[4] == ("end", None, None)
    # The public header went on each hop it was asked for, and only there:
    # the redirect's hop was built from the first without it.
    (first,) = origin_a.requests
    (second,) = origin_b.requests
    assert first.headers["traceparent"] == "hop-1"
    assert second.headers["traceparent"] == "hop-3"
    # A header that is not public is never added (the call's own is kept).
    assert first.headers["x-user"] == "own"
    assert "x-user" not in second.headers


async def test_a_store_answer_and_a_kept_error_are_told_without_a_send(
    controller_factory: Any, httpx_mock: HTTPXMock
) -> None:
    controller = controller_factory()
    watching = Watching()
    post = RestEndpoint(url_prefix=API, path="/posts/:id").use(watching)
    httpx_mock.add_response(url=f"{API}/posts/1", json={"id": "1"})
    httpx_mock.add_response(url=f"{API}/posts/2", status_code=404)
    await controller.get(post, {"id": "1"})
    await controller.get(post, {"id": "1"})
    for _ in range(2):
        with pytest.raises(NotFoundError):
            await controller.get(post, {"id": "2"})
    sent, stored, failed, kept = (r.events for r in watching.recorders)
    assert [e[0] for e in sent] == ["send", "sent", "end"]
    assert stored == [("end", None, "store")]
    assert failed[-1] == ("end", "NotFoundError", None)
    assert kept == [("end", "NotFoundError", "store")]


async def test_retries_are_each_told_and_a_transport_failure_keeps_httpx_cause(
    controller_factory: Any, httpx_mock: HTTPXMock
) -> None:
    controller = controller_factory()
    watching = Watching()
    post = RestEndpoint(url_prefix=API, path="/posts/1").use(
        Retry(attempts=2, backoff=0), watching
    )
    httpx_mock.add_exception(httpx.ConnectError("refused"))
    httpx_mock.add_exception(httpx.ConnectError("refused"))
    with pytest.raises(TransportError):
        await controller.fetch(post)
    (recorder,) = watching.recorders  # registered once, though Retry re-enters
    assert recorder.events == [
        ("send", "GET", f"{API}/posts/1"),
        ("sent", None, "TransportError(ConnectError)"),
        ("send", "GET", f"{API}/posts/1"),
        ("sent", None, "TransportError(ConnectError)"),
        ("end", "TransportError", None),
    ]


class Failing(Recorder):
    def on_send(
        self, exchange: Exchange, request: httpx.Request
    ) -> Mapping[str, str] | None:
        raise RuntimeError("watcher bug")

    def on_end(
        self, exchange: Exchange, error: BaseException | None, answered: str | None
    ) -> None:
        raise RuntimeError("watcher bug")


async def test_a_failing_watcher_is_logged_and_the_call_goes_on(
    controller_factory: Any, httpx_mock: HTTPXMock, caplog: pytest.LogCaptureFixture
) -> None:
    controller = controller_factory()

    class Register:
        def on_request(self, exchange: Exchange) -> None:
            exchange.watch(Failing())

    post = RestEndpoint(url_prefix=API, path="/posts/1").use(Register())
    httpx_mock.add_response(url=f"{API}/posts/1", json={"id": "1"})
    assert await controller.fetch(post) == {"id": "1"}
    assert sum("call watcher" in r.getMessage() for r in caplog.records) == 2


async def test_a_call_without_a_watcher_has_none(
    controller_factory: Any, httpx_mock: HTTPXMock
) -> None:
    controller = controller_factory()
    seen: list[Exchange] = []

    class Spy:
        def on_request(self, exchange: Exchange) -> None:
            seen.append(exchange)

    httpx_mock.add_response(url=f"{API}/posts/1", json={"id": "1"})
    await controller.fetch(RestEndpoint(url_prefix=API, path="/posts/1").use(Spy()))
    assert seen[0].watchers == ()
