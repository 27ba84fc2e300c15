"""resource(..., results=...): lists wrapped in an envelope give pages, which
creates join, deletes leave, and paginate follows, under both drivers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from pytest_httpx import HTTPXMock

from restwire import Entity, Resource, RestEndpoint, paged, resource
from restwire.middlewares import BodyPagination, SnakeCaseKeys
from tests.conftest import collect

pytestmark = pytest.mark.anyio

API = "https://api.example.com"


class Card(Entity):
    id: str = ""
    name: str = ""


def cards(**options: Any) -> Resource[Card, Any]:
    return resource(
        path="/cards/:id", schema=Card, endpoint=RestEndpoint(url_prefix=API), **options
    )


#: The three envelopes the issue names, each holding cards "a" and "b".
ENVELOPES: dict[str, dict[str, Any]] = {
    "data": {"object": "list", "url": "/cards", "has_more": False},
    "results": {"count": 2, "next": None, "previous": None},
    "items": {"total": 2, "page": 1, "size": 50, "pages": 1},
}
TWO = [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}]


@pytest.mark.parametrize("results", list(ENVELOPES))
async def test_get_list_gives_a_page_of_the_envelopes_items(
    controller: Any, httpx_mock: HTTPXMock, results: str
) -> None:
    envelope = ENVELOPES[results]
    httpx_mock.add_response(url=f"{API}/cards/", json={**envelope, results: TWO})
    api = cards(results=results)
    assert api.get_list.schema == paged(Card)
    page = await controller.fetch(api.get_list)
    assert page["results"] == [Card(id="a", name="A"), Card(id="b", name="B")]
    assert {name: page[name] for name in envelope} == envelope  # beside them
    assert page["total"] == (None if results == "data" else 2)
    assert page["links"] == {}
    assert await controller.get(api.get_list) == page  # stored as it was read


@pytest.mark.parametrize(("new_items", "order"), [("end", "abn"), ("start", "nab")])
async def test_a_created_record_joins_a_stored_wrapped_list(
    controller: Any, httpx_mock: HTTPXMock, new_items: Any, order: str
) -> None:
    httpx_mock.add_response(url=f"{API}/cards/", json={"data": TWO, "has_more": False})
    httpx_mock.add_response(method="POST", json={"id": "n", "name": "N"})
    api = cards(results="data", new_items=new_items)
    await controller.fetch(api.get_list)
    await controller.fetch(api.create, body={"name": "N"})
    page = await controller.get(api.get_list)  # from the store: no request left
    assert "".join(card.id for card in page["results"]) == order
    assert page["has_more"] is False


async def test_a_deleted_record_leaves_a_stored_wrapped_list(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_response(url=f"{API}/cards/", json={"results": TWO, "count": 2})
    httpx_mock.add_response(method="DELETE", url=f"{API}/cards/a", status_code=204)
    api = cards(results="results")
    await controller.fetch(api.get_list)
    await controller.fetch(api.delete, {"id": "a"})
    page = await controller.get(api.get_list)
    assert page["results"] == [Card(id="b", name="B")]
    assert page["count"] == 2  # the envelope's fields are the server's


def stripe(request: httpx.Request) -> httpx.Response:
    """Cards c0..c4, two a page, Stripe's way."""
    after = request.url.params.get("starting_after")
    start = int(after[1:]) + 1 if after else 0
    data = [{"id": f"c{n}", "name": str(n)} for n in range(start, min(start + 2, 5))]
    return httpx.Response(
        200, json={"object": "list", "data": data, "has_more": start + 2 < 5}
    )


async def test_paginate_follows_the_resources_pagination(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    httpx_mock.add_callback(stripe, method="GET", is_reusable=True)
    api = cards(pagination=BodyPagination.cursor())
    found = await collect(controller.paginate(api.get_list, items=True))
    assert [card.id for card in found] == ["c0", "c1", "c2", "c3", "c4"]


@pytest.mark.parametrize(
    ("new_items", "joined"),
    [("end", [[], [], ["n"]]), ("start", [["n"], [], []])],
)
async def test_a_created_record_joins_the_page_where_the_listing_ends_or_starts(
    controller: Any, httpx_mock: HTTPXMock, new_items: Any, joined: list[list[str]]
) -> None:
    """Pages of ``paginate`` are stored by their URLs with the listing's
    params; the record joins the last page (``"end"``) or the first
    (``"start"``), never a page in the middle."""
    httpx_mock.add_callback(stripe, method="GET", is_reusable=True)
    httpx_mock.add_response(method="POST", json={"id": "n", "name": "N"})
    api = cards(pagination=BodyPagination.cursor(), new_items=new_items)
    await collect(controller.paginate(api.get_list))
    await controller.fetch(api.create, body={"name": "N"})
    stored = controller.store.results  # each page, by its URL
    pages = [
        f"GET {API}/cards/{query}"
        for query in ("", "?starting_after=c1", "?starting_after=c3")
    ]
    added = [
        [pk for _, pk in stored[page].value["results"] if pk == "n"] for page in pages
    ]
    assert added == joined


async def test_the_envelope_is_read_after_the_other_middleware(
    controller: Any, httpx_mock: HTTPXMock
) -> None:
    """Outermost on get_list: its names are the ones key casing leaves."""
    httpx_mock.add_response(
        url=f"{API}/cards/", json={"Data": TWO, "hasMore": True, "totalCount": 9}
    )
    api = resource(
        path="/cards/:id",
        schema=Card,
        endpoint=RestEndpoint(url_prefix=API).use(SnakeCaseKeys()),
        results="data",
    )
    page = await controller.fetch(api.get_list)
    assert [card.id for card in page["results"]] == ["a", "b"]
    assert page["has_more"] is True


def test_results_and_pagination_must_agree() -> None:
    with pytest.raises(ValueError, match="disagrees"):
        cards(results="items", pagination=BodyPagination.cursor(results="data"))
    assert cards(results="data", pagination=BodyPagination.cursor()).get_list
    with pytest.raises(TypeError, match="pagination must be a BodyPagination"):
        cards(pagination=SnakeCaseKeys())
    assert cards().get_list.schema == [Card]  # a bare list, as before
