"""``controller.set``: a value kept as if the endpoint had answered it, for
the caller's identity only, with its subscribers told."""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextvars import ContextVar
from decimal import Decimal
from typing import Any, ClassVar

import anyio
import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import (
    AsyncController,
    Controller,
    Entity,
    EntityError,
    InvalidRequest,
    RestEndpoint,
)
from restwire.middlewares import ContextToken
from tests.waiting import HANG

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


class Price(Entity):
    id: str = ""
    price: Decimal = Decimal(0)

    schema: ClassVar[dict[str, Any]] = {"price": Decimal}


price = RestEndpoint(url_prefix=API, path="/prices/:id", schema=Price)
prices = RestEndpoint(url_prefix=API, path="/prices/", schema=[Price])

user: ContextVar[str | None] = ContextVar("test_set_user", default=None)
by_user = price.use(ContextToken(user))


def served(httpx_mock: HTTPXMock, value: Any = None) -> None:
    httpx_mock.add_response(
        json=value or {"id": "p1", "price": "1.00"}, is_reusable=True
    )


async def test_a_get_after_set_is_answered_without_a_request(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    stored = await controller.set(price, {"id": "p1", "price": "2.50"}, {"id": "p1"})
    assert stored == Price(id="p1", price=Decimal("2.50"))
    assert await controller.get(price, {"id": "p1"}) == stored
    assert httpx_mock.get_requests() == []


async def test_set_takes_entities_as_themselves_and_merges_them(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        json=[{"id": "p1", "price": "1"}, {"id": "p2", "price": "2"}]
    )
    await controller.get(prices)
    await controller.set(price, Price(id="p1", price=Decimal(9)), {"id": "p1"})
    # the listing holds the record set() merged: read back with no request
    listed = await controller.get(prices)
    assert [each.price for each in listed] == [Decimal(9), Decimal(2)]
    assert len(httpx_mock.get_requests()) == 1


async def as_user(name: str, call: Any) -> Any:
    token = user.set(name)
    try:
        return await call
    finally:
        user.reset(token)


async def test_one_callers_set_is_never_anothers(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    served(httpx_mock)
    p1 = {"id": "p1"}
    bobs = await as_user("bob", controller.get(by_user, p1))  # fetched, kept
    ann_set = await as_user(
        "ann", controller.set(by_user, {"id": "p1", "price": "7"}, p1)
    )
    assert ann_set.price == Decimal(7)
    assert await as_user("bob", controller.get(by_user, p1)) == bobs
    assert (await as_user("ann", controller.get(by_user, p1))).price == Decimal(7)
    assert (await as_user("cy", controller.get(by_user, p1))).price == Decimal("1.00")
    sent = [request.headers["access-token"] for request in httpx_mock.get_requests()]
    assert sent == ["bob", "cy"]  # ann's get came from her set; bob's from his


async def test_the_clients_credentials_tell_callers_apart_too(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    served(httpx_mock)
    controller.client.headers["authorization"] = "Bearer ann"
    await controller.set(price, {"id": "p1", "price": "7"}, {"id": "p1"})
    controller.client.headers["authorization"] = "Bearer bob"
    assert (await controller.get(price, {"id": "p1"})).price == Decimal("1.00")
    controller.client.headers["authorization"] = "Bearer ann"
    assert (await controller.get(price, {"id": "p1"})).price == Decimal(7)
    assert len(httpx_mock.get_requests()) == 1


async def test_a_set_is_fresh_for_data_expiry_length(
    controller_factory: Callable[..., Any], httpx_mock: HTTPXMock, clock: Any
) -> None:
    served(httpx_mock)
    controller = controller_factory(clock=clock)
    short = price.extend(data_expiry_length=5)
    await controller.set(short, {"id": "p1", "price": "7"}, {"id": "p1"})
    clock.advance(4)
    assert (await controller.get(short, {"id": "p1"})).price == Decimal(7)
    clock.advance(2)
    assert (await controller.get(short, {"id": "p1"})).price == Decimal("1.00")


async def test_a_side_effect_endpoint_is_refused_by_name(controller: Any) -> None:
    create = prices.extend(method="POST", name="create price")
    with pytest.raises(
        InvalidRequest, match=r"^create price: set\(\) keeps what a read"
    ):
        await controller.set(create, {"id": "p1", "price": "1"})


async def test_a_value_the_schema_refuses_names_the_call(controller: Any) -> None:
    with pytest.raises(EntityError, match=r"^GET https://api\.example\.com/prices/p1"):
        await controller.set(price, ["not", "an", "object"], {"id": "p1"})


def test_subscribers_hear_a_set_and_their_poller_waits_an_interval(
    httpx_mock: HTTPXMock,
) -> None:
    served(httpx_mock)
    heard: list[Decimal] = []
    first = threading.Event()
    second = threading.Event()

    def listen(value: Price) -> None:
        heard.append(value.price)
        (second if first.is_set() else first).set()

    with Controller() as controller:
        polled = price.extend(poll_frequency=60)
        controller.subscribe(polled, {"id": "p1"}, listen)
        assert first.wait(HANG)
        controller.set(polled, {"id": "p1", "price": "3"}, {"id": "p1"})
        assert second.is_set()  # told at once, in the caller's thread
    assert heard == [Decimal("1.00"), Decimal(3)]
    assert len(httpx_mock.get_requests()) == 1


async def test_async_subscribers_hear_a_set(httpx_mock: HTTPXMock) -> None:
    served(httpx_mock)
    heard: list[Decimal] = []
    first = anyio.Event()

    async def listen(value: Price) -> None:
        heard.append(value.price)
        first.set()

    async with AsyncController() as controller:
        polled = price.extend(poll_frequency=60)
        controller.subscribe(polled, {"id": "p1"}, listen)
        with anyio.fail_after(HANG):
            await first.wait()
        await controller.set(polled, {"id": "p1", "price": "3"}, {"id": "p1"})
        # another caller's set is not this subscriber's
        controller.client.headers["authorization"] = "Bearer bob"
        await controller.set(polled, {"id": "p1", "price": "4"}, {"id": "p1"})
    assert heard == [Decimal("1.00"), Decimal(3)]


async def test_a_caller_restwire_cannot_see_is_refused(httpx_mock: HTTPXMock) -> None:
    def hook(request: httpx.Request) -> None:
        return None

    client = httpx.Client(event_hooks={"request": [hook]})
    with (
        Controller(client) as controller,
        pytest.raises(InvalidRequest, match="cannot tell who"),
    ):
        controller.set(price, {"id": "p1", "price": "1"}, {"id": "p1"})
    client.close()
