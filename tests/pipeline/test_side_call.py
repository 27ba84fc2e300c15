"""SideCall: a middleware's call of another endpoint, on the controller's
client, through that endpoint's own middleware only, never stored."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    CallNext,
    Exchange,
    Flow,
    NetworkError,
    RestEndpoint,
    SideCall,
)
from restwire._base.library import Response

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
AUTH = "https://auth.example.com"


class Marker:
    """Adds ``X-Layer: <name>`` to every call it sees."""

    def __init__(self, name: str) -> None:
        self.name = name

    def on_request(self, exchange: Exchange) -> None:
        exchange.headers["X-Layer"] = self.name


class AsksFirst:
    """Calls ``side`` before each call, and puts what it said in a header."""

    def __init__(self, side: RestEndpoint[Any], body: Any = None) -> None:
        self.side = side
        self.body = body
        self.seen: list[Any] = []

    def handle(self, exchange: Exchange, call_next: CallNext) -> Flow[Response]:
        value, response = yield SideCall(self.side, {"id": "7"}, self.body)
        self.seen.append((value, response.status_code))
        exchange.set_credential("X-Ticket", str(value["ticket"]))
        return (yield from call_next(exchange))


async def test_a_side_call_runs_its_own_middleware_not_the_caller_s(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(url=f"{AUTH}/ticket/7", json={"ticket": "t-1"})
    httpx_mock.add_response(url=f"{API}/x", json={"ok": True})
    side = RestEndpoint(url_prefix=AUTH, path="/ticket/:id", method="POST").use(
        Marker("side")
    )
    asks = AsksFirst(side, body={"want": 1})
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(asks, Marker("api"))
    assert await controller.fetch(endpoint) == {"ok": True}
    ticket, call = httpx_mock.get_requests()
    assert ticket.headers["x-layer"] == "side"  # its own stack, not the caller's
    assert ticket.content == b'{"want":1}'
    assert call.headers["x-layer"] == "api"
    assert call.headers["x-ticket"] == "t-1"
    assert asks.seen == [({"ticket": "t-1"}, 200)]
    # nothing of the side call is kept: the call's own result alone
    assert [key.split(" ", 1)[1] for key in controller.store.results] == [f"{API}/x"]


async def test_a_side_call_s_error_status_reaches_the_middleware(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(url=f"{AUTH}/ticket/7", status_code=503)
    side = RestEndpoint(url_prefix=AUTH, path="/ticket/:id", method="POST")
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(AsksFirst(side))
    with pytest.raises(NetworkError) as caught:
        await controller.fetch(endpoint)
    assert caught.value.status == 503
    assert str(caught.value.url) == f"{AUTH}/ticket/7"
    assert len(httpx_mock.get_requests()) == 1  # the call itself never went


def test_a_side_call_goes_through_the_controller_s_transport() -> None:
    from restwire import Controller

    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(200, json={"ticket": "t"})

    side = RestEndpoint(url_prefix=AUTH, path="/ticket/:id", method="POST")
    endpoint = RestEndpoint(url_prefix=API, path="/x").use(AsksFirst(side))
    with Controller(transport=httpx.MockTransport(handler)) as controller:
        controller.fetch(endpoint)
    assert seen == [f"{AUTH}/ticket/7", f"{API}/x"]
