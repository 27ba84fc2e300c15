"""BodyPagination: the next page named in the body, by URL or by cursor,
followed by controller.paginate under both drivers."""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import ContentError, Entity, InvalidRequest, RestEndpoint, paged
from restwire.middlewares import BodyPagination, LinkPagination
from tests.conftest import collect

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


class Item(Entity):
    id: str = ""


def drf_page(page: int, next_page: str | None) -> dict[str, Any]:
    """A page as Django REST framework's PageNumberPagination sends it."""
    return {
        "count": 5,
        "next": next_page,
        "previous": None,
        "results": [{"id": f"{page}-{n}"} for n in (1, 2)],
    }


async def test_a_next_url_in_the_body_is_followed_to_the_end(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    for page, following in [
        (f"{API}/items/", f"{API}/items/?page=2"),
        (f"{API}/items/?page=2", "/items/?page=3"),  # relative to the page's URL
        (f"{API}/items/?page=3", None),
    ]:
        number = int(page[-1]) if "page=" in page else 1
        httpx_mock.add_response(
            url=page, json=drf_page(number, following), is_reusable=True
        )
    items = RestEndpoint(url_prefix=API, path="/items/", schema=paged(Item)).use(
        BodyPagination()
    )
    pages = await collect(controller.paginate(items))
    assert [[item.id for item in page["results"]] for page in pages] == [
        ["1-1", "1-2"],
        ["2-1", "2-2"],
        ["3-1", "3-2"],
    ]
    assert all(page["count"] == 5 for page in pages)  # the rest of the body
    assert str(pages[0]["links"]["next"]) == f"{API}/items/?page=2"
    assert str(pages[1]["links"]["next"]) == f"{API}/items/?page=3"
    assert pages[2]["links"] == {}
    ids = [item.id for item in await collect(controller.paginate(items, items=True))]
    assert ids == ["1-1", "1-2", "2-1", "2-2", "3-1", "3-2"]


@pytest.mark.parametrize("last", [{"next_cursor": None}, {"next_cursor": ""}, {}])
async def test_a_cursor_is_sent_as_a_query_parameter(
    controller: Any, httpx_mock: HTTPXMock, last: dict[str, Any]
) -> None:
    httpx_mock.add_response(
        url=f"{API}/feed?limit=2", json={"items": [{"id": "a"}], "next_cursor": "c1"}
    )
    httpx_mock.add_response(
        url=f"{API}/feed?cursor=c1&limit=2",
        json={"items": [{"id": "b"}], "next_cursor": 42},
    )
    httpx_mock.add_response(
        url=f"{API}/feed?cursor=42&limit=2", json={"items": [{"id": "c"}], **last}
    )
    feed = RestEndpoint(url_prefix=API, path="/feed", schema=paged(Item)).use(
        BodyPagination(results="items", next="next_cursor", param="cursor")
    )
    found = await collect(controller.paginate(feed, {"limit": 2}, items=True))
    assert [item.id for item in found] == ["a", "b", "c"]
    assert [str(request.url) for request in httpx_mock.get_requests()][1:] == [
        f"{API}/feed?cursor=c1&limit=2",  # the cursor replaces, never repeats
        f"{API}/feed?cursor=42&limit=2",
    ]


async def test_pages_have_the_shape_link_pagination_gives(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        url=f"{API}/by-body", json={"results": [{"id": "1"}], "next": None}
    )
    httpx_mock.add_response(url=f"{API}/by-link", json=[{"id": "1"}])
    by_body = RestEndpoint(url_prefix=API, path="/by-body", schema=paged(Item))
    by_link = RestEndpoint(url_prefix=API, path="/by-link", schema=paged(Item))
    [body_page] = await collect(controller.paginate(by_body.use(BodyPagination())))
    [link_page] = await collect(controller.paginate(by_link.use(LinkPagination())))
    assert {"results", "link", "links", "total"} <= body_page.keys()
    assert link_page.keys() == {"results", "link", "links", "total"}
    assert body_page["results"] == link_page["results"] == [Item(id="1")]


async def test_a_next_page_already_fetched_ends_the_listing(
    controller: Any, httpx_mock: HTTPXMock, caplog: pytest.LogCaptureFixture
) -> None:
    httpx_mock.add_response(
        url=f"{API}/loop", json={"results": [1], "next": f"{API}/loop"}
    )
    loop = RestEndpoint(url_prefix=API, path="/loop").use(BodyPagination())
    with caplog.at_level(logging.WARNING, logger="restwire"):
        pages = await collect(controller.paginate(loop))
    assert len(pages) == 1
    assert "was already fetched; stopping" in caplog.text


async def test_max_pages_bounds_an_endless_cursor(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    def endless(request: httpx.Request) -> httpx.Response:
        cursor = int(request.url.params.get("after", "0"))
        return httpx.Response(200, json={"results": [cursor], "next": cursor + 1})

    httpx_mock.add_callback(endless, is_reusable=True)
    feed = RestEndpoint(url_prefix=API, path="/endless").use(
        BodyPagination(param="after")
    )
    found = await collect(controller.paginate(feed, items=True, max_pages=4))
    assert found == [0, 1, 2, 3]


async def test_a_next_page_on_another_origin_is_refused_unless_allowed(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        url=f"{API}/list",
        json={"results": [1], "next": "https://evil.example/list"},
        is_reusable=True,
    )
    httpx_mock.add_response(
        url="https://evil.example/list", json={"results": [2], "next": None}
    )
    listing = RestEndpoint(url_prefix=API, path="/list").use(BodyPagination())
    with pytest.raises(InvalidRequest, match="is on another origin"):
        await collect(controller.paginate(listing))
    found = await collect(controller.paginate(listing, items=True, cross_origin=True))
    assert found == [1, 2]


@pytest.mark.parametrize(
    ("bad", "param", "problem"),
    [
        (
            {"url": "/x"},
            None,
            "should be a URL .for a cursor, set param=., but it is a dict",
        ),
        (["/x"], None, "should be a URL .for a cursor, set param=., but it is a list"),
        (2, None, "should be a URL .for a cursor, set param=., but it is a int"),
        ("http://[::1", None, "is not a URL"),
        (True, "cursor", "should be a cursor .text or a number., but it is a bool"),
        (
            {"after": 1},
            "cursor",
            "should be a cursor .text or a number., but it is a dict",
        ),
    ],
)
async def test_a_next_that_names_no_page_is_a_content_error(
    controller: Any, httpx_mock: HTTPXMock, bad: Any, param: str | None, problem: str
) -> None:
    httpx_mock.add_response(url=f"{API}/list", json={"results": [], "next": bad})
    listing = RestEndpoint(url_prefix=API, path="/list").use(
        BodyPagination(param=param)
    )
    with pytest.raises(
        ContentError, match=f"GET {API}/list: the body's 'next' {problem}"
    ):
        await collect(controller.paginate(listing))


async def test_a_body_that_is_not_a_page_passes_unchanged(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(url=f"{API}/odd", json={"detail": "maintenance"})
    odd = RestEndpoint(url_prefix=API, path="/odd").use(BodyPagination())
    assert await controller.fetch(odd) == {"detail": "maintenance"}


def test_names_must_be_given_and_the_repr_shows_them() -> None:
    with pytest.raises(ValueError, match="non-empty"):
        BodyPagination(results="")
    assert repr(BodyPagination(next="after", param="cursor")) == (
        "BodyPagination(results='results', next='after', param='cursor')"
    )
