"""LinkPagination: the seed's wrapping rule, and parsed links."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_httpx import HTTPXMock

from restwire import Exchange, RestEndpoint
from restwire.middlewares import LinkPagination

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
listing = RestEndpoint(url_prefix=API, path="/articles/").use(LinkPagination())


async def test_a_link_header_wraps_the_value(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    header = '</articles/?page=2>; rel="next"'
    httpx_mock.add_response(json={"count": 2}, headers={"link": header})
    value = await controller.fetch(listing)
    assert value["link"] == header
    assert value["results"] == {"count": 2}
    assert value["links"]["next"].url == f"{API}/articles/?page=2"


async def test_a_list_wraps_with_no_link(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json=[1, 2])
    assert await controller.fetch(listing) == {
        "link": None,
        "results": [1, 2],
        "links": {},
        "total": None,
    }


async def test_anything_else_passes_unchanged(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"id": "1"})
    assert await controller.fetch(listing) == {"id": "1"}


async def test_links_are_on_the_exchange_too(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        json=[], headers={"link": "<https://x.example/2>; rel=next"}
    )
    seen: dict[str, Any] = {}

    class Look:
        def on_response(self, exchange: Exchange) -> None:
            seen.update(exchange.state["links"])

    await controller.fetch(
        RestEndpoint(url_prefix=API, path="/a").use(Look(), LinkPagination())
    )
    assert str(seen["next"]) == "https://x.example/2"


async def test_a_malformed_link_header_is_kept_and_parses_to_nothing(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json=[], headers={"link": "<<<;;;,,,"})
    value = await controller.fetch(listing)
    assert value == {"link": "<<<;;;,,,", "results": [], "links": {}, "total": None}
