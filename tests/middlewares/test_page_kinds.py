"""BodyPagination's kinds (a dotted next, Stripe's cursor, page numbers,
offsets), followed by controller.paginate under both drivers, and the
ContentError a page gets when it says something unusable."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import ContentError, Entity, RestEndpoint, paged
from restwire.middlewares import BodyPagination
from tests.conftest import collect

pytestmark = pytest.mark.anyio

API = "https://api.example.com"
#: Ten records, ids "r0".."r9", as the fake servers below list them.
RECORDS = [{"id": f"r{n}"} for n in range(10)]


class Item(Entity):
    id: str = ""


def listing(kind: BodyPagination, path: str = "/items") -> Any:
    return RestEndpoint(url_prefix=API, path=path, schema=paged(Item)).use(kind)


async def ids(controller: Any, endpoint: Any, params: Any = None, **more: Any) -> Any:
    found = await collect(controller.paginate(endpoint, params, items=True, **more))
    return [item.id for item in found]


def sent(httpx_mock: HTTPXMock) -> list[str]:
    return [str(request.url).removeprefix(API) for request in httpx_mock.get_requests()]


# -- a next URL at a dotted path ----------------------------------------------------


async def test_a_next_url_at_a_dotted_path(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    def jsonapi(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params.get("page", "1"))
        following = f"/items?page={page + 1}" if page < 3 else None
        return httpx.Response(
            200,
            json={
                "data": RECORDS[(page - 1) * 3 : page * 3],
                "links": {"self": str(request.url), "next": following},
                "meta": {"total": 9},
            },
        )

    httpx_mock.add_callback(jsonapi, is_reusable=True)
    kind = BodyPagination(results="data", next="links.next")
    assert await ids(controller, listing(kind)) == [f"r{n}" for n in range(9)]
    [first, *_] = await collect(controller.paginate(listing(kind)))
    assert str(first["links"]["next"]) == f"{API}/items?page=2"
    assert first["meta"] == {"total": 9}  # the body's other fields stay


# -- Stripe's cursor ----------------------------------------------------------------


def stripe(request: httpx.Request) -> httpx.Response:
    """Stripe's list: ``limit`` records after ``starting_after``."""
    after = request.url.params.get("starting_after")
    limit = int(request.url.params.get("limit", "10"))
    start = (
        next(n + 1 for n, r in enumerate(RECORDS) if r["id"] == after) if after else 0
    )
    data = RECORDS[start : start + limit]
    return httpx.Response(
        200,
        json={
            "object": "list",
            "url": "/v1/items",
            "data": data,
            "has_more": start + limit < len(RECORDS),
        },
    )


async def test_stripe_cursor_from_the_last_items_id(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_callback(stripe, is_reusable=True)
    kind = BodyPagination.cursor(
        results="data", more="has_more", cursor_from="id", param="starting_after"
    )
    found = await ids(controller, listing(kind), {"limit": 4})
    assert found == [record["id"] for record in RECORDS]
    assert sent(httpx_mock) == [
        "/items?limit=4",
        "/items?limit=4&starting_after=r3",
        "/items?limit=4&starting_after=r7",
    ]


async def test_the_cursor_kind_in_keywords_reads_the_same(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_callback(stripe, is_reusable=True)
    kind = BodyPagination(
        results="data", more="has_more", cursor_from="id", param="starting_after"
    )
    assert repr(kind) == repr(BodyPagination.cursor())
    found = await ids(controller, listing(kind), {"limit": 4})
    assert found == [record["id"] for record in RECORDS]


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (
            {"data": [{"id": "a"}], "has_more": "yes"},
            "the body's 'has_more' should be true or false, but it is a str",
        ),
        (
            {"data": [{"id": "a"}]},
            "the body's 'has_more' should be true or false, but it is missing",
        ),
        (
            {"data": [{"id": "a"}, {"name": "b"}], "has_more": True},
            "the last item's 'id' should be a cursor .text or a number., "
            "but it is missing",
        ),
        (
            {"data": [{"id": None}], "has_more": True},
            "the last item's 'id' should be a cursor .text or a number., "
            "but it is a NoneType",
        ),
    ],
)
async def test_a_stripe_page_that_names_no_cursor_is_a_content_error(
    controller: Any, httpx_mock: HTTPXMock, body: Any, problem: str
) -> None:
    httpx_mock.add_response(url=f"{API}/items", json=body)
    with pytest.raises(ContentError, match=f"^GET {API}/items: {problem}"):
        await ids(controller, listing(BodyPagination.cursor()))


async def test_a_cursor_with_no_flag_goes_on_until_an_empty_page(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(url=f"{API}/items", json={"data": [{"id": "a"}]})
    httpx_mock.add_response(url=f"{API}/items?after=a", json={"data": []})
    kind = BodyPagination.cursor(more=None, param="after")
    assert await ids(controller, listing(kind)) == ["a"]


# -- page numbers -------------------------------------------------------------------


def fastapi_pagination(request: httpx.Request) -> httpx.Response:
    """fastapi-pagination's Page: ``page`` and ``size`` in, ``pages`` out."""
    page = int(request.url.params.get("page", "1"))
    size = int(request.url.params.get("size", "50"))
    return httpx.Response(
        200,
        json={
            "items": RECORDS[(page - 1) * size : page * size],
            "total": len(RECORDS),
            "page": page,
            "size": size,
            "pages": -(-len(RECORDS) // size),
        },
    )


async def test_page_numbers_up_to_a_count_of_pages(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_callback(fastapi_pagination, is_reusable=True)
    kind = BodyPagination.pages(results="items", page="page", pages="pages")
    pages = await collect(controller.paginate(listing(kind), {"size": 4}))
    assert [[item.id for item in page["results"]] for page in pages] == [
        ["r0", "r1", "r2", "r3"],
        ["r4", "r5", "r6", "r7"],
        ["r8", "r9"],
    ]
    assert [page["total"] for page in pages] == [10, 10, 10]
    assert sent(httpx_mock) == [
        "/items?size=4",
        "/items?page=2&size=4",
        "/items?page=3&size=4",
    ]


@pytest.mark.parametrize(
    ("size", "query"), [(4, "?_limit=4"), ("_limit", "?_limit=4"), ("_limit", "")]
)
async def test_page_numbers_up_to_a_total_of_items(
    controller: Any, httpx_mock: HTTPXMock, size: Any, query: str
) -> None:
    """json-server's ``_page``: a bare list, the total in ``X-Total-Count``;
    the size a number, the query parameter that says it, or (that absent)
    what the first page held."""

    def json_server(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params.get("_page", "1"))
        limit = int(request.url.params.get("_limit", "4"))
        return httpx.Response(
            200,
            json=RECORDS[(page - 1) * limit : page * limit],
            headers={"X-Total-Count": str(len(RECORDS))},
        )

    httpx_mock.add_callback(json_server, is_reusable=True)
    kind = BodyPagination.pages(results=None, page="_page", size=size)
    params = dict([query[1:].split("=")]) if query else None
    assert await ids(controller, listing(kind), params) == [r["id"] for r in RECORDS]
    assert len(httpx_mock.get_requests()) == 3 + (query == "")  # an empty 4th


@pytest.mark.parametrize(
    ("body", "kind", "problem"),
    [
        (
            {"items": [{"id": "a"}], "pages": "3"},
            BodyPagination.pages(pages="pages"),
            "the body's 'pages' should be a whole number, but it is a str",
        ),
        (
            {"items": [{"id": "a"}], "pages": 2.0},
            BodyPagination.pages(pages="pages"),
            "the body's 'pages' should be a whole number, but it is a float",
        ),
        (
            {"items": [{"id": "a"}]},
            BodyPagination.pages(size=1),
            "the page states no total of items",
        ),
        (
            {"items": [{"id": "a"}], "meta": {"total": -1}},
            BodyPagination.pages(size=1, total="meta.total"),
            "the body's 'meta.total' should be a whole number, but it is a int",
        ),
    ],
)
async def test_a_page_count_that_is_no_whole_number_is_a_content_error(
    controller: Any, httpx_mock: HTTPXMock, body: Any, kind: Any, problem: str
) -> None:
    httpx_mock.add_response(url=f"{API}/items", json=body)
    with pytest.raises(ContentError, match=f"^GET {API}/items: {problem}"):
        await ids(controller, listing(kind))


async def test_a_page_number_in_the_url_that_is_no_number_is_a_content_error(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(json={"items": [{"id": "a"}], "pages": 3})
    with pytest.raises(ContentError, match="says page='two', which is not a whole"):
        await ids(
            controller, listing(BodyPagination.pages(pages="pages")), {"page": "two"}
        )


# -- offsets ------------------------------------------------------------------------


def drf_limit_offset(request: httpx.Request) -> httpx.Response:
    """DRF's LimitOffsetPagination, which caps ``limit`` at 3."""
    offset = int(request.url.params.get("offset", "0"))
    limit = min(int(request.url.params.get("limit", "3")), 3)
    return httpx.Response(
        200,
        json={
            "count": len(RECORDS),
            "next": None,  # (named too; the offsets kind does not need it)
            "previous": None,
            "results": RECORDS[offset : offset + limit],
        },
    )


async def test_offsets_up_to_a_count_skip_nothing_when_the_limit_is_capped(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_callback(drf_limit_offset, is_reusable=True)
    kind = BodyPagination.offsets(offset="offset", count="count")
    found = await ids(controller, listing(kind), {"limit": 5})
    assert found == [record["id"] for record in RECORDS]
    assert sent(httpx_mock) == [
        "/items?limit=5",
        "/items?limit=5&offset=3",
        "/items?limit=5&offset=6",
        "/items?limit=5&offset=9",
    ]


async def test_offsets_of_a_bare_list_with_x_total_count(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    def json_server(request: httpx.Request) -> httpx.Response:
        start = int(request.url.params.get("_start", "0"))
        limit = int(request.url.params["_limit"])
        return httpx.Response(
            200,
            json=RECORDS[start : start + limit],
            headers={"X-Total-Count": "7"},  # fewer than it holds: the total wins
        )

    httpx_mock.add_callback(json_server, is_reusable=True)
    kind = BodyPagination.offsets(results=None, offset="_start")
    found = await ids(controller, listing(kind), {"_limit": 4})
    assert found == [f"r{n}" for n in range(8)]  # pages of 4: 0-3, 4-7
    assert len(httpx_mock.get_requests()) == 2


async def test_offsets_with_no_count_end_at_an_empty_page(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        url=f"{API}/items?limit=2", json={"results": [{"id": "a"}, {"id": "b"}]}
    )
    httpx_mock.add_response(
        url=f"{API}/items?limit=2&offset=2", json={"results": [{"id": "c"}]}
    )
    httpx_mock.add_response(url=f"{API}/items?limit=2&offset=3", json={"results": []})
    assert await ids(controller, listing(BodyPagination.offsets()), {"limit": 2}) == [
        "a",
        "b",
        "c",
    ]


async def test_an_offset_count_that_is_no_whole_number_is_a_content_error(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(
        url=f"{API}/items", json={"results": [{"id": "a"}], "count": None}
    )
    with pytest.raises(
        ContentError,
        match=f"^GET {API}/items: the body's 'count' should be a whole number, "
        "but it is a NoneType",
    ):
        await ids(controller, listing(BodyPagination.offsets(count="count")))


async def test_max_pages_bounds_a_listing_whose_count_lies(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    def endless(request: httpx.Request) -> httpx.Response:
        offset = int(request.url.params.get("offset", "0"))
        return httpx.Response(
            200, json={"results": [{"id": str(offset)}], "count": 10**9}
        )

    httpx_mock.add_callback(endless, is_reusable=True)
    found = await ids(controller, listing(BodyPagination.offsets()), max_pages=3)
    assert found == ["0", "1", "2"]


async def test_a_page_with_no_items_ends_the_listing_whatever_it_says(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """A total or a flag that lies cannot make a listing go on for ever."""
    httpx_mock.add_response(json={"items": [], "pages": 99}, is_reusable=True)
    httpx_mock.add_response(
        url=f"{API}/cursor", json={"data": [], "has_more": True}, is_reusable=True
    )
    assert await ids(controller, listing(BodyPagination.pages(pages="pages"))) == []
    assert await ids(controller, listing(BodyPagination.cursor(), "/cursor")) == []
    assert len(httpx_mock.get_requests()) == 2


# -- where the middleware is written ------------------------------------------------


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: BodyPagination.pages(), "give pages="),
        (lambda: BodyPagination.pages(size=0), "size must be at least 1"),
        (lambda: BodyPagination.pages(pages="pages", first=-1), "first must be 0"),
        (lambda: BodyPagination.cursor(param=""), "param must be a non-empty name"),
        (
            lambda: BodyPagination.cursor(cursor_from="a..b"),
            "cursor_from must be a field",
        ),
        (lambda: BodyPagination.offsets(offset=""), "offset must be a non-empty"),
        (lambda: BodyPagination.offsets(results=""), "results must be a non-empty"),
        (lambda: BodyPagination(next="links."), "next must be a field name"),
        (lambda: BodyPagination(more="has_more"), "more= goes with cursor_from="),
        (lambda: BodyPagination(next="n", cursor_from="id"), "takes no next="),
    ],
)
def test_a_kind_that_names_nothing_is_refused_where_it_is_written(
    make: Any, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        make()


def test_each_kind_shows_its_options() -> None:
    assert repr(BodyPagination.cursor()) == (
        "BodyPagination(results='data', more='has_more', cursor_from='id', "
        "param='starting_after')"
    )
    assert repr(BodyPagination.pages(pages="pages")) == (
        "BodyPagination(results='items', page='page', pages='pages')"
    )
    assert repr(BodyPagination.offsets(results=None, offset="_start")) == (
        "BodyPagination(results=None, offset='_start')"
    )
    assert (
        repr(BodyPagination(next=None))
        == "BodyPagination(results='results', next=None)"
    )
