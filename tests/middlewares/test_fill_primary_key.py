"""FillPrimaryKey: the seed's Stream and Ticker."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_httpx import HTTPXMock

from restwire import Entity, RestEndpoint
from restwire.middlewares import CamelCaseKeys, FillPrimaryKey
from tests.pipeline.entities import Stream, Ticker

pytestmark = pytest.mark.anyio

API = "https://api.twitch.example"


async def test_stream_username_comes_from_the_path(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        url=f"{API}/sky/",
        json={"title": "t", "game": "go", "current_viewers": 3, "live": True},
    )
    get_stream = RestEndpoint(url_prefix=API, path="/:username/", schema=Stream).use(
        FillPrimaryKey("username")
    )
    stream = await controller.fetch(get_stream, {"username": "sky"})
    assert stream == Stream(
        username="sky", title="t", game="go", current_viewers=3, live=True
    )


async def test_ticker_product_id_comes_from_product_id_param(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        json={"trade_id": 7, "price": "42.5", "time": "2024-05-01T12:00:00Z"}
    )
    get_ticker = RestEndpoint(
        url_prefix=API, path="/products/:productId/ticker", schema=Ticker
    ).use(FillPrimaryKey("product_id", param="productId"))
    ticker = await controller.fetch(get_ticker, {"productId": "BTC-USD"})
    assert ticker.pk() == "BTC-USD"
    assert ticker.price == 42.5


async def test_a_key_the_server_sent_is_never_overwritten(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"username": "server-name"})
    endpoint = RestEndpoint(url_prefix=API, path="/:username/").use(
        FillPrimaryKey("username")
    )
    assert await controller.fetch(endpoint, {"username": "sky"}) == {
        "username": "server-name"
    }


async def test_lists_are_filled_item_by_item(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json=[{"title": "a"}, {"username": "kept"}, 5])
    endpoint = RestEndpoint(url_prefix=API, path="/:username/videos").use(
        FillPrimaryKey("username")
    )
    assert await controller.fetch(endpoint, {"username": "sky"}) == [
        {"title": "a", "username": "sky"},
        {"username": "kept"},
        5,
    ]


async def test_it_works_after_casing_in_the_stack(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"current_viewers": 1})
    endpoint = RestEndpoint(url_prefix=API, path="/:userName/").use(
        FillPrimaryKey("userName"), CamelCaseKeys()
    )
    assert await controller.fetch(endpoint, {"userName": "sky"}) == {
        "currentViewers": 1,
        "userName": "sky",
    }


async def test_a_param_is_given_the_type_its_field_is_annotated_with(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"title": "t"})
    get_stream = RestEndpoint(url_prefix=API, path="/:username/", schema=Stream).use(
        FillPrimaryKey("username")
    )
    stream = await controller.fetch(get_stream, {"username": 42})
    assert stream.username == "42"  # Stream.username is a str


class Counter(Entity):
    number: int = 0
    label: str = ""

    def pk(self) -> str:
        return str(self.number)


async def test_a_text_param_becomes_an_int_for_an_int_field(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json=[{"label": "a"}, {"label": "b", "number": 9}])
    counters = RestEndpoint(url_prefix=API, path="/counters/:number", schema=[Counter])
    values = await controller.fetch(
        counters.use(FillPrimaryKey("number")), {"number": "7"}
    )
    assert [value.number for value in values] == [7, 9]
