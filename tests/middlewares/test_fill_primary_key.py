"""FillPrimaryKey: the seed's Stream and Ticker."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest
from pytest_httpx import HTTPXMock

from restwire import Entity, RestEndpoint
from restwire.middlewares import CamelCaseKeys, FillPrimaryKey
from restwire.middlewares.fill_primary_key import _field_type
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


class Numbered(Entity):
    id: int = 0
    label: str = ""


class Named(Entity):
    id: str = ""
    label: str = ""


async def test_a_key_sent_as_null_is_filled(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"id": None, "label": "a"})
    endpoint = RestEndpoint(url_prefix=API, path="/n/:id", schema=Numbered).use(
        FillPrimaryKey("id")
    )
    assert await controller.fetch(endpoint, {"id": "7"}) == Numbered(id=7, label="a")


async def test_one_instance_gives_each_entity_class_its_own_type(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """One ``FillPrimaryKey`` shared by endpoints of two classes, whose
    ``id`` fields are annotated ``int`` and ``str``, in turns."""
    httpx_mock.add_response(json={"label": "a"}, is_reusable=True)
    fill = FillPrimaryKey("id")
    numbered = RestEndpoint(url_prefix=API, path="/n/:id", schema=Numbered).use(fill)
    named = RestEndpoint(url_prefix=API, path="/s/:id", schema=Named).use(fill)
    for _ in range(2):
        assert (await controller.fetch(numbered, {"id": "7"})).id == 7
        assert (await controller.fetch(named, {"id": 8})).id == "8"


async def test_an_annotation_that_resolves_later_is_read_once_it_does(
    controller: Any, httpx_mock: HTTPXMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A field annotated with a name not defined yet gets no conversion
    until the name resolves; then it gets the type it names."""
    httpx_mock.add_response(json={"label": "a"}, is_reusable=True)
    module = types.ModuleType("late_entities")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    module.Entity = Entity  # type: ignore[attr-defined]
    exec(  # an annotation naming a type its module defines later
        "from __future__ import annotations\n"
        "class Late(Entity):\n"
        "    check_types = False\n"
        "    id: LateId | None = None\n"
        "    label: str = ''\n",
        module.__dict__,
    )
    endpoint = RestEndpoint(url_prefix=API, path="/l/:id", schema=module.Late).use(
        FillPrimaryKey("id")
    )
    assert (await controller.fetch(endpoint, {"id": "7"})).id == "7"
    module.LateId = int  # type: ignore[attr-defined]
    _field_type.cache_clear()  # (its cache forgets in time; at once here)
    controller.reset()
    assert (await controller.fetch(endpoint, {"id": "7"})).id == 7
